"""HPL.out -> HplRecord: netlib HPL 2.x and the vendor builds that keep its layout (Intel
MKL's, NVIDIA's), one test or a sweep of many, standalone or inside a job log; and the HPL
section of hpcc's hpccoutf.txt (hpcc_out.py reads its tests with `read_tests`).

What the file holds, from netlib HPL's HPL_pdtest/HPL_pddriver (hpcc carries HPL 2.0):

- a banner "HPLinpack <version>  --  High-Performance Linpack benchmark" per run (several
  runs may be appended to one file), then the threshold line "Computational tests pass if
  scaled residuals are less than <t>";
- per test, under the header "T/V  N  NB  P  Q  Time  Gflops": the row, the T/V code being
  W, the process order (R/C), depth, broadcast, rfact, nbdiv, pfact, nbmin (WR11C2R4); HPL
  2.0/2.1 print Gflops with %.3e, 2.3 with %.4e; vendors print progress lines (Intel's
  "Column=... Mflops=", NVIDIA's "Prog=", GPU warnings) and start/end times around it;
- then "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)= <residual> ...... PASSED" (or
  FAILED, followed by the norms). HPL 1.x printed three such checks; a test passes only if
  all do, and `residual` is the largest. With a threshold of 0 or less HPL skips the check
  and prints no line: the test's `passed` stays None.

The row's Gflops is a result (`flops_per_s`) only when its check PASSED; otherwise it is
kept as `untrusted_flops_per_s` (schema/hpc_records.py). A printed PASSED whose residual is
not under the printed threshold counts as failed. A Time or Gflops printed as inf or nan (a
time of 0) is left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.schema.hpc_records import HplRecord, HplTest

NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?i:nan|inf(?:inity)?)"
_BANNER = re.compile(r"HPLinpack\s+(\d[\w.]*)\s+--\s+High-Performance Linpack benchmark")
_NVIDIA = re.compile(r"^\s*(HPL-NVIDIA\s+\d[\w.]*)")
_INTEL = re.compile(r"Column=\d+ Fraction=[\d.]+ .*Mflops=|Number of Heterogeneous data entries")
_HEADER = re.compile(r"^\s*T/V\s+N\s+NB\s+P\s+Q\s+Time\s+Gflops")
_ROW = re.compile(rf"^\s*(W[A-Z0-9]{{1,15}})\s+(\d{{1,12}})\s+(\d{{1,9}})\s+(\d{{1,9}})\s+(\d{{1,9}})"
                  rf"\s+({NUM})\s+({NUM})(?:\s|$)")
_RESIDUAL = re.compile(rf"^\s*\|\|Ax-b\|\|.*=\s*({NUM})\s+\.+\s+(PASSED|FAILED)\b")
_THRESHOLD = re.compile(rf"tests pass if scaled residuals are less than\s+({NUM})")
_DETECT = re.compile(r"HPLinpack\s+\d[\w.]*\s+--\s+High-Performance Linpack|^\s*T/V\s+N\s+NB\s+P\s+Q\s",
                     re.MULTILINE)


def scaled(token: str, power: int, what: str) -> float:
    """The number `token` times 10**power, rounded once (so 8.3295e+02 Gflops is exactly
    8.3295e11 flop/s, as a reader would write it); ValueError naming `what` if not finite."""
    finite(token, what)
    return finite(float(Decimal(token).scaleb(power)), what)


def number_or_none(token: str, power: int = 0) -> float | None:
    """A printed figure (times 10**power), or None for the nan/inf a tool prints for a time
    of zero, or a figure beyond a double."""
    try:
        return scaled(token, power, "figure")
    except ValueError:
        return None


def rate_or_none(token: str, power: int = 0) -> float | None:
    """number_or_none, also None for a negative rate or time, which no run measures (hpcc's
    STREAM prints -1 for a kernel whose best time was 0)."""
    value = number_or_none(token, power)
    return None if value is None or value < 0 else value


@dataclass
class _Row:
    tv: str
    sizes: tuple[int, int, int, int]
    time: str
    gflops: str
    threshold: float | None
    checks: list[tuple[float | None, str]] = field(default_factory=list)


def looks_like_hpl(text: str) -> bool:
    """True when `text` holds an HPLinpack banner or HPL's result header."""
    return bool(_DETECT.search(text))


def read_tests(lines: Iterable[str]) -> list[HplTest]:
    """Every test row of HPL output in `lines`, in order, each with its residual check."""
    return [_test(row) for row in _rows(lines)[1]]


@guard("HPL output")
def parse_hpl(text: str) -> list[HplRecord]:
    """HplRecords of every test in `text` (see the module doc); ValueError when it holds none."""
    lines = text.splitlines()
    runs, rows = _rows(lines)
    if not rows:
        raise ValueError("HPL output: no test result found (looked for a 'T/V  N  NB  P  Q  Time  "
                         "Gflops' header followed by a W... row; the file may end before the first)")
    variant = _variant(lines)
    records = []
    for index, (row, run) in enumerate(zip(rows, runs, strict=True)):
        version = run[1]
        records.append(HplRecord(**_test(row).model_dump(), tool_version=version, variant=variant,
                                 run=run[0], test=index))
    return records


def _rows(lines: Iterable[str]) -> tuple[list[tuple[int | None, str | None]], list[_Row]]:
    """The test rows, and for each the run (banner count, HPLinpack version) it belongs to."""
    rows: list[_Row] = []
    runs: list[tuple[int | None, str | None]] = []
    run: tuple[int | None, str | None] = (None, None)
    threshold: float | None = None
    header = False
    for line in lines:
        if m := _BANNER.search(line):
            run = ((run[0] + 1) if run[0] is not None else 0, m.group(1))
            threshold, header = None, False
        elif m := _THRESHOLD.search(line):
            threshold = number_or_none(m.group(1))
        elif _HEADER.match(line):
            header = True
        elif header and (m := _ROW.match(line)):
            sizes = tuple(int(g) for g in m.group(2, 3, 4, 5))
            rows.append(_Row(m.group(1), sizes, m.group(6), m.group(7), threshold))  # type: ignore[arg-type]
            runs.append(run)
        elif rows and (m := _RESIDUAL.match(line)):
            rows[-1].checks.append((number_or_none(m.group(1)), m.group(2)))
    return runs, rows


def _test(row: _Row) -> HplTest:
    residuals = [r for r, _ in row.checks if r is not None]
    residual = max(residuals) if residuals else None
    passed: bool | None = None
    if row.checks:
        passed = all(word == "PASSED" for _, word in row.checks)
        if passed and residual is not None and row.threshold is not None:
            passed = residual < row.threshold
    flops = rate_or_none(row.gflops, 9)
    n, nb, p, q = row.sizes
    return HplTest(tv=row.tv, n=n, nb=nb, p=p, q=q, time_s=rate_or_none(row.time),
                   flops_per_s=flops if passed else None,
                   untrusted_flops_per_s=None if passed else flops,
                   residual=residual, residual_threshold=row.threshold, passed=passed)


def _variant(lines: list[str]) -> str:
    """Which build wrote the file, from its own lines: NVIDIA names itself, Intel's MKL build
    prints per-column progress; else netlib's layout."""
    for line in lines:
        if m := _NVIDIA.match(line):
            return m.group(1).replace("  ", " ")
    if any(_INTEL.search(line) for line in lines):
        return "Intel MKL"
    return "netlib"
