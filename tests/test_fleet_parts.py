"""The pure parts of the multi-host runners: fio client arguments and the exact merge of a
fleet's clients, disk-baseline command lines, network pair choice and NIC lookup."""

from pathlib import Path

import pytest

from stackprobe.analysis.histogram import merge_bins, percentiles
from stackprobe.kinds.fio.disk_baseline import DiskBaselineStep, fio_argv
from stackprobe.kinds.fio.fio_fleet import client_args, host_of_job, merge_clients
from stackprobe.kinds.network.network import nic_of
from stackprobe.kinds.network.pairs import choose_pairs
from stackprobe.parsers.fio.fio_json import parse_fio_json

FIXTURE = Path(__file__).parent / "fixtures/recorded/fio-3.33_client_jsonplus_2clients_randread.txt"


def test_each_client_gets_its_own_job_file():
    # fio 3.33 runs only the last client when several --client share one job file
    argv = client_args([("10.99.0.11", Path("job-h1.fio")), ("10.99.0.12", Path("job-h2.fio"))])
    assert argv == ["--client=ip:10.99.0.11,8765", "job-h1.fio",
                    "--client=ip:10.99.0.12,8765", "job-h2.fio"]


def test_host_of_job_reads_the_suffix_only_for_known_hosts():
    assert host_of_job("fleet@h2", ["h1", "h2"]) == "h2"
    assert host_of_job("a@b@h1", ["h1"]) == "h1"
    assert host_of_job("fleet@h9", ["h1"]) is None
    assert host_of_job("fleet", ["h1"]) is None


def test_merged_fleet_matches_fio_all_clients_and_has_exact_percentiles():
    records = parse_fio_json(FIXTURE.read_text())
    clients = [r for r in records if r.host != "all"]
    fio_all = next(r for r in records if r.host == "all")
    assert len(clients) == 2
    merged = merge_clients(clients, "fleet")
    assert merged.host == "all clients"
    assert merged.read.total_ios == fio_all.read.total_ios
    assert merged.read.iops == pytest.approx(fio_all.read.iops, rel=1e-9)
    assert merged.read.bw_bytes == pytest.approx(fio_all.read.bw_bytes, rel=1e-6)
    # fio's All clients mean is the I/O-weighted mean of the clients' means
    assert merged.read.lat_ns["mean"] == pytest.approx(fio_all.read.lat_ns["mean"], rel=1e-9)
    assert merged.read.clat_ns["mean"] == pytest.approx(fio_all.read.clat_ns["mean"], rel=1e-9)
    # fio gives no fleet percentiles; ours come from the summed histograms
    assert "p99" not in fio_all.read.lat_ns
    expected = percentiles(merge_bins([c.read.lat_bins for c in clients]))
    assert merged.read.lat_ns["p99"] == expected["p99"]
    lo, hi = sorted(c.read.lat_ns["p99"] for c in clients)
    assert lo <= merged.read.lat_ns["p99"] <= hi
    assert sum(merged.read.clat_bins.values()) == fio_all.read.total_ios


def test_merge_without_histograms_gives_no_percentiles():
    clients = [r for r in parse_fio_json(FIXTURE.read_text()) if r.host != "all"]
    clients[0].read.lat_bins = None
    merged = merge_clients(clients, "fleet")
    assert "p99" not in merged.read.lat_ns and "mean" in merged.read.lat_ns


def test_disk_baseline_argv_has_common_options_global_and_one_job_per_target():
    spec = DiskBaselineStep(kind="disk_baseline", rw="read", bs="1M", iodepth=16, runtime=5,
                            size="256M")
    argv = fio_argv(spec, [("t1", "device", "/dev/vdb"), ("t2", "directory", "/srv/a b;x")])
    first = argv.index("--name=t1")
    assert "--direct=1" in argv[:first] and "--rw=read" in argv[:first]
    assert argv[first:] == ["--name=t1", "--filename=/dev/vdb", "--name=t2",
                            "--directory=/srv/a b;x", f"--size={256 * 2**20}"]


def test_pairs_all_ordered_or_a_reproducible_sample():
    names = ["h1", "h2", "h3", "h4"]
    assert len(choose_pairs(names, "all", "run")) == 12
    five = choose_pairs(names, 5, "run-1")
    assert len(five) == 5 and len(set(five)) == 5 and all(a != b for a, b in five)
    assert five == choose_pairs(names, 5, "run-1")
    assert choose_pairs(names, 50, "x") == choose_pairs(names, "all", "x")


def test_nic_of_finds_the_interface_holding_the_address():
    text = ("1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever\n"
            "2: eth0@if7    inet 10.99.0.12/24 brd 10.99.0.255 scope global eth0\n"
            "2: eth0@if7    inet6 fe80::1/64 scope link \n")
    assert nic_of(text, "10.99.0.12") == "eth0"
    assert nic_of(text, "10.99.0.13") is None


def test_a_pair_step_watches_only_the_hosts_of_its_pairs():
    """The executor runs sadc on monitored_hosts: for the pair kinds, the hosts the drawn
    pairs touch (64 pairs of 1,000 hosts: at most 128), for the others every host."""
    from stackprobe.kinds import registry
    from stackprobe.plan.expand import one_step

    names = [f"n{i:04d}" for i in range(1, 1001)]
    for kind in ("network", "mpi_pairs", "rdma", "net_soak"):
        spec = one_step({"kind": kind, "pairs": 64}).spec
        watched = registry.kind(kind).monitored_hosts(spec, names, "run-7")
        drawn = choose_pairs(names, 64, "run-7")
        assert set(watched) == {h for p in drawn for h in p} and len(watched) <= 128, kind
        assert watched == sorted(watched)  # in the step's order
        every = one_step({"kind": kind}).spec
        assert registry.kind(kind).monitored_hosts(every, names[:4], "r") == names[:4]
        listed = one_step({"kind": kind, "pairs": [["n0001", "n0002"]]}).spec
        assert registry.kind(kind).monitored_hosts(listed, names[:4], "r") == ["n0001", "n0002"]
    fio = one_step({"kind": "fio"}).spec
    assert registry.kind("fio").monitored_hosts(fio, names[:3], "r") == names[:3]
