"""elbencho's result table -> ElbenchoPhaseRecords: its stdout (also inside a job log) and
its --resfile, which holds the same table.

What elbencho 2.1 prints (tests/fixtures/public/elbencho), and what is read:

- The header "OPERATION RESULT TYPE  FIRST DONE  LAST DONE", then one block per phase: the
  phase name (SYNC, MKDIRS, WRITE, READ, RMFILES, RMDIRS, ...) on the block's first line,
  one result per line ('Elapsed ms', 'IOPS', 'Throughput MiB/s', 'Files/s', 'Dirs total',
  ...) with its "first done" and "last done" figure, and '---' after the block. A blank
  line between blocks may be missing.
- A latency line holds '[ min=91 avg=120 max=1583 ]' under a label that names the unit
  ('IO latency us'); a unit after a figure wins, µs when there is none: kept in µs under
  the label without its unit, '<label> min', '<label> avg', '<label> max'.
- --resfile starts with 'ISO DATE:' and 'COMMAND LINE:'; the parameters the command states
  (threads, hosts, files, dirs, size, block, iodepth, direct, random) go with each phase.
  In service mode every host prints its own blocks and the master its aggregate, all in
  one log, each after a 'Preparing new benchmark phase... (ISO DATE: ...)' line: every
  block is a record, numbered in the order of the file, with the date before it.
- Lines around the tables (service banners, 'Terminating due to phase time limit.') are
  not elbencho's results and are passed over; a result line whose figures are not numbers
  is refused with its line number and label.
"""

from __future__ import annotations

import re
import shlex

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.schema.peer_records import ElbenchoPhaseRecord, Param

_HEADER = re.compile(r"^OPERATION\s+RESULT TYPE\s+FIRST DONE\s+LAST DONE\s*$", re.MULTILINE)
_PHASE = re.compile(r"^([A-Z][A-Z0-9_-]*)\s{2,}([A-Za-z%][^:]*?)\s*:\s*(.*)$")
_MORE = re.compile(r"^\s{4,}([A-Za-z%][^:]*?)\s*:\s*(.*)$")
_DATE = re.compile(r"ISO DATE:\s*([0-9T:+-]+)")
_LATENCY = re.compile(r"\b(min|avg|max)=([0-9.]+)\s*(us|ms|s|ns)?")
_TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6, None: 1.0}
# command-line options whose values say what the run was: (option, short form, key)
_OPTIONS = (("--threads", "-t", "threads"), ("--files", "-n", "files"), ("--dirs", "-N", "dirs"),
            ("--size", "-s", "size"), ("--block", "-b", "block"), ("--iodepth", None, "iodepth"),
            ("--hosts", None, "hosts"))
_FLAGS = (("--direct", "direct"), ("--rand", "random"), ("--dirsharing", "dirsharing"))


def looks_like_elbencho_table(text: str) -> bool:
    return _HEADER.search(text) is not None


def command_params(command: str) -> dict[str, Param]:
    """The parameters an elbencho command line states, as written ('1m', 8, 'yes')."""
    try:
        args = shlex.split(command)
    except ValueError:
        args = command.split()
    params: dict[str, Param] = {}
    for i, arg in enumerate(args[:-1]):
        for long, short, key in _OPTIONS:
            if arg in (long, short):
                value = args[i + 1]
                if key == "hosts":
                    params[key] = len([h for h in re.split(r"[,\s]+", value) if h])
                else:
                    params[key] = int(value) if value.isdigit() and len(value) < 18 else value
    for flag, key in _FLAGS:
        if flag in args:
            params[key] = "yes"
    return params


def _figures(rec: ElbenchoPhaseRecord, label: str, values: str, line_no: int) -> None:
    if "[" in values:
        found = _LATENCY.findall(values)
        if not found:
            raise ValueError(f"elbencho line {line_no}: {label}: no min/avg/max in {values[:40]!r}")
        name, _, named_unit = label.rpartition(" ")
        if named_unit not in _TO_US:  # no unit in the label ('IO latency us' has one)
            name, named_unit = label, None
        for stat, number, unit in found:
            value = finite(number, f"elbencho line {line_no}: {label} {stat}")
            rec.latency_us[f"{name} {stat}"] = value * _TO_US[unit or named_unit]
        return
    parts = values.split()
    if len(parts) != 2:
        raise ValueError(f"elbencho line {line_no}: {label}: expected a first and a last figure, "
                         f"got {values[:40]!r}")
    rec.first[label] = finite(parts[0], f"elbencho line {line_no}: {label} (first done)")
    rec.last[label] = finite(parts[1], f"elbencho line {line_no}: {label} (last done)")


@guard("elbencho result table")
def parse_elbencho_table(text: str) -> list[ElbenchoPhaseRecord]:
    """One record per phase block after the table's header, in the order of the file."""
    header = _HEADER.search(text)
    if header is None:
        raise ValueError("no 'OPERATION RESULT TYPE  FIRST DONE  LAST DONE' header: "
                         "not an elbencho result table")
    command = next((ln.split(":", 1)[1].strip() for ln in text.splitlines()
                    if ln.startswith("COMMAND LINE:")), None)
    params = command_params(command) if command else {}
    records: list[ElbenchoPhaseRecord] = []
    current: ElbenchoPhaseRecord | None = None
    before = _DATE.findall(text, 0, header.start())
    date = before[-1] if before else None
    start_line = text.count("\n", 0, header.start()) + 1
    for line_no, line in enumerate(text.splitlines()[start_line - 1:], start_line):
        line = line.rstrip()
        if m := _DATE.search(line):
            date = m.group(1)
        if line.startswith("---"):
            current = None
        elif m := _PHASE.match(line):
            current = ElbenchoPhaseRecord(source_format="result table", block=len(records) + 1,
                                          phase=m.group(1), date=date, params=dict(params),
                                          command=command)
            records.append(current)
            _figures(current, m.group(2), m.group(3), line_no)
        elif current is not None and (m := _MORE.match(line)):
            _figures(current, m.group(1), m.group(2), line_no)
    if not records:
        raise ValueError("elbencho result table without a phase")
    return records
