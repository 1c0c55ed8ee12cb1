"""A figure across runs, from the run index: which figures a key names in each run, in
order of time, each judged against the runs before it (analysis/drift.py).

What a key names is decided by figure_keys.matching, run by run, as criteria decide it in
one run: a key may leave parameters out, and then follows every figure whose workload has
the parameters it gives — one series per whole key found. A suite's history follows its
headline figures: each step's headline (iops, bw or lat, as its summary states it) for the
step as a whole, or per host or place where the step has no whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from stackprobe.analysis.drift import Judged, judge
from stackprobe.report.figure_keys import (
    Figure,
    FigureKey,
    matching,
    parse_key,
    run_figures,
    value_text,
)
from stackprobe.schema.results import RunResults
from stackprobe.store.index import FigureRow
from stackprobe.tables.text_table import TextTable

HEADLINE_FIGURE = {"IOPS": "iops", "ops/s": "iops", "B/s": "bw", "ns": "lat"}  # by headline unit
LOWER_IS_BETTER = ("lat", "p99")


def index_rows(figures: Iterable[Figure]) -> list[FigureRow]:
    """A run's figures as the index keeps them."""
    out = []
    for f in figures:
        out.append(FigureRow(f.step, f.key.text, f.key.workload, f.key.figure_name, f.value, f.unit))
    return out


@dataclass
class Point:
    run_id: str
    started: str
    value: float
    judged: Judged


@dataclass
class Series:
    key: str
    unit: str
    points: list[Point] = field(default_factory=list)

    @property
    def figure(self) -> str:
        return _key(self.key).figure

    def worse(self, drift: str) -> bool:
        """Whether a drift that way is for the worse (latency up, throughput down)."""
        return drift == ("up" if self.figure in LOWER_IS_BETTER else "down")


@lru_cache(maxsize=4096)
def _key(text: str) -> FigureKey:
    return parse_key(text)


def _by_run(rows: Sequence[dict]) -> dict[str, list[dict]]:
    runs: dict[str, list[dict]] = {}
    for row in rows:
        runs.setdefault(row["run_id"], []).append(row)
    return runs


def _figures(rows: Sequence[dict]) -> list[Figure]:
    """Index rows as figures `matching` can choose from (no summary row behind them)."""
    return [Figure(_key(r["key"]), r["step_id"], r["value"], r["unit"], None) for r in rows]


def key_history(rows: Sequence[dict], wanted: FigureKey) -> list[Series]:
    """The series of every whole key `wanted` names, from index rows oldest first."""
    chosen = []
    for run_rows in _by_run(rows).values():
        figs = _figures(run_rows)
        found = {id(f) for f in matching(wanted, figs)}
        chosen += [(row, f) for row, f in zip(run_rows, figs) if id(f) in found]
    return _series(chosen)


def suite_history(rows: Sequence[dict]) -> list[Series]:
    """The series of every headline figure of the runs' steps."""
    chosen = []
    for run_rows in _by_run(rows).values():
        headlines = json.loads(run_rows[0]["headlines"] or "{}")
        for step, headline in headlines.items():
            figure = HEADLINE_FIGURE.get(headline.get("unit") or "")
            step_rows = [r for r in run_rows if r["step_id"] == step]
            if figure is None or not step_rows:
                continue
            figs = _figures(step_rows)
            wanted = FigureKey(kind=figs[0].key.kind, params=(), figure=figure)
            keep = {f.key.text for f in matching(wanted, figs)}
            chosen += [(r, f) for r, f in zip(step_rows, figs) if f.key.text in keep]
    return _series(chosen)


def _series(chosen: Sequence[tuple[dict, Figure]]) -> list[Series]:
    by_key: dict[str, Series] = {}
    for row, _fig in chosen:
        s = by_key.setdefault(row["key"], Series(row["key"], row["unit"]))
        if s.points and s.points[-1].run_id == row["run_id"]:
            continue  # one value per run (a key twice in one run: the first)
        s.points.append(Point(row["run_id"], row["started"], row["value"], Judged(row["value"], None)))
    for s in by_key.values():
        for p, j in zip(s.points, judge([p.value for p in s.points])):
            p.judged = j
    return list(by_key.values())


def drift_mark(series: Series, drift: str) -> str:
    if not drift:
        return ""
    return f"{'▲' if drift == 'up' else '▼'} drift ({'worse' if series.worse(drift) else 'better'})"


def history_tables(series: Sequence[Series]) -> list[TextTable]:
    """One table per key: time, run, value, the band of the runs before, the mark."""
    tables = []
    for s in series:
        t = TextTable(title=s.key, headers=["time", "run", "value", "band (previous runs)", "drift"],
                      left=(0, 1, 4))
        for p in s.points:
            band = p.judged.band
            t.rows.append([p.started, p.run_id, value_text(p.value, s.unit),
                           "" if band is None else
                           f"{value_text(band.lo, s.unit)} – {value_text(band.hi, s.unit)}",
                           drift_mark(s, p.judged.drift)])
        tables.append(t)
    return tables


def plain_text(table: TextTable) -> str:
    """A table as aligned plain text, nothing cut (run ids and keys are copied from it)."""
    widths = [max(len(h), *(len(r[i]) for r in table.rows)) for i, h in enumerate(table.headers)]
    lines = [table.title] if table.title else []
    lines += ["  ".join(h.ljust(w) for h, w in zip(table.headers, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) if i in table.left else c.rjust(w)
                        for i, (c, w) in enumerate(zip(row, widths))).rstrip() for row in table.rows]
    return "\n".join(lines)


def history_json(series: Sequence[Series]) -> str:
    doc = [{"key": s.key, "unit": s.unit, "points": [
        {"run": p.run_id, "started": p.started, "value": p.value,
         "band": None if p.judged.band is None else
         {"median": p.judged.band.median, "lo": p.judged.band.lo, "hi": p.judged.band.hi,
          "runs": p.judged.band.runs},
         "drift": p.judged.drift or None, "worse": bool(p.judged.drift) and s.worse(p.judged.drift)}
        for p in s.points]} for s in series]
    return json.dumps(doc, indent=1) + "\n"


def index_figures(results: RunResults) -> list[FigureRow]:
    """Every figure of a run, as `store.index.record_run` takes them."""
    return index_rows(run_figures(results))
