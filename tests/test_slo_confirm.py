"""Confirming the latency-bounded answer under noise (analysis/slo_confirm.py): scripted
devices whose probes return given figures in turn, and a seeded noisy device on which the
confirmed answer must be closer to the truth than the single-probe search's."""

from __future__ import annotations

import random
import statistics

import pytest

from stackprobe.analysis.slo_confirm import confirm
from stackprobe.analysis.slo_search import Probe, search

MS = 1_000_000


def scripted(figures: dict[int, list[tuple[float, float]]]):
    """measure(setting) -> the next (iops, latency ms) scripted for that setting."""
    queues = {k: list(v) for k, v in figures.items()}
    calls: list[int] = []

    def measure(x: int) -> Probe:
        calls.append(x)
        iops, lat_ms = queues[x].pop(0)
        return Probe(x, iops, lat_ms * MS, seconds=10.0)

    measure.calls = calls
    return measure


def test_a_steady_answer_is_measured_once_more_and_kept():
    probes = [Probe(1, 1000, 1 * MS), Probe(4, 4000, 4 * MS), Probe(16, 5000, 20 * MS),
              Probe(8, 4500, 12 * MS), Probe(6, 4400, 7 * MS), Probe(5, 4020, 5 * MS)]
    res = _result(probes, 10 * MS)
    m = scripted({6: [(4400, 7)], 8: [(4500, 13)]})
    confirm(res, m, tolerance=0.05, budget=4)
    # 6 again (the answer); 8 fails at 12 ms (within 25% of the limit) but gains only 2%
    # over 6: not worth a second look; 5 (4020) is below 6's band
    assert m.calls == [6]
    assert res.answer.setting == 6 and res.repeats == 2 and res.uncertainty == 0.0
    assert "confirmed: 2 probes at the answer, ± 0.0% (within 5%), 1 extra" in res.reason


def test_a_lucky_probe_is_averaged_and_a_better_neighbour_takes_over():
    # 8 met the limit once at 6000 IOPS (lucky); measured again it does 4000. 6 is steady at 5000.
    probes = [Probe(1, 1000, 1 * MS), Probe(4, 4000, 4 * MS), Probe(6, 5000, 6 * MS),
              Probe(8, 6000, 9 * MS), Probe(9, 6100, 14 * MS)]
    res = _result(probes, 10 * MS)
    m = scripted({8: [(4000, 9), (4000, 9)], 6: [(5000, 6), (5000, 6)], 9: [(6000, 15)]})
    confirm(res, m, tolerance=0.05, budget=6)
    assert res.answer.setting == 6 and res.answer.iops == 5000 and res.uncertainty == 0.0
    assert m.calls[0] == 8  # the answer first: it has fewest probes and is the answer


def test_a_setting_that_fails_when_measured_again_loses_the_answer():
    probes = [Probe(1, 1000, 1 * MS), Probe(4, 4000, 6 * MS), Probe(8, 5000, 9.9 * MS),
              Probe(16, 5100, 30 * MS)]
    res = _result(probes, 10 * MS)
    m = scripted({8: [(5000, 12)], 7: [(4500, 9), (4500, 9)]})
    confirm(res, m, tolerance=0.05, budget=6)
    assert statistics.fmean([9.9, 12]) * MS > 10 * MS  # 8's mean percentile fails
    # 4 is left the best passing setting, but 5-7 were never probed and 8 would gain 25%:
    # the gap is probed where the line through 4 and 8 reaches the limit, then confirmed
    assert m.calls == [8, 7, 7]
    assert res.answer.setting == 7 and res.repeats == 2
    assert "the answer moved from setting 8 to 7" in res.reason and "confirmed" in res.reason


def test_the_gap_a_lost_answer_leaves_is_searched_as_on_the_lab_rbd():
    """The lab's RBD on 2026-11-30: the search jumped 4 -> 16, 16 met the limit at 9.9 ms
    and 17 missed it; measured again 16 missed it too (12.9 ms). Without probing the gap
    the answer fell to numjobs=4 (6.4k IOPS) while the ramps beside it answered 12-14 at
    7.4k. Figures of that run; 14's and 17's second looks scripted."""
    probes = [Probe(1, 2898, 1.01 * MS), Probe(4, 6223, 2.34 * MS), Probe(16, 8441, 9.90 * MS),
              Probe(17, 7847, 11.7 * MS)]
    res = _result(probes, 10 * MS)
    m = scripted({16: [(6376, 12.9)], 14: [(7400, 8.5), (7300, 8.8)], 17: [(6049, 15.3)]})
    confirm(res, m, tolerance=0.05, budget=4)
    # 16 again (the answer, one probe); it fails; the gap 4..16 is probed at 14 (where
    # the line through their mean percentiles reaches 10 ms); 14 again; 17 (it would gain
    # more than 5% over 14 and missed by less than 25%) fails again
    assert m.calls == [16, 14, 14, 17]
    assert res.answer.setting == 14 and res.answer.iops == 7350 and res.repeats == 2
    assert "moved from setting 16 to 14 (1 probe in the settings between)" in res.reason
    # the gap's probe closes the search's reopened bracket: not one of the budget's
    assert "confirmed: 2 probes at the answer, ± 0.7% (within 5%), 3 extra" in res.reason


