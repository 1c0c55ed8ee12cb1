"""The `stackprobe` command: typer app wiring; each command lives in its own module.

UserError (bad input, missing tool, unusable target) is printed as one line on stderr
with its exit code; nothing the user can fix ends in a traceback. Any other exception is a
bug in stackprobe: one line too, naming it, exit 70 (EX_SOFTWARE); STACKPROBE_DEBUG=1
shows the traceback for the report.
"""

from __future__ import annotations

import os
import sys

import typer

from stackprobe import __version__
from stackprobe.cli import (
    baseline_cmd,
    ceph_cmd,
    check_cmd,
    compare_cmd,
    doctor_cmd,
    export_cmd,
    history_cmd,
    ingest_cmd,
    lab_cmd,
    plan_cmd,
    resume_cmd,
    run_cmd,
    runs_cmd,
    show_cmd,
    suites_cmd,
    verdict_cmd,
)
from stackprobe.errors import UserError

EXIT_INTERNAL_ERROR = 70  # EX_SOFTWARE in sysexits.h

app = typer.Typer(
    name="stackprobe",
    help="Bottom-up performance and acceptance testing for storage clusters.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)

app.command("run")(run_cmd.run)
app.command("plan")(plan_cmd.plan)
app.command("doctor")(doctor_cmd.doctor)
app.command("ingest")(ingest_cmd.ingest)
app.command("show")(show_cmd.show)
app.command("report")(show_cmd.report)
app.command("compare")(compare_cmd.compare_runs)
app.command("resume")(resume_cmd.resume)
app.command("runs")(runs_cmd.runs)
app.command("history")(history_cmd.history)
app.command("export")(export_cmd.export)
app.command("verdict")(verdict_cmd.verdict)
app.command("check")(check_cmd.check)
app.add_typer(lab_cmd.lab_app, name="lab")
app.add_typer(baseline_cmd.baseline_app, name="baseline")
app.add_typer(ceph_cmd.ceph_app, name="ceph")
app.add_typer(suites_cmd.suites_app, name="suites")


@app.callback(invoke_without_command=True)
def _root(
    version: bool = typer.Option(False, "--version", help="Print the version and exit."),
) -> None:
    if version:
        print(f"stackprobe {__version__}")
        raise typer.Exit(0)


def main() -> None:
    try:
        app(prog_name="stackprobe")  # also under `python -m stackprobe`: usage, completion
    except UserError as exc:
        print(f"stackprobe: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except Exception as exc:
        if os.environ.get("STACKPROBE_DEBUG"):
            raise
        where = "".join(str(exc).splitlines()[:1])
        print(f"stackprobe: internal error, please report it: {type(exc).__name__}: {where} "
              "(STACKPROBE_DEBUG=1 shows the traceback)", file=sys.stderr)
        sys.exit(EXIT_INTERNAL_ERROR)
