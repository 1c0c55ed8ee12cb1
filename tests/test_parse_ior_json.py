"""IOR's JSON summary (`-O summaryFormat=JSON`) on real outputs of IOR 4.1.0+dev recorded
here (tests/fixtures/recorded/RECORDED.md, "IOR JSON"): every figure as the file states it,
the iterations against the summary IOR computed from them, IOR 3.3's nested "Results",
the document inside IOR's stdout, detection, ingest as a run, and bad input."""

from __future__ import annotations

import json
import math
import statistics

import pytest
from typer.testing import CliRunner

from conftest import FIXTURES
from stackprobe.cli.app import app
from stackprobe.ingest.detect import detect
from stackprobe.ingest.files import ingest_file
from stackprobe.parsers.hpc.ior_json import is_ior_json, parse_ior_json
from stackprobe.store.rundir import load_results

MIB = 1024**2
RECORDED = FIXTURES / "recorded" / "ior-json"
FPP = RECORDED / "ior-4.1.0+dev_ior-posix-fpp.json"
SHARED = RECORDED / "ior-4.1.0+dev_ior-posix-shared-stonewall.json"
RANDOM = RECORDED / "ior-4.1.0+dev_ior-posix-random.json"
STDOUT = RECORDED / "ior-4.1.0+dev_ior-posix-shared-stdout.json"
ALL = [FPP, SHARED, RANDOM, STDOUT]


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_every_figure_is_the_files_own(path):
    doc = json.loads(path.read_text())
    records = parse_ior_json(path.read_text())
    assert [(r.test, r.operation) for r in records] == [(0, s["operation"]) for s in doc["summary"]]
    params = doc["tests"][0]["Parameters"]
    for rec, row in zip(records, doc["summary"]):
        assert rec.source_format == "json" and rec.tool_version == doc["Version"] == "4.1.0+dev"
        assert rec.api == row["API"] == "POSIX"
        assert rec.bw_bytes.mean == pytest.approx(row["bwMeanMIB"] * MIB)
        assert rec.bw_bytes.max == pytest.approx(row["bwMaxMIB"] * MIB)
        assert rec.bw_bytes.min == pytest.approx(row["bwMinMIB"] * MIB)
        assert rec.bw_bytes.stddev == pytest.approx(row["bwStdMIB"] * MIB)
        assert rec.ops.mean == pytest.approx(row["OPsMean"]) and rec.ops.stddev == pytest.approx(row["OPsSD"])
        assert rec.mean_time_s == pytest.approx(row["MeanTime"])
        assert (rec.tasks, rec.tasks_per_node, rec.nodes) == (row["numTasks"], row["tasksPerNode"], params["nodes"])
        assert (rec.block_bytes, rec.transfer_bytes, rec.segments) == (
            row["blockSize"], row["transferSize"], row["segmentCount"])
        assert rec.file_per_process is bool(row["filePerProc"])
        assert rec.aggregate_bytes == row["blockSize"] * row["segmentCount"] * row["numTasks"] \
            == round(row["xsizeMiB"] * MIB)
        assert rec.command == doc["Command line"] and rec.path == params["testFileName"]
        assert rec.warnings == []


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_the_iterations_give_back_the_summary_ior_computed(path):
    """Each access's per-iteration rows, in order: IOR's summary is their max, min and
    population stddev (bandwidth over each iteration's total time)."""
    for rec in parse_ior_json(path.read_text()):
        assert len(rec.iterations) == rec.repetitions >= 2
        assert [it["iter"] for it in rec.iterations] == list(range(rec.repetitions))
        bws = [it["bw_bytes"] for it in rec.iterations]
        assert max(bws) == pytest.approx(rec.bw_bytes.max, rel=1e-5)
        assert min(bws) == pytest.approx(rec.bw_bytes.min, rel=1e-5)
        assert statistics.pstdev(bws) == pytest.approx(rec.bw_bytes.stddev, rel=1e-3, abs=0.01 * MIB)
        for it in rec.iterations:  # bandwidth = the bytes moved over the total time
            assert it["bw_bytes"] == pytest.approx(rec.aggregate_bytes / it["total_s"], rel=0.01)
            assert it["block_bytes"] == rec.block_bytes and it["xfer_bytes"] == rec.transfer_bytes


