"""OSU Micro-Benchmarks text output -> OsuRecord: the point-to-point tests (osu_latency,
osu_bw, osu_bibw, osu_mbw_mr, osu_multi_lat) of versions 5.x and 7.x, alone or inside a
job log. One record per test run that printed its column header.

What the benchmarks print, and the choices made (tests/fixtures/public/osu, docs/fabric.md):

- A run opens with its banner, "# OSU MPI Bandwidth Test v5.6.2"; the test's name comes
  from the banner's title. Text around runs (launcher and scheduler lines, a shell prompt)
  is not OSU's. Several ranks may print the banner twice: a repeated banner before any
  row does not open another run.
- Option lines: 7.x's "# Datatype: MPI_CHAR.", osu_mbw_mr's "# [ pairs: N ] [ window
  size: W ]", before or after the column header.
- The column header "# Size" and its columns: "Latency (us)" (5.x) or "Avg Latency(us)"
  (7.x), -f's "Min Latency(us)", "Max Latency(us)" and "Iterations", "Bandwidth (MB/s)",
  osu_mbw_mr's "MB/s" and "Messages/s", -c's "Validation". An unknown column is refused
  with its line, not guessed.
- Rows: the size in bytes, then one field per column. Latencies are printed in µs (stored
  in ns), bandwidth in MB/s where OSU's MB is 10^6 bytes (size / 1e6 * iterations *
  window / time in the benchmarks' source; stored in bytes/s).
- Cut files: OSU prints every figure with two decimals. A last line without its newline
  whose last figure lacks them (or is an iteration count, which cannot be told whole) is a
  fragment: it is dropped and the run marked `complete: False`, as is a run that ends after
  its header alone. A file that ends right after a whole row below OSU's default largest
  size (4 MiB) may be cut there or come from a run with a smaller `-m`: `complete: None`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import Decimal

from stackprobe.parsers.bad_input import guard
from stackprobe.schema.fabric_records import OsuRecord, OsuRow

_BANNER = re.compile(r"^\W{0,3}#\s*(OSU (?:MPI|OpenSHMEM|UPC\+*|MPI-\w+)\b.*?)\s+v(\d[\w.]*)\s*$")
_HEADER = re.compile(r"^\W{0,3}#\s*Size\s+(.*?)\s*$")
_DATATYPE = re.compile(r"^\s*#\s*Datatype:\s*(\S+?)\.?\s*$")
_PAIRS = re.compile(r"^\s*#\s*\[\s*pairs:\s*(\d{1,9})\s*\]\s*\[\s*window size:\s*(\d{1,9})\s*\]")
_ROW = re.compile(r"^\s*(\d{1,12})((?:[ \t]+\S+)*)[ \t]*$")
_NUMBER = re.compile(r"^[-+]?(?:\d{1,30}(?:\.\d{0,30})?|\.\d{1,30})(?:[eE][-+]?\d{1,3})?$")
_NAN_INF = re.compile(r"^[-+]?(?:nan|inf(?:inity)?)$", re.IGNORECASE)
_TWO_DECIMALS = re.compile(r"^-?\d+\.\d\d$")
_DETECT = re.compile(r"^\W{0,3}# OSU (?:MPI|OpenSHMEM)\b.*Test v\d|"
                     r"^\W{0,3}# Size\s+(?:Avg )?(?:Latency ?\(us\)|Bandwidth \(MB/s\)|MB/s\s+Messages/s)",
                     re.MULTILINE)
DEFAULT_MAX_SIZE = 4 * 1024 * 1024  # osu_latency/osu_bw/osu_bibw/osu_mbw_mr's default -m

# column name as printed -> (OsuRow field, power of ten from the printed unit to ours)
_COLUMNS = (
    (re.compile(r"Avg Latency\s*\(us\)|Latency\s*\(us\)"), "latency_ns", 3),
    (re.compile(r"Min Latency\s*\(us\)"), "min_latency_ns", 3),
    (re.compile(r"Max Latency\s*\(us\)"), "max_latency_ns", 3),
    (re.compile(r"Bandwidth\s*\(MB/s\)|MB/s"), "bw_bytes", 6),
    (re.compile(r"Messages/s"), "messages_per_s", 0),
    (re.compile(r"Iterations"), "iterations", None),
    (re.compile(r"Validation"), "validation", None),
)
_BENCHMARKS = {
    "OSU MPI Latency Test": "osu_latency",
    "OSU MPI Bandwidth Test": "osu_bw",
    "OSU MPI Bi-Directional Bandwidth Test": "osu_bibw",
    "OSU MPI Multiple Bandwidth / Message Rate Test": "osu_mbw_mr",
    "OSU MPI Multi Latency Test": "osu_multi_lat",
}


@dataclass
class _Run:
    title: str
    version: str | None
    line: int
    header_line: int | None = None
    columns: list[tuple[str, str, int | None]] = field(default_factory=list)
    options: dict[str, str | int] = field(default_factory=dict)
    rows: list[OsuRow] = field(default_factory=list)
    ended: bool = False  # something that is not a row came after the rows
    cut: bool = False


def looks_like_osu(text: str) -> bool:
    """True when `text` holds an OSU MPI/OpenSHMEM banner or a point-to-point column header."""
    return bool(_DETECT.search(text))


@guard("OSU output")
def parse_osu(text: str) -> list[OsuRecord]:
    """OsuRecords of every OSU run in `text` that printed its column header (module doc);
    ValueError naming the line when none did or a header is not OSU's."""
    lines = text.lstrip("\ufeff").splitlines()
    runs = _runs(lines, not text.endswith(("\n", "\r")))
    if not runs:
        raise ValueError(f"OSU output: lines 1-{max(len(lines), 1)} hold no '# OSU MPI ... Test vX.Y' "
                         "banner and no '# Size' column header")
    tabled = [r for r in runs if r.header_line is not None]
    if not tabled:
        raise ValueError(f"OSU output: line {runs[0].line}: '{runs[0].title}' is followed by no "
                         "'# Size' column header (the file may end before it)")
    return [_record(i, r) for i, r in enumerate(tabled)]


