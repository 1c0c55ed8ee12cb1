"""`rados load-gen` (seed 002): its parser on recorded outputs of 16.2.15 with the times
their lines arrived (tests/fixtures/recorded/ceph, RECORDED.md), and the kind: options in
bytes, the checks before it runs, its place in a plan. It runs for real in ceph-quick
(test_ceph_integration.py)."""

from __future__ import annotations

import re

import pytest

from conftest import FIXTURES
from stackprobe.engine.launch import CephOptions, _ceph_session
from stackprobe.errors import UserError
from stackprobe.kinds.ceph.rados_load_gen import LineClock, RadosLoadGenStep, load_gen_argv
from stackprobe.parsers.ceph.rados_load_gen import parse_rados_load_gen, parse_times
from stackprobe.plan.expand import expand, one_step
from stackprobe.spec.ceph import CephSettings
from stackprobe.suite.loader import SuiteError, load_suite, parse_suite
from stackprobe.transport.local import LocalTransport

REC = FIXTURES / "recorded" / "ceph"
MIX = "rados-load-gen-16.2.15_mix70_4K-256K_32MiBps_5s"
WRITE = "rados-load-gen-16.2.15_write_4K-256K_32MiBps_5s"
STOPPED = "rados-load-gen-16.2.15_mix70_4K-256K_32MiBps_30s_interrupted-at-3s"
MIB = 2**20


def load(stem: str, timed: bool = True):
    text = (REC / f"{stem}.stdout").read_text()
    times = parse_times((REC / f"{stem}.times").read_text()) if timed else None
    return text, parse_rados_load_gen(text, times)


def own_throughput(text: str) -> float:
    """load-gen's own last cumulative figure before it stopped issuing (MiB/s, 3 digits)."""
    body = text.split("waiting for all operations")[0]
    return float(re.findall(r"^op \d+ completed, throughput=([\d.]+)MB/sec", body, re.M)[-1])


def completed_in_run(text: str) -> list[int]:
    body = text.split("waiting for all operations")[0]
    return [int(x) for x in re.findall(r"^op (\d+) completed", body, re.M)]


@pytest.mark.parametrize("stem", [MIX, WRITE])
def test_figures_are_the_tools_own_to_its_rounding(stem):
    text, rec = load(stem)
    total = sum(s.bw_bytes for _, s in rec.directions())
    assert total / MIB == pytest.approx(own_throughput(text), rel=0.01)
    assert sum(s.total_ios for _, s in rec.directions()) == len(completed_in_run(text))
    assert rec.tool == "rados load-gen" and rec.workload["run_length_s"] == 5
    assert rec.workload["objects"] == 16


def test_every_operation_counted_by_its_type_and_length():
    text, rec = load(MIX)
    issued = re.findall(r"^(READ|WRITE) : oid=\S+ off=\d+ len=(\d+)$", text, re.M)
    done = completed_in_run(text)
    reads = [int(issued[op][1]) for op in done if issued[op][0] == "READ"]
    writes = [int(issued[op][1]) for op in done if issued[op][0] == "WRITE"]
    assert (rec.read.total_ios, rec.read.io_bytes) == (len(reads), sum(reads))
    assert (rec.write.total_ios, rec.write.io_bytes) == (len(writes), sum(writes))
    assert 0.6 < len(reads) / len(done) < 0.8  # --read-percent 70
    assert rec.read.runtime_ms == rec.write.runtime_ms > 3000


def test_a_write_only_run_has_no_reads():
    _, rec = load(WRITE)
    assert not rec.read.active and rec.write.active


def test_series_from_the_first_operation_one_point_per_whole_second():
    _, rec = load(MIX)
    assert [p.t_s for p in rec.series] == [1.0, 2.0, 3.0]
    assert all(p.iops and p.bw_bytes for p in rec.series)
    assert sum(p.iops for p in rec.series) <= sum(s.total_ios for _, s in rec.directions())


def test_without_times_the_stated_run_length_and_no_series():
    text, timed = load(MIX)
    _, plain = load(MIX, timed=False)
    assert plain.series is None and plain.read.runtime_ms == 5000
    assert plain.read.io_bytes == timed.read.io_bytes


def test_an_interrupted_run_keeps_what_completed():
    text, rec = load(STOPPED)
    assert "waiting for all operations" not in text
    assert sum(s.total_ios for _, s in rec.directions()) == len(completed_in_run(text))
    assert 1000 < rec.read.runtime_ms < 3500


