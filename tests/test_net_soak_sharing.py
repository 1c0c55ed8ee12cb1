"""Pairs that share a host's link: their own swings excused only when the host's total
holds and the sender is not the cause (analysis/soak_sharing.py)."""

from __future__ import annotations

import pytest

from stackprobe.analysis.soak import fold, judge_pair
from stackprobe.analysis.soak_sharing import TotalsFold, apply_sharing, host_totals
from stackprobe.schema.records import SeriesPoint
from stackprobe.schema.soak_records import SoakPairRecord

MBIT = 1e6 / 8  # bytes/s in a Mbit/s


def series(rates_mbit: list[float], start_s: float = 0.0) -> list[SeriesPoint]:
    return [SeriesPoint(t_s=start_s + i + 1, bw_bytes=r * MBIT) for i, r in enumerate(rates_mbit)]


def pair(client: str = "h1", server: str = "h2") -> SoakPairRecord:
    return SoakPairRecord(client=client, server=server, chunks=1)


def _star(into_h3: tuple[list[float], list[float]]) -> dict:
    """h1 and h2 each send 300 Mbit/s to the other and into_h3's rates to h3."""
    a, b = into_h3
    return {("h1", "h3"): series(a), ("h2", "h3"): series(b, start_s=0.0004),
            ("h1", "h2"): series([300] * len(a)), ("h2", "h1"): series([300] * len(a))}


def judge_totals(series_by_pair: dict, chunk_s: int | None = None) -> dict:
    """The totals folded chunk by chunk (the whole series as one chunk by default)."""
    totals = TotalsFold()
    length = max(len(v) for v in series_by_pair.values())
    step = chunk_s or length
    for start in range(0, length, step):
        totals.add({k: [p for p in v if start < p.t_s <= start + step]
                    for k, v in series_by_pair.items()})
    return totals.judged()


def _judged(star: dict, chunk_s: int | None = None) -> dict[str, SoakPairRecord]:
    totals = judge_totals(star, chunk_s)
    out = {f"{a}→{b}": judge_pair(pair(a, b), fold(points, label=f"{a}→{b}"))
           for (a, b), points in star.items()}
    for rec in out.values():
        others = [r for r in out.values() if r.client == rec.client and r is not rec]
        apply_sharing(rec, totals, bool(others) and all(r.stability == "stable" for r in others))
    return out


def test_totals_add_the_pairs_of_a_host_second_by_second():
    totals = host_totals(_star(([80, 40] * 5, [40, 80] * 5)))
    assert [p.bw_bytes for p in totals[("in", "h3")]] == pytest.approx([120 * MBIT] * 10)
    assert [p.bw_bytes for p in totals[("out", "h1")]][:2] == pytest.approx(
        [380 * MBIT, 340 * MBIT])


@pytest.mark.parametrize("chunk_s", [None, 5, 7])
def test_pairs_trading_shares_of_a_steady_link_are_stable_with_sharing(chunk_s):
    recs = _judged(_star(([80, 40] * 10, [40, 80] * 10)), chunk_s)
    for label in ("h1→h3", "h2→h3"):
        assert (recs[label].verdict, recs[label].stability) == ("stable", "fluctuating")
        assert recs[label].flags == ["sharing"]
    assert "the 2 pair(s) into h3 hold 120 Mbit/s together (CoV 0.0%)" in recs["h1→h3"].notes[0]


def test_a_link_cut_under_sharing_pairs_is_still_unstable():
    recs = _judged(_star(([80, 40] * 5 + [5] * 10, [40, 80] * 5 + [5] * 10)))
    assert recs["h1→h3"].verdict == recs["h2→h3"].verdict == "unstable"
    assert recs["h1→h3"].flags == ["fluctuating"]


def test_a_sender_whose_every_pair_and_total_swing_is_not_excused_by_its_receiver():
    star = _star(([80, 40] * 10, [40, 80] * 10))
    star[("h1", "h2")] = series([300, 150] * 10)  # h1's uplink: all its pairs move
    recs = _judged(star)
    assert recs["h1→h3"].verdict == "unstable" and recs["h2→h3"].verdict == "stable"


def test_a_fluctuating_pair_alone_at_its_ends_keeps_its_verdict():
    alone = {("h1", "h2"): series([80, 40] * 10)}
    rec = judge_pair(pair(), fold(alone[("h1", "h2")], label="h1→h2"))
    apply_sharing(rec, judge_totals(alone), False)
    assert rec.verdict == "unstable" and rec.flags == ["fluctuating"]


def test_a_pair_missing_from_a_chunk_leaves_that_chunk_s_total_to_the_others():
    """A pair that failed a chunk: the host's total that chunk is the other pairs' sum (the
    link's total, since they take up its share), not a chunk left out of the totals."""
    totals = TotalsFold()
    first = {("h1", "h3"): series([60] * 10), ("h2", "h3"): series([60] * 10)}
    second = {("h1", "h3"): [], ("h2", "h3"): series([120] * 10, start_s=10)}
    totals.add(first)
    totals.add(second)
    into = totals.judged()[("in", "h3")]
    assert into["pairs"] == 2 and into["stability"] == "stable"
    assert into["mean_bps"] == pytest.approx(120e6)
