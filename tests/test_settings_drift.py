"""Settings drift within roles (analysis/settings_drift.py): the odd hosts against the
majority, no majority, roles, per-device settings, volatile and unreadable values, and
the sentence cap — on constructed fleets of SettingsRecords."""

from __future__ import annotations

from stackprobe.analysis.settings_drift import hosts_text, settings_drift
from stackprobe.kinds.host.settings_checks import NoSettingsDrift
from stackprobe.kinds.host.settings_judging import judge_settings
from stackprobe.kinds.host.settings_tables import settings_judging_tables
from stackprobe.schema.results import StepResult
from stackprobe.schema.settings_records import Setting, SettingsRecord


def rec(host: str, **values) -> SettingsRecord:
    """A host's settings; keyword names use '__' for '.' (cpu__governor)."""
    settings = {}
    for key, value in values.items():
        volatile = isinstance(value, tuple)
        settings[key.replace("__", ".")] = Setting(
            value=value[0] if volatile else value, source="/sys/test", volatile=volatile)
    return SettingsRecord(host=host, settings=settings)


def step(findings: dict, id: str = "settings") -> StepResult:
    return StepResult(id=id, index=0, name=id, kind="settings", title="Node settings",
                      layer="hardware", params={}, status="ok", findings=findings)


def fleet16(odd_governor: str = "powersave") -> list[SettingsRecord]:
    return [rec(f"h{i}", cpu__governor=odd_governor if i == 4 else "performance",
                vm__swappiness="10", time__offset_ms=(f"{i * 0.1:.1f}",))
            for i in range(1, 17)]


def test_one_powersave_host_of_sixteen_is_named_against_the_majority():
    report = settings_drift(fleet16(), {})
    assert [d.text for d in report.drifts] == ["h4: cpu.governor powersave, 15 hosts performance"]
    assert report.drifts[0].roles == ("all",)
    # governor and swappiness compared; the volatile time offset is not, though it differs
    assert (report.compared, report.differ) == (2, 1)
    assert "2 settings compared in all (16 hosts); 1 differ" == report.summary


def test_bios_of_one_oss_and_no_majority_between_two_mds():
    records = [rec(f"oss{i}", bios__version="2.1.7" if i == 7 else "2.3.1") for i in range(1, 9)]
    records += [rec("mds1", bios__version="2.1"), rec("mds2", bios__version="2.3")]
    roles = {**{f"oss{i}": ["storage"] for i in range(1, 9)}, "mds1": ["mds"], "mds2": ["mds"]}
    texts = [d.text for d in settings_drift(records, roles).drifts]
    assert texts == ["oss7: bios.version 2.1.7, 7 hosts 2.3.1", "mds1: bios.version 2.1, mds2: 2.3"]


def test_two_two_one_has_no_majority_and_names_every_value():
    records = [rec("a", x="1"), rec("b", x="1"), rec("c", x="2"), rec("d", x="2"), rec("e", x="3")]
    (drift,) = settings_drift(records, {}).drifts
    assert drift.majority is None
    assert drift.text == "a, b: x 1; c, d: 2; e: 3"


def test_a_host_in_two_roles_counts_in_each_and_the_same_difference_is_said_once():
    records = [rec("h1", kernel__version="6.1"), rec("h2", kernel__version="6.1"),
               rec("h3", kernel__version="5.15")]
    both = {"h1": ["storage", "mds"], "h2": ["storage", "mds"], "h3": ["storage", "mds"]}
    report = settings_drift(records, both)
    assert [(d.roles, d.text) for d in report.drifts] == [
        (("storage", "mds"), "h3: kernel.version 5.15, 2 hosts 6.1")]
    assert [(g.role, g.hosts, g.differ) for g in report.groups] == [("storage", 3, 1), ("mds", 3, 1)]
    # different members: the same setting is a finding per role
    split = {"h1": ["storage"], "h2": ["storage", "mds"], "h3": ["storage", "mds"]}
    assert [d.text for d in settings_drift(records, split).drifts] == [
        "h3: kernel.version 5.15, 2 hosts 6.1", "h2: kernel.version 6.1, h3: 5.15"]


