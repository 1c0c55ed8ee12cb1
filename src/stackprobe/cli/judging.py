"""The options that judge a run (`--strict`, `--against`, `--max-regression`, `--junit`),
and the end of `run` and `resume`: the verdict computed, stored in results.json, printed,
and turned into the exit status (verdict/codes.py says which code wins)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

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


def prepare(judging: Judging) -> None:
    """Refuse a bad --against or --max-regression before anything runs."""
    if judging.against is None:
        return
    from stackprobe.verdict.baseline import load_baseline
    from stackprobe.verdict.gates import parse_pct

    parse_pct(judging.max_regression)
    load_baseline(judging.against, judging.runs_dir)


def judge_and_store(results, run_path: Path, judging: Judging):
    """The run's verdict, kept in its results.json and the index; returns the results."""
    from stackprobe.store.index import record_run
    from stackprobe.store.rundir import RunDir
    from stackprobe.verdict.checklist import build_verdict

    regressions, baseline = [], None
    if judging.against is not None:
        from stackprobe.store.rundir import load_results
        from stackprobe.verdict.baseline import find_baseline
        from stackprobe.verdict.gates import parse_pct, regression_items

        found = find_baseline(judging.against, judging.runs_dir)
        regressions, baseline = regression_items(
            results, load_results(found.path), found.label, parse_pct(judging.max_regression),
            path=found.path)
    results.verdict = build_verdict(results, judging.rules, strict=judging.strict,
                                    regressions=regressions, baseline=baseline)
    RunDir(run_path).save(results)
    record_run(run_path.parent, run_path, results)
    if judging.junit is not None:
        from stackprobe.store.rundir import atomic_write
        from stackprobe.verdict.junit import junit_xml

        atomic_write(judging.junit, junit_xml(results))
    return results