def test_a_gap_is_closed_even_when_the_budget_is_spent():
    """The budget is for re-measuring; the gap is the search's bracket reopened. With one
    extra probe allowed, 8 is measured again and fails, and 7 (the gap) is still probed."""
    probes = [Probe(1, 1000, 1 * MS), Probe(4, 4000, 6 * MS), Probe(8, 5000, 9.9 * MS),
              Probe(16, 5100, 30 * MS)]
    res = _result(probes, 10 * MS)
    m = scripted({8: [(5000, 12)], 7: [(4500, 9)]})
    confirm(res, m, tolerance=0.05, budget=1)
    assert m.calls == [8, 7] and res.answer.setting == 7
    assert "moved from setting 8 to 7 (1 probe in the settings between)" in res.reason
    assert "probe budget spent (1 extra): 1 probes at the answer" in res.reason
    assert "still open: setting 7" in res.reason


def test_a_failing_neighbour_near_the_limit_that_would_win_is_measured_again():
    probes = [Probe(1, 1000, 1 * MS), Probe(4, 4000, 8 * MS), Probe(5, 5000, 10.5 * MS)]
    res = _result(probes, 10 * MS)
    m = scripted({4: [(4000, 8)], 5: [(5000, 9.5)]})
    confirm(res, m, tolerance=0.05, budget=4)
    assert m.calls == [4, 5]
    assert res.answer.setting == 5 and res.answer.latency_ns == 10 * MS  # mean of 10.5, 9.5


def test_a_failing_neighbour_far_over_the_limit_is_not():
    probes = [Probe(1, 1000, 1 * MS), Probe(4, 4000, 8 * MS), Probe(5, 5000, 20 * MS)]
    res = _result(probes, 10 * MS)
    m = scripted({4: [(4000, 8)]})
    confirm(res, m, tolerance=0.05, budget=4)
    assert m.calls == [4] and res.answer.setting == 4


def test_a_spent_budget_is_said_with_what_stayed_open():
    # 8's IOPS bound the gap 5-7 however 4's mean moves (2500 < 3000 and 8 <= 2 x 4)
    probes = [Probe(1, 1000, 1 * MS), Probe(4, 4000, 8 * MS), Probe(8, 2500, 30 * MS)]
    res = _result(probes, 10 * MS)
    m = scripted({4: [(2000, 8), (6000, 8)]})
    confirm(res, m, tolerance=0.05, budget=2)
    assert res.repeats == 3 and res.uncertainty == pytest.approx(
        statistics.stdev([4000, 2000, 6000]) / 3 ** 0.5 / 4000)
    assert "probe budget spent (2 extra)" in res.reason and "still open: setting 4" in res.reason


def test_nothing_to_confirm_without_an_answer_or_a_budget():
    res = _result([Probe(1, 1000, 20 * MS)], 10 * MS)
    res.answer = None
    assert confirm(res, scripted({}), tolerance=0.05, budget=4).answer is None
    res = _result([Probe(1, 1000, 1 * MS)], 10 * MS)
    assert confirm(res, scripted({}), tolerance=0.05, budget=0).repeats == 1


def noisy_device(x_max: float, l0_ns: float, noise: float, rng: random.Random):
    """A saturating device (Little's law) whose every probe is off by up to ±noise."""
    def measure(numjobs: int) -> Probe:
        iops = min(numjobs / (l0_ns / 1e9), x_max)
        lat = 3 * numjobs / iops * 1e9 * (1 + 1e-3 * numjobs)
        f = 1 + rng.uniform(-noise, noise)
        return Probe(numjobs, iops * f, lat / f, seconds=8.0)
    return measure


def test_on_a_noisy_device_the_confirmed_answer_is_nearer_the_truth():
    """±10% per probe, 200 seeded searches: the single probe's best-of overshoots (it keeps
    the luckiest); the confirmed answer's error is smaller, in mean and in the worst case."""
    limit = 1 * MS  # saturated from 10 jobs at 100k IOPS; p99 <= 1 ms needs <= 33
    single, confirmed = [], []
    for seed in range(200):
        rng = random.Random(seed)
        m = noisy_device(100_000, 100_000, 0.10, rng)
        res = search(m, 1, 64, limit)
        true_iops = min(res.answer.setting / 1e-4, 100_000)
        single.append(abs(res.answer.iops / true_iops - 1))
        confirm(res, m, tolerance=0.05, budget=6)
        true_iops = min(res.answer.setting / 1e-4, 100_000)
        confirmed.append(abs(res.answer.iops / true_iops - 1))
    assert statistics.fmean(confirmed) < 0.75 * statistics.fmean(single)
    assert max(confirmed) < max(single)


def test_a_knee_inside_the_searchs_jump_is_found_again_when_the_answer_is_lost():
    """±10% per probe, 200 seeded searches, p99 <= 0.5 ms: the knee (setting 16) is where
    the search's x4 jump lands, so on a second look its answer often misses the limit and
    the next passing setting is 4. Closing that gap keeps every answer within 10% of the
    true best (without it the worst was 63% off, the mean 8%), at about the same probes."""
    errors, probes = [], []
    for seed in range(200):
        m = noisy_device(100_000, 100_000, 0.10, random.Random(seed))
        res = confirm(search(m, 1, 64, 0.5 * MS), m, tolerance=0.05, budget=4)
        errors.append(abs(res.answer.iops / 100_000 - 1))
        probes.append(len(res.probes))
    assert max(errors) < 0.10 and statistics.fmean(errors) < 0.05
    assert statistics.fmean(probes) < 6


def _result(probes: list[Probe], limit_ns: float):
    from stackprobe.analysis.slo_search import SloResult
    res = SloResult(limit_ns, list(probes))
    res.answer = max((p for p in probes if p.latency_ns <= limit_ns), key=lambda p: p.iops,
                     default=None)
    res.reason = "scripted"
    return res
