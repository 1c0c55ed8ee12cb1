"""osd_read without a cluster: where each OSD's data is (recorded `ceph osd metadata`), what
of a sparse block file holds data (recorded `filefrag -v`), the read-only fio job, the
run-time guard, the per-OSD table and the read rung's OSD term."""

from __future__ import annotations

import json
import re

import pytest

from conftest import FIXTURES
from stackprobe.analysis.ceilings import ladder
from stackprobe.analysis.ladder_inputs import lower_rungs
from stackprobe.analysis.osd_read_bound import osd_read_bound
from stackprobe.errors import UserError
from stackprobe.kinds import registry
from stackprobe.kinds.ceph.osd_read import KIND, OsdReadStep, _same_host
from stackprobe.kinds.ceph.osd_read_job import device_range, file_range, read_job
from stackprobe.kinds.ceph.osd_read_table import judged
from stackprobe.parsers.ceph.osd_metadata import OsdDevice, parse_osd_metadata
from stackprobe.parsers.host.filefrag import allocated_within, largest_range, parse_filefrag
from stackprobe.safety.guard import check_reads
from stackprobe.schema.records import CephInventoryRecord, IoRecord, IoStats
from stackprobe.schema.results import RunInfo, RunResults, StepResult
from stackprobe.transport.local import LocalTransport

# beside the one-at-a-time system tests (tests/run_tiers.py): what is read and that nothing is written: no level
pytestmark = pytest.mark.beside

CEPH = FIXTURES / "recorded" / "ceph"
MIB = 1024**2


def _frag(name: str) -> str:
    return (CEPH / f"filefrag-1.47.0_{name}.txt").read_text()


# ------------------------------------------------------------------ where OSD data is

def test_lab_metadata_names_each_osds_block_file_and_host():
    text = (CEPH / "ceph-16.2.15_osd-metadata_lab-3-file-osds.json").read_text()
    devices = parse_osd_metadata(text)
    raw = json.loads(text)
    assert [d.osd for d in devices] == sorted(o["id"] for o in raw)
    for d, o in zip(devices, sorted(raw, key=lambda o: o["id"])):
        assert (d.hostname, d.kind, d.path) == (o["hostname"], "file", o["bluestore_bdev_path"])
        assert d.size_bytes == int(o["bluestore_bdev_size"]) and d.device_class == "hdd"


@pytest.mark.parametrize(("entry", "path", "kind"), [
    ({"bluestore_bdev_access_mode": "blk", "bluestore_bdev_dev_node": "/dev/dm-3",
      "bluestore_bdev_path": "/var/lib/ceph/osd/ceph-0/block"}, "/dev/dm-3", "device"),
    ({"bluestore_bdev_partition_path": "/dev/sdb2"}, "/dev/sdb2", "device"),
    ({"osd_data": "/var/lib/ceph/osd/ceph-0/"}, "/var/lib/ceph/osd/ceph-0/block", "unknown"),
    ({"bluestore_bdev_access_mode": "blk", "osd_data": "/x"}, "/x/block", "device"),
])
def test_the_device_to_read_by_the_keys_a_release_reports(entry, path, kind):
    (dev,) = parse_osd_metadata(json.dumps([{"id": 0, "hostname": "s1", **entry}]))
    assert (dev.path, dev.kind) == (path, kind)


def test_osds_with_nothing_to_read_say_why():
    text = json.dumps([{"id": 1, "osd_objectstore": "filestore"}, {"id": 0}])
    devices = parse_osd_metadata(text)
    assert [(d.osd, d.path) for d in devices] == [(0, None), (1, None)]
    assert "filestore" in devices[1].reason and "no device" in devices[0].reason


@pytest.mark.parametrize("text", ["", "{", "[1]", '[{"id": 0}, {"id": 0}]', '[{"id": "x"}]',
                                  '[{"id": 0, "hostname": 5}]'])
def test_bad_metadata_is_one_line(text):
    with pytest.raises(ValueError) as err:
        parse_osd_metadata(text)
    assert "\n" not in str(err.value)


# ------------------------------------------------------------------ what of a file is on disk

