"""hpccinf.txt made from a host's cores and memory, or taken from the suite unchanged.

Why generated: HPL's figure depends on N (the matrix fills a share of RAM), NB (the BLAS's
best block) and the P x Q grid (near-square, P <= Q, for the least communication); and
hpcc sizes every other test from the same file — STREAM's arrays, DGEMM, FFT and
RandomAccess take 8 * N_max^2 / (processes of the smallest grid) bytes per process (its
io.c). So one N sets both what HPL solves and what STREAM streams.

The lines after the grid set HPL's algorithm; they are HPL's usual choices, the same hpcc
itself takes when it has no input file (right-looking panels, Crout recursion, NBMIN 4, two
divisions, the modified increasing ring broadcast, look-ahead 1, mixed swapping at 64).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from stackprobe.parsers.hpc.hpccinf import HpccInput, parse_hpccinf

DEFAULT_NB = 192  # a block size OpenBLAS's dgemm runs near its peak with (HPL's tuning: 32-256)
DEFAULT_MEMORY_FRACTION = 0.5
THRESHOLD = 16.0  # HPL's residual threshold


@dataclass(frozen=True)
class HpccSizes:
    n: int
    nb: int
    p: int
    q: int
    threshold: float = THRESHOLD

    @property
    def grid(self) -> str:
        return f"{self.p}x{self.q}"


def near_square(processes: int) -> tuple[int, int]:
    """(P, Q) with P * Q == processes, P <= Q, P as large as it can be."""
    if processes < 1:
        raise ValueError(f"processes: {processes} is below 1")
    p = math.isqrt(processes)
    while processes % p:
        p -= 1
    return p, processes // p


def n_for_memory(memory_bytes: int, fraction: float, nb: int) -> int:
    """The largest multiple of NB whose matrix (8 * N^2 bytes, all processes together)
    fits in `fraction` of `memory_bytes`; at least NB."""
    n = math.isqrt(int(memory_bytes * fraction) // 8)
    return max(nb, n // nb * nb)


def sizes(processes: int, memory_bytes: int, *, n: int | None = None, nb: int | None = None,
          p: int | None = None, q: int | None = None,
          memory_fraction: float = DEFAULT_MEMORY_FRACTION) -> HpccSizes:
    """The run's sizes: what the suite sets, the rest from the host."""
    block = nb or DEFAULT_NB
    if p is not None and q is not None:
        if p * q != processes:
            raise ValueError(f"p x q = {p}x{q} = {p * q}, not the {processes} processes")
        grid = (p, q)
    else:
        grid = near_square(processes)
    size = n if n is not None else n_for_memory(memory_bytes, memory_fraction, block)
    return HpccSizes(n=size, nb=block, p=grid[0], q=grid[1])


def render(s: HpccSizes) -> str:
    """hpccinf.txt for one N, one NB and one grid (lines 1-4 are not read by hpcc)."""
    rows = [
        ("HPC Challenge input written by stackprobe", ""),
        ("stackprobe", ""),
        ("HPL.out", "not used: hpcc writes hpccoutf.txt"),
        ("6", "not used"),
        ("1", "number of N"), (str(s.n), "N"),
        ("1", "number of NB"), (str(s.nb), "NB"),
        ("0", "process mapping: row-major"),
        ("1", "number of grids"), (str(s.p), "P"), (str(s.q), "Q"),
        (f"{s.threshold:g}", "residual threshold"),
        ("1", "number of panel factorizations"), ("2", "right-looking"),
        ("1", "number of NBMIN"), ("4", "NBMIN"),
        ("1", "number of NDIV"), ("2", "NDIV"),
        ("1", "number of recursive factorizations"), ("1", "Crout"),
        ("1", "number of broadcasts"), ("1", "increasing ring, modified"),
        ("1", "number of look-ahead depths"), ("1", "look-ahead depth"),
        ("2", "swapping: mixed"), ("64", "swapping threshold"),
        ("0", "L1 transposed"), ("0", "U transposed"),
        ("1", "equilibration"), ("8", "memory alignment in doubles"),
        ("#" * 20, "line 32 separates HPL's part from hpcc's"),
        ("0", "additional PTRANS sizes"), ("0", "PTRANS N (none)"),
        ("0", "additional PTRANS block sizes"), ("0", "PTRANS NB (none)"),
    ]
    return "".join(f"{value:<14}{note}\n".rstrip() + "\n" for value, note in rows)


def check_given(text: str) -> HpccInput:
    """A suite's own hpccinf.txt, read enough to report N, NB and P x Q; ValueError (one
    line, with the line and field) when HPL could not read it either."""
    return parse_hpccinf(text)
