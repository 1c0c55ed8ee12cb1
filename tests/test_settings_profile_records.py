"""The built-in profile and the drift on records the settings probe's parser makes
(tests/fixtures/synthetic/settings_probe/, parsers/host/settings_probe.py): every setting
the profile names is one the parser produces (a sysctl when its /proc/sys file is there),
so a profile expectation is UNKNOWN only where a host's source was missing or unreadable,
never because of a name."""

from __future__ import annotations

from fnmatch import fnmatchcase

from conftest import FIXTURES
from stackprobe.kinds.host.settings_judging import judge_settings
from stackprobe.parsers.host.settings_names import SYSCTLS
from stackprobe.parsers.host.settings_probe import parse_settings_probe
from stackprobe.spec.settings_profile import load_profile

PROBES = sorted((FIXTURES / "synthetic" / "settings_probe").glob("*.txt"))


def parsed():
    return [parse_settings_probe(p.read_text(), host=p.stem).record for p in PROBES]


def test_every_setting_the_builtin_profile_names_is_one_the_parser_produces():
    records = parsed()
    assert len(records) >= 2
    for exp in load_profile("hpc-storage").expectations:
        if exp.setting in SYSCTLS:
            continue  # read where /proc/sys has it; the fixtures hold a few
        for record in records:
            names = [n for n in record.settings if fnmatchcase(n, exp.setting)]
            assert names, f"{record.host}: no setting matches {exp.setting}"


def test_parsed_hosts_are_judged_and_compared():
    records = parsed()
    findings, warnings = judge_settings(records, {}, "hpc-storage", None)
    drift = findings["settings_drift"]
    assert drift["groups"][0]["hosts"] == len(records) and drift["compared"] > 20
    assert [d["text"] for d in drift["drifts"]] == [w.split(": ", 1)[1] for w in warnings
                                                    if w.startswith("settings drift")]
    criteria = findings["criteria"]
    assert len(criteria) == len(load_profile("hpc-storage").expectations)
    for item, exp in zip(criteria, findings["profile"]["expectations"], strict=True):
        statuses = set(exp["hosts"].values())
        assert statuses <= {"PASS", "FAIL", "UNKNOWN"} and len(exp["hosts"]) == len(records)
        expected = ("fail" if "FAIL" in statuses else
                    "not measured" if "UNKNOWN" in statuses else "pass")
        assert item["status"] == exp["status"] == expected
        # a value that could not be read is UNKNOWN, never a pass
        for problem in exp["problems"]:
            if problem["value"] is None:
                assert problem["status"] == "UNKNOWN"
