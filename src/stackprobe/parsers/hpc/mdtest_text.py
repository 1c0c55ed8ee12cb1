"""mdtest text output -> MdtestRecord: mdtest 1.9 to 4.x, standalone or inside a
harness's log (io500 result files, job scripts), one run or several in a file.

One record per operation row of each run's rate summary. What the eras print, and the
choices made (checked on tests/fixtures/public/mdtest):

- A run opens with "mdtest-<version> was launched with N total task(s) on M node(s)",
  then "Command line used:", "Path:", "N tasks, M files" and, when a -W stonewall stopped
  the creation, "Continue stonewall hit min: a max: b avg: c" (items per task; with
  several iterations, the lowest min, highest max and mean avg are kept). A summary
  table without a banner (a pasted table) is a run of its own.
- The rate table's header: "SUMMARY: (of N iterations)" (1.9), "SUMMARY rate: (...)"
  (3.x), "SUMMARY rate (in ops/sec): (...)" (4.x). Row names end with " :" in 1.9 and
  some 3.x builds, bare in others and in 4.x. 4.x's per-rank statistics option prints
  three more columns before the four summary ones: the last four are read.
- Time tables ("SUMMARY time:" in 3.x and "SUMMARY time (in ms/op):" in 4.x, both with
  -P) hold the seconds each phase took, whatever 4.x's header says: in the 4.1 fixture
  309.714 x 3137.656 ops/s gives the 971,776 files its 128 tasks created (7592 each),
  and a one-directory tree creation at 579 ops/s shows 0.002. 3.x's table has no unit;
  the same check holds (318.025 x 8174.643 ops/s = 30 tasks x 86658 files). Both go
  to `time_s`. 1.9 prints no time table. A run with a
  time table and no rate table gives records with an empty `rate`.
- mdtest prints the phases it did not run as rows of zeros (io500 runs each phase as its
  own mdtest, so a creation run shows stat, read and removal as 0): those rows are
  dropped. A file whose rows are all zero raises ValueError.
- 3.3's Max/Min/Std Dev can differ within one iteration (a Std Dev of 0.005 in a
  one-iteration run): kept as printed.
- A figure printed as nan or inf becomes None, with a warning. A table row that ends
  the text without its newline may be cut short: it is dropped, with a warning.
- `test` counts the runs in the file from 0, a run that printed no summary included.
- Anything else (harness lines, V-n verbose lines, launcher trailers) is ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.schema.records import MdtestRecord, SummaryStat

# Row names as mdtest prints them -> normalised operation.
OPERATIONS = {
    "Directory creation": "dir_create",
    "Directory stat": "dir_stat",
    "Directory read": "dir_read",
    "Directory rename": "dir_rename",
    "Directory removal": "dir_remove",
    "File creation": "file_create",
    "File stat": "file_stat",
    "File read": "file_read",
    "File removal": "file_remove",
    "Tree creation": "tree_create",
    "Tree removal": "tree_remove",
}
_KINDS = {"Directory": "dir", "File": "file", "Tree": "tree"}

_NUM = r"[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|(?i:nan|inf(?:inity)?))"
_BANNER = re.compile(
    r"mdtest-(?P<version>\S+) was launched with (?P<tasks>\d+) total task\(s\)"
    r"(?: on (?P<nodes>\d+) node(?:\(s\)|s)?)?"
)
_HEADER = re.compile(
    r"^\s*SUMMARY(?:\s+(?P<kind>rate|time))?(?:\s*\([^)]*\))?\s*:"
    r"(?:\s*\(of (?P<iterations>\d+) iterations?\))?"
)
_ROW = re.compile(
    rf"^\s*(?P<label>(?:Directory|File|Tree) [a-z]+)\s*:?((?:\s+{_NUM}){{4}}|(?:\s+{_NUM}){{7}})\s*$"
)
_COMMAND = re.compile(r"^\s*Command line used:\s*(?P<command>.*?)\s*$")
_PATH = re.compile(r"^\s*Path\s*:\s*(?P<path>.*?)\s*$")
_ITEMS = re.compile(r"^\s*(?P<tasks>\d+) tasks?, (?P<items>\d+) (?:files/directories|files|directories)\s*$")
_STONEWALL = re.compile(
    rf"Continue stonewall hit min:\s*(?P<min>{_NUM})\s+max:\s*(?P<max>{_NUM})\s+avg:\s*(?P<avg>{_NUM})"
)
_FINISHED = re.compile(r"^\s*-- finished at ")
_DETECT_BANNER = re.compile(r"^\s*mdtest-\S+ was launched with", re.MULTILINE)
_DETECT_HEADER = re.compile(r"^\s*SUMMARY(?: rate| time)?(?: \([^)\n]*\))?\s*:", re.MULTILINE)
_DETECT_ROW = re.compile(r"^\s*(?:File|Directory) creation\b", re.MULTILINE)


@dataclass
class _Run:
    index: int
    version: str | None = None
    tasks: int | None = None
    nodes: int | None = None
    items: int | None = None
    iterations: int | None = None
    command: str | None = None
    path: str | None = None
    stonewall: list[tuple[float, float, float]] = field(default_factory=list)
    # "rate"/"time" -> row name -> (figures, warnings about them)
    tables: dict[str, dict[str, tuple[SummaryStat, list[str]]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # about the run: go to all its records


def looks_like_mdtest(text: str) -> bool:
    """True when `text` holds an mdtest banner, or a summary table with creation rows."""
    if _DETECT_BANNER.search(text):
        return True
    return bool(_DETECT_HEADER.search(text) and _DETECT_ROW.search(text))


@guard("mdtest output")
def parse_mdtest(text: str) -> list[MdtestRecord]:
    """MdtestRecords of every mdtest run in `text` (see the module doc for what is read).

    Raises ValueError when the text holds no mdtest summary, or only empty or zero rows.
    """
    if not text.strip():
        raise ValueError("mdtest output: empty")
    runs = _read(text)
    if not any(run.tables for run in runs):
        raise ValueError("mdtest output: no summary table ('SUMMARY:' or 'SUMMARY rate') found")
    if not any(rows for run in runs for rows in run.tables.values()):
        raise ValueError("mdtest output: summary table without rows; was the output cut short?")
    records = [rec for run in runs for rec in _records(run)]
    if not records:
        raise ValueError("mdtest output: every summary row is zero (no phase ran)")
    return records


def _read(text: str) -> list[_Run]:
    runs: list[_Run] = []
    table: dict[str, tuple[SummaryStat, list[str]]] | None = None  # the table being read
    lines = text.splitlines()
    cut = not text.endswith(("\n", "\r"))  # the last line may be incomplete

    def current() -> _Run:
        if not runs:
            runs.append(_Run(0))
        return runs[-1]

    for number, line in enumerate(lines):
        if m := _BANNER.search(line):
            runs.append(_Run(len(runs), version=m["version"], tasks=int(m["tasks"]),
                             nodes=int(m["nodes"]) if m["nodes"] else None))
            table = None
        elif m := _HEADER.match(line):
            kind = m["kind"] or "rate"
            run = current()
            if kind in run.tables:
                run = _Run(len(runs))
                runs.append(run)
            table = run.tables[kind] = {}
            if m["iterations"] and (kind == "rate" or run.iterations is None):
                run.iterations = int(m["iterations"])
        elif table is not None and (m := _ROW.match(line)):
            run = runs[-1]
            if cut and number == len(lines) - 1:
                run.warnings.append(f"last row {m['label']!r} may be cut short: dropped")
            elif m["label"] not in table:
                table[m["label"]] = _stat(m[2].split()[-4:], m["label"])
        elif not line.strip() or _FINISHED.match(line):
            table = None
        elif m := _COMMAND.match(line):
            current().command = m["command"] or None
        elif m := _PATH.match(line):
            current().path = m["path"] or None
        elif m := _ITEMS.match(line):
            run = current()
            run.items = int(m["items"])
            run.tasks = run.tasks if run.tasks is not None else int(m["tasks"])
        elif m := _STONEWALL.search(line):
            try:
                low, high, avg = (finite(m[k], f"mdtest output: stonewall hit {k}") for k in ("min", "max", "avg"))
            except ValueError as exc:
                current().warnings.append(f"{exc}: left out")
            else:
                current().stonewall.append((low, high, avg))
    return runs


def _stat(values: list[str], label: str) -> tuple[SummaryStat, list[str]]:
    """Max, Min, Mean, Std Dev as printed; a non-finite one becomes None with a warning."""
    out: dict[str, float | None] = {}
    warnings: list[str] = []
    for key, value in zip(("max", "min", "mean", "stddev"), values):
        try:
            out[key] = finite(value, f"{label} {key}")
        except ValueError as exc:
            warnings.append(f"{exc}: left out")
            out[key] = None
    return SummaryStat(**out), warnings


def _ran(stat: SummaryStat) -> bool:
    values = [v for v in (stat.max, stat.min, stat.mean, stat.stddev) if v is not None]
    return any(v != 0 for v in values)


def _operation(label: str, warnings: list[str]) -> str:
    if label in OPERATIONS:
        return OPERATIONS[label]
    kind, verb = label.split(" ", 1)
    warnings.append(f"row {label!r} is not one this parser knows")
    return f"{_KINDS[kind]}_{verb}"


def _records(run: _Run) -> list[MdtestRecord]:
    rates, times = run.tables.get("rate"), run.tables.get("time")
    rows = rates if rates is not None else times
    if not rows:
        return []
    stonewall: dict[str, float] = {}
    if run.stonewall:
        stonewall = {
            "hit_min": min(h[0] for h in run.stonewall),
            "hit_max": max(h[1] for h in run.stonewall),
            "hit_avg": sum(h[2] for h in run.stonewall) / len(run.stonewall),
        }
    out = []
    for label, (stat, row_warnings) in rows.items():
        if not _ran(stat):
            continue
        warnings = run.warnings + row_warnings
        operation = _operation(label, warnings)
        out.append(MdtestRecord(
            tool_version=run.version,
            test=run.index,
            operation=operation,
            label=label,
            rate=stat if rows is rates else SummaryStat(),
            time_s=times[label][0] if times is not None and label in times else None,
            iterations=run.iterations,
            tasks=run.tasks,
            nodes=run.nodes,
            items=run.items,
            stonewall=stonewall,
            warnings=warnings,
            command=run.command,
            path=run.path,
        ))
    return out
