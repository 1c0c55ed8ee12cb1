"""Regression gates (verdict/gates.py) on recorded real runs, with the second run made by
scaling the figures of one step's records and summarising them again as a run would.

What must hold: every headline figure of the baseline is gated under its figure key; a
figure worse by more than the threshold fails — by the threshold alone for steps measured
once (and the item says so), only beyond noise (Welch) for repeated ones; latency is worse
when it grows; a gated figure that is gone or failed fails with the reason; a baseline with
no figure does not pass silently; the baseline info starts with the machine differences.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import FIXTURES
from stackprobe.analysis.step_summary import summarise_step
from stackprobe.errors import UserError
from stackprobe.report.compare import match_rows
from stackprobe.report.figure_keys import run_figures
from stackprobe.schema.records import IoRecord
from stackprobe.schema.results import RunResults
from stackprobe.store.rundir import load_results
from stackprobe.verdict.codes import EXIT_OK, EXIT_REGRESSION
from stackprobe.verdict.gates import gate_verdict, parse_pct, regression_items

RUNS = FIXTURES / "recorded" / "runs-after-kind-contract"
QUICK = RUNS / "20261124T053239Z-quick"  # every step measured once
TRUST = RUNS / "20261124T053610Z-trust"  # fio steps repeated 2-4 times, latency headline
SEQREAD = "fio:bs=1M,direct=1,iodepth=64,ioengine=libaio,rw=read,size=256M:read.bw"


def load(path: Path) -> RunResults:
    return load_results(path)


def scaled(results: RunResults, step_id: str, factor: float | dict[int, float]) -> RunResults:
    """`results` with step `step_id`'s I/O figures times `factor` (a float, or one per
    repetition): IOPS and bandwidth multiplied, latencies divided, so < 1 is worse."""
    steps = []
    for step in results.steps:
        if step.id == step_id:
            records = [_scaled_record(r, factor) for r in step.records]
            step = step.model_copy(update={"records": records,
                                           "summary": summarise_step(step.headline, records)})
        steps.append(step)
    return results.model_copy(update={"steps": steps})


def _scaled_record(record, factor):
    if not isinstance(record, IoRecord):
        return record
    f = factor if isinstance(factor, float | int) else factor[record.repetition]
    update = {}
    for direction in ("read", "write", "trim"):
        stats = getattr(record, direction, None)
        if stats is None:
            continue
        update[direction] = stats.model_copy(update={
            "iops": stats.iops * f, "bw_bytes": stats.bw_bytes * f,
            "clat_ns": {k: v / f for k, v in stats.clat_ns.items()},
            "lat_ns": {k: v / f for k, v in stats.lat_ns.items()}})
    return record.model_copy(update=update)


def without_step(results: RunResults, step_id: str) -> RunResults:
    return results.model_copy(update={"steps": [s for s in results.steps if s.id != step_id]})


def failed_step(results: RunResults, step_id: str, error: str) -> RunResults:
    steps = [s.model_copy(update={"status": "failed", "error": error, "records": [], "summary": None})
             if s.id == step_id else s for s in results.steps]
    return results.model_copy(update={"steps": steps})


def by_rule(items):
    return {i.rule: i for i in items}


def test_every_headline_figure_of_the_baseline_is_gated_and_an_identical_run_passes():
    base = load(QUICK)
    items, info = regression_items(base, base, "quick", 10)
    with_figures = [m for m in match_rows([base, base]) if m.sides[0].value is not None]
    assert len(items) == len(with_figures) > 10
    keys = {f.text for f in run_figures(base)}
    assert all(i.rule in keys and i.kind == "regression" for i in items)
    assert all(i.status == "pass" and i.origin == "--against quick" for i in items)
    assert all("single run: threshold only" in i.detail for i in items)
    assert gate_verdict(items, info).exit_code == EXIT_OK


def test_a_slower_single_run_figure_fails_by_the_threshold_alone():
    base = load(QUICK)
    items, info = regression_items(scaled(base, "06-seqread-bw", 0.5), base, "quick", 10)
    failed = [i for i in items if i.status == "fail"]
    assert [i.rule for i in failed] == [SEQREAD]
    (item,) = failed
    assert item.measured.startswith("B: ") and " vs A: " in item.measured
    assert item.measured.endswith("(-50.0%)")
    assert "worse by 50.0% (gate 10%)" in item.detail and "single run: threshold only" in item.detail
    assert item.unit == "B/s" and item.value == pytest.approx(
        by_rule(regression_items(base, base, "q", 10)[0])[SEQREAD].value * 0.5)
    assert item.sources[0] == SEQREAD and "06-seqread-bw" in item.sources
    verdict = gate_verdict(items, info)
    assert verdict.status == "regression" and verdict.exit_code == EXIT_REGRESSION


@pytest.mark.parametrize("factor, threshold, status", [
    (0.95, 10, "pass"),  # 5% worse, under the gate
    (0.85, 10, "fail"),  # 15% worse
    (0.85, 20, "pass"),  # the same, under a wider gate
    (1.5, 0, "pass"),  # better is never a regression
])
def test_threshold(factor, threshold, status):
    base = load(QUICK)
    items, _ = regression_items(scaled(base, "06-seqread-bw", factor), base, "quick", threshold)
    assert by_rule(items)[SEQREAD].status == status


def test_latency_is_worse_when_it_grows():
    base = load(TRUST)
    slower = regression_items(scaled(base, "01-fixed", 0.5), base, "trust", 10)[0]
    faster = regression_items(scaled(base, "01-fixed", 2.0), base, "trust", 10)[0]
    (slow,) = [i for i in slower if "01-fixed" in i.sources]
    (fast,) = [i for i in faster if "01-fixed" in i.sources]
    assert slow.rule.endswith(":read.lat") and slow.unit == "ns"
    assert slow.status == "fail" and "(+100.0%)" in slow.measured
    assert "beyond noise (Welch's t-test, 5%)" in slow.detail
    assert fast.status == "pass" and "(-50.0%)" in fast.measured


def test_a_repeated_figure_worse_than_the_gate_but_within_noise_passes():
    base = load(TRUST)  # 02-adaptive-strict: 4 repetitions, 8% CoV
    spread = {1: 0.62, 2: 1.0, 3: 1.08, 4: 0.98}  # mean ~8% worse, scattered
    items, _ = regression_items(scaled(base, "02-adaptive-strict", spread), base, "trust", 5)
    (item,) = [i for i in items if "02-adaptive-strict" in i.sources]
    assert item.status == "pass", item
    assert "but not a regression" in item.detail and "within noise" in item.detail
    steady = {1: 0.6, 2: 0.6, 3: 0.6, 4: 0.6}  # each run 67% slower: beyond noise
    items, _ = regression_items(scaled(base, "02-adaptive-strict", steady), base, "trust", 5)
    (item,) = [i for i in items if "02-adaptive-strict" in i.sources]
    assert item.status == "fail" and "beyond noise" in item.detail


def test_a_gated_figure_that_is_gone_or_failed_fails_with_the_reason():
    base = load(QUICK)
    gone = by_rule(regression_items(without_step(base, "06-seqread-bw"), base, "quick", 10)[0])
    assert gone[SEQREAD].status == "fail" and "not in this run" in gone[SEQREAD].measured
    assert "gated figure missing from this run" in gone[SEQREAD].detail
    broken = failed_step(base, "06-seqread-bw", "fio: io_u error on file x: Input/output error")
    item = by_rule(regression_items(broken, base, "quick", 10)[0])[SEQREAD]
    assert item.status == "fail" and "failed: fio: io_u error" in item.detail
    assert item.value is None


def test_figures_only_this_run_has_are_not_gated_but_said():
    base = load(QUICK)
    smaller = without_step(base, "06-seqread-bw")
    items, _ = regression_items(base, smaller, "small", 10)
    new = by_rule(items)[SEQREAD]  # a workload the baseline never ran: not gated, never a pass
    assert new.status == "not measured" and "not in the baseline" in new.detail
    assert all(i.status == "pass" for i in items if i.rule != SEQREAD)


def test_a_figure_whose_step_failed_in_the_baseline_fails_its_gate():
    base = load(QUICK)
    broken = failed_step(base, "06-seqread-bw", "fio: io_u error on file x: Input/output error")
    item = by_rule(regression_items(base, broken, "broken", 10)[0])[SEQREAD]
    assert item.status == "fail" and "missing from the baseline" in item.detail
    assert "failed: fio: io_u error" in item.measured


def test_a_baseline_without_figures_fails_rather_than_passing_empty():
    base = load(QUICK)
    empty = base.model_copy(update={"steps": [s for s in base.steps if s.kind == "inventory"]})
    items, _ = regression_items(base, empty, "empty", 10)
    failed = [i for i in items if i.status == "fail"]
    assert len(failed) == 1 and "no figure to gate" in failed[0].detail
    assert {i.status for i in items} == {"fail", "not measured"}  # its figures: not gated


def test_baseline_info_starts_with_the_machine_differences():
    base = load(QUICK)
    items, info = regression_items(base, base, "quick", 7.5, path=QUICK)
    assert list(info)[0] == "differences"
    assert info["other_machine"] is False
    assert info | {"differences": None} == {
        "differences": None, "other_machine": False, "name": "quick", "run": base.run.id,
        "path": str(QUICK), "max_regression_pct": 7.5}
    elsewhere = base.model_copy(update={"run": base.run.model_copy(update={"host": "other-box"})})
    _, info = regression_items(elsewhere, base, "quick", 10)
    assert info["other_machine"] is True
    assert ["Host", "A: vm · B: other-box"] in info["differences"]


@pytest.mark.parametrize("text, value", [("10%", 10.0), ("7.5", 7.5), (" 5 % ", 5.0), ("0", 0.0)])
def test_parse_pct(text, value):
    assert parse_pct(text) == value


@pytest.mark.parametrize("text", ["abc", "-1", "nan", "inf", "", "10%%"])
def test_parse_pct_refuses_what_is_no_percentage(text):
    with pytest.raises(UserError) as exc:
        parse_pct(text)
    assert str(exc.value).startswith(f"--max-regression {text}:") and "\n" not in str(exc.value)