def _rows(text: str) -> list[tuple[int, int, str]]:
    """(first block, length, flags) of each extent row, read independently of the parser."""
    out = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(":")]
        if len(parts) >= 5 and parts[0].isdigit():
            first = int(parts[1].split("..")[0])
            out.append((first, int(parts[3]), parts[-1]))
    return out


@pytest.mark.parametrize("name", ["osd-block_lab-fresh", "osd-block_lab-after-rados-bench"])
def test_allocated_bytes_are_the_extent_rows_summed(name):
    text = _frag(name)
    found = parse_filefrag(text)
    block = int(re.search(r"blocks of (\d+) bytes", text)[1])
    assert found.size_bytes == 10 * 1024**3 and block == 4096
    assert found.allocated_bytes == sum(n for _, n, _ in _rows(text)) * block
    assert len(found.extents) <= len(_rows(text))  # neighbours merged
    offset, length = largest_range(found, 256 * MIB)
    assert allocated_within(found, offset, length) == length  # all of it holds data


def test_unwritten_delalloc_and_holes_are_not_read():
    found = parse_filefrag(_frag("unwritten-delalloc-hole"))
    assert found.extents == [(64 * 4096, 4 * 4096)]  # only the 16 KiB written and flushed
    assert file_range(found, 256 * MIB).length == 4 * 4096


def test_a_fresh_lab_block_file_is_read_over_its_longest_written_range():
    found = parse_filefrag(_frag("osd-block_lab-fresh"))
    rng = file_range(found, 256 * MIB)
    longest = max(n for _, n in found.extents)
    assert (rng.length, rng.upper_bound) == (longest, False)
    assert "longest allocated range" in rng.note
    after = file_range(parse_filefrag(_frag("osd-block_lab-after-rados-bench")), 256 * MIB)
    assert after.length == 256 * MIB and after.note is None


def test_unknown_extents_read_from_the_start_as_an_upper_bound():
    rng = file_range(None, 10 * MIB + 5, "filefrag: not supported")
    assert (rng.offset, rng.length, rng.upper_bound) == (0, 10 * MIB, True)
    assert "upper bound" in rng.note


def test_a_device_is_read_from_its_start_within_its_size():
    dev = OsdDevice(0, "s1", "/dev/sdb", "device", 64 * MIB, "ssd")
    assert device_range(dev, 256 * MIB).length == 64 * MIB
    assert device_range(dev, 8 * MIB).length == 8 * MIB


# ------------------------------------------------------------------ the job and the guard

def test_the_job_is_read_only_direct_and_bounded():
    rng = file_range(parse_filefrag(_frag("osd-block_lab-fresh")), 256 * MIB)
    job = read_job(2, "/x/osd/ceph-2/block", rng, "read", MIB, 16, 2.0)
    argv = job.argv()
    assert "--readonly" in argv and "--rw=read" in argv and "--direct=1" in argv
    assert f"--offset={rng.offset}" in argv and f"--size={rng.length}" in argv
    assert f"--bs={rng.length}" in argv  # a range shorter than bs: one block of its length
    (fio_job,) = job.fio_jobs()
    assert fio_job.name == "osd.2" and fio_job.options["filename"].value == "/x/osd/ceph-2/block"
    assert "readonly" in fio_job.options


@pytest.mark.tools
def test_the_guard_allows_the_read_of_a_file_or_device_and_nothing_else(tmp_path):
    block = tmp_path / "block"
    block.write_bytes(b"\0" * 8192)
    local = LocalTransport()
    rng = device_range(OsdDevice(0, "h", str(block), "file", 8192, None), 8192)
    check_reads(read_job(0, str(block), rng, "read", 4096, 1, 1).fio_jobs(), local)
    writes = read_job(0, str(block), rng, "read", 4096, 1, 1)
    writes = type(writes)(0, tuple((k, "write" if k == "rw" else v) for k, v in writes.options))
    no_ro = type(writes)(0, tuple(o for o in read_job(0, str(block), rng, "read", 4096, 1, 1)
                                  .options if o[0] != "readonly"))
    for job, why in [(writes, "refusing to write (rw=write)"), (no_ro, "readonly"),
                     (read_job(0, str(tmp_path), rng, "read", 4096, 1, 1), "a directory"),
                     (read_job(0, str(tmp_path / "gone"), rng, "read", 4096, 1, 1), "a missing")]:
        with pytest.raises(UserError, match=re.escape(why)):
            check_reads(job.fio_jobs(), local)


