"""IOR text output -> IorRecord: IOR 3.0 to 4.1, standalone or inside a harness's log (job
scripts, XDMoD AKRR, io500 result files), one run or several in a file; and the per-rank
CSV of `-O saveRankPerformanceDetailsCSV`. One record per access (write, read) of each test.

What the eras print, and the choices made (checked on tests/fixtures/public/ior):

- A run opens with "IOR-<version>: MPI Coordinated Test of Parallel I/O"; its tests open
  with "Test N started:" (3.0, 3.1) or "TestID : N" (3.2 on). `test` counts the tests in
  the file from 0, those that printed no result included. Lines before the first banner
  or after a run's "Finished" line (harness, launcher) are ignored, and so are Open MPI's
  help blocks between rules of dashes: their WARNING lines are not IOR's.
- Settings come from a tab-indented "Summary:" block (`key = value`, 3.0, 3.1) or an
  "Options:" block (`key : value`, 3.2 on); the "Summary of all tests" table has the
  exact integers (block, transfer, segments, tasks) and wins over both.
- Bandwidths are bytes/s; IOR's MiB is 2**20 bytes. The table has max/min/mean and the
  population stddev over iterations with two decimals. Result rows round more (no
  decimals from 3600 MiB/s on); "Max Write:"/"Max Read:" give the max with two. Row
  columns are read from the row header (IOPS and Latency(s) appear in 3.3).
- Without the table (io500's app prints result rows only, or the file was cut short),
  bw_bytes comes from the rows: mean and population stddev (two rows or more) as IOR
  computes them, the max from the Max line when there is one; mean_time_s is the mean of
  total(s). `ops` stays empty: the rows' IOPS counts wr/rd time only, the table's OPs the
  total time.
- aggregate_bytes: IOR's "Using actual aggregate bytes moved = N" warning (stonewalled
  runs) is exact; else the table's aggsize (bytes, 3.0, 3.1) or aggs(MiB) (a float32 with
  one decimal), taken as block x segments x tasks when it is that within its rounding.
- stonewall: the "stonewalling pairs accessed" line (pairs_min, pairs_max, min_data_bytes
  and mean_data_bytes per task, time_s), the table's Stonewall(s) (time_s, two decimals)
  and Stonewall(MiB), which is the mean data per task over the stonewall time, so a rate:
  task_bw_bytes (bytes/s per task); the settings as deadline_s and wear_out.
- warnings: IOR's WARNING lines without their prefix, whitespace collapsed, deduplicated.
  One printed between a result row header and a row belongs to that row's access, others
  to every access of the test. A figure printed as nan or inf is left out, with a warning.
- nodes: printed from 3.3 on; before, the hosts of -vv's "task N on host" lines, if any.
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass, field

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.schema.records import IorRecord, SummaryStat

KIB = 1024
MIB = 1024**2
GIB = 1024**3
_UNITS = {"bytes": 1, "b": 1, "kib": KIB, "mib": MIB, "gib": GIB, "tib": 1024**4, "pib": 1024**5,
          "eib": 1024**6}
_ACCESSES = ("write", "read")
_MAX_DIGITS = 20  # an integer column longer than this is not one IOR printed
_MPI_BLOCK_LINES = 60  # most lines between the dash rules of an Open MPI help message

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?i:nan|inf(?:inity)?)"
_TOKEN = re.compile(rf"(?:{_NUM}|-)\Z")
_BANNER = re.compile(r"IOR-(\d[^\s:]*): MPI Coordinated Test of Parallel I/O")
_TEST_START = re.compile(r"^\s*(?:Test (\d+) started:|TestID\s*:\s*(\d+)\s*$)")
_ROW_HEADER = re.compile(r"^\s*access\s+bw\(MiB/s\)\s")
_TABLE_HEADER = re.compile(r"^\s*Operation\s+Max\(MiB\)\s")
_ROW = re.compile(r"^\s*(write|read)\s+(\S.*?)\s*$")
_MAX_LINE = re.compile(rf"^\s*Max (Write|Read):\s+({_NUM}) MiB/sec")
_WARNING = re.compile(r"^\s*(?:ior\s+)?WARNING:\s*(.*?)\s*$")
_MOVED = re.compile(r"^Using actual aggregate bytes moved\s*=\s*(\d+)")
_STONEWALL = re.compile(
    rf"^\s*stonewalling pairs accessed min:\s*(\d+)\s+max:\s*(\d+)\s+--\s+min data:\s*({_NUM})\s*GiB"
    rf"\s+mean data:\s*({_NUM})\s*GiB\s+time:\s*({_NUM})\s*s"
)
_HOST = re.compile(r"^\s*task \d+ on (\S+)\s*$")
_SETTING = re.compile(r"^\s*([A-Za-z][A-Za-z0-9 /#()._-]*?)\s*[:=]\s*(.*?)\s*$")
_FINISHED = re.compile(r"^\s*Finished\s*:")
_RULE = re.compile(r"^-{40,}\s*$")
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)\s*([A-Za-z]+)?$")
_API = re.compile(r"^[A-Za-z0-9_]+(?:-[A-Za-z_][A-Za-z0-9_]*)*")

# Result row header -> (iteration key, scale to bytes or seconds).
_ROW_COLUMNS = {
    "bw(MiB/s)": ("bw_bytes", MIB),
    "IOPS": ("iops", 1),
    "Latency(s)": ("latency_s", 1),
    "block(KiB)": ("block_bytes", KIB),
    "xfer(KiB)": ("xfer_bytes", KIB),
    "open(s)": ("open_s", 1),
    "wr/rd(s)": ("wrrd_s", 1),
    "close(s)": ("close_s", 1),
    "total(s)": ("total_s", 1),
    "iter": ("iter", 1),
}
# Settings this module reads, as normalised keys of the Summary:/Options: blocks and headers.
_SETTINGS = {
    "api", "test filename", "path", "access", "segments", "pattern", "nodes", "tasks", "clients",
    "participating tasks", "clients per node", "repetitions", "xfersize", "blocksize",
    "aggregate filesize", "command line", "command line used", "stonewallingtime",
    "stonewallingwearout", "using stonewalling",
}
_RANK_CSV_HEADER = "access,rank,runtime-with-openclose,runtime,throughput-withopenclose,throughput"
_RANK_CSV_ROW = re.compile(r"^(write|read),(\d+),((?:[-+]?\d\.\d{10}e[-+]\d\d+,){3}[-+]?\d\.\d{10}e[-+]\d\d+)$")
_DETECT = re.compile(
    r"IOR-\d[^\s:]*: MPI Coordinated Test of Parallel I/O|^\s*Summary of all tests:\s*$"
    r"|^\s*access\s+bw\(MiB/s\)\s", re.MULTILINE
)


@dataclass
class _Access:
    rows: list[dict[str, float]] = field(default_factory=list)
    max_bw: float | None = None  # from "Max Write:"/"Max Read:", bytes/s
    table: dict[str, str] | None = None  # "Summary of all tests" row: column -> token
    warnings: list[str] = field(default_factory=list)
    stonewall: dict[str, float] = field(default_factory=dict)
    moved: int | None = None  # "Using actual aggregate bytes moved"


@dataclass
class _Test:
    test_id: int
    settings: dict[str, str] = field(default_factory=dict)
    columns: list[str] | None = None  # result row header, without "access"
    warnings: list[str] = field(default_factory=list)  # for every access of the test
    accesses: dict[str, _Access] = field(default_factory=dict)

    def access(self, name: str) -> _Access:
        return self.accesses.setdefault(name, _Access())


@dataclass
class _Run:
    version: str | None
    settings: dict[str, str] = field(default_factory=dict)  # before the first test
    warnings: list[str] = field(default_factory=list)
    hosts: set[str] = field(default_factory=set)
    tests: list[_Test] = field(default_factory=list)
    table: list[dict[str, str]] = field(default_factory=list)


def looks_like_ior(text: str) -> bool:
    """True when `text` holds IOR's banner, its result row header or its 'Summary of all
    tests' table, or is a saveRankPerformanceDetailsCSV file."""
    return text.lstrip().startswith(_RANK_CSV_HEADER) or bool(_DETECT.search(text))


