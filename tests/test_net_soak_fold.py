"""The network soak folds its chunks as they end (kinds/network/soak_fold.py) and judges each
period alone (analysis/soak_series.py): memory bounded whatever the soak's length, and an
hour that fluctuated or a rate that drifted over hours named as such. The chunk's reading
is test_net_soak.py's; the soak on real hosts test_net_soak_lab.py's."""

from __future__ import annotations

import pytest

from stackprobe.analysis.soak import fold, judge_pair
from stackprobe.kinds.chunked import run_chunks
from stackprobe.kinds.network.net_soak import NetSoakStep, judged_pairs
from stackprobe.kinds.network.soak_chunk import PairChunk, SoakPair
from stackprobe.kinds.network.soak_fold import NetSoakFold
from stackprobe.schema.records import SeriesPoint
from stackprobe.schema.soak_records import SoakPairRecord
from stackprobe.spec.hosts import Host
from stackprobe.transport.fleet import HostHandle

MBIT = 1e6 / 8


def series(rates_mbit: list[float], start_s: float = 0.0) -> list[SeriesPoint]:
    return [SeriesPoint(t_s=start_s + i + 1, bw_bytes=r * MBIT) for i, r in enumerate(rates_mbit)]


def judged(rates: list[float], period_s: float, **rule) -> SoakPairRecord:
    rec = SoakPairRecord(client="h1", server="h2", chunks=1)
    return judge_pair(rec, fold(series(rates), period_s=period_s,
                                label="h1→h2, period {n}", **rule))


def test_a_period_that_fluctuated_is_named_and_the_others_stay_stable():
    wobble = [100, 40] * 5
    rec = judged([100.0] * 10 + wobble + [100.0] * 10, period_s=10)
    assert [p.verdict for p in rec.periods] == ["stable", "fluctuating", "stable"]
    assert (rec.verdict, rec.stability, rec.flags) == ("unstable", "fluctuating", ["fluctuating"])
    assert rec.notes[0].startswith("h1→h2, period 2: fluctuating: CoV")
    assert rec.period_s == 10 and rec.seconds == 30


def test_one_bad_second_in_a_long_soak_is_judged_in_its_hour_not_diluted_by_the_day():
    """A stall that a day's figures would hide in 86,400 seconds still fails its hour."""
    rates = [100.0] * (6 * 3600)
    rates[4 * 3600 + 17] = 0.0
    rec = judged(rates, period_s=3600)
    assert rec.stability == "stalled" and rec.verdict == "unstable"
    assert [p.index for p in rec.periods if p.verdict != "stable"] == [4]
    assert "period 5: stalled: 1 s with no I/O" in rec.notes[0]


def test_a_rate_that_drifts_down_over_periods_is_fluctuating_though_each_period_is_steady():
    rec = judged([100.0] * 10 + [100.0] * 10 + [60.0] * 10 + [100.0] * 10, period_s=10)
    assert all(p.verdict == "stable" for p in rec.periods)
    assert rec.verdict == "unstable" and rec.flags == ["fluctuating"]
    assert "h1→h2, period 3: mean 0.60x the median period's" in rec.notes[0]


def test_many_bad_periods_make_one_sentence_with_a_count():
    rates = ([100.0] * 10 + [100, 40] * 5) * 6
    rec = judged(rates, period_s=10)
    assert rec.notes[0].endswith("; and 3 more period(s)") and len(rec.flags) == 1


# ------------------------------------------------------------------ the fold in the chunk loop

def _pairs(*names: tuple[str, str]) -> list[SoakPair]:
    def handle(name: str, i: int) -> HostHandle:
        return HostHandle(Host(name=name, address=f"10.99.0.{11 + i}"), None, "/tmp/x")

    hosts = {n: handle(n, i) for i, n in enumerate(sorted({n for p in names for n in p}))}
    return [SoakPair(hosts[a], hosts[b], 5201) for a, b in names]


