"""Nodes compared in pairs, by their spread, and within their roles: seed 004's findings.

Seed 004 accepted a Lustre cluster bottom-up: STREAM put its two MDS servers at about
3 : 2 memory bandwidth (a DIMM not seated, a memory channel missing), LINPACK put the two
MDS more than 10% apart while its eight OSS agreed within 0.3%. The seed gives those
ratios, not the figures; the figures below are chosen to stand in exactly those ratios
(STREAM triad of a two-socket server of that era, ~96 GB/s, and 2/3 of it; HPL of ~1.5
Tflop/s) and go through the real code: the records a per-node step keeps, the executor's
join of the hosts (engine/per_node.py) with the hosts' roles, the stored form, the
report's table and heatmap, and a real run on `access: local` hosts.
"""

from __future__ import annotations

import json

import pytest

from conftest import run_cli
from stackprobe.analysis.consistency import Limits, judge
from stackprobe.analysis.consistency_text import spread_line
from stackprobe.analysis.pair_ratio import ratio_text
from stackprobe.engine.per_node import combine_hosts
from stackprobe.kinds.ceph.fleet import all_clients
from stackprobe.kinds.context import StepOutcome
from stackprobe.plan.expand import expand, one_step
from stackprobe.report.host_tables import consistency_table
from stackprobe.report.html_heatmaps import consistency_heatmap
from stackprobe.schema.records import IoRecord, IoStats, MemBwRecord
from stackprobe.schema.results import StepResult
from stackprobe.spec.hosts import HostsFile
from stackprobe.suite.loader import SuiteError, parse_suite

TRIAD = "memory bandwidth (triad)"
MDS = {"mds1": ["mds"], "mds2": ["mds"]}
OSS = {f"oss{i}": ["oss"] for i in range(1, 9)}


def memory_step(hosts, **fields):
    return one_step({"kind": "memory", "hosts": list(hosts), **fields}, hosts=tuple(hosts))


def joined(step, triad: dict[str, float], roles=None):
    """combine_hosts over one triad record per host, as each host's run returned it."""
    per_host = [(h, StepOutcome("ok", [MemBwRecord(tool="stress-ng", operation="triad",
                                                   bw_bytes=bw)]), []) for h, bw in triad.items()]
    outcome, _ = combine_hosts(step, per_host, roles)
    return outcome


def by_role(outcome) -> dict:
    return {c["role"]: c for c in outcome.findings["consistency"]}


def test_seed_004_two_mds_at_3_to_2_are_both_named_with_their_ratio():
    triad = {"mds1": 96.2e9, "mds2": 64.5e9, **{h: 121.4e9 + i * 0.05e9
                                                 for i, h in enumerate(OSS)}}
    outcome = joined(memory_step(triad), triad, {**MDS, **OSS})
    mds = by_role(outcome)["mds"]
    assert mds["pair"] == {"high": "mds1", "low": "mds2", "ratio": pytest.approx(1.4915, abs=1e-4),
                           "ratio_text": "3 : 2", "differ_pct": pytest.approx(32.95, abs=0.01),
                           "differ": True}
    assert [f["flagged"] for f in mds["figures"]] == [True, True]
    assert mds["limits"] == {"differ_pct": 10.0, "spread_flag_pct": 10.0, "consistent_pct": 0.3}
    [warning] = [w for w in outcome.warnings if "mds" in w]
    assert warning.startswith(f"{TRIAD} — role mds: mds1 : mds2 = 3 : 2 (")
    assert "they differ by 33% of the better, more than 10%" in warning
    assert not any(w.startswith("mds2 ") for w in outcome.warnings)  # neither one is blamed
    # the eight OSS, compared among themselves only, agree within 0.3%
    oss = by_role(outcome)["oss"]
    assert oss["spread_verdict"] == "consistent" and oss["pair"] is None
    assert not any(f["flagged"] for f in oss["figures"])


