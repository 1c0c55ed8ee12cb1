"""Live figures end to end: a real 3 s fio step through `stackprobe run` with its output
piped (a log): the interval lines are printed as the step runs, and they are the intervals
of the status documents fio wrote to the kept stdout; with --quiet there are none and fio
runs as it did before live figures (no status documents)."""

from __future__ import annotations

import pytest

from conftest import run_cli
from stackprobe.analysis.live_figures import FioLive
from stackprobe.cli.live_lines import live_text
from stackprobe.parsers.fio.fio_json import result_document
from stackprobe.store.rundir import load_results

pytestmark = [pytest.mark.tools]

SUITE = """
name: live
steps:
  - kind: fio
    name: mix
    rw: randrw
    rwmixread: 70
    bs: 4k
    size: 16M
    ioengine: psync
    runtime: {runtime}
    time_based: true
"""


def run(tmp_path, name: str, runtime: int, *flags: str):
    base = tmp_path / name
    base.mkdir()
    (base / "target").mkdir()
    suite = base / "live.yaml"
    suite.write_text(SUITE.format(runtime=runtime))
    proc = run_cli(["run", suite, "--target", base / "target", "--out", base / "runs",
                    "--no-monitor", "--no-health", *flags], cwd=base, check=0)
    run_dir = next(p for p in (base / "runs").iterdir() if p.is_dir())
    step = load_results(run_dir).steps[0]
    stdout = (run_dir / "steps" / step.id / "fio.stdout").read_text()
    cmd = (run_dir / "steps" / step.id / "fio.cmd").read_text()
    return proc, step, stdout, cmd


def test_a_piped_run_prints_the_intervals_fio_reported(tmp_path):
    proc, step, stdout, cmd = run(tmp_path, "live", 3)
    assert step.status == "ok" and "--status-interval=1" in cmd
    intervals = FioLive().feed(stdout)
    assert len(intervals) >= 3, "one status document a second"
    lines = [ln for ln in proc.stdout.splitlines() if " IOPS " in ln and ln.startswith("  [1/1]")]
    assert lines, proc.stdout
    # a log gets the first interval, then one per 10 s: this 3 s step prints only the first
    assert lines == [f"  [1/1] {live_text(intervals[0])}"]
    assert "read " in lines[0] and " | write " in lines[0] and " p99 " in lines[0]
    rec = step.records[0]  # the result is still fio's final report
    assert rec.source_format == "json+ (status-interval stream)"
    last = result_document(stdout)[0]["jobs"]
    assert rec.read.total_ios == sum(j["read"]["total_ios"] for j in last)


def test_quiet_prints_no_interval_and_fio_runs_without_status_documents(tmp_path):
    proc, step, stdout, cmd = run(tmp_path, "quiet", 1, "--quiet")
    assert step.status == "ok"
    assert " IOPS " not in "\n".join(ln for ln in proc.stdout.splitlines()
                                     if ln.startswith("  [1/1]"))
    assert "--status-interval" not in cmd
    assert step.records[0].source_format == "json+"

