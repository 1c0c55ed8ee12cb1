"""Run history: a runs directory built from recorded real runs (values varied), the figures
the index keeps, history by key and by suite with drift marks, the CLI from elsewhere."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from conftest import FIXTURES, run_cli
from stackprobe.cli.runs_cmd import rebuild_index
from stackprobe.report.figure_keys import parse_key, run_figures
from stackprobe.report.history import index_figures, key_history, suite_history
from stackprobe.schema.results import RunResults
from stackprobe.store.index import figure_rows, list_runs, record_run

RECORDED = FIXTURES / "recorded" / "runs-after-kind-contract"
QUICK = RECORDED / "20261124T053239Z-quick" / "results.json"
RANDREAD = "fio:bs=4k,direct=1,iodepth=128,ioengine=libaio,rw=randread,size=256M:read.iops"
# what the varied quick runs measure, as factors of the recorded run: scatter, then a jump
FACTORS = (1.00, 1.03, 0.98, 1.01, 0.99, 1.02, 0.97, 1.60, 1.01)
SCALED = ("iops", "bw_bytes", "headline_value")  # every throughput a row is built from
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _scale(node, factor: float):
    if isinstance(node, dict):
        return {k: (v * factor if k in SCALED and isinstance(v, int | float) else _scale(v, factor))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_scale(v, factor) for v in node]
    return node


def varied_run(runs: Path, i: int, factor: float, source: Path = QUICK, suite: str = "quick") -> Path:
    """The recorded run as the i-th run of a history: its own id and time, throughputs x factor."""
    doc = json.loads(source.read_text())
    start = T0 + timedelta(hours=i)
    run_id = f"{start.strftime('%Y%m%dT%H%M%SZ')}-{suite}"
    doc["run"].update(id=run_id, suite=suite, started=start.isoformat().replace("+00:00", "Z"),
                      ended=(start + timedelta(minutes=2)).isoformat().replace("+00:00", "Z"))
    doc["steps"] = _scale(doc["steps"], factor)
    path = runs / run_id
    path.mkdir(parents=True)
    (path / "results.json").write_text(json.dumps(doc, indent=1))
    return path


def build_history(runs: Path, factors=FACTORS, index: bool = True) -> list[Path]:
    """A runs directory of len(factors) varied quick runs, indexed as `run` would index them."""
    paths = [varied_run(runs, i, f) for i, f in enumerate(factors)]
    if index:
        for path in paths:
            results = RunResults.model_validate_json((path / "results.json").read_text())
            record_run(runs, path, results, figures=index_figures(results))
    return paths


@pytest.fixture
def history_dir(tmp_path) -> Path:
    runs = tmp_path / "runs"
    build_history(runs)
    return runs


def test_varied_runs_measure_what_was_planted(history_dir):
    base = {f.text: f.value for f in run_figures(RunResults.model_validate_json(QUICK.read_text()))}
    rows = [r for r in figure_rows(history_dir, kind="fio") if r["key"] == RANDREAD]
    assert [r["value"] for r in rows] == pytest.approx([base[RANDREAD] * f for f in FACTORS])
    assert {r["unit"] for r in rows} == {"IOPS"} and {r["figure"] for r in rows} == {"read.iops"}
    assert all(r["workload"] == RANDREAD.rsplit(":", 1)[0] for r in rows)


def test_every_figure_of_a_run_is_indexed(history_dir):
    results = RunResults.model_validate_json(QUICK.read_text())
    first = list_runs(history_dir)[-1]["run_id"]
    keys = [r["key"] for r in figure_rows(history_dir) if r["run_id"] == first]
    assert keys == [f.text for f in run_figures(results)] and len(keys) == 64


def test_planted_jump_is_marked_and_scatter_is_not(history_dir):
    [series] = key_history(figure_rows(history_dir, kind="fio"), parse_key(RANDREAD))
    assert series.key == RANDREAD and len(series.points) == len(FACTORS)
    marks = [p.judged.drift for p in series.points]
    assert marks == [""] * 7 + ["up", ""]  # the spike; the run after it is back in the band
    assert [p.judged.band is None for p in series.points] == [True] * 3 + [False] * 6
    assert not series.worse("up")  # more IOPS is better


def test_key_with_parameters_left_out_finds_each_whole_key(history_dir):
    wanted = parse_key("fio:rw=randread,bs=4k:iops")  # no iodepth: two steps of quick match
    keys = {s.key for s in key_history(figure_rows(history_dir, kind="fio"), wanted)}
    assert RANDREAD in keys and len(keys) == 2
    assert all(parse_key(k).figure == "iops" and ("rw", "randread") in parse_key(k).params for k in keys)
    assert key_history(figure_rows(history_dir, kind="fio"), parse_key("fio:rw=trim:iops")) == []


def test_suite_history_follows_headline_figures(history_dir):
    series = {s.key: s for s in suite_history(figure_rows(history_dir, suite="quick"))}
    assert RANDREAD in series
    # memory's headline is bandwidth, a latency step's is mean latency: no IOPS from them
    assert any(k.startswith("memory:") and k.endswith(".bw") for k in series)
    assert any(k.endswith("read.lat") for k in series)
    assert not any(k.startswith("memory:") and not k.endswith(".bw") for k in series)
    assert all(len(s.points) == len(FACTORS) for s in series.values())


def test_old_index_rows_get_their_figures(tmp_path):
    """Runs indexed without figures (an older stackprobe) are given them when history runs."""
    runs = tmp_path / "runs"
    for path in build_history(runs, index=False):
        results = RunResults.model_validate_json((path / "results.json").read_text())
        record_run(runs, path, results)  # no figures, as before the figures table
    assert figure_rows(runs) == []
    proc = run_cli(["history", RANDREAD, "--format", "json", "--runs-dir", runs], check=0)
    assert len(json.loads(proc.stdout)[0]["points"]) == len(FACTORS)


def test_cli_from_another_directory_with_the_environment(history_dir, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"STACKPROBE_RUNS": str(history_dir), "XDG_CONFIG_HOME": str(tmp_path / "no-config")}
    listed = run_cli(["runs", "--json"], cwd=elsewhere, env=env, check=0)
    rows = json.loads(listed.stdout)
    assert len(rows) == len(FACTORS) and rows[0]["started"] > rows[-1]["started"]
    assert rows[0]["verdict"] is None and rows[0]["suite"] == "quick"
    text = run_cli(["runs"], cwd=elsewhere, env=env, check=0).stdout
    assert rows[0]["id"] in text and "—" in text
    hist = run_cli(["history", RANDREAD], cwd=elsewhere, env=env, check=0).stdout
    lines = [ln for ln in hist.splitlines() if "-quick" in ln]
    assert len(lines) == len(FACTORS) and "▲ drift (better)" in lines[7]
    assert sum("drift" in ln for ln in lines) == 1
    doc = json.loads(run_cli(["history", "--suite", "quick", "--format", "json"],
                             cwd=elsewhere, env=env, check=0).stdout)
    assert RANDREAD in {s["key"] for s in doc}
    assert not (elsewhere / "runs").exists()  # nothing made where the command ran


def test_cli_bad_key_and_nothing_found_are_one_line(history_dir):
    for args in (["history", "fio:rw=randread:speed"], ["history", "fio:rw=trim:iops"], ["history"],
                 ["history", RANDREAD, "--format", "pdf"]):
        proc = run_cli([*args, "--runs-dir", history_dir], check=2)
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_html_page_is_offline_and_marks_drift(history_dir, tmp_path):
    out = tmp_path / "trend.html"
    run_cli(["history", "--suite", "quick", "--format", "html", "--output", out,
             "--runs-dir", history_dir], check=0)
    page = out.read_text()
    assert "http://" not in page and "https://" not in page and "<script" not in page
    assert page.count("<svg") == len(suite_history(figure_rows(history_dir, suite="quick")))
    assert "drift, better" in page and "▲" in page


def test_rebuild_gives_the_rows_history_reads(history_dir):
    before = figure_rows(history_dir)
    assert rebuild_index(history_dir) == (len(FACTORS), 0)
    assert figure_rows(history_dir) == before
