"""Pair figures among many hosts: a matrix while it is small or mostly measured, a list of
the measured pairs (flagged and slowest first) once it would be mostly empty, and no
heatmap then (tables/pair_matrix.py, report/host_tables.py, report/html_heatmaps.py)."""

from __future__ import annotations

from stackprobe.report.host_tables import network_table
from stackprobe.report.html_heatmaps import step_heatmaps
from stackprobe.schema.results import StepResult
from stackprobe.tables.pair_matrix import MATRIX_HOSTS, dense, pair_matrix


def _step(hosts: int, pairs: list[tuple[int, int, float | None, bool]]) -> StepResult:
    cells = [{"client": f"h{a}", "server": f"h{b}", "bps": bps, "flags": ["slow"] if flagged else [],
              **({"error": "refused"} if bps is None else {})}
             for a, b, bps, flagged in pairs]
    return StepResult(id="03-pairs", index=3, name="pairs", kind="network", title="t", layer="network",
                      params={}, status="ok",
                      findings={"network": {"hosts": [f"h{i}" for i in range(1, hosts + 1)],
                                            "cells": cells}})


def test_small_or_full_matrices_stay_matrices():
    assert dense(MATRIX_HOSTS, 1)
    assert not dense(MATRIX_HOSTS + 1, 10)
    assert dense(40, 40 * 39 // 4)  # a quarter of the pairs measured
    step = _step(4, [(1, 2, 9e9, False), (2, 1, 8e9, False)])
    t = network_table(step, step.findings["network"])
    assert t.headers == ["client \\ server", "h1", "h2", "h3", "h4"]
    assert t.rows[0][:3] == ["h1", "—", "9.00"]
    assert step_heatmaps(step)


def test_a_sparse_draw_lists_its_pairs_flagged_and_slowest_first():
    pairs = [(1, 2, 9e9, False), (3, 4, 2e9, False), (5, 6, 8e9, True), (7, 8, None, False),
             (9, 10, 1e9, False)]
    step = _step(120, pairs)
    t = network_table(step, step.findings["network"])
    assert t.headers == ["client", "server", "measured"]
    assert [r[:2] for r in t.rows] == [["h7", "h8"], ["h5", "h6"], ["h9", "h10"], ["h3", "h4"],
                                      ["h1", "h2"]]
    assert t.rows[0][2] == "⚠ failed" and t.rows[1][2] == "⚠ 8.00"
    assert "5 of the 14280 ordered pairs of 120 hosts measured" in t.notes[0]
    assert step_heatmaps(step) == []


def test_without_an_order_the_pairs_keep_the_hosts_order():
    hosts = [f"n{i}" for i in range(50)]
    measured = {("n3", "n1"): "b", ("n1", "n2"): "a"}
    t = pair_matrix("m", "sender \\ receiver", hosts, lambda a, b: measured.get((a, b)))
    assert t.headers == ["sender", "receiver", "measured"]
    assert t.rows == [["n1", "n2", "a"], ["n3", "n1", "b"]]