def test_the_stonewall_settings_and_figures():
    doc = json.loads(SHARED.read_text())
    write, read = parse_ior_json(SHARED.read_text())
    params = doc["tests"][0]["Parameters"]
    assert write.file_per_process is False and params["deadlineForStonewall"] == 2
    for rec, row in ((write, doc["summary"][0]), (read, doc["summary"][1])):
        assert rec.stonewall == pytest.approx({
            "deadline_s": 2.0, "wear_out": 1.0, "time_s": row["StoneWallTime"],
            "task_bw_bytes": row["StoneWallbwMeanMIB"] * MIB})
    assert parse_ior_json(FPP.read_text())[0].stonewall == {}  # no deadline, no stonewall figures


def test_ior_3_3_results_nested_per_iteration_read_the_same():
    doc = json.loads(FPP.read_text())
    flat = doc["tests"][0]["Results"]
    doc["tests"][0]["Results"] = [flat[i:i + 2] for i in range(0, len(flat), 2)]
    assert parse_ior_json(json.dumps(doc)) == parse_ior_json(FPP.read_text())


def test_the_document_inside_a_jobs_log_is_found_and_detected():
    """IOR's stdout (STDOUT: the document alone) inside a batch job's log, between the
    launcher's lines and the IOR banner a text run of the same job printed."""
    text = ("+ mpirun -n 2 ior -O summaryFormat=JSON\n"
            "IOR-4.1.0+dev: MPI Coordinated Test of Parallel I/O\n"
            + STDOUT.read_text() + "\n+ echo done\ndone\n")
    fmt = detect(text)
    assert fmt.name == "ior json"
    assert fmt.parse(text) == parse_ior_json(STDOUT.read_text())
    assert ingest_file(FPP).format == "ior json"
    assert not is_ior_json({"jobs": []}) and not is_ior_json([1])


def test_a_test_stopped_before_its_summary_keeps_its_iterations():
    doc = json.loads(FPP.read_text())
    doc["summary"] = []
    write, read = parse_ior_json(json.dumps(doc))
    bws = [it["bw_bytes"] for it in write.iterations]
    assert write.bw_bytes.mean == pytest.approx(math.fsum(bws) / len(bws))
    assert write.mean_time_s == pytest.approx(statistics.fmean(it["total_s"] for it in write.iterations))
    assert write.ops.mean is None and "no summary for the write" in write.warnings[0]


@pytest.mark.parametrize("text, message", [
    ("", "no IOR JSON document"),
    ('{"tests": [{"Parameters": {}}], "summary": []}', "no result"),
    ('{"tests": "x", "summary": [{"operation": "write", "bwMeanMIB": 1}]}', "tests is not a list"),
    ('{"summary": [{"operation": "write", "bwMeanMIB": "fast"}]}', "bwMeanMIB is not a number"),
    ('{"summary": [{"operation": "write", "bwMeanMIB": 1, "numTasks": -2}]}', "numTasks is not a count"),
])
def test_bad_input_is_one_line(text, message):
    with pytest.raises(ValueError) as err:
        parse_ior_json(text)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_cut_document_is_refused_in_one_line(tmp_path):
    cut = tmp_path / "ior.json"
    cut.write_text(FPP.read_text()[:3000])
    out = CliRunner().invoke(app, ["ingest", str(cut)], env={"COLUMNS": "200"})
    assert out.exit_code == 1 and "Traceback" not in out.output
    assert f"stackprobe: {cut}: cannot ingest" in out.stderr and out.stderr.count("\n") == 1


def test_ingested_as_a_run_it_is_an_ior_step(tmp_path):
    runs = tmp_path / "runs"
    out = CliRunner().invoke(app, ["ingest", str(FPP), str(SHARED), "--new", "ior json",
                                   "--runs-dir", str(runs)], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    (run,) = [p for p in runs.iterdir() if p.is_dir()]
    results = load_results(run)
    assert [s.kind for s in results.steps] == ["io500", "io500"]
    assert all(s.params.get("tool") == "ior" for s in results.steps)
    assert [r.bw_bytes.mean for r in results.steps[0].records] == \
        [r.bw_bytes.mean for r in parse_ior_json(FPP.read_text())]
    assert CliRunner().invoke(app, ["report", str(run), "-f", "md"]).exit_code == 0
