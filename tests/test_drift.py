"""The drift rule (analysis/drift.py) on histories whose bands were worked out by hand."""

from __future__ import annotations

import pytest

from stackprobe.analysis.drift import MAD_SCALE, band_of, judge


def marks(values):
    return [j.drift for j in judge(values)]


def test_band_by_hand():
    # median 100; |deviations| 0 2 2 1 1 -> MAD 1; 3 x 1.4826 x 1 = 4.4478 (> 2% floor of 2)
    band = band_of([100, 102, 98, 101, 99])
    assert band.median == 100 and band.runs == 5
    assert band.half_width == pytest.approx(3 * MAD_SCALE)
    assert (band.lo, band.hi) == (pytest.approx(95.5522), pytest.approx(104.4478))


def test_too_few_previous_runs_are_not_judged():
    assert band_of([100, 300]) is None
    judged = judge([100, 300, 900])
    assert [j.band for j in judged] == [None, None, None]
    assert [j.drift for j in judged] == ["", "", ""]


def test_planted_jump_is_marked_and_only_it():
    # the sixth run's band: 95.55..104.45 (above); 130 is out
    assert marks([100, 102, 98, 101, 99, 130]) == ["", "", "", "", "", "up"]


def test_ordinary_scatter_is_not_marked():
    # run 6: previous 1000 1040 960 1010 990, median 1000, MAD 10 -> band 1000 ± 44.5 holds 1030;
    # run 7: previous 1040 960 1010 990 1030, median 1010, MAD 20 -> 1010 ± 89 holds 970
    assert marks([1000, 1040, 960, 1010, 990, 1030, 970]) == [""] * 7


def test_a_drop_is_marked_down():
    # latency-like: the same band, a value far below it
    assert marks([100, 102, 98, 101, 99, 60])[-1] == "down"


def test_floor_when_previous_runs_agree_exactly():
    # MAD 0: the band is median ± 2% = 980..1020; 1019 stays in, then 1021 leaves it
    judged = judge([1000] * 5 + [1019, 1021])
    assert judged[5].band.half_width == pytest.approx(20)
    assert [j.drift for j in judged[5:]] == ["", "up"]


def test_level_shift_is_marked_until_the_window_moves():
    # after the jump to 150 the median of the previous five stays 100 for three runs;
    # the fourth run's previous five are 100 100 150 150 150: median 150, MAD 0 -> 150 ± 3
    assert marks([100, 101, 99, 100, 100, 150, 150, 150, 150]) == [""] * 5 + ["up"] * 3 + [""]


def test_window_is_the_last_five():
    # a very old outlier (the first value) no longer counts once five runs follow it
    judged = judge([10_000, 100, 101, 99, 100, 100, 100])
    assert judged[6].band.median == 100 and judged[6].band.runs == 5
    assert judged[6].drift == ""