def _runs(lines: list[str], no_last_newline: bool) -> list[_Run]:
    runs: list[_Run] = []
    current: _Run | None = None
    for number, line in enumerate(lines, 1):
        if m := _BANNER.match(line):
            if current is None or current.rows or current.title != m.group(1):
                current = _Run(m.group(1), m.group(2), number)
                runs.append(current)
            continue
        if current is None:
            if not _HEADER.match(line):
                continue
            current = _Run("OSU", None, number)  # a table without its banner: one run
            runs.append(current)
        last = no_last_newline and number == len(lines)
        _read(current, line, number, last)
    return runs


def _read(run: _Run, line: str, number: int, last: bool) -> None:
    if run.ended:
        return
    if (m := _HEADER.match(line)) and run.header_line is None:
        run.header_line, run.columns = number, _columns(m.group(1), number)
    elif m := _DATATYPE.match(line):
        run.options.setdefault("datatype", m.group(1))
    elif m := _PAIRS.match(line):
        run.options.setdefault("pairs", int(m.group(1)))
        run.options.setdefault("window", int(m.group(2)))
    elif run.header_line is not None and (m := _ROW.match(line)):
        fields = m.group(2).split()
        row = _row(int(m.group(1)), fields, run.columns) if len(fields) == len(run.columns) else None
        if row is None or (last and not _whole(fields[-1])):
            run.cut = last
            run.ended = bool(run.rows)
            return
        run.rows.append(row)
    elif line.strip() and run.rows:
        run.ended = True


def _columns(text: str, number: int) -> list[tuple[str, str, int | None]]:
    found, rest = [], text
    while rest:
        for pattern, name, power in _COLUMNS:
            if m := pattern.match(rest):
                found.append((m.group(0), name, power))
                rest = rest[m.end():].lstrip()
                break
        else:
            raise ValueError(f"OSU output: line {number}: column {rest[:40]!r} of the '# Size' "
                             "header is not one OSU prints")
    if not found:
        raise ValueError(f"OSU output: line {number}: '# Size' header with no column after it")
    return found


def _whole(token: str) -> bool:
    """A figure as OSU prints it in full: two decimals, or Pass/Fail."""
    return bool(_TWO_DECIMALS.match(token)) or token in ("Pass", "Fail")


def _row(size: int, fields: list[str], columns: list[tuple[str, str, int | None]]) -> OsuRow | None:
    """The row, or None when a field is not what its column prints (then the line is not
    a row of this table)."""
    values: dict[str, object] = {}
    for token, (_printed, name, power) in zip(fields, columns, strict=True):
        if name == "validation":
            if token not in ("Pass", "Fail"):
                return None
            values[name] = token
        elif name == "iterations":
            if not token.isdigit() or len(token) > 18:
                return None
            values[name] = int(token)
        elif (value := figure(token, power or 0)) is not False:
            values[name] = value
        else:
            return None
    return OsuRow(size_bytes=size, **values)


def figure(token: str, power: int) -> float | None | bool:
    """The printed number times 10**power (Decimal: 1.02 us is exactly 1020 ns); None for a
    negative or non-finite one, which no run measures; False when `token` is not a number."""
    if _NAN_INF.match(token):
        return None
    if not _NUMBER.match(token):
        return False
    try:
        value = float(Decimal(token).scaleb(power))
    except (ArithmeticError, OverflowError):
        return None
    return value if math.isfinite(value) and value >= 0 else None


def _record(index: int, run: _Run) -> OsuRecord:
    if not run.rows or run.cut:
        complete: bool | None = False
    elif run.ended or run.rows[-1].size_bytes >= DEFAULT_MAX_SIZE:
        complete = True
    else:  # ends after a whole row below 4 MiB: cut there, or a run with -m (cannot tell)
        complete = None
    return OsuRecord(
        benchmark=_BENCHMARKS.get(run.title), title=run.title, tool_version=run.version, run=index,
        datatype=run.options.get("datatype"), pairs=run.options.get("pairs"),
        window_size=run.options.get("window"), columns=[c[0] for c in run.columns],
        rows=run.rows, complete=complete)
