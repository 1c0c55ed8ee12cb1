"""hpcc's hpccoutf.txt -> HpccRecord: HPC Challenge 1.4 and 1.5, one record per run (hpcc
appends every run to the same file).

What hpcc writes (its src/io.c and src/hpcc.c), and the choices made:

- A run opens with "This is the DARPA/DOE HPC Challenge Benchmark version 1.5.0" and
  "Hostname: '...'"; each test prints "Begin of <X> section." ... "End of <X> section."
  (MPIRandomAccess, StarRandomAccess, SingleRandomAccess and their _LCG twins, PTRANS,
  StarDGEMM, SingleDGEMM, StarSTREAM, SingleSTREAM, MPIFFT, StarFFT, SingleFFT,
  LatencyBandwidth, HPL); the run ends with the "Begin of Summary section." block of
  `Name=value` lines. The summary's values are authoritative: printed with %g, they carry
  more digits than the sections' tables.
- A test that did not run has -1 in the summary (and sometimes uninitialised memory, such
  as 2e-310): a summary value is taken only when its test's section began in that run and
  it is not -1.
- A run cut short (no summary) gives what its sections printed: HPL's rows, the Average
  lines of Star tests, the Single lines, MPI RandomAccess's GUP/s, MPIFFT's Gflop/s, b_eff's
  detailed results (Ping Pong min/avg/max, the two rings; msecs and MB/s, b_eff's MB being
  10^6 bytes) and PTRANS's last WALL row (hpcc's running minimum); `complete` stays False.
- Checks, per section: STREAM's "Solution Validates" / "Failed Validation", RandomAccess's
  "Found N errors in M locations (passed|failed)", PTRANS's PASSED/FAILED column, "Node(s)
  with error N" (N > 0: a process failed the test), HPL's residual check of every row. A
  figure whose section's check failed goes to `untrusted`. The summary's `Success=0` says
  some check failed: when no section shows which, the figures of the tests that show no
  check of their own (DGEMM, FFT) go to `untrusted` too. b_eff never fails a run.
- HPL: `hpl_tests` are the HPL section's rows (hpl_out.py). `hpl` is the test the summary
  reports — hpcc keeps its fastest, whatever its residual — with the summary's time and
  rate, and the residual check of its row (matched by N, NB, P, Q and T/V, the closest
  time); with no row, `Success=1` is its check (hpcc fails the run on any failed or skipped
  HPL test). Its rate is a result only when that check passed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from stackprobe.parsers.bad_input import guard
from stackprobe.parsers.hpc.hpl_out import NUM, rate_or_none, read_tests
from stackprobe.schema.hpc_records import HpccRecord, HplTest

_BANNER = re.compile(r"HPC Challenge Benchmark version\s+(\d[\w.]*)")
_HOST = re.compile(r"^\s*Hostname:\s*'([^']*)'")
_BEGIN = re.compile(r"^\s*Begin of (\w+) section\.")
_END = re.compile(r"^\s*End of (\w+) section\.")
_KEY = re.compile(r"^\s*(\w+)=(\S*)\s*$")
_DETECT = re.compile(r"HPC Challenge Benchmark version|^\s*Begin of (?:Summary|MPIRandomAccess|PTRANS"
                     r"|StarSTREAM|StarDGEMM|LatencyBandwidth) section\.", re.MULTILINE)
_TRUE = (re.compile(r"^\s*Solution Validates"), re.compile(r"^\s*Found \d+ errors in \d+ locations \(passed\)"))
_FALSE = (re.compile(r"^\s*Failed Validation"), re.compile(r"^\s*Found \d+ errors in \d+ locations \(failed\)"))
_ERRORS = re.compile(r"^\s*Node\(s\) with error (\d+)")
_PTRANS = re.compile(rf"^\s*(WALL|CPU)\s+(?:\d+\s+){{6}}(?:{NUM})\s+(PASSED|FAILED)\s+({NUM})\s")
_MSEC_MBS = {"msecs": 3, "msec": 3, "MByte/s": -3, "MB/s": -3}  # to the summary's usec and GBytes

# summary key -> (section it comes from, record field, key in it, power of ten to base units)
_FIGURES: dict[str, tuple[str, str, str, int]] = {
    "PTRANS_GBs": ("PTRANS", "ptrans_bw_bytes", "wall", 9),
    "StarDGEMM_Gflops": ("StarDGEMM", "dgemm_flops_per_s", "star", 9),
    "SingleDGEMM_Gflops": ("SingleDGEMM", "dgemm_flops_per_s", "single", 9),
    "MPIFFT_Gflops": ("MPIFFT", "fft_flops_per_s", "mpi", 9),
    "StarFFT_Gflops": ("StarFFT", "fft_flops_per_s", "star", 9),
    "SingleFFT_Gflops": ("SingleFFT", "fft_flops_per_s", "single", 9),
    "NaturallyOrderedRingLatency_usec": ("LatencyBandwidth", "ring_latency_ns", "natural", 3),
    "RandomlyOrderedRingLatency_usec": ("LatencyBandwidth", "ring_latency_ns", "random", 3),
    "NaturallyOrderedRingBandwidth_GBytes": ("LatencyBandwidth", "ring_bw_bytes", "natural", 9),
    "RandomlyOrderedRingBandwidth_GBytes": ("LatencyBandwidth", "ring_bw_bytes", "random", 9),
}
for _stat in ("Min", "Avg", "Max"):
    _FIGURES[f"{_stat}PingPongLatency_usec"] = ("LatencyBandwidth", "pingpong_latency_ns", _stat.lower(), 3)
    _FIGURES[f"{_stat}PingPongBandwidth_GBytes"] = ("LatencyBandwidth", "pingpong_bw_bytes", _stat.lower(), 9)
for _scope in ("MPI", "Star", "Single"):
    for _lcg in ("", "_LCG"):
        _FIGURES[f"{_scope}RandomAccess{_lcg}_GUPs"] = (
            f"{_scope}RandomAccess{_lcg}", "random_access_updates_per_s", f"{_scope.lower()}{_lcg.lower()}", 9)
    for _kernel in ("Copy", "Scale", "Add", "Triad"):
        _FIGURES[f"{_scope}STREAM_{_kernel}"] = (
            f"{_scope}STREAM", "stream_bw_bytes", f"{_scope.lower()}_{_kernel.lower()}", 9)
# summary key -> (section, parameters key)
_PARAMETERS = {
    "STREAM_VectorSize": ("StarSTREAM", "stream_array_elements"), "STREAM_Threads": ("StarSTREAM", "stream_threads"),
    "DGEMM_N": ("StarDGEMM", "dgemm_n"), "FFT_N": ("StarFFT", "fft_n"), "MPIFFT_N": ("MPIFFT", "mpi_fft_n"),
    "MPIFFT_Procs": ("MPIFFT", "mpi_fft_procs"), "PTRANS_n": ("PTRANS", "ptrans_n"),
    "PTRANS_nb": ("PTRANS", "ptrans_nb"), "PTRANS_nprow": ("PTRANS", "ptrans_p"),
    "PTRANS_npcol": ("PTRANS", "ptrans_q"), "RandomAccess_N": ("StarRandomAccess", "random_access_words"),
    "MPIRandomAccess_N": ("MPIRandomAccess", "mpi_random_access_words"),
}
# (sections, line, summary key: '{section}' and the line's '{name}' filled in); a value in
# msecs or MB/s is scaled to the summary's usec or GBytes
_SECTION_LINES = [
    (r"MPIRandomAccess(?:_LCG)?", rf"^\s*(?P<v>{NUM}) Billion\(10\^9\) Updates\s+per second", "{section}_GUPs"),
    (r"StarRandomAccess(?:_LCG)?", rf"^\s*Average GUP/s (?P<v>{NUM})", "{section}_GUPs"),
    (r"SingleRandomAccess(?:_LCG)?", rf"^\s*Single GUP/s (?P<v>{NUM})", "{section}_GUPs"),
    (r"StarDGEMM|StarFFT", rf"^\s*Average Gflop/s (?P<v>{NUM})", "{section}_Gflops"),
    (r"SingleDGEMM|SingleFFT", rf"^\s*Single (?:DGEMM|FFT) Gflop/s (?P<v>{NUM})", "{section}_Gflops"),
    (r"MPIFFT", rf"^\s*Gflop/s:\s*(?P<v>{NUM})", "{section}_Gflops"),
    (r"StarSTREAM", rf"^\s*Average (?P<name>Copy|Scale|Add|Triad) GB/s (?P<v>{NUM})", "{section}_{name}"),
    (r"SingleSTREAM", rf"^\s*Single STREAM (?P<name>Copy|Scale|Add|Triad) GB/s (?P<v>{NUM})",
     "{section}_{name}"),
    (r"LatencyBandwidth", rf"^\s*On (?P<name>naturally|randomly)\s+ordered ring: latency=\s*(?P<v>{NUM})"
     r" (?P<unit>msec)", "{name}OrderedRingLatency_usec"),
    (r"LatencyBandwidth", rf"^\s*On (?P<name>naturally|randomly)\s+ordered ring: .*bandwidth=\s*(?P<v>{NUM})"
     r" (?P<unit>MB/s)", "{name}OrderedRingBandwidth_GBytes"),
]
_SECTION_LINES_RE = [(re.compile(rf"(?:{s})\Z"), re.compile(line), key) for s, line, key in _SECTION_LINES]
_PINGPONG = re.compile(rf"^\s*(Latency|Bandwidth)\s+min / avg / max:\s*({NUM})\s*/\s*({NUM})\s*/\s*({NUM})"
                       r"\s*(msecs|MByte/s)")
_PROCS = re.compile(r"^\s*Running on (\d{1,9}) processors")


@dataclass
class _Run:
    version: str | None = None
    host: str | None = None
    lines: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    checks: dict[str, bool] = field(default_factory=dict)
    values: dict[str, tuple[str, int]] = field(default_factory=dict)  # summary key -> (token, power)
    summary: dict[str, str] = field(default_factory=dict)
    procs: int | None = None  # "Running on N processors", for a run without its summary
    pingpong: bool = False  # in b_eff's "Ping Pong:" block of detailed results
    complete: bool = False


def looks_like_hpcc(text: str) -> bool:
    """True when `text` holds hpcc's banner or one of its section markers."""
    return bool(_DETECT.search(text))