def test_hours_of_chunks_keep_bounded_memory_and_the_loop_keeps_no_chunk():
    """4 h of 60 s chunks from 3 pairs: every pair's kept seconds stay within the keeper's
    bound and the running period's hour, and the chunk loop holds one flag per chunk."""
    pairs = _pairs(("h1", "h3"), ("h2", "h3"), ("h1", "h2"))
    f = NetSoakFold(pairs, period_s=3600, cov_limit=0.1, dip_fraction=0.8, one_period=False)
    most = 0

    def one(index: int, seconds: float) -> bool:
        nonlocal most
        start = index * 60
        chunk = {p.label: PairChunk(points=series([50.0 + (index % 3)] * 60, start),
                                    retransmits=1, tool_version="3.12")
                 for p in pairs}
        interrupted = f.add(chunk)
        for tally in f.tallies.values():
            most = max(most, tally.series.keeper.held() + len(tally.series.periods._points))
        return interrupted

    run = run_chunks([60.0] * 240, one, stopped=lambda interrupted: interrupted)
    assert run.complete and set(run.results) == {False}
    keeper = next(iter(f.tallies.values())).series.keeper
    assert most <= 2 * keeper.keep_s + keeper.max_buckets + 1 + 3600
    # ten minutes at each end, a minute bucket between (240 in 4 h), the running hour:
    assert most <= 1200 + 240 + 1 + 3600  # not the 14,400 seconds measured
    spec = NetSoakStep(kind="net_soak", duration="4h", chunk="60s")
    records, hosts = judged_pairs(f, spec)
    assert [r.seconds for r in records] == [14_400] * 3
    assert all(len(r.periods) == 4 and len(r.points) <= 600 for r in records)
    assert records[0].retransmits == 240 and records[0].verdict == "stable"
    assert hosts["h3"]["in"]["pairs"] == 2 and hosts["h3"]["in"]["stability"] == "stable"
    assert hosts["h3"]["in"]["mean_bps"] == pytest.approx(2 * 51e6)


def test_an_interrupted_chunk_is_folded_and_ends_the_loop():
    pairs = _pairs(("h1", "h2"))
    f = NetSoakFold(pairs, period_s=3600, cov_limit=0.1, dip_fraction=0.8, one_period=True)
    chunks = [{pairs[0].label: PairChunk(points=series([100.0] * 10, 10 * i),
                                         interrupted=i == 1)} for i in range(3)]
    run = run_chunks([10.0] * 3, lambda i, s: f.add(chunks[i]), stopped=lambda x: x)
    assert run.stopped and run.results == [False, True]
    (rec,) = f.records(streams=2)
    assert rec.seconds == 20 and rec.chunks == 2 and rec.notes == []


def test_a_soak_s_period_is_a_duration_and_must_be_positive():
    assert NetSoakStep(kind="net_soak", period="30m").period.seconds == 1800
    with pytest.raises(ValueError):
        NetSoakStep(kind="net_soak", period="0s")


def test_the_table_counts_each_pair_s_stable_periods_when_the_soak_has_several():
    from stackprobe.kinds.network.soak_report import soak_table
    from stackprobe.schema.results import StepResult

    steady = judged([100.0] * 30, period_s=10)
    wobbly = judged([100.0] * 10 + [100, 40] * 5 + [100.0] * 10, period_s=10)
    wobbly.server = "h3"
    def step(*records) -> StepResult:
        made = StepResult(id="01-soak", index=1, name="soak", kind="net_soak", title="t",
                          layer="network", params={}, records=list(records), findings={})
        return StepResult.model_validate_json(made.model_dump_json())  # as results.json holds it

    table = soak_table(step(steady, wobbly))
    assert table.headers[5] == "stable periods"
    assert [r[5] for r in table.rows] == ["3/3", "2/3"]
    assert "stable periods" not in soak_table(step(judged([100.0] * 30, period_s=3600))).headers