@guard("IOR output")
def parse_ior(text: str) -> list[IorRecord]:
    """IorRecords of every IOR test in `text`, one per access (see the module doc).

    A saveRankPerformanceDetailsCSV file goes to parse_ior_rank_csv. Raises ValueError
    when the text holds no IOR result.
    """
    if text.lstrip().startswith(_RANK_CSV_HEADER):
        return parse_ior_rank_csv(text)
    if not text.strip():
        raise ValueError("IOR output: empty")
    records: list[IorRecord] = []
    index = 0
    for run in _runs(text):
        _attach_table(run)
        for test in run.tests:
            records.extend(_records(run, test, index))
            index += 1
        index += not run.tests
    if not records:
        raise ValueError("IOR output: no IOR results found (looked for 'IOR-x.y' banner, result rows "
                         "and the 'Summary of all tests' table)")
    return records


@guard("IOR rank CSV")
def parse_ior_rank_csv(text: str) -> list[IorRecord]:
    """One IorRecord per access of a saveRankPerformanceDetailsCSV file: `bw_bytes` is over
    the ranks (each rank's data over its open-to-close time, IOR's notion of bandwidth;
    population stddev), `mean_time_s` the ranks' mean open-to-close time, `tasks` the
    number of ranks. The file does not say which test or iteration a row belongs to: with
    several, all rows of an access are pooled. A last line cut short is dropped."""
    lines = [line.strip() for line in text.strip().splitlines()]
    if not lines or lines[0] != _RANK_CSV_HEADER:
        raise ValueError(f"IOR rank CSV: the first line is not {_RANK_CSV_HEADER!r}")
    by_access: dict[str, list[tuple[int, float, float]]] = {}
    warnings: list[str] = []
    for number, line in enumerate(lines[1:], start=2):
        if not line or line == _RANK_CSV_HEADER:
            continue
        m = _RANK_CSV_ROW.match(line)
        if m is None:
            if number == len(lines) and not text.endswith(("\n", "\r")):
                warnings.append(f"last line {line[:40]!r} is cut short: dropped")
                continue
            raise ValueError(f"IOR rank CSV: line {number} is not access,rank and four numbers: "
                             f"{line[:60]!r}")
        total_time, _, total_bw, _ = (finite(v, f"IOR rank CSV: line {number}") for v in m[3].split(","))
        by_access.setdefault(m[1], []).append((int(m[2]), total_time, total_bw))
    if not by_access:
        raise ValueError("IOR rank CSV: no rank rows")
    out = []
    for access in _ACCESSES:
        rows = by_access.get(access)
        if not rows:
            continue
        bws = [bw for _, _, bw in rows]
        out.append(IorRecord(
            source_format="rank_csv",
            test=0,
            operation=access,
            tasks=len({rank for rank, _, _ in rows}),
            bw_bytes=iteration_stats(bws),
            mean_time_s=iteration_mean([t for _, t, _ in rows]),
            warnings=list(warnings),
        ))
    return out


