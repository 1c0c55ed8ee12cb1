"""hpcc parser on public hpccoutf.txt files of HPC Challenge 1.4.2 and 1.5.0 (tests/fixtures/
public/hpcc, SOURCES.md "## HPC Challenge (hpcc)") and two derived from one of them
(tests/fixtures/synthetic/hpcc, README.md there): the summary's figures in base units, runs
appended to one file, runs cut short (two real ones, one derived), tests that did not run,
a FAILED HPL residual and the other checks that decide what is a result.

Figures: hpcc's Gflops, GB/s, GUP/s are 10^9, Tflops 10^12, usec 10^3 ns; b_eff's MB 10^6 B.
Each is the printed decimal scaled once, so 0.0170316 Tflops is exactly 0.0170316e12."""

from __future__ import annotations

import pytest

from conftest import FIXTURES, run_cli
from stackprobe.ingest.detect import detect
from stackprobe.parsers.hpc.hpcc_out import looks_like_hpcc, parse_hpcc
from stackprobe.schema.hpc_records import HpccRecord

PUBLIC = FIXTURES / "public" / "hpcc"
SYNTHETIC = FIXTURES / "synthetic" / "hpcc"
GRID5000 = "hpcc-1.4.2_grid5000_1proc_3runs-2nd-cut-short_old-stream-check.txt"
TWO_TESTS = "hpcc-1.4.2_ptrans-and-hpl-only.txt"
THREE_RUNS = "hpcc-1.5.0_1proc_3runs-appended.txt"
B_EFF = "hpcc-1.5.0_2procs_b_eff_crlf.txt"
CUT_RA = "hpcc-1.5.0_4procs_cut-short-in-randomaccess.txt"
ALL = [GRID5000, TWO_TESTS, THREE_RUNS, B_EFF, CUT_RA]
CUT_HPL = "hpcc-1.5.0_2procs_cut-short-in-hpl.txt"
HPL_FAILED = "hpcc-1.5.0_2procs_hpl-residual-failed.txt"
ALL_SECTIONS = ["MPIRandomAccess", "StarRandomAccess", "SingleRandomAccess", "MPIRandomAccess_LCG",
                "StarRandomAccess_LCG", "SingleRandomAccess_LCG", "PTRANS", "StarDGEMM", "SingleDGEMM",
                "StarSTREAM", "SingleSTREAM", "MPIFFT", "StarFFT", "SingleFFT", "LatencyBandwidth", "HPL"]


def runs(name: str, folder=PUBLIC) -> list[HpccRecord]:
    return parse_hpcc((folder / name).read_text())


def test_every_fixture_is_covered_here():
    assert sorted(p.name for p in PUBLIC.iterdir()) == sorted(ALL)
    assert sorted(p.name for p in SYNTHETIC.glob("*.txt")) == sorted([CUT_HPL, HPL_FAILED])


def test_a_complete_run_with_b_eff_as_the_summary_says():
    (r,) = runs(B_EFF)
    assert (r.tool, r.tool_version, r.host, r.procs, r.complete, r.success) == (
        "hpcc", "1.5.0", "node02", 2, True, True)
    assert r.sections == ALL_SECTIONS
    assert r.hpl.model_dump() == dict(tv="WR11C2R4", n=8192, nb=64, p=1, q=1, time_s=21.5249,
                                      flops_per_s=0.0170316e12, untrusted_flops_per_s=None,
                                      residual=0.0060508, residual_threshold=16.0, passed=True)
    assert r.stream_bw_bytes == {
        "star_copy": 14.9928e9, "star_scale": 9.57072e9, "star_add": 10.7267e9, "star_triad": 10.634e9,
        "single_copy": 24.1912e9, "single_scale": 15.9408e9, "single_add": 17.6966e9, "single_triad": 17.5664e9}
    assert r.dgemm_flops_per_s == {"star": 15.785e9, "single": 13.7669e9}
    assert r.fft_flops_per_s == {"mpi": 0.780961e9, "star": 3.02027e9, "single": 3.12101e9}
    assert r.ptrans_bw_bytes == {"wall": 0.489271e9}
    assert r.random_access_updates_per_s == {
        "mpi": 0.00213696e9, "mpi_lcg": 0.00215833e9, "star": 0.0315202e9, "star_lcg": 0.0312666e9,
        "single": 0.0304163e9, "single_lcg": 0.0306569e9}
    assert r.pingpong_latency_ns == {"min": 249.651e3, "avg": 267.9e3, "max": 286.15e3}
    assert r.pingpong_bw_bytes == {"min": 0.204546e9, "avg": 0.2082e9, "max": 0.211855e9}
    assert r.ring_latency_ns == {"natural": 340.842e3, "random": 306.858e3}
    assert r.ring_bw_bytes == {"natural": 0.115607e9, "random": 0.110774e9}
    assert r.parameters == {
        "stream_array_elements": 22369621, "stream_threads": 1, "dgemm_n": 4729, "fft_n": 16777216,
        "mpi_fft_n": 16777216, "mpi_fft_procs": 2, "ptrans_n": 4096, "ptrans_nb": 64, "ptrans_p": 1,
        "ptrans_q": 1, "random_access_words": 67108864, "mpi_random_access_words": 134217728}
    assert r.untrusted == {} and r.checks["HPL"] is True and r.checks["StarSTREAM"] is True


