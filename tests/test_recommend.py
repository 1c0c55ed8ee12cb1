"""Advice from concurrency sweeps: by hand, as properties, and on real runs."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FIXTURES
from stackprobe.analysis.recommend import Advice, SweepPoint, advise
from stackprobe.parsers.ceph.rados_bench import parse_rados_bench
from stackprobe.parsers.fio.fio_json import parse_fio_json


def qd(depth: int, iops: float, lat_us: float | None = None) -> SweepPoint:
    return SweepPoint(f"iodepth={depth}", depth, iops, None if lat_us is None else lat_us * 1000,
                      {"iodepth": depth})


# A sweep that saturates. Steps (throughput growth vs latency growth):
#   1->2  +90.0% vs  +5.0%     2->4   +89.5% vs +4.8%     4->8 +38.9% vs +45.5%
#   8->16  +4.0% vs +87.5%    16->32   +0.8% vs +100%
# Knee: from iodepth=8 the best any higher setting does is 52400/50000 = +4.8% (< 5%);
# from iodepth=4 it is +45.6%. Latency outpaces throughput on every step from 4->8 on.
SATURATING = [qd(1, 10_000, 100), qd(2, 19_000, 105), qd(4, 36_000, 110), qd(8, 50_000, 160),
              qd(16, 52_000, 300), qd(32, 52_400, 600)]


def test_saturating_sweep():
    advice = advise(SATURATING, unit="IOPS", workload="4k randread")
    assert advice == Advice(best=SATURATING[5], diminishing_from=SATURATING[3],
                            latency_outpaces_from=SATURATING[2], sentences=advice.sentences)
    assert advice.sentences == [
        "Best: 4k randread at iodepth=32: 52.4k IOPS (mean latency 600 µs).",
        "Diminishing returns from iodepth=8: the next step gains only 4% IOPS, "
        "and no higher setting gains 5% or more.",
        "From iodepth=4 on, mean latency grows faster than IOPS (+45% vs +39%): "
        "more concurrency mostly queues.",
    ]


def test_input_order_does_not_matter():
    shuffled = [SATURATING[i] for i in (3, 0, 5, 1, 4, 2)]
    assert advise(shuffled, unit="IOPS") == advise(SATURATING, unit="IOPS")


def test_latency_limit():
    advice = advise(SATURATING, unit="IOPS", latency_limit_ns=200_000, latency_name="p99")
    assert advice.best == SATURATING[3]
    assert advice.sentences[:2] == [
        "Within p99 ≤ 200 µs the best is iodepth=8: 50.0k IOPS (p99 160 µs).",
        "Without the limit: iodepth=32: 52.4k IOPS (p99 600 µs).",
    ]
    assert advise(SATURATING, unit="IOPS", latency_limit_ns=600_000).best == SATURATING[5], "<= is within"


def test_no_setting_meets_the_limit():
    advice = advise(SATURATING, unit="IOPS", latency_limit_ns=50_000, latency_name="p99")
    assert advice.best is None
    assert advice.sentences[0] == "No setting meets p99 ≤ 50.0 µs (lowest: 100 µs at iodepth=1)."
    assert advice.diminishing_from == SATURATING[3], "the trend does not depend on the limit"
    blind = advise([qd(1, 100), qd(2, 150)], unit="IOPS", latency_limit_ns=5e6, latency_name="p99")
    assert blind.best is None
    assert blind.sentences[0] == "No setting reports p99: p99 ≤ 5.00 ms cannot be checked."


def test_throughput_that_falls_is_said_to_fall():
    # Peak 212 at iodepth=4; iodepth=8 gives 150: 150/212 - 1 = -29.2%. From iodepth=2 the
    # best higher setting gains 212/200 = +6%, so the knee is iodepth=4, whose next step loses.
    points = [qd(1, 100), qd(2, 200), qd(4, 212), qd(8, 150)]
    advice = advise(points, unit="IOPS")
    assert advice.best == points[2] and advice.diminishing_from == points[2]
    assert advice.latency_outpaces_from is None, "no latencies, no claim"
    assert "Diminishing returns from iodepth=4: the next step loses 29% IOPS." in advice.sentences
    assert ("Throughput falls beyond iodepth=4: 150 IOPS at iodepth=8 (-29% from its peak 212 IOPS)."
            in advice.sentences)


def test_a_dip_does_not_make_a_knee():
    """200 -> 150 at iodepth=4 looks like the end of scaling, but iodepth=8 doubles it: the
    knee is where nothing higher gains 5% (iodepth=8: 305/300 = +1.7%), and the dip is
    reported as noise. Latency: 4->8 is +0% vs +100%, 8->16 +100% vs +1.7%; 2->4 (+50% vs
    -25%) is interrupted by 4->8, so queueing is claimed from iodepth=8 only."""
    points = [qd(1, 100, 10), qd(2, 200, 10), qd(4, 150, 15), qd(8, 300, 15), qd(16, 305, 30)]
    advice = advise(points, unit="IOPS")
    assert advice.best == points[4]
    assert advice.diminishing_from == points[3]
    assert advice.latency_outpaces_from == points[3]
    assert advice.sentences[1] == (
        "Throughput dips at iodepth=4 (-25% from iodepth=2) and then rises again: the sweep looks "
        "noisy; repeat those steps before trusting where the knee is.")


def test_equal_concurrency_is_one_level():
    a = SweepPoint("iodepth=16, numjobs=1", 16, 40_000, 400_000)
    b = SweepPoint("iodepth=4, numjobs=4", 16, 45_000, 355_000)
    c = SweepPoint("iodepth=16, numjobs=4", 64, 46_000, 1_390_000)
    advice = advise([c, a, b], unit="IOPS")
    # The level at 16 is b (45k); 16 -> 64 gains 46/45 - 1 = +2.2%: the knee is b.
    assert advice.best == c and advice.diminishing_from == b and advice.latency_outpaces_from == b
    tie = SweepPoint("iodepth=2, numjobs=8", 16, 45_000, 355_000)
    assert advise([tie, b], unit="IOPS").best is tie, "ties keep the input order"
    assert advise([c, qd(128, 46_000)], unit="IOPS").best is c, "a tie goes to less concurrency"


def test_bandwidth_sweep_wording():
    mib = 1024**2
    points = [SweepPoint("threads=1", 1, 200 * mib, 20e6), SweepPoint("threads=4", 4, 700 * mib, 23e6),
              SweepPoint("threads=16", 16, 710 * mib, 90e6)]
    advice = advise(points, unit="B/s")
    assert advice.sentences == [
        "Best: threads=16: 710 MiB/s (mean latency 90.0 ms).",
        "Diminishing returns from threads=4: the next step gains only 1% bandwidth.",
        "From threads=4 on, mean latency grows faster than bandwidth (+291% vs +1%): "
        "more concurrency mostly queues.",
    ]


def test_one_point_gives_best_only():
    advice = advise([qd(8, 1234, 50)], unit="IOPS")
    assert advice == Advice(qd(8, 1234, 50), None, None, ["Best: iodepth=8: 1234 IOPS (mean latency 50.0 µs)."])


@pytest.mark.parametrize("points, kwargs", [
    ([], dict(unit="IOPS")),
    ([qd(1, 10)], dict(unit="MB/s")),
    ([qd(1, -1)], dict(unit="IOPS")),
    ([qd(0, 10)], dict(unit="IOPS")),
    ([qd(1, float("nan"))], dict(unit="IOPS")),
    ([qd(1, 10, 0)], dict(unit="IOPS")),
    ([qd(1, 10)], dict(unit="IOPS", latency_limit_ns=0)),
    ([qd(1, 10)], dict(unit="IOPS", gain_threshold=-0.1)),
])
def test_bad_input(points, kwargs):
    with pytest.raises(ValueError):
        advise(points, **kwargs)


# --- properties ----------------------------------------------------------------------------

point_values = st.tuples(
    st.integers(1, 1024),  # concurrency
    st.floats(1.0, 1e7, allow_nan=False),  # throughput
    st.one_of(st.none(), st.floats(1e3, 1e9, allow_nan=False)),  # latency
)
sweeps = st.lists(point_values, min_size=1, max_size=10).map(
    lambda raw: [SweepPoint(f"p{i}", c, t, lat) for i, (c, t, lat) in enumerate(raw)])


@given(sweeps)
def test_best_is_the_highest_throughput_and_named_first(points):
    advice = advise(points, unit="IOPS")
    assert advice.best.throughput == max(p.throughput for p in points)
    assert advice.sentences[0].startswith(f"Best: {advice.best.label}: ")
    for found in (advice.diminishing_from, advice.latency_outpaces_from):
        assert found is None or any(found is p for p in points)
    if advice.diminishing_from is not None:
        knee = advice.diminishing_from
        higher = [p.throughput for p in points if p.concurrency > knee.concurrency]
        assert higher and max(higher) < knee.throughput * 1.05
        assert any(knee.label in s for s in advice.sentences)


@given(sweeps, st.floats(1e3, 1e9))
def test_best_within_a_limit(points, limit):
    advice = advise(points, unit="IOPS", latency_limit_ns=limit)
    within = [p for p in points if p.latency_ns is not None and p.latency_ns <= limit]
    if within:
        assert advice.best.latency_ns <= limit
        assert advice.best.throughput == max(p.throughput for p in within)
    else:
        assert advice.best is None and advice.sentences[0].startswith("No setting")


@given(sweeps, st.floats(0.01, 0.5), st.floats(0.0, 0.5))
def test_a_point_far_below_changes_neither_best_nor_knee(points, concurrency_frac, throughput_frac):
    """A setting with less concurrency and at most half the throughput of every other one
    (a QD1 run added to a sweep) is no candidate for best and gains nothing to be a knee."""
    low = SweepPoint("low", min(p.concurrency for p in points) * concurrency_frac,
                     min(p.throughput for p in points) * throughput_frac, None)
    before, after = advise(points, unit="IOPS"), advise([*points, low], unit="IOPS")
    assert after.best is before.best
    assert after.diminishing_from is before.diminishing_from


@given(sweeps, st.integers(-20, 20))
def test_scaling_throughput_changes_no_verdict(points, power):
    scaled = [SweepPoint(p.label, p.concurrency, p.throughput * 2.0**power, p.latency_ns) for p in points]
    a, b = advise(points, unit="IOPS"), advise(scaled, unit="IOPS")
    assert [None if x is None else x.label for x in (a.best, a.diminishing_from, a.latency_outpaces_from)] == \
           [None if x is None else x.label for x in (b.best, b.diminishing_from, b.latency_outpaces_from)]


# --- real runs -----------------------------------------------------------------------------


def test_rados_bench_4k_reads_one_and_sixteen_threads():
    """Two 4K-object reads recorded on the 16.2.15 lab, 1 and 16 threads (the file names say
    so; read output does not). Not one sweep: the 1-thread run is `seq` and the 16-thread
    one `rand`, but for 4K objects both read whole objects.

    Little's law holds on both: 3477.25 IOPS x 283.171 µs = 0.985 and 22588.9 x 703 µs =
    15.88 outstanding reads: concurrency really is the thread count. From 1 to 16 threads
    IOPS grow +550% (22588.9 / 3477.25 = 6.496) and latency +148% (703 / 283.171 = 2.483):
    far from saturated, so there is no knee and no queueing to report."""
    ceph = FIXTURES / "recorded" / "ceph"
    one = parse_rados_bench((ceph / "rados-bench-16.2.15_seq_4K_t1_5s_text.txt").read_text(), mode="seq")
    many = parse_rados_bench((ceph / "rados-bench-16.2.15_rand_4K_t16_5s.json").read_text(), mode="rand")
    points = [SweepPoint(f"threads={n}", n, r.read.iops, r.read.lat_ns["mean"], {"threads": n})
              for n, r in ((1, one), (16, many))]
    for p in points:
        assert p.throughput * p.latency_ns / 1e9 == pytest.approx(p.concurrency, rel=0.02)
    advice = advise(points, unit="IOPS", workload="4k read")
    assert advice.best is points[1]
    assert advice.diminishing_from is None and advice.latency_outpaces_from is None
    assert advice.sentences == ["Best: 4k read at threads=16: 22.6k IOPS (mean latency 703 µs)."]


def _fio_randread(directory, iodepth: int) -> str:
    base = ["fio", "--name=sweep", f"--directory={directory}", "--rw=randread", "--bs=4k",
            "--size=32M", "--ioengine=libaio", f"--iodepth={iodepth}", "--time_based",
            "--runtime=1", "--output-format=json"]
    proc = subprocess.run([*base, "--direct=1"], capture_output=True, text=True)
    if proc.returncode != 0:  # a filesystem without O_DIRECT: buffered (then libaio is synchronous)
        proc = subprocess.run(base, capture_output=True, text=True, check=True)
    return proc.stdout


@pytest.mark.slow
def test_real_fio_sweep(workdir):
    """fio randread 4k, iodepth 1/4/16/64, 1 s each, on a file in a scratch directory. What
    the disk does is not ours to assert; the structure of the advice is."""
    points = []
    for depth in (1, 4, 16, 64):
        (rec,) = parse_fio_json(_fio_randread(workdir, depth))
        assert rec.read.iops > 0
        points.append(SweepPoint(f"iodepth={depth}", depth, rec.read.iops, rec.read.lat_ns["mean"],
                                 {"iodepth": depth}))
    advice = advise(points, unit="IOPS", workload="4k randread")
    assert advice.best is max(points, key=lambda p: p.throughput)
    assert advice.sentences[0].startswith(f"Best: 4k randread at {advice.best.label}: ")
    labels = {p.label for p in points}
    for sentence in advice.sentences:
        assert any(label in sentence for label in labels), sentence
    for found in (advice.diminishing_from, advice.latency_outpaces_from):
        assert found is None or (found in points and any(found.label in s for s in advice.sentences))
    limited = advise(points, unit="IOPS", latency_limit_ns=points[0].latency_ns)
    assert limited.best is points[0] or limited.best.latency_ns <= points[0].latency_ns


def noisy(label: str, c: float, iops: float, cov: float | None, source: str = "per second"):
    return SweepPoint(label, c, iops, None, noise=cov, noise_source=source if cov else "")


def test_a_fall_inside_the_noise_is_a_tie_not_a_fall():
    """The measured case: iodepth=16 peaks, the next setting is 5% lower, and the points'
    own per-second CoV is up to 23%: no fall, and the best is tied with its neighbours."""
    points = [noisy("iodepth=1", 1, 10_000, 0.04), noisy("iodepth=4", 4, 35_000, 0.10),
              noisy("iodepth=16", 16, 42_000, 0.23), noisy("iodepth=32", 32, 39_000, 0.18)]
    advice = advise(points, unit="IOPS")
    assert not any(s.startswith("Throughput falls") for s in advice.sentences)
    assert ("No fall beyond iodepth=16: 39.0k IOPS at iodepth=32 (-7% from its peak 42.0k "
            "IOPS) is within the noise (CoV 23% per second at iodepth=16): a tie."
            in advice.sentences)
    assert advice.best == points[2] and advice.tied == [points[1], points[3]]
    assert advice.sentences[0] == (
        "Best: iodepth=16: 42.0k IOPS; iodepth=4, iodepth=32 measured within the noise of it "
        "(CoV 23% per second at iodepth=16): a tie, and the least concurrency of them, "
        "iodepth=4, does as well.")
    # the knee: from iodepth=4 nothing higher gains more than the 23% noise (+20% at most)
    assert advice.diminishing_from == points[1]
    assert ("Diminishing returns from iodepth=4: the next step gains only 20% IOPS, and no "
            "higher setting gains beyond the noise (CoV 23% per second at iodepth=16)."
            in advice.sentences)


def test_the_same_figures_without_noise_keep_the_fall_and_the_single_best():
    points = [noisy("iodepth=1", 1, 10_000, None), noisy("iodepth=4", 4, 35_000, None),
              noisy("iodepth=16", 16, 42_000, None), noisy("iodepth=32", 32, 39_000, None)]
    advice = advise(points, unit="IOPS")
    assert advice.tied == [] and advice.sentences[0] == "Best: iodepth=16: 42.0k IOPS."
    assert any(s.startswith("Throughput falls beyond iodepth=16") for s in advice.sentences)


def test_a_dip_inside_the_noise_is_not_a_dip():
    points = [noisy("iodepth=1", 1, 100, 0.3, "3 runs"), noisy("iodepth=2", 2, 200, 0.3, "3 runs"),
              noisy("iodepth=4", 4, 160, 0.3, "3 runs"), noisy("iodepth=8", 8, 400, 0.05, "3 runs")]
    advice = advise(points, unit="IOPS")
    assert not any("dips" in s for s in advice.sentences)
    quiet = [SweepPoint(p.label, p.concurrency, p.throughput) for p in points]
    assert any("dips at iodepth=4" in s for s in advise(quiet, unit="IOPS").sentences)


def test_quiet_points_a_few_percent_apart_are_no_tie():
    points = [noisy("a", 1, 100, 0.01), noisy("b", 2, 103, 0.01)]
    advice = advise(points, unit="IOPS")
    assert advice.best == points[1] and advice.tied == []