def test_seed_004_hpl_on_the_two_mds_more_than_10_percent_apart():
    hpl = judge({"mds1": 1512.0, "mds2": 1349.0}, metric="HPL", unit="Gflop/s", role="mds",
                limits=Limits())
    assert hpl.pair.differ and hpl.pair.ratio_text == "1.12 : 1"
    assert hpl.pair.differ_pct == pytest.approx(10.78, abs=0.01)
    assert hpl.sentences() == ["HPL — role mds: mds1 : mds2 = 1.12 : 1 (1.51e+03 Gflop/s and "
                               "1.35e+03 Gflop/s): they differ by 11% of the better, more "
                               "than 10%"]


def test_two_nodes_5_percent_apart_are_consistent():
    step = memory_step(["a", "b"])
    outcome = joined(step, {"a": 100e9, "b": 95e9})
    [c] = outcome.findings["consistency"]
    assert c["pair"]["differ"] is False and c["pair"]["differ_pct"] == 5.0
    assert c["pair"]["ratio_text"] == "1.05 : 1" and c["role"] is None
    assert not any(f["flagged"] for f in c["figures"]) and outcome.warnings == []


def test_the_pair_limit_is_relative_to_the_better_one():
    # latencies of 2 and 3 ms: 50% above the better (lower) one; bandwidths 3 and 2: 33%
    lat = judge({"a": 2.0, "b": 3.0}, metric="latency", higher_is_better=False)
    assert lat.pair.differ_pct == pytest.approx(50.0) and lat.pair.ratio_text == "3 : 2"
    bw = judge({"a": 2.0, "b": 3.0}, metric="bandwidth")
    assert bw.pair.differ_pct == pytest.approx(100 / 3)
    # exactly at the limit is within it; just past it differs
    assert not judge({"a": 100.0, "b": 90.0}, metric="m").pair.differ
    assert judge({"a": 100.0, "b": 89.9}, metric="m").pair.differ
    with pytest.raises(ValueError, match="a ratio to it means nothing"):
        judge({"a": 100.0, "b": 0.0}, metric="m")


@pytest.mark.parametrize(("ratio", "text"), [
    (1.0, "1 : 1"), (1.49, "3 : 2"), (1.52, "3 : 2"), (2.03, "2 : 1"), (1.67, "5 : 3"),
    (4.5, "9 : 2"), (1.27, "1.27 : 1"), (1.3, "1.30 : 1"), (14.2, "14 : 1")])
def test_ratios_in_small_integers_when_close_to_one(ratio, text):
    assert ratio_text(ratio) == text


def test_eight_oss_within_0_3_percent_are_consistent():
    oss = {h: 1402.0 + i * 0.4 for i, h in enumerate(OSS)}  # HPL Gflop/s, 0.2% apart
    c = judge(oss, metric="HPL", role="oss").as_dict()
    assert c["spread_verdict"] == "consistent" and c["spread_pct"] == pytest.approx(0.2, abs=0.01)
    assert spread_line(c) == ("HPL — role oss: consistent (0.2%) over 8 nodes "
                              "((max − min) / median)")


def test_a_14_percent_spread_is_flagged_beside_the_mad_judge():
    # one node 14% better: the MAD judge never flags a better node, the spread is flagged
    high = {"n1": 100e9, "n2": 100e9, "n3": 100e9, "n4": 100e9, "n5": 114e9}
    outcome = joined(memory_step(high), high)
    [c] = outcome.findings["consistency"]
    assert c["spread_verdict"] == "flagged" and not any(f["flagged"] for f in c["figures"])
    assert outcome.warnings == [f"{TRIAD}: spread 14% > 10% over 5 nodes ((max − min) / median)"]
    # one node 14% worse: both say so, each in its own words
    low = {**high, "n5": 86e9}
    outcome = joined(memory_step(low), low)
    assert outcome.warnings == [f"n5 {TRIAD} 0.86× median (median 93.1 GiB/s)",
                                f"{TRIAD}: spread 14% > 10% over 5 nodes ((max − min) / median)"]


def test_a_spread_between_the_limits_is_only_reported():
    values = {"a": 100.0, "b": 101.0, "c": 102.0}
    c = judge(values, metric="m").as_dict()
    assert c["spread_verdict"] == "reported"
    assert spread_line(c) == "m: spread 2.0% over 3 nodes ((max − min) / median)"
    outcome = joined(memory_step(values), values)
    assert outcome.warnings == []


