"""Settings profiles: the loader (one-line errors with file, line and field), every
comparison, globs, roles, UNKNOWN never a pass, the built-in profile, and what the
settings step stores and shows from them (spec/settings_profile.py,
analysis/settings_profile.py, kinds/host/settings_judging.py)."""

from __future__ import annotations

import pytest

from stackprobe.analysis.settings_profile import evaluate, judge_value
from stackprobe.kinds.host.settings_judging import judge_settings
from stackprobe.kinds.host.settings_tables import settings_judging_tables
from stackprobe.spec.settings_profile import (
    Expectation,
    ProfileError,
    builtin_profiles,
    load_profile,
    parse_profile,
)
from test_settings_drift import fleet16, rec, step

PROFILE = """\
name: site
description: what this site expects
expectations:
  - setting: cpu.smt
    one_of: [off, forceoff]
    why: one thread per core
    source: acceptance procedure
  - setting: vm.swappiness
    at_most: 10
    why: keep daemons in memory
    source: tuned throughput-performance
  - setting: disk.*.scheduler
    not: bfq
    why: throughput
    source: RHEL docs
    roles: [storage]
"""


def exp(comparison: str, *values: str, number: float | None = None) -> Expectation:
    return Expectation(setting="x", comparison=comparison, values=values, number=number,
                       why="w", source="s", line=1)


def test_a_profile_keeps_values_as_written_and_lines_per_expectation():
    profile = parse_profile(PROFILE, "site.yaml")
    assert (profile.name, profile.description, profile.file) == ("site", "what this site expects",
                                                                 "site.yaml")
    smt, swap, disk = profile.expectations
    assert smt.values == ("off", "forceoff")  # YAML's 'off' is false; a profile compares text
    assert (smt.line, swap.line, disk.line) == (4, 8, 12)
    assert (swap.number, swap.text) == (10.0, "vm.swappiness <= 10")
    assert disk.is_glob and disk.roles == ("storage",) and disk.text == "disk.*.scheduler != bfq"


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("    at_most: 10\n", "    at_most: ten\n", "site.yaml:9: expectations[1].at_most: expected a number, not 'ten'"),
    ("    at_most: 10\n", "    at_most: .inf\n", "site.yaml:9: expectations[1].at_most: expected a number"),
    ("    at_most: 10\n", "    at_most: 10\n    equals: 3\n", "site.yaml:8: expectations[1]: needs exactly one of equals, one_of, at_least, at_most, not (has equals, at_most)"),
    ("    at_most: 10\n", "", "site.yaml:8: expectations[1]: needs exactly one of"),
    ("    why: keep daemons in memory\n", "", "site.yaml:8: expectations[1].why: missing"),
    ("    why: keep daemons in memory\n", "    why:\n", "site.yaml:10: expectations[1].why: needs a value"),
    ("    source: RHEL docs\n", "    source: RHEL docs\n    colour: red\n", "site.yaml:16: expectations[2].colour: unknown field"),
    ("    roles: [storage]\n", "    roles: {a: 1}\n", "site.yaml:16: expectations[2].roles: expected a list of values"),
    ("  - setting: cpu.smt\n", "  - setting: cpu smt\n", "site.yaml:4: expectations[0].setting: a setting name has no spaces"),
    ("    one_of: [off, forceoff]\n", "    one_of: []\n", "site.yaml:5: expectations[0].one_of: expected a list of values"),
    ("name: site\n", "", "site.yaml:1: name: missing"),
    ("name: site\n", "name: [a, b]\n", "site.yaml:1: name: expected a single value"),
    ("    at_most: 10\n", "    at_most: [10\n", "site.yaml:10: invalid YAML:"),
    ("    why: one thread per core\n", "    why: one thread per core\n    why: again\n", "site.yaml:7: expectations[0].why: given twice"),
])
def test_bad_profiles_are_one_line_naming_file_line_and_field(old, new, expected):
    assert old in PROFILE
    with pytest.raises(ProfileError) as err:
        parse_profile(PROFILE.replace(old, new, 1), "site.yaml")
    text = str(err.value)
    assert text.startswith(expected), text
    assert "\n" not in text


