"""`stackprobe compare RUN_A RUN_B [RUN_C ...] [--format text|md|json|html]`, and
`stackprobe compare RUN... --against NAME|RUN --max-regression PCT [--junit FILE]`.

The runs' matching rows side by side, each against the first run (report/compare.py does
the pairing and the statistics; this module loads, prints, and colours only the changes
that are beyond noise, so the eye goes to what is real).

With --against, the baseline is run A and every figure it has is a regression gate for
each run given (verdict/gates.py): the gates' checklist follows the comparison and the
command exits 4 when one failed, so a CI job can gate on it without reading the table.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from stackprobe.cli import options
from stackprobe.errors import UserError

FORMATS = ("text", "md", "json", "html")
MARKS = {"pass": "pass", "fail": "FAIL", "not measured": "n/m ", "warn": "warn"}


def compare_runs(
    runs: list[str] = typer.Argument(None, metavar="RUN...", help="Two or more run directories "
                                     "or ids; the first is the baseline (one or more with --against)."),
    fmt: str = typer.Option("text", "--format", "-f", help="text, md, json or html (a self-contained page)."),
    against: str = typer.Option(None, "--against", metavar="NAME|RUN",
                                help="Gate the runs against this baseline (a name from `stackprobe "
                                     "baseline set`, a run directory or id): it becomes run A."),
    max_regression: str = typer.Option(None, "--max-regression", metavar="PCT",
                                       help="How much worse than the baseline a figure may be "
                                            "(with --against; default 10%)."),
    junit: Path = typer.Option(None, "--junit", metavar="FILE",
                               help="Write the gates as JUnit XML (with --against and one run)."),
    out: Path = options.OUT,
) -> None:
    """Compare runs: the same workloads side by side, the change against the first run and
    whether it is beyond noise; before them, what differs between the machines. With
    --against: regression gates, exit 4 when one fails."""
    options.check_format(fmt, FORMATS)
    runs = runs or []
    if against is None:
        for given, option in ((max_regression, "--max-regression"), (junit, "--junit")):
            if given is not None:
                raise UserError(f"{option} needs --against NAME|RUN (the baseline to gate against)")
        if len(runs) < 2:
            raise UserError("compare needs at least two runs (run directories or ids), "
                            f"got {len(runs)}")
        _print_comparison(_load(runs, out), fmt)
        return
    _gate(runs, against, max_regression, junit, fmt, out)


def _load(runs: list[str], out: Path, baseline: tuple[str, Path] | None = None) -> list:
    from stackprobe.cli.show_cmd import resolve_run
    from stackprobe.store.rundir import load_results

    named = [baseline] if baseline else []
    named += [(run, resolve_run(run, out)) for run in runs]
    _refuse_repeats([n for n, _ in named], [p for _, p in named])
    return [load_results(p) for _, p in named]


def _print_comparison(results: list, fmt: str, gates: list | None = None) -> None:
    from stackprobe.report.compare_render import compare_json, compare_markdown

    if fmt == "md":
        print(compare_markdown(results), end="")
    elif fmt == "json":
        doc = json.loads(compare_json(results))
        if gates is not None:
            doc["gates"] = [{"run": r.run.id, **v.model_dump(mode="json")} for r, v in gates]
        print(json.dumps(doc, indent=1, ensure_ascii=False))
    elif fmt == "html":
        from stackprobe.report.compare_html import to_compare_html

        print(to_compare_html(results), end="")
    else:
        from stackprobe.cli.console import make_console
        from stackprobe.report.compare_terminal import print_comparison

        print_comparison(results, make_console())


def _gate(runs: list[str], against: str, max_regression: str | None, junit: Path | None,
          fmt: str, out: Path) -> None:
    from stackprobe.store.rundir import atomic_write
    from stackprobe.verdict.baseline import find_baseline
    from stackprobe.verdict.codes import EXIT_REGRESSION
    from stackprobe.verdict.gates import (
        DEFAULT_MAX_REGRESSION_PCT,
        gate_verdict,
        parse_pct,
        regression_items,
    )
    from stackprobe.verdict.junit import junit_xml

    pct = DEFAULT_MAX_REGRESSION_PCT if max_regression is None else parse_pct(max_regression)
    if not runs:
        raise UserError("compare --against needs the run(s) to gate (run directories or ids)")
    if junit is not None and len(runs) > 1:
        raise UserError(f"--junit writes one run's gates; {len(runs)} runs given")
    ref = find_baseline(against, out)
    baseline, *results = _load(runs, out, (against, ref.path))
    gates = []
    for run in results:
        items, info = regression_items(run, baseline, ref.label, pct, path=ref.path)
        gates.append((run, gate_verdict(items, info)))
    _print_comparison([baseline, *results], fmt, gates)
    if fmt != "json":
        stream = sys.stderr if fmt == "html" else sys.stdout
        for run, verdict in gates:
            print("\n".join(checklist_lines(run.run.id, verdict)), file=stream)
    if junit is not None:
        run, verdict = gates[0]
        atomic_write(junit, junit_xml(run.model_copy(update={"verdict": verdict})))
    if any(v.exit_code == EXIT_REGRESSION for _, v in gates):
        raise typer.Exit(EXIT_REGRESSION)


def checklist_lines(run_id: str, verdict) -> list[str]:
    """The gates as text: the machine differences first when the baseline ran elsewhere,
    then one line per gated figure, then the count and the outcome."""
    info = verdict.baseline or {}
    lines = ["", f"Regression gates: {run_id} against {info.get('name')} "
                 f"(run {info.get('run')}), max regression {info.get('max_regression_pct'):g}%"]
    if info.get("other_machine"):
        lines.append("  the baseline ran on a different machine:")
        lines += [f"    {what}: {text}" for what, text in info.get("differences", [])]
    for item in verdict.items:
        lines.append(f"  {MARKS[item.status]}  {item.rule}")
        lines.append(f"        {item.measured}" + (f" — {item.detail}" if item.detail else ""))
    counts = verdict.counts()
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    outcome = ("a gated figure regressed" if verdict.status == "regression"
               else "no gated figure regressed")
    lines.append(f"Gates: {summary}: {outcome} (exit {verdict.exit_code})")
    return lines


def _refuse_repeats(names: list[str], paths: list[Path]) -> None:
    seen: dict[Path, str] = {}
    for name, path in zip(names, paths):
        real = path.resolve()
        if real in seen:
            raise UserError(f"{name}: the same run as {seen[real]}; give different runs")
        seen[real] = name