@guard("hpcc output")
def parse_hpcc(text: str) -> list[HpccRecord]:
    """HpccRecords of every hpcc run in `text` (see the module doc); ValueError when no run
    measured anything."""
    runs = [r for r in _runs(text.splitlines()) if r.sections or r.summary]
    if not runs:
        raise ValueError("hpcc output: no test section or summary found (looked for 'Begin of ... "
                         "section.' lines; the file may end before the first test)")
    return [_record(index, run) for index, run in enumerate(runs)]


def _runs(lines: list[str]) -> list[_Run]:
    runs = [_Run()]
    section: str | None = None
    for line in lines:
        if m := _BANNER.search(line):
            runs.append(_Run(version=m.group(1)))
            section = None
            continue
        run = runs[-1]
        run.lines.append(line)
        if m := _BEGIN.match(line):
            section = m.group(1)
            if section != "Summary":
                run.sections.append(section)
        elif m := _END.match(line):
            run.complete = run.complete or (m.group(1) == "Summary" and section == "Summary")
            section = None
        elif m := _HOST.match(line):
            run.host = m.group(1)
        elif section == "Summary" and (m := _KEY.match(line)):
            run.summary.setdefault(m.group(1), m.group(2))
        elif section is not None:
            _read_section(run, section, line)
    return runs