def test_bootstrap_failure_is_one_line():
    text = (REC / "rados-load-gen-16.2.15_error_objects-256M.stdout").read_text()
    assert "load-gen bootstrap failed" in (REC / "rados-load-gen-16.2.15_error_objects-256M"
                                                 ".stderr").read_text()
    with pytest.raises(ValueError, match="its objects were not written"):
        parse_rados_load_gen(text)


@pytest.mark.parametrize("text, times, message", [
    ("load-gen will run 5 seconds\nop 0 completed, throughput=1MB/sec\n", None,
     "op 0 completed but 0 were issued"),
    ("load-gen will run 5 seconds\nREAD : oid=o off=0 len=4\nop 0 completed, throughput=1MB/sec\n"
     "op 0 completed, throughput=1MB/sec\n", None, "completed twice"),
    ("load-gen will run 5 seconds\nREAD : oid=o off=0 len=4\n", None, "no operation completed"),
    ("load-gen will run 0 seconds\nREAD : oid=o off=0 len=4\nop 0 completed, throughput=1MB/sec\n",
     None, "0 seconds"),
    ("load-gen will run 5 seconds\nREAD : oid=o off=0 len=4\n", [0.0], "2 lines but 1 arrival"),
])
def test_what_the_tool_never_prints_is_refused(text, times, message):
    with pytest.raises(ValueError, match=message):
        parse_rados_load_gen(text, times)


def test_times_file_errors_name_the_line():
    assert parse_times("0.1\n2\n") == [0.1, 2.0]
    with pytest.raises(ValueError, match="line 2 is not a number"):
        parse_times("0.1\nx\n")
    with pytest.raises(ValueError, match="line 1"):
        parse_times("nan\n")


def test_line_clock_times_each_line_when_it_is_complete():
    clock = LineClock()
    clock("a\nb")  # 'b' is not complete yet
    clock("c\nd\n")
    clock("tail")
    times = clock.finish()
    assert len(times) == len("a\nbc\nd\ntail".splitlines()) == 4
    assert times == sorted(times)


def test_options_go_to_the_tool_in_bytes():
    spec = RadosLoadGenStep(kind="rados_load_gen", objects=8, object_size_min="1M",
                            object_size_max="2M", op_size_min="4k", op_size_max="64k",
                            read_percent=50, target_throughput="16M", max_ops=4,
                            run_length="2m")
    argv = load_gen_argv(["-c", "c.conf"], "pool1", spec)
    assert argv[:6] == ["rados", "-c", "c.conf", "-p", "pool1", "load-gen"]
    opts = dict(zip(argv[6::2], argv[7::2]))
    assert opts == {"--num-objects": "8", "--min-object-size": str(MIB),
                    "--max-object-size": str(2 * MIB), "--min-op-len": "4096",
                    "--max-op-len": "65536", "--max-ops": "4", "--max-backlog": str(32 * MIB),
                    "--read-percent": "50", "--target-throughput": str(16 * MIB),
                    "--run-length": "120"}


def test_a_range_upside_down_is_refused_with_its_line():
    text = ("name: lg\nsteps:\n  - kind: rados_load_gen\n    op_size_min: 1M\n"
            "    op_size_max: 4k\n")
    with pytest.raises(SuiteError, match=r"lg.yaml:3: steps\[0\]: .*op_size_min \(1M\) is above "
                                         r"op_size_max \(4k\)"):
        parse_suite(text, "lg.yaml")


def test_sweeps_titles_and_ceph_quick():
    steps = expand(parse_suite("name: lg\nsteps:\n  - kind: rados_load_gen\n"
                               "    target_throughput: [16M, 64M]\n    read_percent: 70\n",
                               "lg.yaml"))
    names = [s.name for s in steps if s.kind == "rados_load_gen"]
    assert names == ["rados-load-gen-16m", "rados-load-gen-64m"]
    step = steps[-1]
    assert step.title == "rados load-gen 4K-1M, 70% reads, target 64M/s"
    assert step.layer == "cluster" and step.headline == "bw" and step.ceph.own_pool
    quick = [s for s in expand(load_suite("ceph-quick").suite) if s.kind == "rados_load_gen"]
    assert len(quick) == 1 and quick[0].spec.run_length.seconds == 5


def test_only_in_a_pool_of_the_runs_own():
    plan = [one_step({"kind": "rados_load_gen"})]
    with pytest.raises(UserError, match="runs only in a pool stackprobe creates for the run"):
        _ceph_session(plan, CephOptions(settings=CephSettings(pool="volumes")),
                      LocalTransport(), "20260101T000000Z-lg", [])