def test_the_summary_is_authoritative_and_the_rows_are_kept():
    """The HPL row prints 1.703e+01 Gflops and 21.52 s; the summary 0.0170316 Tflops, 21.5249 s."""
    (r,) = runs(B_EFF)
    (row,) = r.hpl_tests
    assert (row.flops_per_s, row.time_s, r.hpl.flops_per_s, r.hpl.time_s) == (1.703e10, 21.52, 1.70316e10, 21.5249)


def test_hpcc_1_4_2_and_a_real_run_cut_short_between_two_complete_ones():
    first, cut, last = runs(GRID5000)
    assert [r.run for r in (first, cut, last)] == [0, 1, 2]
    assert {r.tool_version for r in (first, cut, last)} == {"1.4.2"}
    assert (first.complete, first.success, first.procs, first.host) == (True, True, 1, "taurus-3.lyon.grid5000.fr")
    assert (first.hpl.flops_per_s, first.hpl.tv, first.hpl.passed) == (0.00857516e12, "WC11C2R4", True)
    assert (last.hpl.flops_per_s, last.hpl.time_s) == (0.00857724e12, 1.30516)
    assert first.stream_bw_bytes["star_triad"] == 12.3286e9 and first.checks["StarSTREAM"] is True  # old "Solution Validates"
    assert first.pingpong_latency_ns == {} and first.ring_bw_bytes == {}  # one process: b_eff printed -1
    assert (cut.complete, cut.success, cut.hpl, cut.procs) == (False, None, None, 1)
    assert cut.sections == ALL_SECTIONS[:4]
    assert cut.random_access_updates_per_s == {"mpi": 0.004140425e9, "star": 0.068429e9, "single": 0.069532e9}


def test_tests_that_did_not_run_are_absent():
    """Only PTRANS and HPL ran: the summary's -1 and its uninitialised 6.95291e-310 for
    StarRandomAccess_LCG_GUPs are no figures."""
    (r,) = runs(TWO_TESTS)
    assert r.sections == ["PTRANS", "HPL"] and r.success is True and r.procs == 2
    assert r.ptrans_bw_bytes == {"wall": 2.48551e9}
    assert (r.hpl.n, r.hpl.nb, r.hpl.flops_per_s, r.hpl.passed) == (200, 50, 0.00122211e12, True)
    assert r.random_access_updates_per_s == r.stream_bw_bytes == r.dgemm_flops_per_s == {}
    assert r.parameters == {"ptrans_n": 100, "ptrans_nb": 50, "ptrans_p": 1, "ptrans_q": 1}


def test_runs_appended_to_one_file():
    records = runs(THREE_RUNS)
    assert [r.run for r in records] == [0, 1, 2]
    assert [r.hpl.flops_per_s for r in records] == [0.00557254e12, 0.00539834e12, 0.00446325e12]
    assert [r.stream_bw_bytes["star_triad"] for r in records] == [68.8907e9, 76.5802e9, 60.168e9]
    assert [r.ptrans_bw_bytes["wall"] for r in records] == [0.527955e9, 0.591815e9, 0.18359e9]


def test_a_real_run_killed_in_randomaccess_gives_what_it_measured():
    (r,) = runs(CUT_RA)
    assert (r.complete, r.success, r.host, r.procs, r.hpl, r.hpl_tests) == (False, None, "hp-laptop", 4, None, [])
    assert r.random_access_updates_per_s == {"mpi": 0.033074488e9, "star": 0.015726e9, "single": 0.064211e9}
    assert r.checks == {"MPIRandomAccess": True, "StarRandomAccess": True}


