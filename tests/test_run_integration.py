"""End-to-end: real fio on a temporary directory through `stackprobe run`, then show/report.

Checks the figures for internal consistency (iops x bs = bw, the randrw split follows
rwmixread, percentiles never decrease) and the run directory's promises (raw outputs
kept, results.json valid, index row written, test files removed).
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3

import pytest

from conftest import run_cli
from stackprobe.schema.records import percentile_value
from stackprobe.store.rundir import load_results

# beside the one-at-a-time system tests (tests/run_tiers.py): its figures are checked against each other (IOPS x block size, percentiles in order), not against a level
pytestmark = [pytest.mark.tools, pytest.mark.beside]

SMALL_SUITE = """
name: small
defaults:
  ioengine: libaio
  direct: 1
  size: 32M
  runtime: 2
  time_based: true
steps:
  - kind: fio
    name: rand
    rw: [randread, randwrite]
    bs: 4k
    iodepth: 8
  - kind: fio
    name: mix
    title: 4k random 70/30
    rw: randrw
    rwmixread: 70
    bs: 4k
    iodepth: 16
    numjobs: 2
  - kind: fio
    name: seq
    rw: read
    bs: 1M
    iodepth: 4
  - kind: metadata
    files: 500
    numjobs: 2
"""


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("small")
    target = base / "target"
    target.mkdir()
    suite = base / "small.yaml"
    suite.write_text(SMALL_SUITE)
    proc = run_cli(["run", suite, "--target", target, "--out", base / "runs"], cwd=base, check=0)
    runs = [p for p in (base / "runs").iterdir() if p.is_dir()]
    assert len(runs) == 1
    return base, target, runs[0], proc


def test_run_prints_the_table(small_run):
    _, _, run_dir, proc = small_run
    assert "4k random 70/30 (read)" in proc.stdout
    assert "File create" in proc.stdout
    assert str(run_dir) in proc.stdout


def test_test_files_removed_and_raw_outputs_kept(small_run):
    _, target, run_dir, _ = small_run
    assert list(target.iterdir()) == [], "scratch directory must be gone"
    step_dirs = sorted(p.name for p in (run_dir / "steps").iterdir())
    assert step_dirs == ["01-rand-randread", "02-rand-randwrite", "03-mix", "04-seq", "05-metadata"]
    for d in (run_dir / "steps").iterdir():
        names = {p.name for p in d.iterdir()}
        assert {"fio.cmd", "fio.stdout", "fio.stderr"} <= names
        assert "fio --output-format=json+" in (d / "fio.cmd").read_text()
    assert (run_dir / "steps" / "03-mix" / "job.fio").read_text().count("rwmixread=70") == 1
    assert (run_dir / "suite.yaml").read_text() == SMALL_SUITE


def test_results_json_and_index(small_run):
    base, _, run_dir, _ = small_run
    results = load_results(run_dir)
    assert results.schema_version == 1
    assert results.run.status == "ok"
    assert [s.status for s in results.steps] == ["ok"] * 5
    assert results.run.tool_versions["fio"].startswith("3.")
    con = sqlite3.connect(base / "runs" / "index.sqlite")
    rows = con.execute("SELECT run_id, suite, status, headlines FROM runs").fetchall()
    con.close()
    assert len(rows) == 1 and rows[0][1] == "small" and rows[0][2] == "ok"
    headlines = json.loads(rows[0][3])
    assert headlines["01-rand-randread"]["unit"] == "IOPS"
    assert headlines["04-seq"]["unit"] == "B/s"


def test_iops_times_block_size_is_bandwidth(small_run):
    _, _, run_dir, _ = small_run
    for step in load_results(run_dir).steps:
        for rec in step.records:
            if rec.type != "io":
                continue
            assert rec.source_format.startswith("json+"), "stackprobe keeps fio's histograms"
            assert rec.host, "every record names its host"
            bs = rec.workload["bs"]
            for name, stats in rec.directions():
                assert stats.bw_bytes == pytest.approx(stats.iops * bs, rel=0.02), (step.id, name)


def test_randrw_split_follows_rwmixread(small_run):
    _, _, run_dir, _ = small_run
    step = next(s for s in load_results(run_dir).steps if s.name == "mix")
    rec = step.records[0]
    share = rec.read.total_ios / (rec.read.total_ios + rec.write.total_ios)
    assert share == pytest.approx(0.70, abs=0.03)
    assert rec.jobs == 2


def test_percentiles_non_decreasing_and_lat_includes_clat(small_run):
    _, _, run_dir, _ = small_run
    for step in load_results(run_dir).steps:
        for rec in step.records:
            if rec.type != "io":
                continue
            for _, stats in rec.directions():
                keys = sorted((k for k in stats.clat_ns if k.startswith("p")), key=percentile_value)
                assert {"p50", "p90", "p95", "p99", "p99.9", "p99.99"} <= set(keys)
                values = [stats.clat_ns[k] for k in keys]
                assert values == sorted(values)
                assert stats.clat_ns["min"] <= stats.clat_ns["p50"] <= stats.clat_ns["max"]
                assert stats.lat_ns["mean"] >= stats.clat_ns["mean"]


def test_total_latency_percentiles_dominate_completion(small_run):
    """Generated jobs ask fio for total-latency percentiles (lat = slat + clat for every
    I/O), so each is at least the completion latency's, and tables use them."""
    _, _, run_dir, _ = small_run
    for step in load_results(run_dir).steps:
        if step.kind != "fio":
            continue
        for group in step.summary.io:
            for d in (group.read, group.write):
                if d is None:
                    continue
                assert set(d.lat_ns) == set(d.clat_ns) and "p99" in d.lat_ns
                assert all(d.lat_ns[k] >= d.clat_ns[k] for k in d.clat_ns), step.id


