"""hpcc's input file, hpccinf.txt -> the sizes a run reports (N, NB, P x Q, the threshold).

Why stackprobe reads a file it may have written itself: a suite may give its own
hpccinf.txt (`hpccinf:` of the hpl and stream steps), which runs unchanged; the step still
has to say which N, NB and grid it ran, and hpcc does not stop on a file it cannot read —
HPL's input reader falls back to hpcc's defaults (N from 64 MiB per process) and the run
measures something nobody asked for. So the file is checked before hpcc starts.

The layout is HPL's HPL.dat, read line by line, the first tokens of a line being its
values (hpcc's README, "Runtime Configuration"; HPL's HPL_pdinfo.c): line 5 the number of
problem sizes, line 6 the sizes; 7 and 8 the block sizes; 9 the process mapping; 10 the
number of grids, 11 their Ps, 12 their Qs; 13 the residual threshold. Lines 1-4 are
ignored by hpcc (output goes to hpccoutf.txt whatever they say); the lines after 13 set
HPL's algorithm and PTRANS's extra sizes and are not needed to report a run. HPL takes at
most 20 values of each list (HPL_MAX_PARAM).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

MAX_VALUES = 20  # HPL_MAX_PARAM
_INT = re.compile(r"[+-]?\d{1,9}\Z")
_FLOAT = re.compile(r"[+-]?(?:\d{1,30}(?:\.\d{0,30})?|\.\d{1,30})(?:[eE][+-]?\d{1,3})?\Z")


@dataclass(frozen=True)
class HpccInput:
    """What an hpccinf.txt asks of HPL (and, through the largest N, of every other test)."""

    ns: tuple[int, ...]
    nbs: tuple[int, ...]
    grids: tuple[tuple[int, int], ...]  # (P, Q) of each process grid, in order
    threshold: float  # a residual above it FAILS; a negative one skips the check

    @property
    def largest_n(self) -> int:
        return max(self.ns)

    @property
    def smallest_grid(self) -> int:
        """Processes of the smallest grid: hpcc sizes STREAM, DGEMM, FFT and RandomAccess
        from 8 * N_max^2 / this (its io.c, HPLMaxProcMem)."""
        return min(p * q for p, q in self.grids)


def parse_hpccinf(text: str) -> HpccInput:
    """The sizes of an hpccinf.txt; ValueError naming the line and field it cannot read."""
    lines = text.splitlines()
    if len(lines) < 13:
        raise ValueError(f"hpccinf.txt: {len(lines)} lines, HPL's parameters need 13 "
                         "(N on line 6, NB on 8, P and Q on 11 and 12, the threshold on 13)")
    ns = _ints(lines, 6, "Ns", _count(lines, 5, "# of problems sizes (N)"), minimum=1)
    nbs = _ints(lines, 8, "NBs", _count(lines, 7, "# of NBs"), minimum=1)
    grids = _count(lines, 10, "# of process grids (P x Q)")
    ps = _ints(lines, 11, "Ps", grids, minimum=1)
    qs = _ints(lines, 12, "Qs", grids, minimum=1)
    token = _tokens(lines, 13, "threshold", 1)[0]
    if not _FLOAT.match(token) or not math.isfinite(float(token)):
        raise ValueError(f"hpccinf.txt line 13: threshold: not a number: {token[:30]!r}")
    return HpccInput(ns=ns, nbs=nbs, grids=tuple(zip(ps, qs, strict=True)), threshold=float(token))


def _tokens(lines: list[str], number: int, field: str, count: int) -> list[str]:
    tokens = lines[number - 1].split()
    if len(tokens) < count:
        raise ValueError(f"hpccinf.txt line {number}: {field}: {count} value(s) expected, "
                         f"found {len(tokens)}")
    return tokens[:count]


def _count(lines: list[str], number: int, field: str) -> int:
    (value,) = _ints(lines, number, field, 1, minimum=1)
    if value > MAX_VALUES:
        raise ValueError(f"hpccinf.txt line {number}: {field}: {value} is more than HPL "
                         f"takes ({MAX_VALUES})")
    return value


def _ints(lines: list[str], number: int, field: str, count: int, minimum: int) -> tuple[int, ...]:
    values = []
    for token in _tokens(lines, number, field, count):
        if not _INT.match(token):
            raise ValueError(f"hpccinf.txt line {number}: {field}: not a whole number: {token[:30]!r}")
        if int(token) < minimum:
            raise ValueError(f"hpccinf.txt line {number}: {field}: {int(token)} is below {minimum}")
        values.append(int(token))
    return tuple(values)
