"""`stackprobe run` ends in its verdict: real fio on real files, judged by the suite's
criteria; the checklist in the terminal, results.json, `verdict`, `show` and JUnit; the
exit status a pipeline tests; a bad rule refused before any load."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from conftest import run_cli

# beside the one-at-a-time system tests (tests/run_tiers.py): its rules are >= 1 and >= 1T, and its regression is against a baseline 3x the run
pytestmark = [pytest.mark.tools, pytest.mark.beside]

STEP = """\
  - kind: fio
    name: {name}
    rw: {rw}
    bs: 4k
    size: 16M
    runtime: 1
    time_based: true
    ioengine: psync
    headline: iops
    criteria: [{criteria}]
"""


def _suite(tmp_path, read_rule: str, write_rule: str, suite_rules=("no flagged link",)):
    rules = "".join(f"  - {r}\n" for r in suite_rules)
    text = ("name: verdict-test\n" + (f"criteria:\n{rules}" if rules else "") + "steps:\n"
            + STEP.format(name="rr", rw="randread", criteria=read_rule)
            + STEP.format(name="rw", rw="randwrite", criteria=write_rule))
    path = tmp_path / "suite.yaml"
    path.write_text(text)
    target = tmp_path / "target"
    target.mkdir(exist_ok=True)
    return path, target


def _run(tmp_path, suite, target, *extra, check):
    return run_cli(["run", suite, "--target", target, "--out", tmp_path / "runs", "--no-monitor",
                    *extra], cwd=tmp_path, check=check)


def _only_run(tmp_path):
    (path,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    return path


def test_a_failed_criterion_exits_3_and_says_which(tmp_path):
    suite, target = _suite(tmp_path, "iops >= 1, p99 <= 10 s", "write.iops >= 1T")
    proc = _run(tmp_path, suite, target, "--junit", tmp_path / "junit.xml", check=3)
    assert "Verdict: FAIL: a criterion failed (exit 3" in proc.stdout
    assert "write.iops >= 1T" in proc.stdout and "NOT MEASURED" in proc.stdout
    run = _only_run(tmp_path)
    stored = json.loads((run / "results.json").read_text())["verdict"]
    assert [(i["rule"], i["status"]) for i in stored["items"]] == [
        ("no flagged link", "not measured"), ("iops >= 1", "pass"), ("p99 <= 10 s", "pass"),
        ("write.iops >= 1T", "fail")]
    assert stored["items"][3]["sources"] == ["fio:bs=4k,rw=randwrite,size=16M:write.iops"]
    # the same checklist again, after the fact, with the same exit status
    again = run_cli(["verdict", run.name, "--out", tmp_path / "runs", "--format", "csv"], check=3)
    assert again.stdout.splitlines()[0].startswith("kind,status,rule")
    assert "FAIL,write.iops >= 1T" in again.stdout
    assert "Verdict: FAIL" in run_cli(["show", run], check=0).stdout
    suites = ET.parse(tmp_path / "junit.xml").getroot()
    assert suites.get("failures") == "1" and suites.get("tests") == "4"


def test_every_criterion_passing_exits_0_and_strict_fails_what_was_not_measured(tmp_path):
    suite, target = _suite(tmp_path, "iops >= 1", "write.iops >= 1")
    proc = _run(tmp_path, suite, target, check=0)
    assert "Verdict: PASS (exit 0; 2 pass, 1 not measured)" in proc.stdout
    strict = _run(tmp_path, suite, target, "--strict", check=3)
    assert "strict" in strict.stdout


def test_a_rule_no_step_can_answer_is_refused_before_anything_runs(tmp_path):
    suite, target = _suite(tmp_path, "iops >= 1", "write.iops >= 1",
                           suite_rules=("fio:rw=randread,bs=8k:read.iops >= 1k",))
    proc = _run(tmp_path, suite, target, check=2)
    assert proc.stderr.startswith(f"stackprobe: {suite}:3: criteria[0]: no fio step has bs=8k,rw=randread")
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
    assert run_cli(["plan", suite], check=2).stderr == proc.stderr


def _faster_copy(run, dest, factor: float):
    """`run` as if every figure had been `factor` times better: a baseline to regress from."""
    import shutil

    shutil.copytree(run, dest)
    doc = json.loads((dest / "results.json").read_text())
    doc["run"]["id"] = dest.name
    for step in doc["steps"]:
        for group in (step.get("summary") or {}).get("io", []):
            for direction in ("read", "write"):
                d = group.get(direction)
                if d:
                    d["iops"] *= factor
                    d["bw_bytes"] *= factor
                    d["lat_mean_ns"] = (d.get("lat_mean_ns") or 0) / factor
        if (step.get("summary") or {}).get("headline_value"):
            step["summary"]["headline_value"] *= factor
    (dest / "results.json").write_text(json.dumps(doc))


def test_run_against_a_baseline_exits_4_on_a_regression_and_3_wins_over_it(tmp_path):
    suite, target = _suite(tmp_path, "iops >= 1", "write.iops >= 1", suite_rules=())
    _run(tmp_path, suite, target, check=0)
    first = _only_run(tmp_path)
    _faster_copy(first, tmp_path / "fast-base", 3.0)
    run_cli(["baseline", "set", tmp_path / "fast-base", "--name", "fast", "--out",
             tmp_path / "runs"], check=0)
    proc = _run(tmp_path, suite, target, "--against", "fast", "--max-regression", "10%", check=4)
    assert "Verdict: FAIL: a gated figure regressed (exit 4" in proc.stdout
    newest = max((p for p in (tmp_path / "runs").iterdir() if p.is_dir()), key=lambda p: p.name)
    items = json.loads((newest / "results.json").read_text())["verdict"]["items"]
    gates = [i for i in items if i["kind"] == "regression"]
    assert {g["rule"] for g in gates} == {"fio:bs=4k,rw=randread,size=16M:read.iops",
                                          "fio:bs=4k,rw=randwrite,size=16M:write.iops"}
    assert all(g["status"] == "fail" and g["origin"] == "--against fast" for g in gates)
    # a failed criterion and a regression together: the criterion's code wins
    suite, _ = _suite(tmp_path, "iops >= 1T", "write.iops >= 1", suite_rules=())
    _run(tmp_path, suite, target, "--against", "fast", check=3)
    # an unknown baseline is refused before anything runs
    before = len(list((tmp_path / "runs").iterdir()))
    bad = _run(tmp_path, suite, target, "--against", "nosuch", check=2)
    assert "--against nosuch: no baseline of that name" in bad.stderr
    assert len(list((tmp_path / "runs").iterdir())) == before