def _runs(text: str) -> list[_Run]:
    lines = text.splitlines()
    foreign = _mpi_blocks(lines)
    starts = [(i, m[1]) for i, line in enumerate(lines) if (m := _BANNER.search(line))]
    if not starts:  # a pasted table or rows: one run, no version
        starts = [(-1, None)]
    runs = []
    for k, (start, version) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        finished = [i for i in range(start + 1, end) if _FINISHED.match(lines[i])]
        if finished:
            end = finished[-1]
        run = _Run(version)
        _read_run(run, [lines[i] for i in range(start + 1, end) if i not in foreign])
        runs.append(run)
    return runs


def _mpi_blocks(lines: list[str]) -> set[int]:
    """Line numbers of Open MPI's help messages: short blocks between two rules of dashes
    with no IOR table in them."""
    rules = [i for i, line in enumerate(lines) if _RULE.match(line)]
    out: set[int] = set()
    k = 0
    while k + 1 < len(rules):
        first, last = rules[k], rules[k + 1]
        if last - first <= _MPI_BLOCK_LINES and not any(
            _BANNER.search(line) or _ROW_HEADER.match(line) or _TABLE_HEADER.match(line)
            for line in lines[first:last]
        ):
            out.update(range(first, last + 1))
            k += 2
        else:
            k += 1
    return out


