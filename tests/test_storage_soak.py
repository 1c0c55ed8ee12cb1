"""The storage soak's bounded figures (analysis/soak_series.py, analysis/soak_io.py), its
suite block, and the report of a day-long soak rendered from a synthetic 24 h result."""

from __future__ import annotations

import math
import random
import statistics
import time

import pytest

from stackprobe.analysis.histogram import merge_bins, percentiles
from stackprobe.analysis.soak_io import SoakTotals, chunk_figures
from stackprobe.analysis.soak_series import (
    PeriodJudge,
    RunningStats,
    SeriesKeeper,
    drifted,
    soak_verdict,
)
from stackprobe.analysis.step_summary import summarise_step
from stackprobe.errors import UserError
from stackprobe.report.html import to_html
from stackprobe.report.render import to_markdown
from stackprobe.schema.records import IoRecord, IoStats, SeriesPoint
from stackprobe.schema.results import RunInfo, RunResults, StepResult
from stackprobe.schema.storage_soak_records import SoakChunk, StorageSoakRecord
from stackprobe.suite.loader import parse_suite
from stackprobe.tables.storage_soak import soak_table

DAY = 86_400


def second(t: float, iops: float) -> SeriesPoint:
    return SeriesPoint(t_s=t, iops=iops, bw_bytes=iops * 4096)


def test_a_day_of_seconds_is_held_and_kept_in_bounded_points():
    keeper = SeriesKeeper(keep_s=600, bucket_s=60, max_buckets=1440)
    bound = 2 * 600 + 1440 + 1
    most = 0
    for t in range(1, DAY + 1):
        keeper.add(second(t, 0.0 if t == 40_000 else 1000.0 + t % 7))
        most = max(most, keeper.held())
    samples = keeper.samples()
    assert most <= bound and len(samples) <= bound
    assert sum(s.seconds for s in samples) == DAY  # every second is in some point
    assert all(s.seconds == 1 for s in samples[:600]) and samples[599].t_s == 600
    assert all(s.seconds == 1 for s in samples[-600:]) and samples[-1].t_s == DAY
    middle = samples[600:-600]
    assert {s.seconds for s in middle[1:-1]} == {60}  # 1-minute buckets over a day
    assert [s.t_s for s in samples] == sorted(s.t_s for s in samples)
    stall = next(s for s in middle if s.t_s >= 40_000)
    assert stall.iops_min == 0.0 and stall.iops_max == 1006.0  # the one-second stall shows


