"""The ceilings model on hand-computed cases: each formula, then whole ladders built from
lower-rung records and findings as a run stores them, with the bottleneck each must name."""

from __future__ import annotations

import pytest

from stackprobe.analysis.ceilings import (
    balanced_write,
    link_pair,
    network_read,
    storage_network_write,
)
from stackprobe.analysis.ladder_inputs import Pool, lower_rungs
from stackprobe.report.ladder_tables import run_ladder
from stackprobe.schema.records import (
    CephInventoryRecord,
    InventoryRecord,
    IoRecord,
    IoStats,
    MemBwRecord,
    OsdBenchRecord,
)
from stackprobe.schema.results import RunInfo, RunResults, StepResult

MB = 1e6


# ---------------------------------------------------------------- formulas by hand

def test_balanced_write_is_n_times_the_slowest_over_the_factor():
    assert balanced_write([200 * MB] * 6, 3) == pytest.approx(400 * MB)  # 6 × 200 / 3
    assert balanced_write([200 * MB] * 5 + [50 * MB], 3) == pytest.approx(100 * MB)  # 6 × 50 / 3
    assert balanced_write([100 * MB] * 6, 1.5) == pytest.approx(400 * MB)  # EC 4+2: 6 × 100 / 1.5


def test_network_bounds():
    # two 10 GbE storage hosts, replication 3: 20 Gbit/s = 2.5 GB/s in, each byte enters 3 times
    assert storage_network_write([10e9, 10e9], 3) == pytest.approx(2.5e9 / 3)
    assert network_read([10e9, 10e9]) == pytest.approx(2.5e9)
    assert link_pair(10_000, 1_000) == 1e9  # the slower NIC: 1 GbE


def test_pool_write_factor():
    assert Pool("r", "replicated", 3).write_factor == 3
    assert Pool("e", "erasure", 6, k=4, m=2).write_factor == 1.5
    assert Pool("e", "erasure", 6, k=4, m=2).describe() == "erasure 4+2"


# ---------------------------------------------------------------- whole ladders

def _run(host="client", ceph=None, steps=()):
    info = RunInfo(id="r", suite="s", suite_source="s.yaml", target="/t", host=host,
                   started="2026-01-01T00:00:00Z", stackprobe_version="0", ceph=ceph)
    return RunResults(run=info, steps=list(steps))


def _step(i, kind, layer="cluster", **kw):
    return StepResult(id=f"{i:02d}-{kind}", index=i, name=kind, kind=kind, title=kw.pop("title", kind),
                      layer=layer, params=kw.pop("params", {}), status="ok", **kw)


def _nic_inventory(host, mbps):
    return InventoryRecord(host=host, nics=[{"name": "eth0", "speed_mbps": mbps, "operstate": "up",
                                             "virtual": False}])


def _cluster(osd_bw, pool_size=3, storage=("s1", "s2"), nic=10_000, client_nic=25_000):
    """Inventories of the client and two storage hosts, a Ceph inventory, and osd bench."""
    invs = [_nic_inventory("client", client_nic)] + [_nic_inventory(h, nic) for h in storage]
    osds = [OsdBenchRecord(osd=i, bytes_written=1 << 30, block_bytes=4 << 20, elapsed_s=1,
                           bw_bytes=bw, iops=bw / (4 << 20), host=storage[i % len(storage)])
            for i, bw in enumerate(osd_bw)]
    ceph = CephInventoryRecord(osds=[{"id": o.osd, "host": o.host} for o in osds],
                               pools=[{"name": "runpool", "type": "replicated", "size": pool_size}])
    return [_step(1, "inventory", "hardware", records=invs),
            _step(2, "ceph_inventory", records=[ceph]),
            _step(3, "osd_bench", "daemon", records=osds)]


def _rados(write_bw, read_bw):
    recs = [IoRecord(job="write", tool="rados bench", write=IoStats(bw_bytes=write_bw, iops=1)),
            IoRecord(job="seq", tool="rados bench", read=IoStats(bw_bytes=read_bw, iops=1))]
    return _step(4, "rados_bench", title="rados bench 4M", params={"block_size": "4M"},
                 records=recs)


