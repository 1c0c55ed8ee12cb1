"""elbencho, vdbench and sysbench files made a run (`ingest --new/--into`): steps of the
`peer_result` kind that show their figures in the summary, pair in `compare` and stay out of
suites. Real outputs: the public elbencho and vdbench files (tests/fixtures/public, from
../shared/fixtures/public) and sysbench runs recorded on this machine."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import FIXTURES
from stackprobe.cli.app import app
from stackprobe.kinds import registry
from stackprobe.kinds.peer.peer_figures import peer_figures
from stackprobe.parsers.peer.elbencho_csv import parse_elbencho_csv
from stackprobe.schema.records import IoRecord, OpsRecord
from stackprobe.suite.loader import SuiteError, parse_suite

ELBENCHO_CSV = FIXTURES / "public" / "elbencho" / "elbencho-2.1-0_csvfile_write_4hosts_8threads.csv"
VDBENCH = FIXTURES / "public" / "vdbench" / "vdbench50407_filesystem-fwd_4k_64t_summary.html"
SYSBENCH = FIXTURES / "recorded" / "sysbench"
FILEIO = SYSBENCH / "sysbench-1.0.20_fileio_rndrw_4files_64M_2threads_2s.txt"
CPU = SYSBENCH / "sysbench-1.0.20_cpu_2threads_2s.txt"


def cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


def _steps(run_dir):
    return {s["name"]: s for s in json.loads((run_dir / "results.json").read_text())["steps"]}


def test_each_tool_is_a_step_with_the_figures_its_file_prints(tmp_path):
    runs = tmp_path / "runs"
    made = cli("ingest", ELBENCHO_CSV, VDBENCH, FILEIO, CPU, "--new", "old", "--runs-dir", runs)
    assert made.exit_code == 0, made.output
    (run_dir,) = runs.glob("*-old")
    steps = _steps(run_dir)
    assert {s["kind"] for s in steps.values()} == {"peer_result"}
    elbencho, vdbench = steps["elbencho"], steps["vdbench"]
    assert elbencho["params"]["workload"]["threads"] == 8 and elbencho["layer"] == "client"
    io = elbencho["summary"]["io"][0]["write"]
    assert io["iops"] == 6544 and io["bw_bytes"] == 6544 * 2**20  # the WRITE phase, LAST DONE
    assert io["lat_mean_ns"] == 4887e3  # 'IO lat avg' 4887 µs
    assert elbencho["summary"]["ops"] == {"mkdirs": 12034}
    v = vdbench["summary"]["io"][0]
    assert (v.get("read") or {}).get("iops", 0) + (v.get("write") or {}).get("iops", 0) == \
        pytest.approx(33891, abs=1)
    fileio, cpu = steps["sysbench-fileio"], steps["sysbench-cpu"]
    assert fileio["layer"] == "disk" and cpu["layer"] == "hardware"
    assert fileio["summary"]["io"][0]["read"]["iops"] == 21236.38
    assert fileio["summary"]["io"][0]["write"]["bw_bytes"] == 221.21 * 2**20
    assert cpu["summary"]["ops"] == {"cpu": 2800.8}
    # the file's own records are kept beside the figures read from them
    assert {r["type"] for r in elbencho["records"]} == {"elbencho_phase", "io", "ops"}
    shown = cli("show", run_dir)
    assert shown.exit_code == 0
    out = " ".join(shown.output.split())
    assert "elbencho mkdirs" in out and "sysbench cpu" in out and "vdbench (ingested)" in out


def test_two_runs_of_the_same_load_pair_in_compare(tmp_path):
    runs = tmp_path / "runs"
    assert cli("ingest", ELBENCHO_CSV, "--new", "a", "--runs-dir", runs).exit_code == 0
    assert cli("ingest", ELBENCHO_CSV, FILEIO, "--new", "b", "--runs-dir", runs).exit_code == 0
    (a,), (b,) = runs.glob("*-a"), runs.glob("*-b")
    out = " ".join(cli("compare", a, b).output.split())
    assert "+0.0%" in out and "elbencho mkdirs" in out
    assert "not in this run" in out  # sysbench fileio: in b only


def test_no_suite_runs_it():
    with pytest.raises(SuiteError, match="s.yaml"):
        parse_suite("name: t\nsteps:\n  - {kind: peer_result, tool: elbencho}\n", "s.yaml")
    assert registry.kind("peer_result").in_suites is False


def test_figures_only_where_the_file_has_them():
    records = parse_elbencho_csv(ELBENCHO_CSV.read_text())
    assert [r.phase for r in records] == ["SYNC", "MKDIRS", "SYNC", "WRITE"]
    figures = peer_figures(records)
    assert [type(f) for f in figures] == [OpsRecord, IoRecord]  # SYNC phases: no rate
    io = figures[1]
    assert not io.read.active and io.write.io_bytes == 296330 * 2**20


def test_history_follows_an_ingested_figure_across_runs(tmp_path):
    runs = tmp_path / "runs"
    for _ in range(2):
        assert cli("ingest", CPU, "--new", "cpu-old", "--runs-dir", runs).exit_code == 0
    shown = cli("history", "--suite", "cpu-old", "--runs-dir", runs)
    assert shown.exit_code == 0, shown.output
    key = next(ln for ln in shown.output.splitlines() if ln.startswith("peer_result:"))
    assert key.endswith(":cpu.iops") and "tool=sysbench" in key
    assert shown.output.count("2801 IOPS") == 2