def test_hosts_without_a_role_form_their_own_group_when_others_have_one():
    records = [rec("s1", x="1"), rec("s2", x="2"), rec("c1", x="1"), rec("c2", x="1")]
    report = settings_drift(records, {"s1": ["storage"], "s2": ["storage"]})
    assert [g.role for g in report.groups] == ["storage", "no role"]
    assert [d.roles for d in report.drifts] == [("storage",)]


def test_per_device_settings_compare_the_hosts_that_have_the_device():
    records = [rec("h1", nic__eth0__mtu="9000", nic__eth1__mtu="1500"),
               rec("h2", nic__eth0__mtu="9000"),
               rec("h3", nic__eth0__mtu="1500", nic__eth1__mtu="1500")]
    report = settings_drift(records, {})
    assert [d.text for d in report.drifts] == ["h3: nic.eth0.mtu 1500, 2 hosts 9000"]
    assert report.compared == 2  # eth1 on h1 and h3 alike; h2 has no eth1


def test_unreadable_values_and_single_hosts_are_not_compared():
    records = [rec("h1", a=None, b="x"), rec("h2", a="on", b="x"), rec("h3", a="off")]
    report = settings_drift(records, {})
    assert [d.text for d in report.drifts] == ["h2: a on, h3: off"]
    lone = settings_drift([rec("h1", a="1"), rec("h2", b="2")], {})
    assert (lone.compared, lone.drifts) == (0, ())


def test_long_host_lists_are_capped():
    assert hosts_text(["h1", "h2", "h3", "h4"]) == "h1, h2, h3, h4"
    assert hosts_text([f"h{i}" for i in range(1, 16)]) == "h1, h2, h3 and 12 more"
    records = [rec(f"n{i:02}", x="b" if i <= 15 else "a") for i in range(1, 41)]
    (drift,) = settings_drift(records, {}).drifts
    assert drift.text == "n01, n02, n03 and 12 more: x b; 25 hosts a"


def test_the_criterion_fails_per_difference_and_counts_the_rest():
    findings, warnings = judge_settings(fleet16(), {}, None, None)
    assert warnings == ["settings drift (all): h4: cpu.governor powersave, 15 hosts performance"]
    outcomes = NoSettingsDrift().outcomes(None, [step(findings)])
    assert [o.ok for o in outcomes] == [False, True]
    assert outcomes[0].measured == "all: h4: cpu.governor powersave, 15 hosts performance"
    alike, _ = judge_settings(fleet16("performance"), {}, None, None)
    ok = NoSettingsDrift().outcomes(None, [step(alike)])
    assert [o.ok for o in ok] == [True, True]
    assert NoSettingsDrift().all_well(ok) == "2 settings compared within roles, none differ"


def test_drift_table_names_majority_and_odd_hosts():
    findings, _ = judge_settings(fleet16(), {}, None, None)
    (table,) = settings_judging_tables([step(findings)])
    assert table.headers == ["setting", "role", "majority", "odd hosts"]
    assert table.rows == [["cpu.governor", "all", "performance (15 hosts)", "h4: powersave"]]
    assert table.notes == ["2 settings compared in all (16 hosts); 1 differ"]


def test_a_role_of_one_host_is_said_to_have_nothing_to_compare():
    records = [rec("mds1", cpu__governor="powersave"), rec("oss1", cpu__governor="performance"),
               rec("oss2", cpu__governor="performance")]
    report = settings_drift(records, {"mds1": ["mds"], "oss1": ["oss"], "oss2": ["oss"]})
    assert not report.drifts  # mds1 has no peer: its governor differs from nobody's
    assert report.summary == ("1 settings compared in oss (2 hosts); 0 differ "
                              "(mds: one host, nothing to compare)")
