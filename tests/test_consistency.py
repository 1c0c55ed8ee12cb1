"""Node-to-node consistency: median, MAD, robust z and the min_deviation guard (pairs, spreads
and roles: tests/test_node_pairs_roles.py)."""

from __future__ import annotations

import pytest

from stackprobe.analysis.consistency import Consistency, NodeFigure, judge


def flagged_nodes(result: Consistency) -> list[str]:
    return [f.node for f in result.flagged()]


def test_one_node_is_not_judged_and_two_are_a_pair():
    # before pairs were judged, two nodes gave None; now both are named when they differ
    pair = judge({"a": 100.0, "b": 30.0}, metric="m")
    assert pair is not None and pair.pair is not None and pair.spread_verdict is None
    assert flagged_nodes(pair) == ["a", "b"]
    assert all(f.robust_z is None for f in pair.figures)
    assert judge({"a": 100.0}, metric="m") is None
    assert judge({}, metric="m") is None


def test_mad_zero_odd_node_is_flagged():
    result = judge({"n1": 100.0, "n2": 100.0, "n3": 30.0}, metric="memory bandwidth")
    assert result is not None
    assert (result.median, result.mad) == (100.0, 0.0)
    assert result.spread_pct == pytest.approx(70.0)
    assert result.figures[2] == NodeFigure("n3", 30.0, 0.3, None, True)
    assert flagged_nodes(result) == ["n3"]


def test_close_nodes_are_not_flagged():
    result = judge({"a": 100.0, "b": 98.0, "c": 102.0}, metric="m")
    assert result.median == 100.0 and result.mad == 2.0
    assert [f.robust_z for f in result.figures] == pytest.approx([0.0, -0.6745, 0.6745])
    assert flagged_nodes(result) == []
    assert result.sentences() == []


def test_twins_one_percent_apart_are_not_flagged_although_mad_is_zero():
    result = judge({"a": 100.0, "b": 100.0, "c": 100.0, "d": 99.0}, metric="m")
    assert result.mad == 0.0
    assert flagged_nodes(result) == []
    # the same node 20 % down is flagged: the guard, not the MAD, kept it quiet above
    assert flagged_nodes(judge({"a": 100.0, "b": 100.0, "c": 100.0, "d": 80.0}, metric="m")) == ["d"]


def test_faster_node_is_not_flagged_when_higher_is_better():
    values = {"a": 100.0, "b": 100.0, "c": 101.0, "d": 200.0}
    assert flagged_nodes(judge(values, metric="m")) == []
    assert flagged_nodes(judge(values, metric="m", higher_is_better=False)) == ["d"]


def test_wide_spread_needs_a_large_robust_z():
    # node e is 20 % below the median (under the 25 % hard limit), but the nodes are all
    # over the place: |z| = 0.9, not an outlier
    values = {"a": 100.0, "b": 85.0, "c": 115.0, "d": 130.0, "e": 80.0}
    result = judge(values, metric="m")
    assert result.mad == 15.0
    e = result.figures[-1]
    assert e.robust_z == pytest.approx(-0.8993, abs=1e-4)
    assert not e.flagged


def test_far_below_its_peers_is_flagged_even_when_the_mad_is_noise():
    # three lab hosts sharing two CPUs: the MAD (10.4) is noise, z is only -1.1
    result = judge({"h1": 32.2, "h2": 21.8, "h3": 4.4}, metric="memory bandwidth")
    h3 = result.figures[-1]
    assert h3.robust_z == pytest.approx(-1.128, abs=1e-3)
    assert h3.flagged and [f.node for f in result.flagged()] == ["h3"]
    # 24 % below with noisy peers: not flagged; 26 % below: flagged
    assert not judge({"a": 100.0, "b": 76.0, "c": 130.0}, metric="m").figures[1].flagged
    assert judge({"a": 100.0, "b": 74.0, "c": 130.0}, metric="m").figures[1].flagged


def test_missing_dimm_sentence():
    values = {"node1": 52.0, "node2": 52.3, "node3": 34.4, "node4": 51.9, "node5": 52.1}
    result = judge(values, metric="memory bandwidth", unit="GB/s")
    assert result.median == 52.0
    assert result.mad == pytest.approx(0.1)
    assert flagged_nodes(result) == ["node3"]
    assert result.sentences() == ["node3 memory bandwidth 0.66× median (median 52 GB/s)"]


def test_formatter_for_the_median():
    values = {"a": 52.1e9, "b": 52.1e9, "c": 34.4e9}
    result = judge(values, metric="memory bandwidth", fmt=lambda v: f"{v / 1e9:.1f} GB/s")
    assert result.sentences() == ["c memory bandwidth 0.66× median (median 52.1 GB/s)"]


def test_lower_is_better_latency():
    values = {"a": 1.0, "b": 1.1, "c": 0.9, "d": 3.0, "e": 0.5}
    result = judge(values, metric="ping latency", unit="ms", higher_is_better=False)
    assert result.median == 1.0
    assert flagged_nodes(result) == ["d"]  # e is faster, not broken
    assert result.sentences() == ["d ping latency 3.00× median (median 1 ms)"]


def test_all_equal_nodes():
    result = judge({"a": 7.0, "b": 7.0, "c": 7.0}, metric="m")
    assert result.spread_pct == 0.0 and result.mad == 0.0
    assert all(f.ratio == 1.0 and f.robust_z is None for f in result.figures)
    assert flagged_nodes(result) == []


def test_ties_at_the_bottom_are_both_flagged():
    # two bad nodes of five: the median is still a good one
    values = {"a": 100.0, "b": 100.0, "c": 100.0, "d": 50.0, "e": 50.0}
    result = judge(values, metric="m")
    assert result.mad == 0.0
    assert flagged_nodes(result) == ["d", "e"]


def test_figures_sorted_by_node_and_ratio():
    result = judge({"z": 10.0, "a": 20.0, "m": 40.0}, metric="m")
    assert [f.node for f in result.figures] == ["a", "m", "z"]
    assert [f.ratio for f in result.figures] == [1.0, 2.0, 0.5]


def test_min_deviation_is_relative():
    values = {"a": 100.0, "b": 100.0, "c": 100.0, "d": 85.0}
    assert flagged_nodes(judge(values, metric="m")) == ["d"]
    assert flagged_nodes(judge(values, metric="m", min_deviation=0.2)) == []


@pytest.mark.parametrize("values", [
    {"a": 1.0, "b": float("nan"), "c": 1.0},
    {"a": 0.0, "b": 0.0, "c": 5.0},
])
def test_bad_values_raise(values):
    with pytest.raises(ValueError):
        judge(values, metric="m")