def _read_section(run: _Run, section: str, line: str) -> None:
    check = (True if any(p.match(line) for p in _TRUE) else False if any(p.match(line) for p in _FALSE)
             else None)
    if (m := _ERRORS.match(line)) and int(m.group(1)) > 0:
        check = False
    if m := _PTRANS.match(line):
        check = m.group(2) == "PASSED"
        if m.group(1) == "WALL":
            run.values["PTRANS_GBs"] = (m.group(3), 0)
    if check is not None:
        run.checks[section] = run.checks.get(section, True) and check
    if line.strip() in ("Ping Pong:", "Ring:"):
        run.pingpong = line.strip() == "Ping Pong:"
    if run.pingpong and (m := _PINGPONG.match(line)):
        name = "Latency_usec" if m.group(1) == "Latency" else "Bandwidth_GBytes"
        for stat, token in zip(("Min", "Avg", "Max"), m.group(2, 3, 4), strict=True):
            run.values[f"{stat}PingPong{name}"] = (token, _MSEC_MBS[m.group(5)])
    if m := _PROCS.match(line):
        run.procs = int(m.group(1))
    for sections, pattern, key in _SECTION_LINES_RE:
        if sections.match(section) and (m := pattern.match(line)):
            found = m.groupdict()
            name = key.format(section=section, name=(found.get("name") or "").capitalize())
            run.values[name] = (found["v"], _MSEC_MBS.get(found.get("unit") or "", 0))


