"""The options that judge a run (`--strict`, `--against`, `--max-regression`, `--junit`),
and the end of `run` and `resume`: the verdict computed, stored in results.json, printed,
and turned into the exit status (verdict/codes.py says which code wins)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import typer

STRICT = typer.Option(False, "--strict", help="Every flagged finding and every criterion "
                      "not measured fails the run (exit 3).")
AGAINST = typer.Option(None, "--against", metavar="NAME|RUN", help="Gate the run's figures "
                       "against a baseline (`stackprobe baseline set`) or a run.")
MAX_REGRESSION = typer.Option("10%", "--max-regression", metavar="PCT", help="With --against: "
                              "a figure this much worse than the baseline (and beyond noise) fails "
                              "(exit 4); as `compare --against` (verdict/gates.py).")
JUNIT = typer.Option(None, "--junit", metavar="FILE", help="Write the checklist as JUnit XML.")


@dataclass(frozen=True)
class Judging:
    rules: Sequence = ()  # verdict/bind.BoundRule
    strict: bool = False
    against: str | None = None
    max_regression: str = "10%"
    junit: Path | None = None
    runs_dir: Path = Path("runs")
    gate: Gate | None = None  # --against, read by `prepare`


@dataclass(frozen=True)
class Gate:
    """The baseline a run is gated against, read once before the run starts."""

    baseline: Any  # RunResults
    label: str
    path: Path
    max_regression_pct: float


def prepare(judging: Judging) -> Judging:
    """Read --against and --max-regression before anything runs: a bad one fails now, not
    after the load, and the run is gated against the baseline as it was when it started."""
    if judging.against is None:
        return judging
    from stackprobe.store.rundir import load_results
    from stackprobe.verdict.baseline import find_baseline
    from stackprobe.verdict.gates import parse_pct

    pct = parse_pct(judging.max_regression)
    found = find_baseline(judging.against, judging.runs_dir)
    return replace(judging, gate=Gate(load_results(found.path), found.label, found.path, pct))


def judge_and_store(results, run_path: Path, judging: Judging):
    """The run's verdict, kept in its results.json and the index; returns the results."""
    from stackprobe.store.index import record_run
    from stackprobe.store.rundir import RunDir
    from stackprobe.verdict.checklist import build_verdict

    regressions, baseline = [], None
    gate = judging.gate
    if gate is not None:
        from stackprobe.verdict.gates import regression_items

        regressions, baseline = regression_items(results, gate.baseline, gate.label,
                                                 gate.max_regression_pct, path=gate.path)
    results.verdict = build_verdict(results, judging.rules, strict=judging.strict,
                                    regressions=regressions, baseline=baseline)
    RunDir(run_path).save(results)
    record_run(run_path.parent, run_path, results)
    if judging.junit is not None:
        from stackprobe.store.rundir import atomic_write
        from stackprobe.verdict.junit import junit_xml

        atomic_write(judging.junit, junit_xml(results))
    return results