def test_roles_are_never_mixed():
    """2 MDS and 3 slower OSS: each role alike, nothing flagged; judged as one group the
    same figures would spread far beyond the limit."""
    triad = {"mds1": 60.0e9, "mds2": 60.3e9, "oss1": 30.0e9, "oss2": 30.1e9, "oss3": 29.9e9}
    roles = {"mds1": ["mds"], "mds2": ["mds"], "oss1": ["oss"], "oss2": ["oss"], "oss3": ["oss"]}
    outcome = joined(memory_step(triad), triad, roles)
    groups = by_role(outcome)
    assert {r: [f["node"] for f in c["figures"]] for r, c in groups.items()} == {
        "mds": ["mds1", "mds2"], "oss": ["oss1", "oss2", "oss3"]}
    assert groups["oss"]["median"] == 30.0e9 and not groups["mds"]["pair"]["differ"]
    assert outcome.warnings == []
    assert not any(f["flagged"] for c in groups.values() for f in c["figures"])
    mixed = joined(memory_step(triad), triad)
    assert [c["spread_verdict"] for c in mixed.findings["consistency"]] == ["flagged"]


def test_a_host_with_two_roles_is_compared_in_each():
    triad = {"mds1": 60e9, "mds2": 40e9, "gw1": 80e9}
    roles = {"mds1": ["mds"], "mds2": ["mds", "gateway"], "gw1": ["gateway"]}
    groups = by_role(joined(memory_step(triad), triad, roles))
    assert {r: [f["node"] for f in c["figures"]] for r, c in groups.items()} == {
        "gateway": ["gw1", "mds2"], "mds": ["mds1", "mds2"]}
    assert groups["gateway"]["pair"]["ratio_text"] == "2 : 1"
    assert groups["mds"]["pair"]["ratio_text"] == "3 : 2"


def test_hosts_without_a_role_form_one_group_and_equal_roles_one_comparison():
    triad = {"a": 50e9, "b": 50e9, "c": 50.1e9, "d": 50e9}
    roles = {"a": [], "b": [], "c": ["client", "storage"], "d": ["storage", "client"]}
    groups = by_role(joined(memory_step(triad), triad, roles))
    assert {r: [f["node"] for f in c["figures"]] for r, c in groups.items()} == {
        "client/storage": ["c", "d"], None: ["a", "b"]}


SUITE = """\
name: seed-004
steps:
  - kind: memory
    hosts: all
    operations: [read]
    compare: {differ_pct: 3, spread_flag_pct: 1, consistent_pct: 0.1}
  - kind: cpu
    hosts: all
"""
HOSTS = HostsFile.model_validate({"hosts": [
    {"name": n, "address": f"127.0.0.{i}", "roles": r} for i, (n, r) in
    enumerate([("mds1", ["mds"]), ("mds2", ["mds"]), ("oss1", ["oss"]), ("oss2", ["oss"]),
               ("oss3", ["oss"])], start=20)]})


def test_thresholds_from_a_suite_are_honoured():
    memory, cpu = expand(parse_suite(SUITE, "seed-004.yaml"), None, HOSTS)
    assert "compare" not in memory.params  # it judges; it is not the workload
    triad = {"mds1": 100e9, "mds2": 95e9, "oss1": 50e9, "oss2": 50.1e9, "oss3": 50.2e9}
    roles = {h.name: h.roles for h in HOSTS.hosts}
    strict = by_role(joined(memory, triad, roles))
    assert strict["mds"]["pair"]["differ"] and strict["mds"]["limits"]["differ_pct"] == 3
    assert strict["oss"]["spread_verdict"] == "reported"  # 0.4%: above 0.1, below 1
    default = by_role(joined(cpu, triad, roles))  # the same figures, the default limits
    assert not default["mds"]["pair"]["differ"] and default["oss"]["spread_verdict"] == "reported"


