"""`stackprobe history KEY | --suite S [--format text|json|html] [--output FILE]`.

One figure across runs, oldest first, each value marked when it left the band of the runs
before it (analysis/drift.py). KEY is a figure key (report/figure_keys.py) and may leave
parameters out; --suite follows the suite's headline figures. Read from the run index.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from stackprobe.cli import options
from stackprobe.errors import UserError

FORMATS = ("text", "json", "html")


def history(
    key: str = typer.Argument(
        None, metavar="KEY",
        help="Figure key, parameters optional, e.g. 'fio:rw=randread,bs=4k:read.iops'."),
    suite: str = typer.Option(None, "--suite", help="Every headline figure of this suite's runs."),
    fmt: str = typer.Option("text", "--format", "-f", help="text, json or html."),
    output: Path = typer.Option(None, "--output", help="File to write; default: standard output."),
    out: Path = options.OUT,
) -> None:
    """Follow a figure (or a suite's headline figures) across runs, marking drift."""
    from stackprobe.cli.runs_cmd import index_unfigured
    from stackprobe.report.figure_keys import KeyError_, parse_key
    from stackprobe.report.history import key_history, suite_history
    from stackprobe.store.index import figure_rows

    options.check_format(fmt, FORMATS)
    if key is None and suite is None:
        raise UserError("give a figure key, --suite SUITE, or both (the key in that suite's runs)")
    wanted = None
    if key is not None:
        try:
            wanted = parse_key(key)
        except KeyError_ as exc:
            raise UserError(str(exc)) from None
    index_unfigured(out)
    if wanted is not None:
        series = key_history(figure_rows(out, kind=wanted.kind, suite=suite), wanted)
    else:
        series = suite_history(figure_rows(out, suite=suite))
    if not series:
        raise UserError(f"no run in {out} has {key if key else f'headline figures of suite {suite}'}"
                        " (stackprobe runs lists the runs)")
    _write(series, fmt, output, key or f"suite {suite}", out)


def _write(series, fmt: str, output: Path | None, title: str, out: Path) -> None:
    from stackprobe.report.history import history_json, history_tables, plain_text
    from stackprobe.store.rundir import atomic_write

    if fmt == "html":
        from stackprobe.report.trend_html import to_html

        text = to_html(series, title, str(out))
    elif fmt == "json":
        text = history_json(series)
    else:
        text = "\n\n".join(plain_text(t) for t in history_tables(series)) + "\n"
    if output is None:
        sys.stdout.write(text)
        return
    atomic_write(output, text)
    print(output)
