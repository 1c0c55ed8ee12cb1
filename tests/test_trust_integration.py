"""Trustworthy numbers through `stackprobe run`, with real fio on a temporary directory:
repetitions (fixed and adaptive), steady state (marked, and ending a step early), the slo
search, and sweep advice in `stackprobe show`."""

from __future__ import annotations

import statistics

import pytest

from conftest import run_cli
from stackprobe.store.rundir import load_results

pytestmark = [pytest.mark.tools, pytest.mark.slow]

SUITE = """
name: trust
defaults: {size: 32M, ioengine: psync, time_based: true}
steps:
  - kind: fio
    name: fixed
    rw: randread
    bs: 4k
    runtime: 1
    repeat: 3
  - kind: fio
    name: adaptive-strict
    rw: randread
    bs: 4k
    runtime: 1
    repeat: {min: 2, max: 4, cov: 0.000001}
  - kind: fio
    name: adaptive-loose
    rw: randread
    bs: 4k
    runtime: 1
    repeat: {min: 2, max: 6, cov: 0.9}
  - kind: fio
    name: steady-stop
    rw: randread
    bs: 4k
    runtime: 60
    steady_state: {window: 4, range: 0.5, slope: 0.3, stop: true}
  - kind: fio
    name: steady-mark
    rw: randread
    bs: 4k
    runtime: 6
    steady_state: {window: 4, range: 0.5, slope: 0.3}
  - kind: slo
    name: slo
    rw: randread
    bs: 4k
    ioengine: libaio
    direct: 1
    iodepth: 2
    runtime: 1
    percentile: 99
    limit: 50ms
    vary: numjobs
    min: 1
    max: 8
  - kind: fio
    name: sweep
    rw: randread
    bs: 4k
    ioengine: libaio
    direct: 1
    runtime: 1
    iodepth: [1, 8, 32]
    advice: {limit: 100ms, percentile: 99}
  - kind: slo
    name: rate
    rw: randread
    bs: 4k
    ioengine: libaio
    direct: 1
    iodepth: 8
    runtime: 1
    percentile: 99
    limit: 20ms
    vary: rate_iops
    min: 2000
    max: 64000
"""


@pytest.fixture(scope="module")
def trust_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("trust")
    (base / "s.yaml").write_text(SUITE)
    target = base / "target"
    target.mkdir()
    proc = run_cli(["run", "s.yaml", "--target", target, "--out", base / "runs"], cwd=base, check=0)
    run_dir = next(p for p in (base / "runs").iterdir() if p.is_dir())
    return proc, run_dir, {s.name.split("-iodepth")[0]: s for s in load_results(run_dir).steps}


def test_fixed_repetitions(trust_run):
    _, run_dir, steps = trust_run
    step = steps["fixed"]
    assert {r.repetition for r in step.records} == {1, 2, 3}
    rep = step.summary.repeat
    assert rep.n == 3 and len(rep.values) == 3
    assert rep.mean == pytest.approx(statistics.fmean(rep.values))
    assert rep.ci95_low < rep.mean < rep.ci95_high
    assert step.summary.headline_value == pytest.approx(rep.mean)
    # IOPS are the mean of the runs; percentiles come from all runs' I/Os together
    read = step.summary.io[0].read
    assert read.iops == pytest.approx(statistics.fmean(r.read.iops for r in step.records))
    assert "p99" in read.clat_ns
    for n in (1, 2, 3):
        assert (run_dir / "steps" / step.id / f"rep-{n}" / "fio.stdout").is_file()


def test_adaptive_repetitions_stop_by_the_cov_rule(trust_run):
    _, _, steps = trust_run
    assert steps["adaptive-strict"].summary.repeat.n == 4, "never quiet enough: runs max"
    assert steps["adaptive-strict"].summary.repeat.noisy
    assert steps["adaptive-loose"].summary.repeat.n == 2, "quiet enough at min"
    assert not steps["adaptive-loose"].summary.repeat.noisy


def test_steady_state_stops_a_step_early(trust_run):
    _, _, steps = trust_run
    st = steps["steady-stop"].summary.steady
    assert st["steady"] and st["stopped_early"]
    assert st["saved_s"] > 30 and st["ran_s"] < 30
    assert steps["steady-stop"].status == "ok"
    assert len(steps["steady-stop"].records[0].series) >= 4


def test_steady_state_marked(trust_run):
    _, _, steps = trust_run
    st = steps["steady-mark"].summary.steady
    assert not st["stopped_early"] and st["intervals"] >= 4
    assert isinstance(st["steady"], bool) and st["reason"]


def test_slo_search(trust_run):
    _, _, steps = trust_run
    step = steps["slo"]
    (slo,) = [r for r in step.records if r.type == "slo"]
    probes = [r for r in step.records if r.type == "io"]
    assert len(probes) == len(slo.probes) >= 2
    assert slo.answer is not None and slo.answer["latency_ns"] <= 50e6
    assert step.summary.headline_value == slo.answer["iops"]
    assert step.notes and step.notes[0].startswith("max ") and "probes at the answer" in step.notes[0]
    settings = [p["setting"] for p in slo.probes]
    # the search tries each setting once; only the confirmation measures one again, and the
    # answer is the mean of its setting's probes
    assert settings[0] == 4  # min x4, the first geometric step (min only if it fails)
    assert settings.count(slo.answer["setting"]) == slo.answer["repeats"] >= 2
    at_answer = [p["iops"] for p in slo.probes if p["setting"] == slo.answer["setting"]]
    assert slo.answer["iops"] == pytest.approx(sum(at_answer) / len(at_answer))


def test_slo_over_offered_load(trust_run):
    """rate_iops: fio offers a fixed rate; below capacity it is met, latency stays low."""
    _, _, steps = trust_run
    step = steps["rate"]
    (slo,) = [r for r in step.records if r.type == "slo"]
    assert slo.probes[0]["setting"] == 8000  # min x4, the first geometric step
    lowest = min((p for p in slo.probes if p["passed"]), key=lambda p: p["setting"])
    assert lowest["iops"] == pytest.approx(lowest["setting"], rel=0.1), "the offered rate is what fio did"
    assert slo.answer["iops"] >= lowest["iops"] * 0.95
    probes = [r for r in step.records if r.type == "io"]
    assert all("rate_iops" not in r.workload for r in probes)  # an option, not a workload key


def test_show_has_repetitions_slo_and_sweep_advice(trust_run):
    _, run_dir, _ = trust_run
    out = run_cli(["show", run_dir], check=0).stdout
    assert "3 runs" in out and "NOISY" in out
    assert "steady at" in out and "saved" in out
    assert "Latency-bounded IOPS" in out
    assert "Sweep: 4k randread" in out and "p99 latency" in out
    assert "Within p99 ≤ 100 ms the best is 4k randread at iodepth=" in out
    md = run_cli(["report", run_dir, "--format", "md"], check=0)
    assert md.returncode == 0 and "the best is" in (run_dir / "report.md").read_text()
