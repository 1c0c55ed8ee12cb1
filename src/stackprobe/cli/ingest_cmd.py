"""`stackprobe ingest SOURCE... [--json] [--new NAME | --into RUN]`: bring outputs people
already have.

A source is a file, a directory (every file under it, recursively, in sorted order) or
`-` (standard input, named `<stdin>` in messages). The tool and format are detected from
the content. A source that cannot be read costs one line on stderr (`path: why`); the
others are still ingested, and the exit status is 1 when any failed, 0 when none did.

With --new or --into the files become steps of a run (ingest/into_run.py) that show,
report, compare, history and export read like any other; the run is indexed here, since
the index's figures are the report's (store sits below report, ingest beside it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from stackprobe.cli import options
from stackprobe.errors import UserError


def ingest(
    sources: list[str] = typer.Argument(
        ..., metavar="SOURCE...",
        help="Tool output files, directories (every file under them) or - (standard input): "
        "fio, iperf3, IOR, mdtest, IO500, rados bench, rbd bench, ceph tell osd bench, STREAM, "
        "HPL, hpcc, OSU Micro-Benchmarks, perftest, elbencho, vdbench, sysbench, stress-ng."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON array of records."),
    new: str = typer.Option(None, "--new", metavar="NAME",
                            help="Make the files a new run <runs>/<UTC id>-NAME, one step each."),
    into: str = typer.Option(None, "--into", metavar="RUN",
                             help="Add the files' steps to this run (a run id or directory)."),
    out: Path = options.OUT,
) -> None:
    """Parse existing tool outputs into stackprobe records, or into a run (--new, --into)."""
    from stackprobe.cli.console import make_console
    from stackprobe.cli.ingest_tables import print_records
    from stackprobe.ingest.files import ingest_text
    from stackprobe.ingest.sources import STDIN_NAME, Refused, read_sources

    if new is not None and into is not None:
        raise UserError("--new and --into: give one of them")
    keeper = _Keeper(new, _run_to_extend(into, out) if into is not None else None, out)
    records: list[dict] = []
    failed = 0
    console = make_console()
    for item in read_sources(sources, sys.stdin.buffer):
        if isinstance(item, Refused):
            failed += _refused(keeper, item.name, item.why)
            continue
        try:
            found = ingest_text(item.text, item.path or Path(STDIN_NAME))
            keeper.add(item, found)
        except ValueError as exc:
            failed += _refused(keeper, item.name, f"cannot ingest: {exc}")
            continue
        for rec in found.records:
            records.append({"source": item.name, **rec.to_json()})
        if not as_json:
            print_records(console, Path(item.name), found.format, found.records)
    if as_json:
        json.dump(records, sys.stdout, indent=1)
        sys.stdout.write("\n")
    keeper.finish()
    if failed:
        raise typer.Exit(1)


def _refused(keeper: _Keeper, name: str, why: str) -> int:
    print(f"stackprobe: {name}: {why}", file=sys.stderr)
    keeper.refuse(name, why)
    return 1


def _run_to_extend(run: str, out: Path) -> Path:
    """The run --into names; refused while the run that writes it is still going."""
    from stackprobe.cli.show_cmd import resolve_run
    from stackprobe.store.rundir import load_results, writing_pid

    path = resolve_run(run, out)
    pid = writing_pid(load_results(path).run)
    if pid is not None:
        raise UserError(f"{path}: still running (pid {pid}): add files when it has ended")
    return path


class _Keeper:
    """Where ingested files go with --new or --into: nowhere without them. A new run is
    made with the first file that becomes a step, so refusing everything leaves no run;
    refusals before it are written into it then."""

    def __init__(self, new: str | None, into: Path | None, out: Path):
        self.new, self.into, self.out = new, into, out
        self.target = None
        self.pending: list[tuple[str, str]] = []
        self.added = 0

    def _open(self):
        from stackprobe.ingest.into_run import existing_run, new_run, refuse

        if self.target is None:
            self.target = (new_run(self.out, self.new, sys.argv[1:]) if self.into is None
                           else existing_run(self.into))
            for name, why in self.pending:
                refuse(self.target, name, why)
        return self.target

    def add(self, source, found) -> None:
        if self.new is None and self.into is None:
            return
        from stackprobe.ingest.into_run import add_file  # the kinds' models: only for a run
        from stackprobe.ingest.workload import derive

        derived = derive(found)  # a format no kind measures: refused before a run is made
        add_file(self._open(), source, found, derived)
        self.added += 1

    def refuse(self, name: str, why: str) -> None:
        from stackprobe.ingest.into_run import refuse

        if self.target is not None:
            refuse(self.target, name, why)
        elif self.new is not None or self.into is not None:
            self.pending.append((name, why))

    def finish(self) -> None:
        """Index the run and say where it is (stderr: stdout may be --json)."""
        from stackprobe.report.history import index_figures
        from stackprobe.store.index import record_run

        if self.target is None:
            if self.into is not None and self.pending:
                self._open()  # the run says what it was given and refused
            else:
                return
        path = self.target.path
        record_run(path.parent, path, self.target.results,
                   figures=index_figures(self.target.results))
        print(f"stackprobe: {self.added} file(s) ingested as steps of {path}", file=sys.stderr)
