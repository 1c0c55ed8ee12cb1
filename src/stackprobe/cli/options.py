"""Options several commands share, said once."""

from __future__ import annotations

from pathlib import Path

import typer

OUT = typer.Option(Path("runs"), "--out", "-o", help="Where run directories are.")
SUITE = typer.Argument(None, help="Built-in suite name (quick, standard) or YAML file.")
