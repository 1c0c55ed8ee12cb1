"""runs/index.sqlite: one row per run and one per measured figure, so runs can be listed
and a figure followed across them without opening every results.json.

Tables:
    runs     a run: suite, target, hosts, times, status, the verdict's status (NULL for a
             run without one), its headline figures; `figured` says its figures are in
             `figures` (0 for a row an older stackprobe wrote: history indexes it then)
    figures  a figure of a run, under its figure key (report/figure_keys.py): key (the
             whole text), workload (KIND:PARAMS), figure ([DIRECTION.]FIGURE), value, unit

The index is a cache of the run directories: `stackprobe runs --rebuild` makes it again
from their results.json files, so an unreadable one is an error that says so, never a
traceback. The figures are computed by the caller (store sits below report), and passed
as plain rows. WAL mode: a crashed writer never corrupts earlier rows. An index an older
stackprobe wrote is brought up to date when opened (new columns and tables added).
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import NamedTuple

from stackprobe.errors import UserError
from stackprobe.schema.results import RunResults

INDEX_FILE = "index.sqlite"
REBUILD = "run `stackprobe runs --rebuild`"

_RUNS = """
CREATE TABLE IF NOT EXISTS runs (
    run_id    TEXT PRIMARY KEY,
    suite     TEXT NOT NULL,
    target    TEXT NOT NULL,
    host      TEXT NOT NULL,
    started   TEXT NOT NULL,
    ended     TEXT,
    status    TEXT NOT NULL,
    path      TEXT NOT NULL,
    headlines TEXT NOT NULL DEFAULT '{}'
)
"""
# columns added since the first index: (name, declaration) — ALTER TABLE adds them to an old one
_ADDED = (("verdict", "TEXT"), ("hosts", "TEXT NOT NULL DEFAULT '[]'"),
          ("figured", "INTEGER NOT NULL DEFAULT 0"))
_FIGURES = (
    "CREATE TABLE IF NOT EXISTS figures (run_id TEXT NOT NULL, step_id TEXT NOT NULL,"
    " key TEXT NOT NULL, workload TEXT NOT NULL, figure TEXT NOT NULL, value REAL NOT NULL,"
    " unit TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS figures_key ON figures(key)",
    "CREATE INDEX IF NOT EXISTS figures_workload ON figures(workload)",
    "CREATE INDEX IF NOT EXISTS figures_run ON figures(run_id)",
)


class FigureRow(NamedTuple):
    """A figure as the index keeps it (a plain tuple; a dict with these names is as good)."""

    step_id: str
    key: str
    workload: str
    figure: str  # [DIRECTION.]FIGURE: 'read.iops', 'iops'
    value: float
    unit: str


class IndexUnreadable(UserError):
    """index.sqlite is not a database any more (or not one stackprobe can use)."""


@contextmanager
def _guarded(path: Path) -> Iterator[None]:
    try:
        yield
    except sqlite3.DatabaseError as exc:
        what = " ".join(str(exc).split()) or type(exc).__name__
        if "locked" in what or "busy" in what:
            raise IndexUnreadable(f"{path}: the run index is busy ({what}); try again") from None
        raise IndexUnreadable(f"{path}: the run index is unreadable ({what}); {REBUILD}") from None


def _open(db: Path) -> sqlite3.Connection:
    """A connection to an index, brought up to date (tables, columns, indexes)."""
    con = sqlite3.connect(db, timeout=10)
    try:
        with _guarded(db):
            con.execute("PRAGMA journal_mode=WAL")
            con.execute(_RUNS)
            have = {row[1] for row in con.execute("PRAGMA table_info(runs)")}
            for name, decl in _ADDED:
                if name not in have:
                    con.execute(f"ALTER TABLE runs ADD COLUMN {name} {decl}")
            for statement in _FIGURES:
                con.execute(statement)
            con.commit()
    except BaseException:
        con.close()
        raise
    con.row_factory = sqlite3.Row
    return con


def _connect(out_dir: Path) -> sqlite3.Connection:
    out_dir.mkdir(parents=True, exist_ok=True)
    return _open(out_dir / INDEX_FILE)


def headline_figures(results: RunResults) -> dict[str, dict]:
    """{step id: {"value": v, "unit": u}} for every step that has a headline figure."""
    out = {}
    for step in results.steps:
        s = step.summary
        if s is not None and s.headline_value is not None:
            out[step.id] = {"value": s.headline_value, "unit": s.headline_unit}
    return out


def _figure_tuple(f: Sequence | Mapping) -> tuple:
    if isinstance(f, Mapping):
        return tuple(f[name] for name in FigureRow._fields)
    return tuple(FigureRow(*f))


def _write_run(con: sqlite3.Connection, run_path: Path, results: RunResults,
               figures: Iterable[Sequence | Mapping] | None) -> None:
    r = results.run
    verdict = results.verdict.status if results.verdict is not None else None
    hosts = json.dumps([str(h.get("name", "")) for h in r.hosts])
    con.execute(
        "INSERT INTO runs (run_id, suite, target, host, started, ended, status, path, headlines,"
        " verdict, hosts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT(run_id) DO UPDATE SET ended=excluded.ended, status=excluded.status,"
        " headlines=excluded.headlines, verdict=excluded.verdict, hosts=excluded.hosts,"
        " path=excluded.path",
        (r.id, r.suite, r.target, r.host, r.started, r.ended, r.status,
         str(run_path.resolve()), json.dumps(headline_figures(results)), verdict, hosts),
    )
    if figures is None:
        return
    con.execute("DELETE FROM figures WHERE run_id = ?", (r.id,))
    con.executemany("INSERT INTO figures (run_id, step_id, key, workload, figure, value, unit)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(r.id, *_figure_tuple(f)) for f in figures])
    con.execute("UPDATE runs SET figured = 1 WHERE run_id = ?", (r.id,))


def record_run(out_dir: Path, run_path: Path, results: RunResults,
               figures: Iterable[Sequence | Mapping] | None = None) -> None:
    """Insert or update the run's row; with `figures` (FigureRow tuples or dicts), replace
    the run's figures by them (None leaves the ones indexed before)."""
    with closing(_connect(out_dir)) as con, _guarded(out_dir / INDEX_FILE), con:
        _write_run(con, run_path, results, figures)


