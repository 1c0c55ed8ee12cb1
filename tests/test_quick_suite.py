"""The main job: `stackprobe run` with no arguments runs `quick` on the current directory's
filesystem, within 5 minutes on a 2-core machine, and leaves only its results behind."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from conftest import run_cli
from html_report_helpers import SvgCensus, chromium, open_offline
from stackprobe.store.rundir import load_results

QUICK_BUDGET_S = 300
ARTIFACTS = Path(__file__).resolve().parents[1] / "tests" / "artifacts"


@pytest.mark.slow
def test_quick_suite_end_to_end(tmp_path):
    t0 = time.monotonic()
    proc = run_cli(["run"], cwd=tmp_path, timeout=QUICK_BUDGET_S + 60, check=0)
    wall = time.monotonic() - t0
    assert wall <= QUICK_BUDGET_S, f"quick took {wall:.0f} s"
    assert [p.name for p in tmp_path.iterdir()] == ["runs"], "test files removed"
    run_dir = next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    results = load_results(run_dir)
    assert results.run.suite == "quick" and results.run.status == "ok"
    assert all(s.status == "ok" for s in results.steps)
    by_kind = {s.kind: s for s in results.steps}
    inv = by_kind["inventory"].records[0]
    assert inv.cpu["logical_cpus"] >= 1 and inv.memory["total_bytes"] > 0
    assert inv.cpu["governor"] and inv.cpu["smt"] in ("on", "off", "unsupported")
    mem = by_kind["memory"].records
    assert {r.operation for r in mem} == {"read", "write"}
    assert all(r.bw_bytes > 100e6 and r.tool == "sysbench" for r in mem)
    ops = {r.operation for r in by_kind["metadata"].records}
    assert ops == {"create", "stat", "delete"}
    for title in ("4k random write IOPS", "4k random read IOPS", "1M sequential write bandwidth",
                  "1M sequential read bandwidth", "4k random write latency (QD1)",
                  "4k sequential read latency (QD1)", "4M sequential read/write throughput",
                  "4k random read/write IOPS (70/30)", "Memory read bandwidth (sysbench)",
                  "File create"):
        assert title in proc.stdout, title
    assert f"Results: {run_dir}" in proc.stdout
    # 256 MiB per job: each fio step says a cache may hold it, and the run says it once
    fio_steps = [s for s in results.steps if s.kind == "fio"]
    for step in fio_steps:
        assert any("of test data" in w and "cache" in w for w in step.warnings), step.id
    said = [line for line in proc.stdout.splitlines() if "MiB of test data" in line]
    assert 1 <= len(said) <= 2 and all(" steps (" in line for line in said), said  # by size
    shown = run_cli(["show"], cwd=tmp_path, check=0)
    assert "4M sequential write throughput" in shown.stdout
    _monitoring_on_every_step(results, run_dir)
    _html_report_opens_offline(run_dir, tmp_path)


def _monitoring_on_every_step(results, run_dir):
    """Every step was sampled: a samples file and a summary for this host; steps of two
    seconds or more have at least two samples; stability where fio logged per second."""
    for step in results.steps:
        assert len(step.monitor) == 1, (step.id, step.warnings)
        [info] = step.monitor.values()
        doc = json.loads((run_dir / "steps" / step.id / info["file"]).read_text())
        if step.duration_s >= 3:
            assert len(doc["samples"]) >= 2, step.id
        assert "cpu" in info["summary"]
        # a step shorter than a second (inventory) has no sample, and that is no problem
        assert not [w for w in step.warnings if w.startswith("monitoring")], step.id
    fio_steps = [s for s in results.steps if s.kind == "fio"]
    # every fio step has fio's per-second series; those of 5 s or more a stability verdict
    for s in fio_steps:
        series = [p for r in s.records if getattr(r, "series", None) for p in r.series]
        assert len(series) >= 3, s.id
        if len(series) >= 5:
            assert s.stability and s.stability["parts"], s.id


def _html_report_opens_offline(run_dir, tmp_path):
    run_cli(["report", run_dir, "--format", "html"], check=0)
    report = run_dir / "report.html"
    html = report.read_text()
    assert "http://" not in html and "https://" not in html
    if chromium() is None:
        pytest.skip("chromium is not installed (make system-deps installs it)")
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "report-quick.png"
    load = open_offline(report, shot, tmp_path / "profile")
    assert not load.page_errors, load.page_errors
    census = SvgCensus()
    census.feed(load.dom)
    assert census.rects >= 10 and census.paths >= 10, census.labels
    assert any(label.startswith("Latency percentiles") for label in census.labels)
    assert any(": CPU %" in label for label in census.labels)  # monitoring under the series
    assert shot.stat().st_size > 20_000


def test_doctor_passes_here(tmp_path):
    proc = run_cli(["doctor"], cwd=tmp_path, check=0)
    assert "fio" in proc.stdout and "The default suite can run." in proc.stdout
