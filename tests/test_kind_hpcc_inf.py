"""hpccinf.txt for the hpl and stream steps: sized from a host's cores and memory, overridden
field by field, or given whole and read back (fast tier: no hpcc needed)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from stackprobe.kinds import registry
from stackprobe.kinds.hpc.hpcc_inf import n_for_memory, near_square, render, sizes
from stackprobe.kinds.hpc.hpcc_run import blas_name
from stackprobe.kinds.hpc.hpl import HplStep
from stackprobe.parsers.hpc.hpccinf import parse_hpccinf
from stackprobe.schema.hpc_records import HpccRecord, HplTest
from stackprobe.schema.records import CpuRecord, MemBwRecord
from stackprobe.schema.results import StepResult

GIB = 1024**3


@pytest.mark.parametrize(("procs", "grid"), [(1, (1, 1)), (2, (1, 2)), (4, (2, 2)), (6, (2, 3)),
                                             (7, (1, 7)), (12, (3, 4)), (64, (8, 8)), (96, (8, 12))])
def test_the_grid_is_near_square_with_p_not_above_q(procs, grid):
    assert near_square(procs) == grid


def test_n_fills_the_memory_fraction_in_multiples_of_nb():
    n = n_for_memory(256 * GIB, 0.5, 192)
    assert n % 192 == 0
    assert 8 * n * n <= 0.5 * 256 * GIB < 8 * (n + 192) ** 2
    assert n == 130_944  # sqrt(2^34) = 131072, down to 682 blocks
    assert n_for_memory(24 * GIB, 0.5, 192) == 40_128
    assert n_for_memory(1024, 0.5, 192) == 192  # never below one block


def test_overrides_take_precedence_and_a_wrong_grid_is_refused():
    s = sizes(8, 64 * GIB, n=5000, nb=128, p=2, q=4)
    assert (s.n, s.nb, s.p, s.q) == (5000, 128, 2, 4)
    assert sizes(8, 64 * GIB).grid == "2x4" and sizes(8, 64 * GIB).nb == 192
    with pytest.raises(ValueError, match="p x q = 3x3 = 9, not the 8 processes"):
        sizes(8, 64 * GIB, p=3, q=3)


def test_the_written_file_reads_back_as_hpcc_reads_it():
    text = render(sizes(6, 32 * GIB, memory_fraction=0.25))
    lines = text.splitlines()
    assert len(lines) == 36 and lines[31].startswith("#")
    read = parse_hpccinf(text)
    assert read.ns == (n_for_memory(32 * GIB, 0.25, 192),) and read.nbs == (192,)
    assert read.grids == ((2, 3),) and read.threshold == 16.0 and read.smallest_grid == 6


@pytest.mark.parametrize(("line", "value", "message"), [
    (6, "abc", "line 6: Ns: not a whole number: 'abc'"),
    (5, "30", "line 5: # of problems sizes (N): 30 is more than HPL takes"),
    (11, "0", "line 11: Ps: 0 is below 1"),
    (13, "x", "line 13: threshold: not a number"),
    (12, "", "line 12: Qs: 1 value(s) expected, found 0"),
])
def test_a_bad_line_is_one_line_naming_line_and_field(line, value, message):
    lines = render(sizes(2, GIB, n=1000)).splitlines()
    lines[line - 1] = value
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")) as exc:
        parse_hpccinf("\n".join(lines))
    assert "\n" not in str(exc.value)


def test_a_short_file_is_refused():
    with pytest.raises(ValueError, match="3 lines, HPL's parameters need 13"):
        parse_hpccinf("a\nb\nc\n")


def test_a_given_file_runs_alone_and_p_goes_with_q():
    with pytest.raises(ValidationError, match="hpccinf runs unchanged: remove n, nb"):
        HplStep.model_validate({"kind": "hpl", "hpccinf": "x.txt", "n": 1000, "nb": 64})
    with pytest.raises(ValidationError, match="p and q go together"):
        HplStep.model_validate({"kind": "hpl", "p": 2})
    with pytest.raises(ValidationError, match="processes 3 is not p x q = 4"):
        HplStep.model_validate({"kind": "hpl", "p": 2, "q": 2, "processes": 3})


@pytest.mark.parametrize(("path", "name"), [
    ("/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3\n"
     "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so\n", "openblas-pthread 0.3.21"),
    ("/usr/lib/aarch64-linux-gnu/openblas-openmp/libopenblaso-r0.3.26.so", "openblas-openmp 0.3.26"),
    ("/usr/lib/x86_64-linux-gnu/openblas-serial/libopenblas-r0.3.21.so", "openblas-serial 0.3.21"),
    ("/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0", "reference 3.11.0"),
    ("/usr/lib/x86_64-linux-gnu/atlas/libblas.so.3.10.3", "libblas.so.3.10.3"),
])
def test_the_blas_is_named_by_the_file_the_loader_resolved(path, name):
    assert blas_name(path) == name


def _step(kind: str, records: list) -> StepResult:
    return StepResult(id=f"01-{kind}", index=1, name=kind, kind=kind, title=kind,
                      layer="hardware", params={}, hosts=["h1", "h2"], records=records)


def test_rows_of_hosts_with_hpcc_and_of_a_host_measured_by_the_fallback():
    """h1 ran hpcc, h2 had none: HPL's row for h1, stress-ng's for h2 saying it stands in."""
    hpl = HpccRecord(host="h1", procs=2, focus="hpl",
                     hpl=HplTest(tv="WR11C2R4", n=2000, nb=192, p=1, q=2, passed=True,
                                 flops_per_s=5e10))
    cpu = CpuRecord(host="h2", stressor="matrix", workers=2, bogo_ops=100, seconds=2.0,
                    bogo_ops_per_s=50.0, fallback="HPL: hpcc or mpirun not found on h2")
    rows = registry.kind("hpl").rows(_step("hpl", [hpl, cpu]))
    assert [(r.test, r.ops_unit, r.note) for r in rows] == [
        ("CPU matrix bogo ops/s (h2)", None, "fallback for HPL: hpcc or mpirun not found on h2"),
        ("HPL, N=2000 NB=192 P x Q=1x2 (h1)", "flop/s", "residual PASSED")]
    star = HpccRecord(host="h1", procs=2, focus="stream", stream_bw_bytes={"star_triad": 5e9})
    bw = MemBwRecord(host="h2", tool="sysbench", operation="read", bw_bytes=2e10, threads=2,
                     fallback="STREAM: hpcc or mpirun not found on h2")
    rows = registry.kind("stream").rows(_step("stream", [star, bw]))
    assert [(r.test, r.bw_bytes) for r in rows] == [
        ("STREAM triad (all processes, h1)", 1e10), ("Memory read bandwidth (sysbench, h2)", 2e10)]
    assert rows[1].note == "fallback for STREAM: hpcc or mpirun not found on h2"
