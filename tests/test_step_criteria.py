"""Criteria a step states in its findings join the checklist (verdict/step_criteria.py):
pass, fail (exit 3), not measured (a failure only under --strict), an unreadable entry
kept as not measured — with a settings profile's expectations as the real case."""

from __future__ import annotations

import pytest

from stackprobe.kinds.host.settings_judging import judge_settings
from stackprobe.schema.results import RunInfo, RunResults
from stackprobe.verdict.checklist import build_verdict
from stackprobe.verdict.codes import EXIT_CRITERIA_FAILED, EXIT_OK
from test_settings_drift import fleet16, rec, step


def run_with(*steps) -> RunResults:
    info = RunInfo(id="20261124T000000Z-settings", suite="settings", suite_source="t.yaml",
                   target="/tmp", host="ctl", started="2026-11-24T00:00:00Z", status="ok",
                   stackprobe_version="0")
    return RunResults(run=info, steps=list(steps))


def item(status: str, rule: str = "profile p: x = 1") -> dict:
    return {"kind": "criterion", "rule": rule, "origin": "p.yaml:4", "status": status,
            "measured": "h1 x 2" if status == "fail" else ""}


@pytest.mark.parametrize(("statuses", "strict", "verdict", "code"), [
    (["pass", "pass"], False, "pass", EXIT_OK),
    (["pass", "fail"], False, "fail", EXIT_CRITERIA_FAILED),
    (["pass", "not measured"], False, "pass", EXIT_OK),
    (["pass", "not measured"], True, "fail", EXIT_CRITERIA_FAILED),
])
def test_stated_criteria_decide_like_the_suites(statuses, strict, verdict, code):
    results = run_with(step({"criteria": [item(s, f"profile p: x{i} = 1")
                                          for i, s in enumerate(statuses)]}))
    v = build_verdict(results, [], strict=strict)
    assert (v.status, v.exit_code) == (verdict, code)
    assert [(i.kind, i.rule, i.status, i.sources) for i in v.items] == [
        ("criterion", f"profile p: x{i} = 1", s, ["settings"]) for i, s in enumerate(statuses)]


def test_an_unreadable_stated_criterion_is_not_measured_never_dropped():
    results = run_with(step({"criteria": [{"rule": "profile p: y = 1", "status": "bogus"}, 7]}))
    v = build_verdict(results, [])
    assert [(i.rule, i.status) for i in v.items] == [
        ("profile p: y = 1", "not measured"), ("criterion of settings", "not measured")]
    assert build_verdict(results, [], strict=True).exit_code == EXIT_CRITERIA_FAILED


def test_a_profile_judged_by_the_settings_step_fails_the_run_on_one_host():
    records = fleet16()
    for r in records:
        r.settings["cpu.smt"] = r.settings["cpu.governor"].model_copy(update={"value": "off"})
    findings, _ = judge_settings(records, {}, "hpc-storage", None)
    v = build_verdict(run_with(step(findings)), [])
    by_rule = {i.rule: i for i in v.items if i.kind == "criterion"}
    governor = by_rule["profile hpc-storage: cpu.governor = performance"]
    assert (governor.status, governor.measured, governor.origin) == (
        "fail", "h4: cpu.governor powersave", "hpc-storage.yaml:31")
    assert by_rule["profile hpc-storage: cpu.smt in off, forceoff, notsupported"].status == "pass"
    # what was not read is not measured, never a pass
    assert by_rule["profile hpc-storage: vm.swappiness <= 10"].status == "pass"
    assert by_rule["profile hpc-storage: vm.zone_reclaim_mode = 0"].status == "not measured"
    assert v.exit_code == EXIT_CRITERIA_FAILED
    alike, _ = judge_settings([rec("a", cpu__smt="off"), rec("b", cpu__smt="off")], {}, None, None)
    assert build_verdict(run_with(step(alike)), []).exit_code == EXIT_OK