def test_balanced_cluster_is_limited_by_its_osds():
    """6 OSDs × 200 MB/s / 3 = 400 MB/s; storage NICs 2 × 10 GbE / 3 = 833 MB/s; client
    25 GbE = 3.1 GB/s. Write 300 MB/s = 75% of 400: the OSD layer. Read: no OSD read rate;
    the storage NICs (2.5 GB/s) bound it; 2.0 GB/s = 80%: the storage-node network."""
    results = _run(ceph={"pool": "runpool"},
                   steps=[*_cluster([200 * MB] * 6), _rados(300 * MB, 2.0e9)])
    write, read = run_ladder(results)
    assert write.ceiling == pytest.approx(400 * MB) and write.efficiency == pytest.approx(0.75)
    assert write.bottleneck == "OSD layer"
    assert [t.layer for t in sorted(write.terms, key=lambda t: t.value)] == [
        "OSD layer", "storage-node network", "client network"]
    assert write.terms[1].value == pytest.approx(2.5e9 / 3)
    assert "limited by the OSD layer" in write.verdict and "replication 3" in write.verdict
    assert read.ceiling == pytest.approx(2.5e9) and read.bottleneck == "storage-node network"
    assert any("OSD read rate" in m for m in read.missing)


def test_a_slow_osd_is_named_even_when_much_is_lost_above_it():
    """One OSD at 50 MB/s: 6 × 50 / 3 = 100 MB/s. Measured 40 MB/s = 40%, yet the slow
    OSD is the bottleneck: it bounds every PG it is in."""
    results = _run(ceph={"pool": "runpool"},
                   steps=[*_cluster([200 * MB] * 5 + [50 * MB]), _rados(40 * MB, 2.0e9)])
    write = run_ladder(results)[0]
    assert write.ceiling == pytest.approx(100 * MB) and write.efficiency == pytest.approx(0.4)
    assert write.bottleneck == "OSD layer" and write.limiting.culprit == "osd.5"
    assert "osd.5 on s2 is 0.25× the median OSD" in write.verdict


def test_measured_above_the_ceiling_is_a_warning_naming_the_inputs():
    results = _run(ceph={"pool": "runpool"},
                   steps=[*_cluster([200 * MB] * 6), _rados(500 * MB, 2.0e9)])
    write = run_ladder(results)[0]
    assert write.efficiency == pytest.approx(1.25)
    [warning] = write.warnings
    assert "exceeds the OSD layer ceiling" in warning and "cache" in warning
    assert "osd.0" in warning


def test_erasure_pool_uses_k_plus_m_over_k():
    steps = _cluster([100 * MB] * 6)
    steps[1].records[0].pools = [{"name": "runpool", "type": "erasure", "size": 6,
                                  "ec_profile": {"k": 4, "m": 2}}]
    write = run_ladder(_run(ceph={"pool": "runpool"}, steps=[*steps, _rados(300 * MB, 1e9)]))[0]
    assert write.ceiling == pytest.approx(400 * MB)  # 6 × 100 / 1.5
    assert "erasure 4+2" in write.limiting.text


def test_missing_rungs_are_said_and_derivable_ceilings_kept():
    """No osd bench, no pool known: the OSD term is missing; the NICs still bound it."""
    steps = _cluster([200 * MB] * 6)[:1] + [_rados(300 * MB, 1e9)]
    steps[0].records.append(_nic_inventory("s1", 10_000))
    results = _run(ceph={"pool": "runpool"}, steps=steps)
    write = run_ladder(results)[0]
    assert any("OSD write rates" in m for m in write.missing)
    assert write.limiting.layer == "client network"  # the only bound left: 25 GbE
    assert any("storage hosts' NIC speeds" in m for m in write.missing)


def test_a_cluster_on_this_host_has_no_network_terms():
    steps = _cluster([200 * MB] * 3, storage=("client",))
    write = run_ladder(_run(ceph={"pool": "runpool"}, steps=[*steps, _rados(150 * MB, 1e9)]))[0]
    assert [t.layer for t in write.terms] == ["OSD layer"]
    assert any("no network between clients and OSDs" in n for n in write.notes)