def rebuild(out_dir: Path, runs: Iterable[tuple[Path, RunResults, Iterable]]) -> int:
    """A new index holding exactly `runs` (run directory, results, figure rows), put in
    place of the old one (readable or not) in one rename; the number of runs indexed."""
    out_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=f".{INDEX_FILE}.", suffix=".tmp")
    os.close(fd)
    n = 0
    try:
        with closing(_open(Path(tmp))) as con, _guarded(Path(tmp)), con:
            con.execute("PRAGMA journal_mode=DELETE")  # one file to move into place
            for run_path, results, figures in runs:
                _write_run(con, run_path, results, list(figures))
                n += 1
        for side in ("-wal", "-shm"):  # the old file's log must not be applied to the new one
            (out_dir / f"{INDEX_FILE}{side}").unlink(missing_ok=True)
        os.replace(tmp, out_dir / INDEX_FILE)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return n


def _rows(out_dir: Path, sql: str, args: Sequence = ()) -> list[dict]:
    if not (out_dir / INDEX_FILE).exists():
        return []
    with closing(_connect(out_dir)) as con, _guarded(out_dir / INDEX_FILE):
        return [dict(row) for row in con.execute(sql, args).fetchall()]


def list_runs(out_dir: Path, suite: str | None = None) -> list[dict]:
    """Rows of the index, newest first (empty when there is no index)."""
    where = " WHERE suite = ?" if suite else ""
    return _rows(out_dir, f"SELECT * FROM runs{where} ORDER BY started DESC, run_id DESC",
                 (suite,) if suite else ())


def unfigured_runs(out_dir: Path) -> list[dict]:
    """Runs indexed without their figures (by an older stackprobe)."""
    return _rows(out_dir, "SELECT run_id, path FROM runs WHERE figured = 0")


def figure_rows(out_dir: Path, *, kind: str | None = None, suite: str | None = None) -> list[dict]:
    """Indexed figures with their run's time and suite, oldest run first: those of one
    step kind (their workload starts 'KIND:'), of one suite's runs, or both."""
    where, args = [], []
    if kind:
        where.append("f.workload >= ? AND f.workload < ?")  # ';' sorts right after ':'
        args += [f"{kind}:", f"{kind};"]
    if suite:
        where.append("r.suite = ?")
        args.append(suite)
    sql = ("SELECT f.run_id, r.started, r.suite, r.headlines, f.step_id, f.key, f.workload,"
           " f.figure, f.value, f.unit FROM figures f JOIN runs r ON r.run_id = f.run_id"
           + (" WHERE " + " AND ".join(where) if where else "")
           + " ORDER BY r.started, f.run_id, f.rowid")
    return _rows(out_dir, sql, args)
