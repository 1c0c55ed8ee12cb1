"""`stackprobe runs [--suite S] [--json] [--rebuild]`: the runs in the index, newest first.

--rebuild makes the index again from the run directories (store/index.py: it is a cache
of their results.json files): every directory under the runs directory with a readable
results.json is indexed with its figures; one that cannot be read is named on one line
and left out, and the old index — readable or not — is replaced in one rename.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import typer

from stackprobe.cli import options
from stackprobe.errors import UserError

RUN_MARKERS = ("results.json", "suite.yaml", "steps")  # what makes a directory a run's


def runs(
    suite: str = typer.Option(None, "--suite", help="Only the runs of this suite."),
    as_json: bool = typer.Option(False, "--json", help="Print the rows as JSON."),
    rebuild: bool = typer.Option(
        False, "--rebuild", help="Make the index again from the run directories' results.json."),
    out: Path = options.OUT,
) -> None:
    """List the runs in the runs directory: time, suite, target, status, verdict, id."""
    from stackprobe.store.index import list_runs

    if rebuild:
        n, skipped = rebuild_index(out)
        print(f"indexed {n} run(s) in {out}" + (f"; skipped {skipped}" if skipped else ""),
              file=sys.stderr)
    rows = [_plain(row) for row in list_runs(out, suite)]
    if as_json:
        print(json.dumps(rows, indent=1))
        return
    if not rows:
        print(_nothing(out, suite), file=sys.stderr)
        return
    _print_table(rows)


def _plain(row: dict) -> dict:
    return {"id": row["run_id"], "started": row["started"], "ended": row["ended"],
            "suite": row["suite"], "target": row["target"], "host": row["host"],
            "hosts": json.loads(row.get("hosts") or "[]"), "status": row["status"],
            "verdict": row.get("verdict"), "path": row["path"],
            "headlines": json.loads(row.get("headlines") or "{}")}


def _print_table(rows: list[dict]) -> None:
    from stackprobe.report.history import plain_text
    from stackprobe.tables.text_table import TextTable

    table = TextTable(title="",
                      headers=["time", "suite", "target / hosts", "status", "verdict", "id"],
                      left=(0, 1, 2, 3, 4, 5))
    for r in rows:
        where = f"{r['target']} @ {r['host']}" + (f" + {','.join(r['hosts'])}" if r["hosts"] else "")
        table.rows.append([r["started"], r["suite"], where, r["status"], r["verdict"] or "—", r["id"]])
    print(plain_text(table))


def _nothing(out: Path, suite: str | None) -> str:
    found = sum(1 for _ in run_dirs(out))
    if found and not suite:
        return (f"no runs indexed in {out}, but {found} run director{'y' if found == 1 else 'ies'}"
                " there: `stackprobe runs --rebuild` indexes them")
    return f"no runs{f' of suite {suite}' if suite else ''} in {out}"


def run_dirs(out: Path) -> Iterator[Path]:
    """The directories under `out` that are runs' (hold results.json, suite.yaml or steps/)."""
    if not out.is_dir():
        return
    for path in sorted(out.iterdir()):
        if path.is_dir() and any((path / m).exists() for m in RUN_MARKERS):
            yield path


def rebuild_index(out: Path) -> tuple[int, int]:
    """The index made again from the run directories: (runs indexed, runs skipped)."""
    from stackprobe.report.history import index_figures
    from stackprobe.store.index import rebuild
    from stackprobe.store.rundir import load_results

    skipped = 0
    seen: dict[str, Path] = {}

    def readable():
        nonlocal skipped
        for path in run_dirs(out):
            try:
                results = load_results(path)
            except UserError as exc:
                skipped += 1
                print(f"skipped: {exc}", file=sys.stderr)
                continue
            if results.run.id in seen:
                skipped += 1
                print(f"skipped: {path}: run id {results.run.id} is already {seen[results.run.id]}",
                      file=sys.stderr)
                continue
            seen[results.run.id] = path
            yield path, results, index_figures(results)

    return rebuild(out, readable()), skipped


def index_unfigured(out: Path) -> int:
    """Give the runs an older stackprobe indexed without figures their figures (the ones
    whose results.json cannot be read are left as they are); how many were done."""
    from stackprobe.report.history import index_figures
    from stackprobe.store.index import record_run, unfigured_runs
    from stackprobe.store.rundir import load_results

    done = 0
    for row in unfigured_runs(out):
        try:
            results = load_results(Path(row["path"]))
        except UserError:
            continue
        record_run(out, Path(row["path"]), results, figures=index_figures(results))
        done += 1
    return done
