"""Figure keys: one text form naming a measured figure by what was measured.

    fio:bs=4k,iodepth=128,rw=randread:read.iops
    fio:bs=4k,hosts=3,iodepth=8,rw=randread@h2:read.iops
    osd_bench:block_size=4M,bytes=1G#osd.0:write.bw

`KIND:PARAMS[@HOST][#PLACE]:[DIRECTION.]FIGURE`. PARAMS are the step's workload as
`compare` pairs runs by it (report/compare.py: workload_key — names, titles, durations
and thresholds left out, a tool's defaults dropped, `hosts=N` for a step that loads with
N hosts at once), sorted, sizes in binary units. @HOST names one host's row of a step
that has a row per host; #PLACE tells apart the other rows of one step (an OSD, a disk,
a phase). FIGURE is iops, bw (bytes/s), lat (mean total latency, ns) or p99 (ns).

Criteria, `history`, the run index, exports and JUnit all name figures this way, so a
rule written against one run finds the same figure in every later one, whatever the
steps are called. A key a person writes may leave parameters out: it matches every
figure whose workload has the parameters it gives (`matching`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from urllib.parse import quote, unquote

from stackprobe.report.compare import SIZE_PARAMS, RunRows, canonical_value, keyed_rows
from stackprobe.report.table import Row
from stackprobe.schema.results import RunResults, StepResult
from stackprobe.units import fmt_bw, fmt_iops, fmt_ns, fmt_rate

FIGURES = ("iops", "bw", "lat", "p99")
UNITS = {"iops": "IOPS", "bw": "B/s", "lat": "ns", "p99": "ns"}
AGGREGATE = "all clients"
_SAFE = "/+[]()'\"!*~._-"  # what stays readable in a value; ',:@#=%' and spaces are escaped
_BINARY = (("T", 1024**4), ("G", 1024**3), ("M", 1024**2), ("k", 1024))


class KeyError_(ValueError):
    """A figure key that cannot be read; the message says which part."""


@dataclass(frozen=True)
class FigureKey:
    kind: str
    params: tuple[tuple[str, str], ...]  # (name, canonical value) as compare keys hold them
    host: str = ""
    place: str = ""
    direction: str = ""
    figure: str = ""

    @property
    def workload(self) -> str:
        """`KIND:PARAMS`, the part every figure of one workload shares."""
        return f"{self.kind}:" + ",".join(f"{k}={_value_text(k, v)}" for k, v in self.params)

    @property
    def figure_name(self) -> str:
        """`[DIRECTION.]FIGURE`, the key's last part: 'read.iops'."""
        return f"{self.direction}.{self.figure}" if self.direction else self.figure

    @property
    def text(self) -> str:
        where = (f"@{_escape(self.host)}" if self.host else "") + (
            f"#{_escape(self.place)}" if self.place else "")
        return f"{self.workload}{where}:{self.figure_name}"


@dataclass(frozen=True)
class Figure:
    """One measured figure of a run, under its key."""

    key: FigureKey
    step: str  # step id
    value: float
    unit: str
    row: Row

    @property
    def text(self) -> str:
        return self.key.text


# --- keys of a run's figures -------------------------------------------------------------

def run_figures(results: RunResults) -> list[Figure]:
    """Every figure of every row of a run, in the ladder's order."""
    return figures_of(results, keyed_rows(results))


def figures_of(results: RunResults, keyed: RunRows) -> list[Figure]:
    by_step: dict[str, list[tuple[tuple, Row]]] = {}
    for key, row in keyed.rows.items():
        by_step.setdefault(row.step, []).append((key, row))
    steps = {s.id: s for s in results.steps}
    out: list[Figure] = []
    for step_id, entries in by_step.items():
        step = steps[step_id]
        places = _places(step, [row for _, row in entries])
        for (key, row), (host, place) in zip(entries, places):
            base = FigureKey(kind=str(key[1]), params=_params(key), host=host, place=place,
                             direction=row.direction)
            for name, value in row_values(row).items():
                unit = row.ops_unit if name == "iops" and row.ops_unit else UNITS[name]
                out.append(Figure(replace(base, figure=name), step_id, value, unit, row))
    return out