def test_longer_soaks_widen_the_buckets_rather_than_keep_more_points():
    keeper = SeriesKeeper(keep_s=60, bucket_s=60, max_buckets=100)
    for t in range(1, 3 * 24 * 3600 // 10 + 1):  # 72 h of 10 s points, say
        keeper.add(second(t * 10.0, 5.0))
        assert keeper.held() <= 2 * 60 + 100 + 1
    samples = keeper.samples()
    assert keeper.bucket_s > 60 and len(samples) <= 2 * 60 + 101
    assert math.isclose(sum(s.iops * s.seconds for s in samples), 5.0 * (3 * 24 * 360))


def test_running_stats_agree_with_the_whole_series():
    rng = random.Random(7)
    values = [rng.uniform(500, 1500) for _ in range(5000)]
    stats = RunningStats()
    for v in values:
        stats.add(v)
    assert math.isclose(stats.mean, statistics.fmean(values), rel_tol=1e-12)
    assert math.isclose(stats.cov, statistics.pstdev(values) / statistics.fmean(values),
                        rel_tol=1e-9)
    assert (stats.min, stats.max) == (min(values), max(values))


def hours_of(levels: list[list[float]]) -> PeriodJudge:
    judge = PeriodJudge("iops", period_s=3600)
    t = 0
    for hour in levels:
        for v in hour:
            t += 1
            judge.add(second(t, v))
    judge.close()
    return judge


def test_each_hour_is_judged_on_its_own():
    rng = random.Random(3)
    steady = [1000.0 + rng.uniform(-20, 20) for _ in range(3600)]
    noisy = [1000.0 * rng.choice([0.5, 1.0, 1.5]) for _ in range(3600)]
    stalled = [1000.0] * 3000 + [0.0] * 5 + [1000.0] * 595
    periods = hours_of([steady, noisy, stalled, steady]).periods
    assert [p.verdict for p in periods] == ["stable", "fluctuating", "stalled", "stable"]
    assert [p.index for p in periods] == [0, 1, 2, 3]
    assert periods[1].cov > 0.3 and periods[0].cov < 0.02
    assert periods[2].stall_seconds == 5 and periods[2].min == 0.0
    assert periods[0].start_s == 0 and periods[3].end_s == 4 * 3600
    verdict, _flags, notes = soak_verdict(periods)
    assert verdict == "stalled" and any("period 3" in n for n in notes)


def test_an_hour_steady_in_itself_but_slower_than_the_others_is_drift():
    flat = [[level] * 3600 for level in (1000.0, 1000.0, 600.0, 1000.0)]
    periods = hours_of(flat).periods
    assert [p.verdict for p in periods] == ["stable"] * 4
    assert [p.index for p in drifted(periods)] == [2]
    verdict, flags, notes = soak_verdict(periods)
    assert verdict == "fluctuating" and flags == ["drift"] and "period 3" in notes[0]


def test_a_short_last_period_is_not_taken_for_drift():
    periods = hours_of([[1000.0] * 3600] * 3 + [[300.0] * 100]).periods
    assert drifted(periods) == [] and soak_verdict(periods)[0] == "stable"


def io(ios: int, runtime_s: float, bins: dict[int, int]) -> IoRecord:
    mean = sum(v * c for v, c in bins.items()) / sum(bins.values())
    stats = IoStats(iops=ios / runtime_s, bw_bytes=ios * 4096 / runtime_s, io_bytes=ios * 4096,
                    total_ios=ios, runtime_ms=runtime_s * 1000,
                    lat_ns={"mean": mean, "min": min(bins), "max": max(bins),
                            **percentiles(bins)},
                    clat_ns={"mean": mean, **percentiles(bins)}, lat_bins=bins, clat_bins=bins)
    return IoRecord(job="soak", write=stats)


def test_chunks_follow_each_other_so_their_ios_add_over_their_time():
    a = io(600_000, 600.0, {100_000: 599_000, 5_000_000: 1_000})
    b = io(300_000, 600.0, {200_000: 290_000, 9_000_000: 10_000})
    totals = SoakTotals()
    totals.add(a)
    totals.add(b)
    whole = totals.record().write
    assert whole.total_ios == 900_000 and math.isclose(whole.iops, 900_000 / 1200)
    assert math.isclose(whole.lat_ns["mean"],
                        (a.write.lat_ns["mean"] * 600_000 + b.write.lat_ns["mean"] * 300_000)
                        / 900_000)
    merged = percentiles(merge_bins([a.write.lat_bins, b.write.lat_bins]))
    assert whole.lat_ns["p99"] == merged["p99"] == 9_000_000  # not a mean of the p99s
    assert whole.lat_ns["min"] == 100_000 and whole.lat_ns["max"] == 9_000_000
    assert chunk_figures(b)["lat_p99_ns"] == 9_000_000


def soak_suite(block: str, extra: str = "") -> str:
    return ("name: s\nsteps:\n  - kind: fio\n    rw: randwrite\n    size: 64M\n"
            f"{extra}    soak: {block}\n")


def test_the_soak_block_is_read_and_its_mistakes_named_with_their_line():
    suite = parse_suite(soak_suite("{duration: 24h, chunk: 10m}"), "s.yaml")
    soak = suite.steps[0].soak
    assert soak.duration.seconds == DAY and len(soak.lengths()) == 144
    for block, extra, words in (
            ("{duration: 1h}", "    runtime: 60\n", "remove runtime"),
            ("{duration: 1h, chunk: 1s}", "", "chunk must be >= 2 s"),
            ("{duration: 1m, chunk: 10m}", "", "longer than its duration"),
            ("{duration: 1h, chunks: 3}", "", "chunks")):
        with pytest.raises(UserError) as err:
            parse_suite(soak_suite(block, extra), "s.yaml")
        text = str(err.value)
        assert text.startswith("s.yaml:") and words in text and "\n" not in text.strip()


def synthetic_day() -> RunResults:
    """A day-long soak's step as the soak stores it: a kept series folded from 86,400
    seconds, 24 hourly periods, 144 chunks of 10 minutes."""
    keeper = SeriesKeeper()
    judge = PeriodJudge("iops")
    rng = random.Random(11)
    for t in range(1, DAY + 1):
        p = second(t, 900 + rng.uniform(0, 200))
        keeper.add(p)
        judge.add(p)
    judge.close()
    rec = StorageSoakRecord(
        tool="fio", job="soak", chunks_planned=144, chunks_run=144, seconds=DAY, mean=1000.0,
        min=900.0, max=1100.0, cov=0.06, verdict="stable", periods=judge.periods,
        chunks=[SoakChunk(index=i, start_s=i * 600.0, seconds=600.0, status="ok", iops=1000.0,
                          raw=f"chunks/chunk-{i + 1:04d}.json.gz") for i in range(144)],
        points=keeper.samples())
    whole = io(86_400_000, DAY, {100_000: 86_000_000, 900_000: 400_000})
    step = StepResult(id="01-soak", index=1, name="soak", kind="fio", title="4k randwrite",
                      layer="disk", params={"rw": "randwrite", "bs": "4k", "size": "1G",
                                            "soak": {"duration": "24h", "chunk": "10m"}},
                      headline="iops", status="ok", duration_s=DAY, records=[whole, rec],
                      summary=summarise_step("iops", [whole, rec]))
    return RunResults(run=RunInfo(id="r", suite="s", suite_source="s.yaml", target="/t",
                                  host="h", started="2026-01-01T00:00:00Z",
                                  stackprobe_version="0"), steps=[step])


def test_a_day_long_soak_reports_in_seconds_and_says_each_hour():
    results = synthetic_day()
    rec = results.steps[0].records[1]
    assert len(rec.points) <= 2 * 600 + 1441 and len(rec.periods) == 24
    assert len(results.model_dump_json()) < 2_000_000  # results.json stays small
    t0 = time.process_time()  # CPU, not wall: this tier may run beside the system tests
    md = to_markdown(results)
    html = to_html(results, None)
    elapsed = time.process_time() - t0
    assert elapsed < 5.0, elapsed
    table = soak_table(results.steps[0])
    assert len(table.rows) == 25 and table.rows[-1][0] == "whole soak"
    assert "Soak: IOPS per 1 h" in md and "Soak: IOPS per 1 h" in html


def test_a_folded_chunk_is_kept_without_its_records_and_seconds():
    """The chunk run keeps each chunk's outcome for the whole soak; the fold has already
    taken its figures, so what is kept is its status — not a json+ record (histograms)
    and 120 points a chunk, which grew the controller by about a megabyte a chunk."""
    from pathlib import Path

    from stackprobe.kinds.chunked import run_chunks
    from stackprobe.kinds.storage_soak import ChunkOutcome, SoakFold, SoakSpec
    from stackprobe.parsers.fio.fio_json import parse_fio_json

    recorded = Path(__file__).parent / "fixtures/recorded/fio-3.33_client_jsonplus_2clients_randread.txt"
    record = next(r for r in parse_fio_json(recorded.read_text()) if r.host != "all")
    spec = SoakSpec.model_validate({"duration": "10m", "chunk": "2m", "keep": "1m"})
    fold = SoakFold(None, spec, "fio", 1 << 20)  # add() folds; the context is for outcome()

    def one(index: int, seconds: float) -> ChunkOutcome:
        got = ChunkOutcome("ok", [record.model_copy(deep=True)],
                           [second(t, 1000.0) for t in range(1, int(seconds) + 1)],
                           raw=f"chunks/{index:04d}.json.gz")
        return fold.add(index, index * seconds, seconds, got)

    run = run_chunks(spec.lengths(), one, stopped=fold.should_end)
    assert len(run.results) == 5 and run.complete
    assert all(r.records == [] and r.points == [] for r in run.results)
    assert [r.raw for r in run.results] == [f"chunks/{i:04d}.json.gz" for i in range(5)]
    # and the fold has what they held: every chunk's figures, every second
    assert len(fold.chunks) == 5 and all(c.status == "ok" for c in fold.chunks)
    assert fold.series.figures()["seconds"] == 600