def test_a_run_killed_during_hpl_keeps_its_sections_and_an_unchecked_row():
    (r,) = runs(CUT_HPL, SYNTHETIC)
    assert (r.complete, r.success, r.hpl) == (False, None, None)
    (row,) = r.hpl_tests
    assert (row.passed, row.flops_per_s, row.untrusted_flops_per_s) == (None, None, 1.703e10)
    assert r.stream_bw_bytes["star_triad"] == 10.634019e9  # "Average Triad GB/s 10.634019"
    assert r.pingpong_latency_ns == {"min": 249651.0, "avg": 267900.0, "max": 286150.0}
    assert r.pingpong_bw_bytes == {"min": 204.546e6, "avg": 208.2e6, "max": 211.855e6}
    assert r.ring_bw_bytes == {"natural": 115.607379e6, "random": 110.774248e6}
    assert r.ptrans_bw_bytes == {"wall": 0.489e9}  # the last WALL row


def test_a_failed_hpl_residual_says_failed_and_gives_no_rate():
    (r,) = runs(HPL_FAILED, SYNTHETIC)
    assert (r.complete, r.success, r.checks["HPL"]) == (True, False, False)
    assert (r.hpl.passed, r.hpl.residual, r.hpl.flops_per_s, r.hpl.untrusted_flops_per_s) == (
        False, 29.5264292, None, 0.0170316e12)
    assert r.hpl_tests[0].passed is False and r.hpl_tests[0].flops_per_s is None
    assert "flops_per_s" not in r.to_json()["hpl"]
    assert r.stream_bw_bytes["star_triad"] == 10.634e9  # the failure is HPL's, and it says so


def test_a_failed_stream_validation_moves_its_figures_out():
    """Derived: StarSTREAM's validation line replaced by hpcc's failure line; Success=0."""
    text = (PUBLIC / B_EFF).read_text()
    star = text.index("Solution Validates", text.index("Begin of StarSTREAM"))
    text = (text[:star] + "Failed Validation on array c[], AvgRelAbsErr > epsilon (1.000000e-13)"
            + text[text.index("\n", star):]).replace("Success=1", "Success=0")
    (r,) = parse_hpcc(text)
    assert r.checks["StarSTREAM"] is False and r.success is False
    assert r.untrusted == {"stream_bw_bytes.star_copy": 14.9928e9, "stream_bw_bytes.star_scale": 9.57072e9,
                           "stream_bw_bytes.star_add": 10.7267e9, "stream_bw_bytes.star_triad": 10.634e9}
    assert sorted(r.stream_bw_bytes) == ["single_add", "single_copy", "single_scale", "single_triad"]
    assert r.dgemm_flops_per_s == {"star": 15.785e9, "single": 13.7669e9}  # the failed check is shown


def test_success_0_with_no_failed_check_shown_distrusts_the_unchecked_tests():
    """Derived: Success=0 alone. DGEMM and FFT show no check of their own; b_eff never fails."""
    (r,) = parse_hpcc((PUBLIC / B_EFF).read_text().replace("Success=1", "Success=0"))
    assert r.dgemm_flops_per_s == {} and r.fft_flops_per_s == {}
    assert r.untrusted["dgemm_flops_per_s.star"] == 15.785e9 and r.untrusted["fft_flops_per_s.mpi"] == 0.780961e9
    assert r.hpl.flops_per_s == 0.0170316e12 and r.pingpong_latency_ns["max"] == 286.15e3


def test_no_run_measured_is_one_line():
    for text in ("", "This is the DARPA/DOE HPC Challenge Benchmark version 1.5.0 October 2012\n"):
        with pytest.raises(ValueError, match="no test section") as info:
            parse_hpcc(text)
        assert "\n" not in str(info.value)


@pytest.mark.parametrize("path", [PUBLIC / n for n in ALL] + [SYNTHETIC / CUT_HPL, SYNTHETIC / HPL_FAILED],
                         ids=lambda p: p.name)
def test_detected_as_hpcc_not_hpl_or_stream(path):
    assert looks_like_hpcc(path.read_text())
    assert detect(path.read_text()).name == "hpcc output"


def test_ingest_shows_each_test_and_says_failed():
    proc = run_cli(["ingest", PUBLIC / B_EFF, SYNTHETIC / HPL_FAILED, PUBLIC / CUT_RA], check=0)
    complete, failed, cut = proc.stdout.split("(hpcc output, run 0)")[1:]
    # a table's title (the file's path, then what the run says) wraps at the table's width,
    # which the checkout's path moves: read it with the wrapping undone
    cut = " ".join(cut.split())
    assert "Success=1" in complete and "17.0316 Gflops" in complete and "PASSED" in complete
    assert "Success=0" in failed and "FAILED" in failed and "17.0316" not in failed
    assert "no summary" in cut and "0.0330745" in cut