def test_osd_hosts_match_short_and_full_names():
    assert _same_host("vm", "vm") and _same_host("ceph1", "ceph1.lab.example")
    assert not _same_host("ceph1", "ceph10")


# ------------------------------------------------------------------ the step in a run

def _osd_rows(figures, rw="read", block=MIB, range_bytes=256 * MIB, upper=False):
    return [{"osd": i, "host": f"s{i % 2}", "device_class": "hdd", "path": f"/dev/sd{i}",
             "target_type": "device", "range_bytes": range_bytes, "upper_bound": upper,
             "bw_bytes": bw, "iops": bw / block} for i, bw in enumerate(figures)]


def _step(i, kind, layer, **kw):
    return StepResult(id=f"{i:02d}-{kind}", index=i, name=kind, kind=kind,
                      title=kw.pop("title", kind), layer=layer, params=kw.pop("params", {}), status="ok", **kw)


def _osd_read_step(i, figures, rw="read", block=MIB, **kw):
    rows = _osd_rows(figures, rw, block, **kw)
    return _step(i, "osd_read", "disk", params={"rw": rw, "bs": str(block)},
                 findings={"osd_read": {"rw": rw, "bs": block, "osds": rows,
                                        "threshold_pct": 20.0, "not_read": 0}})


def _rados_seq(bw, block=4 * MIB):
    rec = IoRecord(tool="rados bench", job="seq", read=IoStats(bw_bytes=bw, iops=bw / block,
                                                                 total_ios=10))
    return _step(9, "rados_bench", "cluster", params={"block_size": str(block)}, records=[rec],
                 title="rados bench 4M")


def _run(*steps):
    info = RunInfo(id="r", suite="s", suite_source="s.yaml", target="/t", host="client",
                   started="2026-01-01T00:00:00Z", stackprobe_version="0",
                   ceph={"pool": "p"})
    inv = CephInventoryRecord(osds=[{"id": i, "host": f"s{i % 2}"} for i in range(4)],
                              pools=[{"name": "p", "type": "replicated", "size": 3}])
    return RunResults(run=info, steps=[_step(1, "ceph_inventory", "cluster", records=[inv]),
                                       *steps])


def _read_rung(results):
    (rung,) = [r for r in ladder(results, lambda s: registry.kind(s.kind).cluster_io(s))
               if r.metric == "bw"]
    return rung


def test_a_seq_read_rung_gets_n_osds_times_the_slowest_read():
    results = _run(_osd_read_step(2, [400 * MIB, 420 * MIB, 380 * MIB, 410 * MIB]),
                   _rados_seq(900 * MIB))
    rung = _read_rung(results)
    (term,) = [t for t in rung.terms if t.layer == "OSD devices"]
    assert term.value == pytest.approx(4 * 380 * MIB)
    assert "osd.2" in term.text and len(term.inputs) == 4 and term.culprit is None
    assert not [m for m in rung.missing if "OSD read rate" in m]


def test_without_osd_read_the_read_rung_says_it_is_missing():
    rung = _read_rung(_run(_rados_seq(900 * MIB)))
    assert not [t for t in rung.terms if t.layer == "OSD devices"]
    assert [m for m in rung.missing if "OSD read rate" in m]


def test_a_slow_osd_device_is_named_as_the_culprit():
    reads = _osd_read_step(2, [400 * MIB, 100 * MIB, 380 * MIB, 410 * MIB])
    rung = _read_rung(_run(reads, _rados_seq(350 * MIB)))
    assert rung.limiting.layer == "OSD devices" and rung.limiting.culprit == "osd.1"
    assert rung.bottleneck == "OSD devices"


def test_iops_rungs_take_small_random_reads_only():
    seq = lower_rungs(_run(_osd_read_step(2, [400 * MIB] * 4))).osd_reads
    assert "randread" in osd_read_bound(seq, iops=True)  # a missing figure, in words
    rand = lower_rungs(_run(_osd_read_step(2, [40 * MIB] * 4, "randread", 4096))).osd_reads
    bound = osd_read_bound(rand, iops=True)
    assert bound.value == pytest.approx(4 * 40 * MIB / 4096)