def _read_run(run: _Run, lines: list[str]) -> None:
    test: _Test | None = None
    table_columns: list[str] | None = None  # while reading the "Summary of all tests" table
    pending: list[str] = []  # warnings printed since the row header or the last result row
    stonewall: dict[str, float] = {}  # printed before the next result row, about its access
    moved: list[int] = []

    def current() -> _Test:
        nonlocal test
        if test is None:
            test = _Test(0)
            run.tests.append(test)
        return test

    def settle() -> None:
        """What no result row followed is about the whole test (or run)."""
        (test.warnings if test is not None else run.warnings).extend(pending)
        pending.clear()
        stonewall.clear()
        moved.clear()

    for line in lines:
        if table_columns is not None:
            row = _table_row(line, table_columns)
            if row is not None:
                run.table.append(row)
                continue
            table_columns = None
        if m := _TEST_START.match(line):
            settle()
            test = _Test(int(m[1] or m[2]))
            run.tests.append(test)
        elif _TABLE_HEADER.match(line):
            settle()
            table_columns = _table_columns(line)
        elif _ROW_HEADER.match(line):
            settle()
            current().columns = line.split()[1:]
        elif (m := _ROW.match(line)) and test is not None and test.columns is not None:
            parsed = _row(m[2].split(), test.columns)
            if parsed is None:
                continue
            access = test.access(m[1])
            access.rows.append(parsed[0])
            access.warnings.extend(pending + parsed[1])
            for key, value in stonewall.items():
                access.stonewall.setdefault(key, value)
            if moved and access.moved is None:
                access.moved = moved[0]
            pending.clear()
            stonewall.clear()
            moved.clear()
        elif m := _MAX_LINE.match(line):
            access = current().access(m[1].lower())
            try:
                access.max_bw = _bytes(m[2], MIB, f"Max {m[1]}")
            except ValueError as exc:
                access.warnings.append(f"{exc}: left out")
        elif m := _STONEWALL.match(line):
            stonewall.update(_stonewall_line(m, pending))
        elif m := _WARNING.match(line):
            message = " ".join(m[1].split())
            if test is None or test.columns is None:  # before any result row: about the test
                (test.warnings if test is not None else run.warnings).append(message)
                continue
            pending.append(message)
            if bytes_moved := _MOVED.match(message):
                n = _count(bytes_moved[1], "actual aggregate bytes moved", pending)
                moved.extend([] if n is None else [n])
        elif m := _HOST.match(line):
            run.hosts.add(m[1])
        elif (m := _SETTING.match(line)) and (key := " ".join(m[1].lower().split())) in _SETTINGS:
            (test.settings if test is not None else run.settings).setdefault(key, m[2])
    settle()


def _table_columns(line: str) -> list[str]:
    """The table header's names; the second StdDev is the OPs one."""
    names = line.split()
    if "StdDev" in names:
        first = names.index("StdDev")
        if "StdDev" in names[first + 1:]:
            names[names.index("StdDev", first + 1)] = "StdDev(OPs)"
    return names


def _table_row(line: str, columns: list[str]) -> dict[str, str] | None:
    """A table row as column -> token; the API name may hold spaces. None: not a row."""
    tokens = line.split()
    if not tokens or tokens[0] not in _ACCESSES:
        return None
    if "API" in columns:
        api = columns.index("API")
        after = len(columns) - api - 1
        if len(tokens) < len(columns):
            return None
        tokens = tokens[:api] + [" ".join(tokens[api:len(tokens) - after])] + tokens[len(tokens) - after:]
    if len(tokens) != len(columns):
        return None
    return dict(zip(columns, tokens))


def _row(tokens: list[str], columns: list[str]) -> tuple[dict[str, float], list[str]] | None:
    """A result row's figures by iteration key, and notes on figures left out. None when the
    row does not fit the header (cut short, or not IOR's)."""
    if len(tokens) != len(columns) or not all(_TOKEN.match(t) for t in tokens):
        return None
    figures: dict[str, float] = {}
    notes: list[str] = []
    for name, token in zip(columns, tokens):
        if name not in _ROW_COLUMNS or token == "-":
            continue
        key, scale = _ROW_COLUMNS[name]
        try:
            figures[key] = _bytes(token, scale, f"result row {name}")
        except ValueError as exc:
            notes.append(f"{exc}: left out")
    return figures, notes


