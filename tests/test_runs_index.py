"""The run index keyed by figure (store/index.py): old index files keep working, `runs
--rebuild` gives back the same rows after the file is deleted or corrupted, an unreadable
index is one line for any command, an unreadable run is named and skipped."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from conftest import run_cli
from stackprobe.cli.runs_cmd import rebuild_index
from stackprobe.report.history import index_figures
from stackprobe.schema.results import RunResults
from stackprobe.store.index import INDEX_FILE, figure_rows, list_runs, record_run
from test_history import FACTORS, RANDREAD, RECORDED, build_history

OLD_SCHEMA = """CREATE TABLE runs (run_id TEXT PRIMARY KEY, suite TEXT NOT NULL, target TEXT NOT NULL,
 host TEXT NOT NULL, started TEXT NOT NULL, ended TEXT, status TEXT NOT NULL, path TEXT NOT NULL,
 headlines TEXT NOT NULL DEFAULT '{}')"""


def snapshot(runs):
    return list_runs(runs), figure_rows(runs)


@pytest.fixture
def runs(tmp_path):
    d = tmp_path / "runs"
    build_history(d, FACTORS[:4])
    for src in sorted(RECORDED.iterdir()):  # every recorded kind of run too
        shutil.copytree(src, d / src.name)
    rebuild_index(d)
    return d


def test_rebuild_after_delete_gives_the_same_rows(runs):
    before = snapshot(runs)
    assert len(before[0]) == 4 + 6 and len(before[1]) > 300
    (runs / INDEX_FILE).unlink()
    assert list_runs(runs) == []
    proc = run_cli(["runs", "--rebuild", "--runs-dir", runs], check=0)
    assert "indexed 10 run(s)" in proc.stderr
    assert snapshot(runs) == before


@pytest.mark.parametrize("damage", ["garbage", "header"])
def test_corrupt_index_is_one_line_then_rebuilt(runs, damage):
    before = snapshot(runs)
    db = runs / INDEX_FILE
    if damage == "garbage":
        db.write_bytes(b"this is not an index\n" * 200)
    else:  # the first page's header overwritten, the rest kept
        data = bytearray(db.read_bytes())
        data[:100] = b"\xff" * 100
        db.write_bytes(bytes(data))
    for args in (["runs"], ["history", RANDREAD], ["show"]):
        proc = run_cli([*args, "--runs-dir", runs], check=2)
        err = proc.stderr.strip()
        assert len(err.splitlines()) == 1 and "stackprobe runs --rebuild" in err, err
        assert str(db) in err and "Traceback" not in proc.stderr
    run_cli(["runs", "--rebuild", "--runs-dir", runs], check=0)
    assert snapshot(runs) == before


def test_unreadable_run_is_named_and_skipped(runs):
    bad = runs / "20260101T120000Z-broken"
    bad.mkdir()
    (bad / "results.json").write_text('{"run": {"id": ')
    half = runs / "20260101T130000Z-halfway"  # a run directory whose results.json never came
    (half / "steps").mkdir(parents=True)
    (runs / "notes").mkdir()  # not a run: ignored
    proc = run_cli(["runs", "--rebuild", "--runs-dir", runs], check=0)
    lines = proc.stderr.strip().splitlines()
    assert len([ln for ln in lines if ln.startswith("skipped: ")]) == 2
    assert any(str(bad / "results.json") in ln and "not valid JSON" in ln for ln in lines)
    assert any(str(half) in ln for ln in lines) and "indexed 10 run(s)" in lines[-1]
    assert len(list_runs(runs)) == 10


def test_old_index_is_migrated_and_keeps_its_rows(tmp_path):
    runs = tmp_path / "runs"
    [path] = build_history(runs, FACTORS[:1], index=False)
    con = sqlite3.connect(runs / INDEX_FILE)
    con.execute(OLD_SCHEMA)
    con.execute("INSERT INTO runs VALUES ('old-run', 'quick', '/t', 'h', '2025-01-01T00:00:00Z', NULL,"
                " 'ok', '/nowhere/old-run', '{}')")
    con.commit()
    con.close()
    rows = list_runs(runs)
    assert [r["run_id"] for r in rows] == ["old-run"] and rows[0]["verdict"] is None
    assert rows[0]["figured"] == 0 and rows[0]["hosts"] == "[]"
    results = RunResults.model_validate_json((path / "results.json").read_text())
    record_run(runs, path, results, figures=index_figures(results))
    assert [r["run_id"] for r in list_runs(runs)] == [results.run.id, "old-run"]
    assert len(figure_rows(runs)) == 64
    con = sqlite3.connect(runs / INDEX_FILE)
    indexes = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    con.close()
    assert {"figures_key", "figures_workload"} <= indexes


def test_record_run_replaces_figures_and_keeps_them_without(tmp_path):
    runs = tmp_path / "runs"
    [path] = build_history(runs, FACTORS[:1])
    results = RunResults.model_validate_json((path / "results.json").read_text())
    record_run(runs, path, results)  # no figures given: the indexed ones stay
    assert len(figure_rows(runs)) == 64
    record_run(runs, path, results, figures=[
        ("01-x", "fio:bs=4k:iops", "fio:bs=4k", "iops", 5.0, "IOPS"),
        {"step_id": "02-y", "key": "fio:bs=8k:read.bw", "workload": "fio:bs=8k", "figure": "read.bw",
         "value": 7.0, "unit": "B/s"}])
    assert [(r["step_id"], r["value"]) for r in figure_rows(runs)] == [("01-x", 5.0), ("02-y", 7.0)]


def test_verdict_status_is_indexed(tmp_path):
    runs = tmp_path / "runs"
    [path] = build_history(runs, FACTORS[:1])
    doc = json.loads((path / "results.json").read_text())
    doc["verdict"] = {"status": "regression", "exit_code": 4, "items": []}
    (path / "results.json").write_text(json.dumps(doc))
    rebuild_index(runs)
    [row] = json.loads(run_cli(["runs", "--json", "--runs-dir", runs], check=0).stdout)
    assert row["verdict"] == "regression"
    assert "regression" in run_cli(["runs", "--runs-dir", runs], check=0).stdout


def test_runs_suite_filter_and_empty_dirs(runs, tmp_path):
    rows = json.loads(run_cli(["runs", "--suite", "trust", "--json", "--runs-dir", runs], check=0).stdout)
    assert [r["suite"] for r in rows] == ["trust"]
    (runs / INDEX_FILE).unlink()
    proc = run_cli(["runs", "--runs-dir", runs], check=0)
    assert "runs --rebuild" in proc.stderr and "10 run directories" in proc.stderr
    empty = run_cli(["runs", "--runs-dir", tmp_path / "none"], check=0)
    assert "no runs in" in empty.stderr and not (tmp_path / "none").exists()


def test_partial_run_figures_can_be_indexed(tmp_path):
    """The executor indexes after every step: steps not run yet must not stop it."""
    results = RunResults.model_validate_json((RECORDED / "20261124T053239Z-quick" / "results.json")
                                             .read_text())
    for step in results.steps[3:]:
        step.status, step.summary, step.records = "pending", None, []
    rows = index_figures(results)
    assert rows and {r.step_id for r in rows} <= {s.id for s in results.steps[:3]}


TINY_SUITE = """
name: tinyhistory
defaults:
  ioengine: psync
  size: 4M
  runtime: 1
  time_based: true