def test_upper_bound_reads_are_said_in_the_term():
    reads = _osd_read_step(2, [400 * MIB] * 4, upper=True)
    term = [t for t in _read_rung(_run(reads, _rados_seq(900 * MIB))).terms
            if t.layer == "OSD devices"][0]
    assert "upper bound" in term.text


def test_table_judges_reads_long_enough_and_flags_the_slow_one():
    step = _osd_read_step(2, [400 * MIB, 100 * MIB, 380 * MIB, 410 * MIB])
    (table,) = KIND.tables([step])
    verdicts = {row[0]: row[-1] for row in table.rows}
    assert verdicts["osd.1"].startswith("SLOW") and verdicts["osd.0"] == "ok"
    short = _osd_read_step(3, [400 * MIB, 100 * MIB, 380 * MIB], range_bytes=512 * 1024)
    assert not judged(short.findings["osd_read"]["osds"], 20.0)
    (table,) = KIND.tables([short])
    assert all(row[-1] == "not judged: 512 KiB read" for row in table.rows)


def test_the_step_plans_with_read_modes_only():
    OsdReadStep(kind="osd_read", rw="randread", bs="4K")
    with pytest.raises(ValueError):
        OsdReadStep(kind="osd_read", rw="write")
    spec = OsdReadStep(kind="osd_read")
    assert KIND.estimate_s(spec, 1) < 15 and KIND.headline(spec) == "bw"


def test_an_osd_host_is_reached_by_its_hosts_entry_or_is_this_machine():
    from types import SimpleNamespace

    from stackprobe.kinds.ceph.osd_read import reach
    from stackprobe.spec.hosts import Host

    here, s1, s2 = LocalTransport("ctl"), LocalTransport("s1"), LocalTransport("s2")
    handles = [SimpleNamespace(name="s1", transport=s1, host=Host(name="s1", address="10.99.0.11")),
               SimpleNamespace(name="s2", transport=s2, host=Host(name="s2", address="osd-b"))]
    fleet = SimpleNamespace(select=lambda names: [h for h in handles if h.name in names])
    ctx = SimpleNamespace(fleet=fleet, step=SimpleNamespace(hosts=["s1", "s2"]), transport=here)
    assert reach(ctx, "s1.example.org") == (s1, "s1")  # by name, short or full
    assert reach(ctx, "osd-b") == (s2, "s2")  # by address
    assert reach(ctx, "ctl") == (here, "ctl")  # this machine
    assert reach(ctx, "s3") is None and reach(ctx, None) is None
    ctx.step.hosts = ["s1"]  # only the step's hosts
    assert reach(ctx, "osd-b") is None


def _recorded_ctx(host: str):
    """A step context whose `ceph osd metadata` answers with the lab's recording; any other
    command is not expected (an OSD on an unreachable host runs nothing)."""
    from types import SimpleNamespace

    from stackprobe.transport.base import CommandResult

    meta = (CEPH / "ceph-16.2.15_osd-metadata_lab-3-file-osds.json").read_text()
    ran = []

    def execute(label, argv, on=None):
        ran.append(argv)
        assert argv[-4:] == ["osd", "metadata", "-f", "json"], argv
        return CommandResult(argv, 0, meta, "", 0.0, 0.1)

    ctx = SimpleNamespace(ceph=SimpleNamespace(target=SimpleNamespace(cli=lambda: [])),
                          step=SimpleNamespace(spec=OsdReadStep(kind="osd_read"), hosts=[]),
                          fleet=None, transport=LocalTransport(host), execute=execute)
    return ctx, ran


def test_osds_on_no_reachable_host_skip_the_step_naming_what_to_add():
    ctx, ran = _recorded_ctx("client-9")  # the recording's OSDs are on 'vm'
    outcome = KIND.runner().run(ctx)
    assert outcome.status == "skipped" and "hosts:" in outcome.error and len(ran) == 1
    assert len(outcome.warnings) == 3 and all("its host vm is not" in w for w in outcome.warnings)