def test_metadata_ops(small_run):
    _, _, run_dir, _ = small_run
    step = next(s for s in load_results(run_dir).steps if s.kind == "metadata")
    ops = {r.operation: r for r in step.records}
    assert set(ops) == {"create", "stat", "delete"}
    for rec in ops.values():
        assert rec.total_ops == 1000, "2 jobs x 500 files, every phase on the same file set"
        assert rec.ops_per_s > 0
    assert step.summary.headline_unit == "ops/s"


def test_show_and_reports(small_run):
    base, _, run_dir, _ = small_run
    shown = run_cli(["show", "--out", base / "runs"], cwd=base, check=0)
    assert "4k random 70/30 (write)" in shown.stdout
    md = run_cli(["report", run_dir, "--format", "md"], cwd=base, check=0)
    md_text = (run_dir / "report.md").read_text()
    assert md.stdout.strip() == str(run_dir / "report.md")
    assert "| Test | Workload | Bandwidth |" in md_text
    assert "## Disks and filesystems" in md_text
    run_cli(["report", run_dir.name, "--out", base / "runs", "--format", "csv"], cwd=base, check=0)
    rows = list(csv.DictReader(io.StringIO((run_dir / "report.csv").read_text())))
    mix = [r for r in rows if r["step"] == "03-mix"]
    assert [r["direction"] for r in mix] == ["read", "write"]
    assert float(mix[0]["iops"]) > float(mix[1]["iops"])
    run_cli(["report", run_dir, "--format", "json"], cwd=base, check=0)
    doc = json.loads((run_dir / "report.json").read_text())
    assert len(doc["rows"]) == len(rows)
    bad = run_cli(["report", run_dir, "--format", "pdf"], cwd=base, check=2)
    assert bad.stderr.count("\n") == 1 and "choose one of" in bad.stderr


def test_show_without_runs_is_one_line(tmp_path):
    proc = run_cli(["show", "--out", tmp_path / "none"], cwd=tmp_path, check=2)
    assert proc.stderr.startswith("stackprobe: no runs in")
    assert "Traceback" not in proc.stderr


def test_plan_runs_nothing(tmp_path):
    proc = run_cli(["plan", "quick"], cwd=tmp_path, check=0)
    assert "15 steps, estimated" in proc.stdout
    assert not (tmp_path / "runs").exists()