@pytest.mark.parametrize("text", ["", "- a\n- b\n", "name: x\nexpectations: []\n",
                                  "name: x\nexpectations: {a: 1}\n", "a: &x [*x]\n",
                                  "name: x\n" + "expectations:\n" + "  - " * 400 + "a\n"])
def test_documents_that_are_no_profile_are_refused_with_a_line(text):
    with pytest.raises(ProfileError, match=r"^p\.yaml:\d+: "):
        parse_profile(text, "p.yaml")


def test_profiles_load_by_builtin_name_or_by_path(tmp_path):
    assert "hpc-storage" in builtin_profiles()
    builtin = load_profile("hpc-storage")
    assert builtin.file == "hpc-storage.yaml" and 8 <= len(builtin.expectations) <= 15
    assert all(e.why and e.source for e in builtin.expectations)
    (tmp_path / "site.yaml").write_text(PROFILE)
    assert load_profile("site.yaml", tmp_path).name == "site"
    assert load_profile(str(tmp_path / "site.yaml")).file == str(tmp_path / "site.yaml")
    with pytest.raises(ProfileError, match="not a built-in profile"):
        load_profile("no-such-profile")
    with pytest.raises(ProfileError, match=r"^gone\.yaml: cannot read profile"):
        load_profile("gone.yaml", tmp_path)
    (tmp_path / "bin.yaml").write_bytes(b"name: x\n\xff\xfe\n")
    with pytest.raises(ProfileError, match=r"^bin\.yaml:2: not a UTF-8 text file"):
        load_profile("bin.yaml", tmp_path)


@pytest.mark.parametrize(("expectation", "value", "status"), [
    (exp("equals", "performance"), "performance", "PASS"),
    (exp("equals", "performance"), "powersave", "FAIL"),
    (exp("equals", "4096 131072 6291456"), "4096\t131072  6291456", "PASS"),
    (exp("not", "bfq"), "mq-deadline", "PASS"),
    (exp("not", "bfq"), "bfq", "FAIL"),
    (exp("one_of", "off", "forceoff"), "forceoff", "PASS"),
    (exp("one_of", "off", "forceoff"), "on", "FAIL"),
    (exp("at_least", "2048", number=2048), "4096", "PASS"),
    (exp("at_least", "2048", number=2048), "2048", "PASS"),
    (exp("at_least", "2048", number=2048), "128", "FAIL"),
    (exp("at_most", "10", number=10), "60", "FAIL"),
    (exp("at_most", "10", number=10), "2", "PASS"),
    (exp("at_most", "10", number=10), "mixed: 2 x3, 133 x1", "UNKNOWN"),
    (exp("at_most", "10", number=10), "nan", "UNKNOWN"),
    (exp("equals", "performance"), None, "UNKNOWN"),
    (exp("not", "bfq"), None, "UNKNOWN"),
    (exp("at_least", "1", number=1), None, "UNKNOWN"),
])
def test_every_comparison(expectation, value, status):
    assert judge_value(expectation, value) == status


def test_globs_expand_per_device_and_roles_limit_the_hosts():
    profile = parse_profile(PROFILE, "site.yaml")
    records = [rec("s1", cpu__smt="off", vm__swappiness="10", disk__sda__scheduler="none",
                   disk__sdb__scheduler="bfq"),
               rec("s2", cpu__smt="off", vm__swappiness="10"),  # no disk seen
               rec("c1", cpu__smt="on", vm__swappiness=None, disk__sda__scheduler="bfq")]
    roles = {"s1": ["storage"], "s2": ["storage"], "c1": ["client"]}
    smt, swap, disk = evaluate(profile, records, roles)
    assert smt.status == "fail" and [h.status for h in smt.hosts] == ["PASS", "PASS", "FAIL"]
    assert swap.status == "not measured"  # c1 unreadable: UNKNOWN, never a pass
    assert [h.host for h in disk.hosts] == ["s1", "s2"]  # c1 is no storage host
    s1, s2 = disk.hosts
    assert [(j.setting, j.status) for j in s1.judged] == [
        ("disk.sda.scheduler", "PASS"), ("disk.sdb.scheduler", "FAIL")]
    assert s1.status == "FAIL" and s2.status == "UNKNOWN" and disk.status == "fail"
    nobody = evaluate(profile, records, {})[2]  # no host has the role
    assert (nobody.hosts, nobody.status) == ((), "not measured")


