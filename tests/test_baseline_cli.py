"""`stackprobe baseline set|list|rm` and `stackprobe compare --against`, as a CI job runs
them (the CLI in a child process), on a recorded run and a copy of it made slower.

What must hold: exit 4 and the failing figure named when a gate fails, 0 otherwise; the
plain `compare RUN_A RUN_B` unchanged (exit 0); the JUnit file written; every mistake
(an unknown name, a gone run, a bad percentage, gate options without --against) one line
on stderr and exit 2.
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import run_cli
from test_gates import QUICK, SEQREAD, load, scaled


@pytest.fixture
def runs(tmp_path) -> Path:
    """A runs directory: the recorded quick run, and 'slow' (its 1M read at half speed)."""
    out = tmp_path / "runs"
    out.mkdir()
    shutil.copytree(QUICK, out / QUICK.name)
    slow = scaled(load(QUICK), "06-seqread-bw", 0.5)
    (out / "slow").mkdir()
    (out / "slow" / "results.json").write_text(slow.model_dump_json(indent=1))
    shutil.copytree(QUICK, out / "same")
    return out


def _one_line_error(proc, text):
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert text in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_baseline_set_list_rm(runs):
    done = run_cli(["baseline", "set", QUICK.name, "--out", runs], check=0)
    assert done.stdout.strip() == f"baseline quick -> {QUICK.name}"  # named by the suite
    listed = run_cli(["baseline", "list", "--out", runs], check=0)
    assert listed.stdout.startswith(f"quick  {QUICK.name}  set ")
    data = json.loads((runs / "baselines.json").read_text())
    assert data["quick"]["path"] == str((runs / QUICK.name).resolve())
    run_cli(["baseline", "set", "slow", "--name", "quick", "--out", runs], check=0)
    assert "(was " in run_cli(["baseline", "set", QUICK.name, "--name", "quick", "--out", runs],
                              check=0).stdout
    assert "removed" in run_cli(["baseline", "rm", "quick", "--out", runs], check=0).stdout
    assert "no baselines" in run_cli(["baseline", "list", "--out", runs], check=0).stdout
    _one_line_error(run_cli(["baseline", "rm", "quick", "--out", runs]), 'no baseline named "quick"')
    _one_line_error(run_cli(["baseline", "set", "nope", "--out", runs]), "nope: no such run directory")
    _one_line_error(run_cli(["baseline", "set", QUICK.name, "--name", "a b", "--out", runs]),
                    "baseline name 'a b'")


def test_compare_against_a_name_exits_4_naming_the_regressed_figure(runs, tmp_path):
    run_cli(["baseline", "set", QUICK.name, "--name", "nightly", "--out", runs], check=0)
    junit = tmp_path / "gates.xml"
    proc = run_cli(["compare", "slow", "--against", "nightly", "--max-regression", "10%",
                    "--junit", junit, "--out", runs], check=4)
    out = proc.stdout
    assert out.index("Disks and filesystems") < out.index("Regression gates: ")  # table first
    assert f"  FAIL  {SEQREAD}\n" in out
    assert "(-50.0%) — worse by 50.0% (gate 10%); single run: threshold only" in out
    assert out.count("FAIL") == 1 and "a gated figure regressed (exit 4)" in out
    root = ET.parse(junit).getroot()
    assert root.get("failures") == "1"
    (failed,) = [c for c in root.iter("testcase") if c.find("failure") is not None]
    assert failed.get("name") == SEQREAD


def test_compare_against_an_unchanged_run_exits_0(runs):
    run_cli(["baseline", "set", QUICK.name, "--name", "nightly", "--out", runs], check=0)
    proc = run_cli(["compare", "same", "--against", "nightly", "--out", runs], check=0)
    assert "max regression 10%" in proc.stdout and "FAIL" not in proc.stdout
    assert "no gated figure regressed (exit 0)" in proc.stdout


def test_compare_against_a_run_id_and_json(runs):
    proc = run_cli(["compare", "slow", "--against", QUICK.name, "--max-regression", "60",
                    "--format", "json", "--out", runs], check=0)
    doc = json.loads(proc.stdout)
    (gates,) = doc["gates"]
    assert gates["run"] == "20261124T053239Z-quick" and gates["status"] == "pass"
    assert gates["baseline"]["name"] == QUICK.name and gates["baseline"]["max_regression_pct"] == 60
    assert {i["rule"]: i["status"] for i in gates["items"]}[SEQREAD] == "pass"


def test_several_runs_are_each_gated(runs):
    proc = run_cli(["compare", "same", "slow", "--against", QUICK.name, "--out", runs], check=4)
    assert proc.stdout.count("Regression gates: ") == 2 and proc.stdout.count("FAIL") == 1


def test_plain_compare_is_unchanged(runs):
    proc = run_cli(["compare", QUICK.name, "slow", "--out", runs], check=0)
    assert "Regression gates" not in proc.stdout and "-50.0% worse" in proc.stdout


@pytest.mark.parametrize("args, message", [
    (["slow", "--against", "nope"], "--against nope: no baseline of that name"),
    (["slow", "--against", QUICK.name, "--max-regression", "lots"], "--max-regression lots:"),
    (["slow", "same", "--max-regression", "5"], "--max-regression needs --against"),
    (["slow", "same", "--junit", "x.xml"], "--junit needs --against"),
    (["slow", "same", "--against", QUICK.name, "--junit", "x.xml"], "--junit writes one run's gates"),
    (["--against", QUICK.name], "needs the run(s) to gate"),
    (["slow", "--against", "slow"], "slow: the same run as slow"),
])
def test_mistakes_are_one_line(runs, args, message):
    _one_line_error(run_cli(["compare", *args, "--out", runs]), message)


def test_a_baseline_whose_run_is_gone_is_one_line(runs):
    run_cli(["baseline", "set", "same", "--name", "old", "--out", runs], check=0)
    shutil.rmtree(runs / "same")
    _one_line_error(run_cli(["compare", "slow", "--against", "old", "--out", runs]),
                    "baseline 'old': its run 20261124T053239Z-quick is gone")
    assert "(run directory gone)" in run_cli(["baseline", "list", "--out", runs], check=0).stdout
