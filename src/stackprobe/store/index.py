"""runs/index.sqlite: one row per run, so runs can be listed and found without
opening every results.json. WAL mode: a crashed writer never corrupts earlier rows.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from stackprobe.schema.results import RunResults

INDEX_FILE = "index.sqlite"

_SCHEMA = """
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


def _connect(out_dir: Path) -> sqlite3.Connection:
    out_dir.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(out_dir / INDEX_FILE, timeout=10)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute(_SCHEMA)
    return con


def headline_figures(results: RunResults) -> dict[str, dict]:
    """{step id: {"value": v, "unit": u}} for every step that has a headline figure."""
    out = {}
    for step in results.steps:
        s = step.summary
        if s is not None and s.headline_value is not None:
            out[step.id] = {"value": s.headline_value, "unit": s.headline_unit}
    return out


def record_run(out_dir: Path, run_path: Path, results: RunResults) -> None:
    """Insert or update the run's row."""
    r = results.run
    with _connect(out_dir) as con:
        con.execute(
            "INSERT INTO runs (run_id, suite, target, host, started, ended, status, path, headlines)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(run_id) DO UPDATE SET ended=excluded.ended, status=excluded.status,"
            " headlines=excluded.headlines",
            (
                r.id,
                r.suite,
                r.target,
                r.host,
                r.started,
                r.ended,
                r.status,
                str(run_path.resolve()),
                json.dumps(headline_figures(results)),
            ),
        )
    con.close()


def list_runs(out_dir: Path) -> list[dict]:
    """Rows of the index, newest first (empty when there is no index)."""
    if not (out_dir / INDEX_FILE).exists():
        return []
    con = _connect(out_dir)
    con.row_factory = sqlite3.Row
    try:
        rows = con.execute("SELECT * FROM runs ORDER BY started DESC, run_id DESC").fetchall()
    finally:
        con.close()
    return [dict(row) for row in rows]