def test_the_step_stores_each_expectation_as_a_criterion_of_the_verdict(tmp_path):
    records = fleet16()
    for r in records:
        r.settings["cpu.smt"] = r.settings["cpu.governor"].model_copy(update={"value": "off"})
    records[1].settings["cpu.smt"] = records[1].settings["cpu.smt"].model_copy(update={"value": None})
    (tmp_path / "site.yaml").write_text(PROFILE.replace("vm.swappiness", "cpu.governor").replace(
        "at_most: 10", "equals: performance"))
    findings, warnings = judge_settings(records, {}, "site.yaml", tmp_path)
    smt, governor, disk = findings["criteria"]
    assert governor == {
        "kind": "criterion", "rule": "profile site: cpu.governor = performance",
        "origin": "site.yaml:8", "status": "fail", "measured": "h4: cpu.governor powersave",
        "sources": [], "detail": "FAIL 1 (h4); UNKNOWN 0; PASS 15 (h1, h2, h3 and 12 more)"}
    assert (smt["status"], smt["measured"]) == ("not measured", "h2: cpu.smt not read")
    assert (disk["status"], disk["measured"]) == ("not measured", "no host with role storage")
    assert "profile site: cpu.governor = performance fails: h4: cpu.governor powersave" in warnings
    assert "settings drift (all): h4: cpu.governor powersave, 15 hosts performance" in warnings
    stored = findings["profile"]["expectations"][1]
    assert stored["hosts"]["h4"] == "FAIL" and stored["problems"] == [
        {"host": "h4", "setting": "cpu.governor", "value": "powersave", "status": "FAIL"}]
    _, profile_table = settings_judging_tables([step(findings)])
    assert profile_table.headers == ["expectation", "pass", "fail", "unknown", "failing hosts"]
    assert profile_table.rows[1] == ["cpu.governor = performance", "15", "1", "0", "h4"]


def test_a_profile_that_cannot_be_read_keeps_the_drift():
    findings, warnings = judge_settings(fleet16(), {}, "missing.yaml", "/nonexistent")
    assert findings["profile"]["error"].startswith("missing.yaml: cannot read profile")
    assert "criteria" not in findings and findings["settings_drift"]["differ"] == 1
    assert warnings[-1].startswith("profile missing.yaml not judged: ")


def test_few_hosts_get_a_column_each():
    records = [rec("a", cpu__smt="off"), rec("b", cpu__smt="on"), rec("c")]
    findings, _ = judge_settings(records, {}, "hpc-storage", None)
    _, table = settings_judging_tables([step(findings)])
    assert table.headers == ["expectation", "a", "b", "c"]
    assert table.rows[0] == ["cpu.smt in off, forceoff, notsupported", "PASS", "FAIL", "UNKNOWN"]
    assert all(item["status"] != "pass" for item in findings["criteria"][1:])  # nothing else read


def test_what_was_measured_groups_hosts_by_the_value_they_hold():
    records = [rec(f"n{i:02}", cpu__smt="on" if i in (3, 9) else "off" if i < 20 else None)
               for i in range(1, 31)]
    records.append(rec("n99", cpu__smt="forceoff"))
    findings, warnings = judge_settings(records, {}, "hpc-storage", None)
    smt = findings["criteria"][0]
    assert (smt["status"], smt["measured"]) == ("fail", "n03, n09: cpu.smt on")
    assert warnings == [
        "settings drift (all): n03, n09: cpu.smt on; n99: forceoff; 17 hosts off",
        "profile hpc-storage: cpu.smt in off, forceoff, notsupported fails: n03, n09: cpu.smt on"]
    del records[2], records[7]  # n03, n09: the rest pass or are not read
    smt = judge_settings(records, {}, "hpc-storage", None)[0]["criteria"][0]
    assert (smt["status"], smt["measured"]) == ("not measured",
                                                "n20, n21, n22 and 8 more: cpu.smt not read")