def row_values(row: Row) -> dict[str, float]:
    values = {"iops": row.iops, "bw": row.bw_bytes, "lat": row.lat_mean_ns, "p99": row.p99_ns}
    return {k: float(v) for k, v in values.items() if v is not None}


def _params(key: tuple) -> tuple[tuple[str, str], ...]:
    _layer, _kind, items, fleet_size = key[:4]
    params = list(items)
    if fleet_size:
        params.append(("hosts", str(fleet_size)))
    return tuple(sorted(params))


def _places(step: StepResult, rows: Sequence[Row]) -> list[tuple[str, str]]:
    """(host, place) of each row: the host a row is about, and what else tells it apart
    from the step's other rows (only when direction and host do not)."""
    hosts = [_host_in(step, row.test) for row in rows]
    seen = Counter((row.direction, host) for row, host in zip(rows, hosts))
    texts = [_place_text(step, row, host) for row, host in zip(rows, hosts)]
    unclear = [i for i, (row, host) in enumerate(zip(rows, hosts)) if seen[(row.direction, host)] > 1]
    trimmed = _without_shared_words([texts[i] for i in unclear])
    places = [""] * len(rows)
    for i, text in zip(unclear, trimmed):
        places[i] = text
    return list(zip(hosts, places))


def _host_in(step: StepResult, test: str) -> str:
    """The first of the step's hosts named in `test` as a word of its own (not next to a
    word character, '.', '/' or '-')."""
    if AGGREGATE in test or not step.hosts:
        return ""
    plain, odd, order = _host_names(tuple(step.hosts))
    named = {word for word in _WORD.findall(test) if word in plain}
    named.update(h for h in odd if re.search(rf"(?<![\w./-]){re.escape(h)}(?![\w./-])", test))
    return min(named, key=order.__getitem__) if named else ""


_WORD = re.compile(r"[\w./-]+")


@lru_cache(maxsize=64)
def _host_names(hosts: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...], dict[str, int]]:
    """A step's host names made of word characters, '.', '/' and '-' alone (named exactly
    when one of the text's maximal runs of those is the name), the others, and each host's
    place. Why: a pattern per host and row was rows x hosts searches, and past re's cache
    of 512 patterns a compile each; at 1,000 hosts the history index, which runs at every
    save, spent most of a step's controller time there."""
    plain = frozenset(h for h in hosts if _WORD.fullmatch(h))
    order: dict[str, int] = {}
    for i, host in enumerate(hosts):
        order.setdefault(host, i)
    return plain, tuple(h for h in hosts if h not in plain), order


def _place_text(step: StepResult, row: Row, host: str) -> str:
    text = row.test
    if text.startswith(step.title):
        text = text[len(step.title):]
    if host:
        text = re.sub(rf"(?<![\w./-]){re.escape(host)}(?![\w./-])", " ", text)
    text = text.replace(f"({row.direction})", " ") if row.direction else text
    return " ".join(text.replace(":", " ").split()).strip(" ,()")


def _without_shared_words(texts: list[str]) -> list[str]:
    """Drop the words every text starts or ends with ('osd.0 bench (hdd, vm)' -> 'osd.0')."""
    if len(texts) < 2:
        return texts
    words = [t.split() for t in texts]
    while all(len(w) > 1 for w in words) and len({w[0] for w in words}) == 1:
        words = [w[1:] for w in words]
    while all(len(w) > 1 for w in words) and len({w[-1] for w in words}) == 1:
        words = [w[:-1] for w in words]
    return [" ".join(w).strip(" ,()") for w in words]


# --- keys people write -------------------------------------------------------------------

