"""HPL.out parser on public outputs of netlib HPL 2.3, Intel MKL's build and HPL-NVIDIA
(tests/fixtures/public/hpl, SOURCES.md "## HPL / LINPACK"): every test row's figures as the
file prints them, the residual check as the rule that decides what is a result, cut files,
and what `stackprobe ingest` shows.

The FAILED, cut-short and HPL 1.x cases are derived here from the real netlib file by the
replacements each test states (no public HPL.out with a FAILED check was found)."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import FIXTURES, run_cli
from stackprobe.ingest.detect import detect
from stackprobe.parsers.hpc.hpl_out import looks_like_hpl, parse_hpl
from stackprobe.schema.hpc_records import HplRecord

HPL = FIXTURES / "public" / "hpl"
NETLIB = "hpl-2.3_netlib_alaska_P4xQ8.txt"
INTEL = "hpl-2.3_intel-mkl-variant_alaska_progress-lines.txt"
NVIDIA = "hpl-nvidia-1.0.0_hpl-2.1_gpu_HPL.out.txt"
SWEEP = "hpl-2.3_multi-test-sweep_HPL.out.txt"
ALL = [INTEL, SWEEP, NETLIB, NVIDIA]
RESIDUAL_LINE = "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=   1.13100920e-03 ...... PASSED"


def read(name: str) -> str:
    return (HPL / name).read_text(errors="replace")


def one_line_error(text: str) -> str:
    with pytest.raises(ValueError) as info:
        parse_hpl(text)
    message = str(info.value)
    assert message and "\n" not in message
    return message


def test_every_fixture_is_covered_here():
    assert sorted(p.name for p in HPL.iterdir()) == sorted(ALL)


@pytest.mark.parametrize(("name", "expected"), [
    (NETLIB, dict(tv="WR11C2R4", n=115584, nb=192, p=4, q=8, time_s=1235.92, flops_per_s=8.3295e11,
                  residual=1.13100920e-03, tool_version="2.3", variant="netlib")),
    (INTEL, dict(tv="WR11C2R4", n=115584, nb=192, p=1, q=1, time_s=1012.71, flops_per_s=1.01654e12,
                 residual=3.92439165e-03, tool_version="2.3", variant="Intel MKL")),
    (NVIDIA, dict(tv="WR03L2L2", n=140960, nb=288, p=2, q=2, time_s=2267.03, flops_per_s=8.237e11,
                  residual=0.0000102, tool_version="2.1", variant="HPL-NVIDIA 1.0.0")),
])
def test_one_test_files_read_as_printed(name, expected):
    (rec,) = parse_hpl(read(name))
    assert rec.model_dump(include=set(expected)) == expected
    assert (rec.passed, rec.residual_threshold, rec.untrusted_flops_per_s) == (True, 16.0, None)
    assert (rec.type, rec.tool, rec.source_format, rec.run, rec.test) == ("hpl", "hpl", "hpl_out", 0, 0)


def test_the_sweep_gives_every_row_with_its_own_figures():
    """540 tests (the file's footer says 540 passed); each record equals its row and the
    residual line under it, read here with a plain split."""
    text = read(SWEEP)
    rows = [line.split() for line in text.splitlines() if re.match(r"W[RC]\d", line)]
    residuals = [float(line.split("=")[1].split()[0]) for line in text.splitlines()
                 if line.startswith("||Ax-b||_oo/(")]
    records = parse_hpl(text)
    assert len(records) == len(rows) == len(residuals) == 540
    assert "540 tests completed and passed residual checks" in text
    for i, (rec, row, residual) in enumerate(zip(records, rows, residuals, strict=True)):
        assert rec.test == i and rec.run == 0 and rec.passed is True
        assert [rec.tv, rec.n, rec.nb, rec.p, rec.q, rec.time_s] == [
            row[0], int(row[1]), int(row[2]), int(row[3]), int(row[4]), float(row[5])]
        assert rec.flops_per_s == float(Decimal(row[6]) * 10**9)  # Gflops as printed, x 10^9
        assert rec.residual == residual
    first, last = records[0], records[-1]
    assert (first.tv, first.n, first.nb, first.time_s, first.flops_per_s) == ("WR00R2C4", 1000, 32, 0.03, 2.2351e10)
    assert (last.tv, last.n, last.nb, last.time_s, last.flops_per_s) == ("WR10R2L8", 10000, 256, 14.03, 4.7515e10)
    assert last.residual == 3.21322251e-03


def test_a_failed_residual_is_kept_but_is_no_result():
    """Derived: the netlib file's residual line says 27.5 ...... FAILED."""
    text = read(NETLIB).replace(RESIDUAL_LINE, RESIDUAL_LINE.replace(
        "1.13100920e-03 ...... PASSED", "2.75000000e+01 ...... FAILED"))
    (rec,) = parse_hpl(text)
    assert (rec.passed, rec.residual, rec.flops_per_s, rec.untrusted_flops_per_s) == (False, 27.5, None, 8.3295e11)
    stored = rec.to_json()
    assert stored["passed"] is False and "flops_per_s" not in stored
    with pytest.raises(ValueError, match="no result rate"):
        HplRecord(**{**rec.model_dump(), "flops_per_s": 8.3295e11})


def test_passed_over_the_threshold_counts_as_failed():
    """Derived: PASSED printed beside a residual of 20 with the threshold 16.0."""
    text = read(NETLIB).replace("1.13100920e-03 ...... PASSED", "2.00000000e+01 ...... PASSED")
    (rec,) = parse_hpl(text)
    assert (rec.passed, rec.flops_per_s, rec.untrusted_flops_per_s) == (False, None, 8.3295e11)


def test_hpl_1_three_checks_must_all_pass():
    """Derived: HPL 1.x's three residual lines in place of 2.x's one; the second fails."""
    checks = ("||Ax-b||_oo / ( eps * ||A||_1  * N        ) =        0.0228433 ...... PASSED\n"
              "||Ax-b||_oo / ( eps * ||A||_1  * ||x||_1  ) =       17.0052179 ...... FAILED\n"
              "||Ax-b||_oo / ( eps * ||A||_oo * ||x||_oo ) =        0.0055029 ...... PASSED")
    (rec,) = parse_hpl(read(NETLIB).replace(RESIDUAL_LINE, checks))
    assert (rec.passed, rec.residual, rec.flops_per_s) == (False, 17.0052179, None)


def test_a_file_cut_after_the_row_has_no_check():
    text = read(NETLIB)
    (rec,) = parse_hpl(text[: text.index("HPL_pdgesv() start time")])
    assert (rec.passed, rec.residual, rec.flops_per_s, rec.untrusted_flops_per_s) == (None, None, None, 8.3295e11)
    assert rec.n == 115584 and rec.time_s == 1235.92


def test_a_file_cut_before_the_first_row_is_one_line():
    text = read(NETLIB)
    assert "no test result" in one_line_error(text[: text.index("WR11C2R4")])


def test_appended_runs_count_runs_and_tests():
    records = parse_hpl(read(NETLIB) + read(NETLIB))
    assert [(r.run, r.test) for r in records] == [(0, 0), (1, 1)]


def test_inf_and_nan_figures_are_left_out():
    text = read(NETLIB).replace("1235.92             8.3295e+02", "   0.00                   inf")
    (rec,) = parse_hpl(text)
    assert (rec.time_s, rec.flops_per_s, rec.untrusted_flops_per_s, rec.passed) == (0.0, None, None, True)


def test_garbage_is_one_line():
    assert "no test result" in one_line_error("nothing from HPL here\n")
    assert "no test result" in one_line_error("T/V N NB P Q Time Gflops\nWR11 x y\n")


@pytest.mark.parametrize("name", ALL)
def test_detected_as_hpl_by_content(name):
    assert looks_like_hpl(read(name))
    assert detect(read(name)).name == "hpl output"


def test_ingest_shows_each_test_and_its_check(tmp_path: Path):
    failed = tmp_path / "failed.out"
    failed.write_text(read(NETLIB).replace("1.13100920e-03 ...... PASSED", "2.75000000e+01 ...... FAILED"))
    proc = run_cli(["ingest", HPL / NETLIB, failed.name], cwd=tmp_path, check=0)  # a short title
    table_ok, table_failed = proc.stdout.split("failed.out")
    assert re.search(r"WR11C2R4\s*│\s*115584\s*│\s*192\s*│\s*4×8\s*│\s*1235.92\s*│\s*832.95\s*│.*PASSED", table_ok)
    assert "FAILED" in table_failed and "832.95" not in table_failed
