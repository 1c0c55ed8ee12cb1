"""Options several commands share, said once."""

from __future__ import annotations

import typer

from stackprobe.cli.runs_dir import resolve_option
from stackprobe.errors import UserError

# where runs are: this option, else $STACKPROBE_RUNS, the config file's runs_dir, ./runs
# (cli/runs_dir.py); --out/-o is its older spelling
OUT = typer.Option(
    None, "--runs-dir", "--out", "-o", callback=resolve_option, show_default=False,
    help="Where run directories are (default: $STACKPROBE_RUNS, runs_dir in "
    "~/.config/stackprobe/config.yaml, else ./runs).",
)
SUITE = typer.Argument(None, help="Built-in suite name (quick, standard) or YAML file.")


def check_format(fmt: str, formats: tuple[str, ...]) -> None:
    """Refuse a --format the command does not write, naming the ones it does."""
    if fmt not in formats:
        raise UserError(f"--format {fmt}: choose one of {', '.join(formats)}")