@pytest.mark.parametrize(("value", "field", "message"), [
    ("{differ_pct: -5}", "steps[0].compare.differ_pct", "greater than 0"),
    ("{spread_flag_pct: .nan}", "steps[0].compare.spread_flag_pct", "finite"),
    ("{consistent_pct: many}", "steps[0].compare.consistent_pct", "valid number"),
    ("{differ_pct: yes}", "steps[0].compare.differ_pct", "a percentage, not true"),
    ("{spread_flag_pct: 1, consistent_pct: 2}", "steps[0].compare", "above spread_flag_pct"),
    ("{differ: 10}", "steps[0].compare.differ", "Extra inputs"),
    ("10", "steps[0].compare", "valid dictionary"),
])
def test_a_bad_threshold_is_one_line_naming_file_line_and_field(value, field, message):
    text = f"name: t\nsteps:\n  - kind: cpu\n    seconds: 3\n    compare: {value}\n"
    with pytest.raises(SuiteError) as err:
        parse_suite(text, "bad.yaml")
    line = str(err.value)
    assert line.startswith(f"bad.yaml:5: {field}: ") and message in line and "\n" not in line


def test_a_kind_that_does_not_compare_hosts_refuses_compare(tmp_path):
    (tmp_path / "s.yaml").write_text("name: t\nsteps:\n  - kind: network\n"
                                     "    compare: {differ_pct: 3}\n")
    proc = run_cli(["plan", "s.yaml"], cwd=tmp_path, check=2)
    assert proc.stderr.strip().splitlines() == [
        "stackprobe: s.yaml:4: steps[0].compare: Extra inputs are not permitted"]


def _stored_step(entries: list[dict]) -> StepResult:
    return StepResult(id="01-memory", index=1, name="memory", kind="memory", title="Memory",
                      layer="hardware", params={}, findings={"consistency": entries})


def test_the_report_shows_the_role_the_pair_and_the_spread():
    triad = {"mds1": 96.2e9, "mds2": 64.5e9, "oss1": 121.4e9, "oss2": 121.5e9, "oss3": 121.6e9}
    roles = {"mds1": ["mds"], "mds2": ["mds"], "oss1": ["oss"], "oss2": ["oss"], "oss3": ["oss"]}
    entries = joined(memory_step(triad), triad, roles).findings["consistency"]
    step = _stored_step(json.loads(json.dumps(entries)))  # as results.json gives it back
    mds, oss = (consistency_table(step, c) for c in step.findings["consistency"])
    assert mds.title == f"Node consistency: {TRIAD} — role mds (01-memory)"
    assert [r[-1] for r in mds.rows] == ["⚠ differ", "⚠ differ"]
    assert mds.notes[-1] == (f"{TRIAD} — role mds: mds1 : mds2 = 3 : 2 (89.6 GiB/s and "
                             "60.1 GiB/s): they differ by 33% of the better, more than 10%")
    assert oss.title == f"Node consistency: {TRIAD} — role oss (01-memory)"
    assert oss.notes[-1] == f"{TRIAD} — role oss: consistent (0.16%) over 3 nodes ((max − min) / median)"
    svg = consistency_heatmap(step.id, step.findings["consistency"])
    assert f"{TRIAD} — role mds" in svg and f"{TRIAD} — role oss" in svg
    assert "mds1 : mds2 = 3 : 2 — they differ" in svg


def test_an_entry_stored_before_roles_and_pairs_draws_as_before():
    old = {"metric": "logical CPUs", "unit": "CPUs", "median": 8, "mad": 0, "spread_pct": 0.0,
           "figures": [{"node": h, "value": 8, "ratio": 1.0, "robust_z": None, "flagged": False}
                       for h in ("h1", "h2", "h3")]}
    t = consistency_table(_stored_step([old]), old)
    assert t.title == "Node consistency: logical CPUs (01-memory)"
    assert t.notes == ["median 8 CPUs, spread (max-min)/median 0.0%"]


