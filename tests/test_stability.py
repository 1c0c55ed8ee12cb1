"""Per-second series: fio's logs summed over jobs, and the stable / fluctuating / stalled
verdict over a step's run."""

from pathlib import Path

import pytest

from stackprobe.analysis.stability import judge_records, judge_series
from stackprobe.parsers.fio.fio_log import parse_fio_log, series_from_logs
from stackprobe.schema.records import IoRecord, SeriesPoint

LOGS = Path(__file__).parent / "fixtures/recorded/fio-log"


def _logs(kind):
    return [p.read_text() for p in sorted(LOGS.glob(f"fio-3.33_randrw_numjobs2_{kind}.*.log"))]


def test_parse_fio_log_lines():
    rows = parse_fio_log((LOGS / "fio-3.33_randrw_numjobs2_iops.1.log").read_text())
    assert rows[:2] == [(1000, 10408.0, 0), (1000, 10407.0, 1)]
    with pytest.raises(ValueError, match="line 2"):
        parse_fio_log("1000, 5, 0, 0, 0\nnonsense\n")


def test_series_sums_jobs_and_directions_and_drops_a_second_not_every_job_logged():
    series = series_from_logs(_logs("iops"), _logs("bw"))
    # job 1 logged 3 windows, job 2 only 2 (its last window ended 2001 ms): 2 seconds kept
    assert [p.t_s for p in series] == [1.0, 2.0]
    assert series[0].iops == 10408 + 10407 + 10175 + 10277
    assert series[1].iops == 15982 + 15980 + 16354 + 16449
    bw = [p.read_text() for p in sorted(LOGS.glob("fio-3.33_randrw_numjobs2_bw.*.log"))]
    first = sum(float(line.split(",")[1]) for text in bw for line in text.splitlines()
                if line.startswith("1000,"))
    assert series[0].bw_bytes == first * 1024


def _series(values):
    return [SeriesPoint(t_s=float(i + 1), iops=v) for i, v in enumerate(values)]


def test_stable_fluctuating_stalled():
    stable = judge_series(_series([1000, 1010, 990, 1005, 995, 1000]))
    assert stable["verdict"] == "stable" and stable["cov"] < 0.01
    assert "stable: CoV" in stable["sentence"]
    dip = judge_series(_series([1000, 1000, 700, 1000, 1000, 1000]))
    assert dip["verdict"] == "fluctuating" and dip["dip_seconds"] == 1
    assert dip["lowest_dip"] == {"t_s": 3.0, "ratio": 0.7}
    assert "0.70× at 3 s" in dip["sentence"]
    stall = judge_series(_series([1000, 1000, 0, 0, 1000, 1000]))
    assert stall["verdict"] == "stalled" and stall["stall_seconds"] == 2
    assert stall["first_stall_s"] == 3.0


def test_noisy_without_dips_is_fluctuating_by_cov():
    # every second within 20% of the median, but spread wide: CoV 13%
    r = judge_series(_series([850, 1150, 850, 1150, 1000, 1000]))
    assert r["dip_seconds"] == 0 and r["cov"] > 0.10 and r["verdict"] == "fluctuating"


def test_too_short_and_bandwidth_only_series():
    assert judge_series(_series([1, 2, 3])) is None
    bw = [SeriesPoint(t_s=float(i), bw_bytes=1e9) for i in range(1, 7)]
    assert judge_series(bw)["metric"] == "bw_bytes"


def test_step_verdict_is_the_worst_part():
    a = IoRecord(job="a", series=_series([1000] * 6))
    b = IoRecord(job="b", series=_series([1000, 0, 1000, 1000, 1000, 1000]))
    c = IoRecord(job="c")
    r = judge_records([a, b, c])
    assert r["verdict"] == "stalled" and [p["label"] for p in r["parts"]] == ["a", "b"]
    assert judge_records([c]) is None