def _stonewall_line(m: re.Match, notes: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for key, group, scale in (("pairs_min", 1, 1), ("pairs_max", 2, 1), ("min_data_bytes", 3, GIB),
                              ("mean_data_bytes", 4, GIB), ("time_s", 5, 1)):
        try:
            out[key] = _bytes(m[group], scale, f"stonewalling {key}")
        except ValueError as exc:
            notes.append(f"{exc}: left out")
    return out


def _attach_table(run: _Run) -> None:
    """Each table row to its test (Test#), a test of its own when none printed that id."""
    for row in run.table:
        test_id = row.get("Test#")
        tid = int(test_id) if test_id is not None and test_id.isdigit() and len(test_id) < 10 else None
        test = next((t for t in run.tests if t.test_id == tid), None)
        if test is None and len(run.tests) == 1 and tid is None:
            test = run.tests[0]
        if test is None:
            test = _Test(tid or 0)
            run.tests.append(test)
        access = test.access(row["Operation"])
        if access.table is None:
            access.table = row


def _records(run: _Run, test: _Test, index: int) -> list[IorRecord]:
    out = []
    for name in _ACCESSES:
        access = test.accesses.get(name)
        if access is None:
            continue
        rec = _record(run, test, name, access, index)
        if rec is not None:
            out.append(rec)
    return out


def _record(run: _Run, test: _Test, name: str, access: _Access, index: int) -> IorRecord | None:
    notes: list[str] = []
    table = access.table or {}
    settings = {**run.settings, **test.settings}

    def tab(column: str, scale: float = 1) -> float | None:
        token = table.get(column)
        if token is None or token == "NA":
            return None
        try:
            return _bytes(token, scale, f"{name} {column}")
        except ValueError as exc:
            notes.append(f"{exc}: left out")
            return None

    def tab_int(column: str) -> int | None:
        token = table.get(column)
        return None if token is None else _count(token, f"{name} {column}", notes)

    if table:
        bw = SummaryStat(max=tab("Max(MiB)", MIB), min=tab("Min(MiB)", MIB), mean=tab("Mean(MiB)", MIB),
                         stddev=tab("StdDev", MIB))
        ops = SummaryStat(max=tab("Max(OPs)"), min=tab("Min(OPs)"), mean=tab("Mean(OPs)"),
                          stddev=tab("StdDev(OPs)"))
        mean_time = tab("Mean(s)")
    else:
        bw = _row_stats([r["bw_bytes"] for r in access.rows if "bw_bytes" in r], access.max_bw)
        ops = SummaryStat()
        mean_time = iteration_mean([r["total_s"] for r in access.rows if "total_s" in r])
    if bw.max is None and bw.mean is None and not access.rows:
        return None

    tasks = tab_int("#Tasks")
    if tasks is None:
        tasks = _first_int(settings, ("tasks", "clients", "participating tasks"), notes)
    per_node = tab_int("tPN")
    if per_node is None:
        per_node = _first_int(settings, ("clients per node",), notes)
        if per_node is None and (m := re.search(r"\((\d+) per node\)", settings.get("clients", ""))):
            per_node = _count(m[1], "clients per node", notes)
    block = tab_int("blksiz")
    if block is None:
        block = _size(settings.get("blocksize"), "blocksize", notes)
    transfer = tab_int("xsize")
    if transfer is None:
        transfer = _size(settings.get("xfersize"), "xfersize", notes)
    segments = tab_int("segcnt")
    if segments is None:
        segments = _first_int(settings, ("segments",), notes)
        if segments is None and (m := re.search(r"\((\d+) segments?\)", settings.get("pattern", ""))):
            segments = _count(m[1], "segments", notes)
    repetitions = tab_int("reps")
    if repetitions is None:
        repetitions = _first_int(settings, ("repetitions",), notes)
    if not table and repetitions is not None and len(access.rows) < repetitions:
        notes.append(f"{len(access.rows)} of {repetitions} {name} iterations printed and no summary "
                     "table: was the output cut short?")
    fpp_flag = tab_int("fPP")
    if fpp_flag is not None:
        fpp: bool | None = bool(fpp_flag)
    elif "access" in settings:
        fpp = settings["access"].startswith("file-per-process")
    else:
        fpp = None
    nodes = _first_int(settings, ("nodes",), notes)
    if nodes is None and run.hosts:
        nodes = len(run.hosts)

    aggregate = _aggregate(access, tab("aggs(MiB)", MIB), tab_int("aggsize"), block, segments, tasks,
                           settings, notes)
    stonewall = _stonewall(access, settings, tab("Stonewall(s)"), tab("Stonewall(MiB)", MIB), notes)
    return IorRecord(
        source_format="text",
        tool_version=run.version,
        test=index,
        operation=name,
        api=table.get("API") or _api(settings.get("api")),
        tasks=tasks,
        nodes=nodes,
        tasks_per_node=per_node,
        repetitions=repetitions,
        file_per_process=fpp,
        transfer_bytes=transfer,
        block_bytes=block,
        segments=segments,
        aggregate_bytes=aggregate,
        bw_bytes=bw,
        ops=ops,
        mean_time_s=mean_time,
        iterations=access.rows,
        stonewall=stonewall,
        warnings=_dedup(run.warnings + test.warnings + access.warnings + notes),
        command=settings.get("command line") or settings.get("command line used") or None,
        path=settings.get("test filename") or settings.get("path") or None,
    )


def _aggregate(access: _Access, table_bytes: float | None, aggsize: int | None, block: int | None,
               segments: int | None, tasks: int | None, settings: dict[str, str],
               notes: list[str]) -> int | None:
    if access.moved is not None:
        return access.moved
    if aggsize is not None:
        return aggsize
    expected = block * segments * tasks if None not in (block, segments, tasks) else None
    if table_bytes is not None:
        # aggs(MiB) is a float32 printed with one decimal.
        if expected is not None and abs(table_bytes - expected) <= 0.05 * MIB + table_bytes * 2**-23:
            return expected
        return round(table_bytes)
    if expected is not None:
        return expected
    return _size(settings.get("aggregate filesize"), "aggregate filesize", notes)


def _stonewall(access: _Access, settings: dict[str, str], time_s: float | None,
               task_bw: float | None, notes: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    deadline = _first_int(settings, ("stonewallingtime",), notes)
    wear_out = _first_int(settings, ("stonewallingwearout",), notes)
    if deadline is None and (m := re.match(r"(\d+) second", settings.get("using stonewalling", ""))):
        deadline = _count(m[1], "stonewalling deadline", notes)
        wear_out = int("phase out" in settings["using stonewalling"])
    if deadline is not None:
        out["deadline_s"] = float(deadline)
    if wear_out is not None:
        out["wear_out"] = float(wear_out)
    out.update(access.stonewall)
    if time_s is not None:
        out["time_s"] = time_s
    if task_bw is not None:
        out["task_bw_bytes"] = task_bw
    return out


def _row_stats(values: list[float], max_bw: float | None) -> SummaryStat:
    """Over the result rows; the Max line's two decimals beat a row's rounding."""
    if not values:
        return SummaryStat(max=max_bw)
    if len(values) == 1 and max_bw is not None:
        return SummaryStat(max=max_bw, min=max_bw, mean=max_bw)
    stat = iteration_stats(values)
    if max_bw is not None:
        stat.max = max_bw
    return stat


def iteration_stats(values: list[float]) -> SummaryStat:
    """Max, min, mean and (two values or more) population stddev of a non-empty list, as IOR
    computes them: its text and JSON parsers' figures where the output has no summary."""
    mean = iteration_mean(values)
    stddev = finite(statistics.pstdev(values), "IOR output: stddev") if len(values) > 1 else None
    return SummaryStat(max=max(values), min=min(values), mean=mean, stddev=stddev)


def iteration_mean(values: list[float]) -> float | None:
    return finite(math.fsum(values) / len(values), "IOR output: mean") if values else None


def _bytes(token: str, scale: float, what: str) -> float:
    """A printed figure times its unit, refused when not finite."""
    return finite(finite(token, f"IOR output: {what}") * scale, f"IOR output: {what}")


def _count(token: str, what: str, notes: list[str]) -> int | None:
    token = token.strip()
    if not token.isdigit() or len(token) > _MAX_DIGITS:
        notes.append(f"IOR output: {what} is not a count: {token[:40]!r}: left out")
        return None
    return int(token)


def _first_int(settings: dict[str, str], keys: tuple[str, ...], notes: list[str]) -> int | None:
    """The leading integer of the first of `keys` that is set ("96 (12 per node)" -> 96)."""
    for key in keys:
        if key in settings:
            return _count(settings[key].split(" ", 1)[0], key, notes)
    return None


def _size(text: str | None, what: str, notes: list[str]) -> int | None:
    """IOR's human-readable size ("2 MiB", "47008 bytes", "83.79 TiB") in bytes; a size with
    decimals was rounded when printed."""
    if not text:
        return None
    m = _SIZE.match(text.strip())
    unit = _UNITS.get((m[2] or "bytes").lower()) if m else None
    if m is None or unit is None:
        notes.append(f"IOR output: {what} is not a size: {text[:40]!r}: left out")
        return None
    return round(_bytes(m[1], unit, what))


def _api(text: str | None) -> str | None:
    """The API's name without the version 3.0/3.1 print beside it ("HDF5-1.8.14 (Parallel)")."""
    if not text:
        return None
    m = _API.match(text.strip())
    return m[0] if m else text.strip()


def _dedup(items: list[str]) -> list[str]:
    return list(dict.fromkeys(item for item in items if item))