def test_two_ceph_clients_that_differ_are_named():
    """The fleet's client comparison had no verdict with two clients; now the pair rule."""
    recs = [(IoRecord(tool="rados", job="seq", host=h, read=IoStats(iops=bw / 4e6, bw_bytes=bw)),
             None) for h, bw in (("c1", 900e6), ("c2", 600e6))]
    phase = all_clients(("read",), "rados bench seq", recs, None)
    assert phase.spread["pair"]["ratio_text"] == "3 : 2" and phase.spread["role"] is None
    assert [w for w in phase.warnings if w.startswith("client ")] == [
        "client rados bench seq bandwidth: c1 : c2 = 3 : 2 (858 MiB/s and 572 MiB/s): they "
        "differ by 33% of the better, more than 10%"]


LOCAL_HOSTS = [("mds1", ["mds", "mgs"]), ("mds2", ["mds", "mgs"]), ("oss1", ["oss"]),
               ("oss2", ["oss"]), ("oss3", ["oss", "gateway"]), ("gw1", ["gateway"])]


def test_a_run_on_local_hosts_compares_within_each_role(tmp_path):
    """A real inventory on six `access: local` entries (this machine, six times): every
    figure is the same, so each role is consistent; the comparisons follow the roles."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    hosts = {"hosts": [{"name": n, "access": "local", "address": f"127.0.0.{i}", "roles": r,
                        "directories": [str(scratch)]}
                       for i, (n, r) in enumerate(LOCAL_HOSTS, start=30)]}
    (tmp_path / "hosts.yaml").write_text(json.dumps(hosts))
    (tmp_path / "s.yaml").write_text("name: roles\nsteps:\n  - {kind: inventory, hosts: all, "
                                     "compare: {consistent_pct: 0.5}}\n")
    run_cli(["run", "s.yaml", "--hosts", "hosts.yaml", "--target", tmp_path, "--out",
             tmp_path / "runs", "--no-monitor"], cwd=tmp_path, check=0)
    [run_dir] = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    [step] = json.loads((run_dir / "results.json").read_text())["steps"]
    compared = {(c["metric"], c["role"]): c for c in step["findings"]["consistency"]}
    assert sorted(compared) == [(m, r) for m in ("logical CPUs", "memory size")
                                for r in ("gateway", "mds/mgs", "oss")]
    for (_, role), c in compared.items():
        nodes = [f["node"] for f in c["figures"]]
        assert nodes == {"gateway": ["gw1", "oss3"], "mds/mgs": ["mds1", "mds2"],
                         "oss": ["oss1", "oss2", "oss3"]}[role]
        assert c["limits"]["consistent_pct"] == 0.5
        if role == "oss":
            assert c["spread_verdict"] == "consistent" and c["pair"] is None
        else:
            assert c["pair"]["ratio_text"] == "1 : 1" and not c["pair"]["differ"]
    assert not any("role" in w for w in step["warnings"]), step["warnings"]
    shown = run_cli(["show", run_dir], check=0).stdout
    flat = " ".join(shown.split())
    assert "Node consistency: logical CPUs — role mds/mgs" in flat
    assert "mds1 : mds2 = 1 : 1" in flat and "consistent (0%) over 3 nodes" in flat
    assert list(scratch.iterdir()) == []


def test_the_checks_name_the_role_and_say_a_pair_differs():
    from stackprobe.kinds.checks import NodeSpread, NoFlaggedNode

    triad = {"mds1": 96.2e9, "mds2": 64.5e9, "oss1": 121.4e9, "oss2": 121.5e9, "oss3": 121.6e9}
    roles = {"mds1": ["mds"], "mds2": ["mds"], "oss1": ["oss"], "oss2": ["oss"], "oss3": ["oss"]}
    step = _stored_step(joined(memory_step(triad), triad, roles).findings["consistency"])
    flagged = {o.measured: o.ok for o in NoFlaggedNode().outcomes(None, [step])}
    mds = next(m for m in flagged if "role mds" in m)
    assert not flagged[mds] and "mds1 : mds2 = 3 : 2, they differ" in mds, mds
    assert all(ok for m, ok in flagged.items() if "role oss" in m)
    spreads = [o.measured for o in NodeSpread().outcomes(None, [step])]
    assert any("role oss" in s for s in spreads) and any("role mds" in s for s in spreads)