steps:
  - kind: fio
    name: randread
    rw: randread
    bs: 4k
    headline: iops
"""


@pytest.mark.tools
@pytest.mark.beside
def test_a_real_run_indexes_its_figures_and_history_reads_them(tmp_path):
    """`run` (executor._save) keeps every figure in the index under its key; two runs make
    a history that `stackprobe history` prints from another directory."""
    from stackprobe.report.figure_keys import run_figures
    from stackprobe.store.rundir import load_results

    suite, target = tmp_path / "tiny.yaml", tmp_path / "target"
    suite.write_text(TINY_SUITE)
    target.mkdir()
    env = {"STACKPROBE_RUNS": str(tmp_path / "runs"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    for _ in range(2):
        run_cli(["run", suite, "--target", target, "--no-monitor"], cwd=tmp_path, env=env, check=0)
    rows = list_runs(tmp_path / "runs")
    assert len(rows) == 2 and all(r["figured"] == 1 and r["status"] == "ok" for r in rows)
    for row in rows:
        figs = run_figures(load_results(Path(row["path"])))
        indexed = [(r["key"], r["value"]) for r in figure_rows(tmp_path / "runs") if r["run_id"] == row["run_id"]]
        assert indexed == [(f.text, f.value) for f in figs] and indexed
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    doc = json.loads(run_cli(["history", "fio:rw=randread:read.iops", "--format", "json"],
                             cwd=elsewhere, env=env, check=0).stdout)
    assert len(doc) == 1 and len(doc[0]["points"]) == 2
