"""`stackprobe baseline set RUN [--name NAME]`, `baseline list`, `baseline rm NAME`.

A baseline is a run given a name in the runs directory (store/baselines.py), so that
`compare --against NAME` and `run --against NAME` keep working when the run it stands for
is replaced by a newer one.
"""

from __future__ import annotations

from pathlib import Path

import typer

from stackprobe.cli import options

baseline_app = typer.Typer(help="Name runs as baselines for regression gates (--against NAME).",
                           no_args_is_help=True)


@baseline_app.command("set")
def set_cmd(
    run: str = typer.Argument(..., help="Run directory or id."),
    name: str = typer.Option(None, "--name", help="The baseline's name; default: the run's suite."),
    out: Path = options.OUT,
) -> None:
    """Name a run as a baseline (a name already set is moved to this run)."""
    from stackprobe.cli.show_cmd import resolve_run
    from stackprobe.store.baselines import read_baselines, set_baseline
    from stackprobe.store.rundir import load_results

    path = resolve_run(run, out)
    results = load_results(path)
    name = name or results.run.suite
    before = read_baselines(out).get(name)
    entry = set_baseline(out, name, path, results.run.id)
    moved = f" (was {before.run} in {before.path})" if before and before.path != entry.path else ""
    print(f"baseline {name} -> {entry.run}{moved}")
    if results.run.status != "ok":
        print(f"note: run {entry.run} ended {results.run.status}: its figures that are missing "
              "gate nothing")


@baseline_app.command("list")
def list_cmd(out: Path = options.OUT) -> None:
    """The baselines in the runs directory: name, run, when set, and whether the run is there."""
    from stackprobe.store.baselines import baselines_file, read_baselines

    baselines = read_baselines(out)
    if not baselines:
        print(f"no baselines in {baselines_file(out)} (stackprobe baseline set RUN --name NAME)")
        return
    width = max(len(n) for n in baselines)
    for b in sorted(baselines.values(), key=lambda b: b.name):
        gone = "" if b.exists else "  (run directory gone)"
        print(f"{b.name:<{width}}  {b.run}  set {b.set_at}  {b.path}{gone}")


@baseline_app.command("rm")
def rm_cmd(
    name: str = typer.Argument(..., help="The baseline's name."),
    out: Path = options.OUT,
) -> None:
    """Forget a baseline's name (the run itself stays)."""
    from stackprobe.store.baselines import remove_baseline

    gone = remove_baseline(out, name)
    print(f"baseline {name} removed (run {gone.run} kept)")