def _record(index: int, run: _Run) -> HpccRecord:
    began = set(run.sections)
    values = dict(run.values)
    values.update({k: (v, 0) for k, v in run.summary.items() if v != "-1"})
    success = {"1": True, "0": False}.get(run.summary.get("Success", ""))
    tests = read_tests(run.lines)
    if any(t.passed is not None for t in tests):
        run.checks["HPL"] = all(t.passed is not False for t in tests)
    hidden = success is False and False not in run.checks.values()
    figures: dict[str, dict[str, float]] = {}
    untrusted: dict[str, float] = {}
    for key, (section, name, sub, power) in _FIGURES.items():
        if key not in values or section not in began:
            continue
        figure = rate_or_none(values[key][0], power + values[key][1])
        if figure is None:
            continue
        if run.checks.get(section) is False or (hidden and section not in run.checks
                                                and section != "LatencyBandwidth"):
            untrusted[f"{name}.{sub}"] = figure
        else:
            figures.setdefault(name, {})[sub] = figure
    parameters = {name: int(run.summary[key]) for key, (section, name) in _PARAMETERS.items()
                  if section in began and re.fullmatch(r"\d{1,18}", run.summary.get(key, ""))}
    procs = _int(run.summary.get("CommWorldProcs"))
    return HpccRecord(
        tool_version=run.version, run=index, host=run.host, complete=run.complete, success=success,
        procs=procs if procs is not None else run.procs, sections=run.sections, checks=run.checks,
        hpl=_summary_hpl(run.summary, tests, success) if "HPL" in began else None, hpl_tests=tests,
        parameters=parameters, untrusted=untrusted, **figures)


def _summary_hpl(summary: dict[str, str], tests: list[HplTest], success: bool | None) -> HplTest | None:
    """The test the summary reports, with its row's residual check (see the module doc)."""
    n, nb, p, q = (_int(summary.get(k)) for k in ("HPL_N", "HPL_NB", "HPL_nprow", "HPL_npcol"))
    flops = rate_or_none(summary.get("HPL_Tflops", ""), 12)
    if n is None or nb is None or p is None or q is None or min(n, nb, p, q) < 0 or flops is None:
        return None
    tv = "W" + "".join(summary.get(k, "") for k in ("HPL_order", "HPL_depth", "HPL_ctop", "HPL_crfact",
                                                     "HPL_nbdiv", "HPL_cpfact", "HPL_nbmin"))
    time_s = rate_or_none(summary.get("HPL_time", ""))
    same = [t for t in tests if (t.n, t.nb, t.p, t.q) == (n, nb, p, q)]
    rows = [t for t in same if t.tv == tv] or same
    row = min(rows, key=lambda t: abs((t.time_s or 0.0) - (time_s or 0.0)), default=None)
    passed = row.passed if row is not None else (True if success else None)
    return HplTest(tv=row.tv if row is not None else tv[:16], n=n, nb=nb, p=p, q=q, time_s=time_s,
                   flops_per_s=flops if passed else None, untrusted_flops_per_s=None if passed else flops,
                   residual=row.residual if row is not None else None,
                   residual_threshold=row.residual_threshold if row is not None else None, passed=passed)


def _int(token: str | None) -> int | None:
    return int(token) if token is not None and re.fullmatch(r"-?\d{1,18}", token) else None