_KEY = re.compile(r"^(?P<kind>[a-z][a-z0-9_]*):(?P<params>[^:@#]*)(?:@(?P<host>[^:#]+))?"
                  r"(?:#(?P<place>[^:]+))?:(?P<figure>[a-z0-9_.]+)$")


def parse_key(text: str) -> FigureKey:
    """A key as written; sizes in any spelling ('4k', '4K', 4096), parameters in any order."""
    m = _KEY.match(text.strip())
    if m is None:
        raise KeyError_(f"'{text}' is not a figure key (KIND:PARAM=VALUE,...[@HOST]:FIGURE, "
                        "e.g. fio:rw=randread,bs=4k,iodepth=128:iops)")
    direction, _, figure = m["figure"].rpartition(".")
    if figure not in FIGURES:
        raise KeyError_(f"'{text}': unknown figure '{figure}' (one of {', '.join(FIGURES)})")
    params = []
    for item in filter(None, (p.strip() for p in m["params"].split(","))):
        name, eq, value = item.partition("=")
        if not eq or not name.strip() or not value.strip():
            raise KeyError_(f"'{text}': '{item}' is not PARAM=VALUE")
        params.append((name.strip(), _canonical_text(name.strip(), unquote(value.strip()))))
    return FigureKey(kind=m["kind"], params=tuple(sorted(params)),
                     host=unquote(m["host"] or "").strip(), place=unquote(m["place"] or "").strip(),
                     direction=direction, figure=figure)


def matching(key: FigureKey, figures: Iterable[Figure]) -> list[Figure]:
    """The figures `key` names: same kind (any, for a key without one: a step's own figure
    in its criteria) and figure, every parameter it gives equal, the host and place it
    gives (or, when it gives no host, the step's whole: its all-clients row where it has
    one), the direction it gives (or any)."""
    out = []
    for fig in figures:
        k = fig.key
        if (key.kind and k.kind != key.kind) or k.figure != key.figure:
            continue
        if key.direction and k.direction != key.direction:
            continue
        if not set(key.params) <= set(k.params):
            continue
        if key.host and k.host != key.host:
            continue
        if key.place and k.place != key.place:
            continue
        out.append(fig)
    if not key.host:
        whole = {f.step for f in out if not f.key.host}
        out = [f for f in out if not f.key.host or f.step not in whole]
    return out


def value_text(value: float | None, unit: str) -> str:
    """A figure's value as tables show it, by its unit: '96.1k IOPS', '1.2 GiB/s', '424 µs'."""
    if unit == "IOPS":
        return f"{fmt_iops(value)} IOPS"
    if unit == "flop/s":  # HPL: "30.3 Gflop/s"
        return fmt_rate(value, unit)
    if unit == "B/s":
        return fmt_bw(value)
    if unit == "ns":
        return fmt_ns(value)
    return f"{value:g} {unit}"


def _canonical_text(name: str, value: str) -> str:
    """The compare key's spelling of a value written in a key."""
    bare = name.removeprefix("options.")
    if "+" in value and bare not in SIZE_PARAMS:
        return json.dumps([canonical_value(bare, v) for v in value.split("+")])
    return canonical_value(bare, value)


def _value_text(name: str, value: str) -> str:
    bare = name.removeprefix("options.")
    if bare in SIZE_PARAMS and value.isdigit():
        return _escape(size_text(int(value)))
    if value.startswith("["):
        try:
            items = json.loads(value)
        except ValueError:
            return _escape(value)
        if isinstance(items, list):
            return "+".join(_escape(str(i)) for i in items)
    return _escape(value)


def size_text(n: int) -> str:
    """4096 -> '4k', 1048576 -> '1M'; bytes when no binary unit divides them."""
    for suffix, unit in _BINARY:
        if n and n % unit == 0:
            return f"{n // unit}{suffix}"
    return str(n)


def _escape(text: str) -> str:
    return quote(text, safe=_SAFE)