def test_disks_together_far_below_their_sum_name_the_host_layer():
    scaling = {"h1": {"singles": {"/d1": 30 * MB, "/d2": 30 * MB, "/d3": 30 * MB},
                      "sum_bw": 90 * MB, "aggregate_bw": 31 * MB, "ratio": 0.344,
                      "min_aggregate": 0.7, "flagged": True}}
    step = _step(1, "disk_baseline", "disk", params={"rw": "read"}, hosts=["h1"],
                 findings={"disk_scaling": scaling})
    [rung] = run_ladder(_run(steps=[step]))
    assert rung.ceiling == pytest.approx(90 * MB) and rung.efficiency == pytest.approx(31 / 90)
    assert rung.bottleneck == "host/controller layer of h1 (HBA, backplane, PCIe link)"
    assert "66% is lost above it" in rung.verdict


def test_a_shaped_link_names_the_network_path():
    net = {"links": {"h1": {"nic": "eth0", "speed_mbps": 10_000},
                     "h2": {"nic": "eth0", "speed_mbps": 10_000}},
           "cells": [{"client": "h1", "server": "h2", "bps": 0.19e9},
                     {"client": "h2", "server": "h1", "bps": 9.1e9},
                     {"client": "h2", "server": "h9", "bps": 1e9}]}
    step = _step(1, "network", "network", findings={"network": net})
    slow, fast, unknown = run_ladder(_run(steps=[step]))
    assert slow.ceiling == pytest.approx(1.25e9) and slow.efficiency == pytest.approx(0.019)
    assert slow.bottleneck.startswith("network path h1→h2")
    assert fast.bottleneck == "NIC link" and fast.efficiency == pytest.approx(0.91)
    assert unknown.ceiling is None and unknown.missing == ["h9 NIC link speed"]
    assert "no ceiling: missing h9 NIC link speed" in unknown.verdict


def test_lower_rungs_keep_where_each_figure_came_from():
    low = lower_rungs(_run(ceph={"pool": "runpool"}, steps=_cluster([200 * MB] * 2)))
    assert low.nic_mbps == {"client": 25_000, "s1": 10_000, "s2": 10_000}
    assert [(o.osd, o.host, o.step) for o in low.osds] == [(0, "s1", "03-osd_bench"),
                                                            (1, "s2", "03-osd_bench")]
    assert low.pool().write_factor == 3 and not low.cluster_is_local


def test_bandwidth_rungs_use_large_block_benches_and_iops_rungs_small_ones():
    """Two benches per OSD (4M and 4K): a 4M write is bounded by the 4M figures, a 4K
    write's IOPS by the 4K bench: 3 × 1000 IOPS / 3 = 1000 IOPS."""
    steps = _cluster([300 * MB] * 3)
    steps.append(_step(5, "osd_bench", "daemon", records=[
        OsdBenchRecord(osd=i, bytes_written=12 << 20, block_bytes=4096, elapsed_s=3,
                       bw_bytes=4e6, iops=1000.0, host=("s1", "s2")[i % 2]) for i in range(3)]))
    small = _step(6, "rbd_bench", title="rbd 4K", params={"io_size": "4K"},
                  records=[IoRecord(job="w", tool="rbd bench", write=IoStats(iops=600, bw_bytes=2.4e6))])
    big, _, iops = run_ladder(_run(ceph={"pool": "runpool"}, steps=[*steps, _rados(200 * MB, 1e9), small]))
    assert big.limiting.layer == "OSD layer" and big.limiting.value == pytest.approx(300 * MB)
    assert iops.metric == "iops" and iops.limiting.value == pytest.approx(1000)
    assert iops.efficiency == pytest.approx(0.6)


