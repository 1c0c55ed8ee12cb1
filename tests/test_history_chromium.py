"""The history trend page opened offline in headless Chromium: it loads without errors,
draws one chart per figure key with the drift points, and a screenshot is kept in
tests/artifacts/history-trend.png for people to look at."""

from __future__ import annotations

import pytest

from conftest import ROOT, run_cli
from html_report_helpers import SvgCensus, chromium, open_offline
from test_history import FACTORS, RANDREAD, build_history

ARTIFACTS = ROOT / "tests" / "artifacts"


@pytest.mark.chromium
@pytest.mark.beside
def test_trend_page_in_headless_chromium(tmp_path):
    if chromium() is None:
        pytest.skip("chromium is not installed (make system-deps installs it)")
    runs = tmp_path / "runs"
    build_history(runs)
    page = tmp_path / "trend.html"
    run_cli(["history", "fio:rw=randread,bs=4k:iops", "--format", "html", "--output", page,
             "--runs-dir", runs], check=0)
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "history-trend.png"
    load = open_offline(page, shot, tmp_path / "profile")
    assert not load.page_errors, load.page_errors
    census = SvgCensus()
    census.feed(load.dom)
    assert len(census.labels) == 2  # the two 4k random-read steps of quick
    # per chart: one marker per run, one for the drift point
    assert census.circles == 2 * (len(FACTORS) + 1)
    assert census.paths >= 2 * 3  # values, band above, band below
    assert RANDREAD in load.dom and "drift, better" in load.dom
    assert shot.stat().st_size > 10_000
