"""One rule of who is compared with whom: the per-node figures (node_figures.role_groups,
engine/per_node.py) and the settings drift (analysis/settings_drift.py) group a fleet's
hosts by node_figures.hosts_by_role.

Why a test of its own: the two comparisons once had an implementation each; a host with two
roles, or hosts without a role beside hosts with one, must land in the same groups in both,
or the drift table and the node-consistency table of one run would speak of different
fleets. They differ only in how the groups are shown: the node figures merge roles with
the same hosts ('mds/storage') and sort by name; the drift keeps each role (each has its
summary line), in the hosts' order, and names the roleless group 'no role' (or 'all').
"""

from __future__ import annotations

from stackprobe.analysis.node_figures import hosts_by_role, role_groups
from stackprobe.analysis.settings_drift import settings_drift
from stackprobe.schema.settings_records import Setting, SettingsRecord

HOSTS = ["oss2", "oss1", "mds1", "c1", "mds2"]
ROLES = {"oss1": ["storage"], "oss2": ["storage", "mds"], "mds1": ["mds"], "mds2": ["mds"]}


def record(host: str, governor: str) -> SettingsRecord:
    return SettingsRecord(host=host, settings={
        "cpu.governor": Setting(value=governor, source="/sys/test")})


def test_both_comparisons_put_the_same_hosts_in_each_group():
    groups = hosts_by_role(HOSTS, ROLES)
    assert groups == {"storage": ["oss2", "oss1"], "mds": ["oss2", "mds1", "mds2"], None: ["c1"]}
    per_node = role_groups(HOSTS, ROLES)
    assert {role: set(hosts) for role, hosts in per_node.items()} == \
        {role: set(hosts) for role, hosts in groups.items()}
    report = settings_drift([record(h, "powersave" if h == "mds2" else "performance")
                             for h in HOSTS], ROLES)
    assert [(g.role, g.hosts) for g in report.groups] == \
        [("storage", 2), ("mds", 3), ("no role", 1)]
    (drift,) = report.drifts
    assert (drift.roles, drift.text) == (("mds",), "mds2: cpu.governor powersave, 2 hosts "
                                                   "performance")


def test_roles_with_the_same_hosts_merge_for_node_figures_only():
    same = {"a": ["storage", "mds"], "b": ["storage", "mds"], "c": ["storage", "mds"]}
    assert role_groups(["c", "a", "b"], same) == {"mds/storage": ["a", "b", "c"]}
    report = settings_drift([record("a", "x"), record("b", "x"), record("c", "y")], same)
    assert [g.role for g in report.groups] == ["storage", "mds"]
    assert [d.roles for d in report.drifts] == [("storage", "mds")]  # one sentence for both


def test_no_roles_is_one_group_in_both():
    assert role_groups(["b", "a"], None) == {None: ["a", "b"]}
    report = settings_drift([record("b", "x"), record("a", "x")], {})
    assert [(g.role, g.hosts) for g in report.groups] == [("all", 2)]
    assert settings_drift([], {}).groups == ()