def test_storage_hosts_disks_bound_reads_and_writes():
    """disk_baseline on both storage hosts: reads ≤ Σ devices together (2 × 1 GB/s), writes
    ≤ Σ / 3; the client's memory bounds both (read 8 GB/s for writes, write 5 GB/s for reads)."""
    scaling = {h: {"singles": {"/d": 1e9}, "sum_bw": 1e9, "aggregate_bw": 1e9, "ratio": 1.0,
                   "min_aggregate": 0.7, "flagged": False} for h in ("s1", "s2")}
    disks_read = _step(7, "disk_baseline", "disk", params={"rw": "read"}, hosts=["s1", "s2"],
                       findings={"disk_scaling": scaling})
    disks_write = _step(8, "disk_baseline", "disk", params={"rw": "write"}, hosts=["s1", "s2"],
                        findings={"disk_scaling": scaling})
    memory = _step(9, "memory", "hardware", records=[
        MemBwRecord(tool="sysbench", operation="read", bw_bytes=8e9, host="client"),
        MemBwRecord(tool="sysbench", operation="write", bw_bytes=5e9, host="client")])
    steps = [*_cluster([2e9] * 6), disks_read, disks_write, memory, _rados(500 * MB, 1.8e9)]
    rungs = {r.name: r for r in run_ladder(_run(ceph={"pool": "runpool"}, steps=steps))}
    write, read = rungs["rados bench 4M: write"], rungs["rados bench 4M: seq"]
    terms = {t.layer: t.value for t in read.terms}
    assert terms == pytest.approx({"storage devices": 2e9, "storage-node network": 2.5e9,
                                   "client network": 3.125e9, "client memory": 5e9})
    assert read.bottleneck == "storage devices" and read.efficiency == pytest.approx(0.9)
    assert not read.missing
    wterms = {t.layer: t.value for t in write.terms}
    assert wterms["storage devices"] == pytest.approx(2e9 / 3)
    assert wterms["OSD layer"] == pytest.approx(4e9) and wterms["client memory"] == 8e9
    assert write.bottleneck == "storage devices" and write.efficiency == pytest.approx(0.75)


def test_a_cpu_outlier_is_named_beside_the_network_path_and_virtual_nics_explained():
    net = {"links": {h: {"nic": "eth0", "speed_mbps": 10_000} for h in ("h1", "h3")},
           "cells": [{"client": "h3", "server": "h1", "bps": 4e9},
                     {"client": "h1", "server": "h3", "bps": 16e9}]}
    cpu = {"metric": "CPU throughput (matrix)", "figures": [
        {"node": "h1", "ratio": 1.0, "flagged": False}, {"node": "h3", "ratio": 0.21, "flagged": True}]}
    steps = [_step(1, "cpu", "hardware", findings={"consistency": [cpu]}),
             _step(2, "network", "network", findings={"network": net})]
    slow, fast = run_ladder(_run(steps=steps))
    assert slow.efficiency == pytest.approx(0.4)
    assert slow.bottleneck.endswith("or h3's CPU (0.21× the median host in node consistency)")
    [warning] = fast.warnings  # 16 Gbit/s over a 10 Gbit/s veth: the speed is nominal
    assert "nominal speed it does not enforce" in warning and "cache" not in warning


def test_of_a_cpu_pair_that_differs_only_the_slower_host_is_a_cpu_limit():
    """Two hosts that differ are both flagged (neither is known to be right); only the one
    below the other can hold a path back."""
    pair = {"metric": "CPU throughput (matrix)", "figures": [
        {"node": "h1", "ratio": 1.2, "flagged": True}, {"node": "h2", "ratio": 0.8, "flagged": True}]}
    low = lower_rungs(_run(steps=[_step(1, "cpu", "hardware", findings={"consistency": [pair]})]))
    assert low.cpu_outliers == {"h2": 0.8}


def test_a_nodes_stream_copy_bounds_its_memory_like_a_memory_step():
    """hpcc's StarSTREAM per process times the processes is the node's rate; an HPL over
    all hosts (host 'all clients') says nothing of one node."""
    from stackprobe.schema.hpc_records import HpccRecord
    from stackprobe.schema.sentinels import FLEET_HOST

    node = HpccRecord(host="h1", procs=4, stream_bw_bytes={"star_copy": 5e9, "star_triad": 6e9})
    cluster = HpccRecord(host=FLEET_HOST, procs=8, stream_bw_bytes={"star_copy": 9e9})
    low = lower_rungs(_run(steps=[_step(1, "stream", "hardware", records=[node]),
                                  _step(2, "hpl_cluster", "hardware", records=[cluster])]))
    assert low.membw == {("h1", "read"): 20e9, ("h1", "write"): 20e9}


def test_a_node_slow_in_hpl_is_a_cpu_limit_like_one_slow_in_stress_ng():
    hpl = {"metric": "HPL", "role": "client", "figures": [
        {"node": "h1", "ratio": 1.0, "flagged": False}, {"node": "h2", "ratio": 1.0, "flagged": False},
        {"node": "h3", "ratio": 0.3, "flagged": True}]}
    low = lower_rungs(_run(steps=[_step(1, "hpl", "hardware", findings={"consistency": [hpl]})]))
    assert low.cpu_outliers == {"h3": 0.3}
