"""The console every command prints through.

On a terminal, rich's own (its width). Piped or in a CI log, rich would assume 80 columns
and fold tables and sentences ("4k random read IOPS, all / clients at once: h1" over two
lines, ladder sentences cut mid-word); there a line takes the width its content needs, up
to PIPE_WIDTH, unless COLUMNS says otherwise (rich reads COLUMNS itself).
"""

from __future__ import annotations

import os

from rich.console import Console

PIPE_WIDTH = 500  # wide enough for any table row the reports print; tables take only what they need


def make_console(**kwargs) -> Console:
    console = Console(**kwargs)
    if console.is_terminal or os.environ.get("COLUMNS") or "width" in kwargs:
        return console
    return Console(width=PIPE_WIDTH, **kwargs)
