"""STREAM parser on public outputs of stream.c 5.10 (tests/fixtures/public/stream,
SOURCES.md "## STREAM"): serial and OpenMP runs, a Slurm log with four runs, build lines and
job epilogues; the validation as the rule that decides what is a result; cut files.

The failed-validation, older-format and cut cases are derived here from the real files by
the replacements each test states (no public STREAM output with a failed validation was
found). Rates are STREAM's MB/s (10^6 bytes) written as bytes/s: 18514.5 MB/s is 18514.5e6."""

from __future__ import annotations

import pytest

from conftest import FIXTURES, run_cli
from stackprobe.ingest.detect import detect
from stackprobe.parsers.hpc.stream_text import looks_like_stream, parse_stream
from stackprobe.schema.hpc_records import StreamKernel, StreamRecord

STREAM = FIXTURES / "public" / "stream"
SLURM = "stream-5.10_openmp32_slurm-log_4runs_with-build-and-epilogue.txt"
OMP4 = "stream-5.10_openmp4_virtualclient-example.txt"
SERIAL = "stream-5.10_serial-no-openmp_epyc7h12.txt"
ALL = [SLURM, OMP4, SERIAL]
VALIDATES = "Solution Validates: avg error less than 1.000000e-13 on all three arrays"
# What stream.c 5.10 prints for a failed array (checkSTREAMresults), instead of VALIDATES.
FAILED = ("Failed Validation on array c[], AvgRelAbsErr > epsilon (1.000000e-13)\n"
          "     Expected Value: 1.153301e+12, AvgAbsErr: 4.318013e+07, AvgRelAbsErr: 3.744047e-05\n"
          "     AvgRelAbsErr > Epsilon (1.000000e-13)\n"
          "     For array c[], 33554432 errors were found.")


def read(name: str) -> str:
    return (STREAM / name).read_text()


def rates(rec: StreamRecord) -> dict[str, float | None]:
    return {name: k.best_bw_bytes for name, k in rec.kernels.items()}


def test_every_fixture_is_covered_here():
    assert sorted(p.name for p in STREAM.iterdir()) == sorted(ALL)


def test_openmp_run_as_printed():
    (rec,) = parse_stream(read(OMP4))
    assert (rec.tool, rec.tool_version, rec.run, rec.validated) == ("stream", "5.10", 0, True)
    assert (rec.array_elements, rec.offset_elements, rec.bytes_per_element, rec.ntimes) == (268435456, 0, 8, 100)
    assert (rec.threads, rec.threads_requested) == (4, 4)
    assert rates(rec) == {"copy": 18514.5e6, "scale": 18333.8e6, "add": 23043.7e6, "triad": 23314.0e6}
    assert rec.kernels["triad"] == StreamKernel(best_bw_bytes=23314.0e6, avg_time_s=0.291828,
                                                min_time_s=0.276334, max_time_s=0.337149)
    assert rec.validation == VALIDATES


def test_serial_run_has_no_threads():
    (rec,) = parse_stream(read(SERIAL))
    assert (rec.threads, rec.threads_requested, rec.array_elements, rec.ntimes) == (None, None, 20000000, 20)
    assert rates(rec) == {"copy": 30813.6e6, "scale": 19298.0e6, "add": 22216.1e6, "triad": 22263.5e6}
    assert rec.kernels["copy"].min_time_s == 0.010385


def test_a_slurm_log_gives_each_run_between_build_lines_and_epilogues():
    records = parse_stream(read(SLURM))
    assert [r.run for r in records] == [0, 1, 2, 3]
    assert [r.array_elements for r in records] == [100000000] * 3 + [400000000]
    assert {(r.threads, r.ntimes, r.validated) for r in records} == {(32, 10, True)}
    assert [rates(r) for r in records] == [
        {"copy": 99956.6e6, "scale": 96118.3e6, "add": 111301.5e6, "triad": 110340.1e6},
        {"copy": 151028.2e6, "scale": 145498.7e6, "add": 109379.8e6, "triad": 108878.2e6},
        {"copy": 149002.8e6, "scale": 143858.1e6, "add": 145203.9e6, "triad": 144131.1e6},
        {"copy": 144445.9e6, "scale": 143706.2e6, "add": 141536.6e6, "triad": 141661.7e6},
    ]


def test_a_failed_validation_is_kept_but_gives_no_rate():
    """Derived: the 4-thread run with stream.c's failure lines for array c[]."""
    (rec,) = parse_stream(read(OMP4).replace(VALIDATES, FAILED))
    assert rec.validated is False
    assert rec.validation == "Failed Validation on array c[], AvgRelAbsErr > epsilon (1.000000e-13)"
    assert rates(rec) == dict.fromkeys(("copy", "scale", "add", "triad"))
    assert rec.kernels["triad"].untrusted_bw_bytes == 23314.0e6
    assert "best_bw_bytes" not in rec.to_json()["kernels"]["triad"]
    with pytest.raises(ValueError, match="no result rate"):
        StreamRecord(validated=False, kernels={"triad": StreamKernel(best_bw_bytes=1.0)})


def test_one_failed_run_of_four_leaves_the_others_their_rates():
    text = read(SLURM)
    second = text.index(VALIDATES, text.index(VALIDATES) + 1)
    records = parse_stream(text[:second] + FAILED + text[second + len(VALIDATES):])
    assert [r.validated for r in records] == [True, False, True, True]
    assert records[1].kernels["copy"].untrusted_bw_bytes == 151028.2e6
    assert records[2].kernels["copy"].best_bw_bytes == 149002.8e6


def test_a_file_cut_after_the_table_has_no_check():
    text = read(OMP4)
    (rec,) = parse_stream(text[: text.index("Solution")])
    assert (rec.validated, rec.validation) == (None, None)
    assert rec.kernels["add"].untrusted_bw_bytes == 23043.7e6 and rec.kernels["add"].best_bw_bytes is None


def test_a_file_cut_in_the_table_keeps_the_kernels_printed():
    text = read(OMP4)
    (rec,) = parse_stream(text[: text.index("Add:")])
    assert sorted(rec.kernels) == ["copy", "scale"]


def test_a_file_cut_before_the_table_is_one_line():
    text = read(OMP4)
    with pytest.raises(ValueError, match="no result table") as info:
        parse_stream(text[: text.index("Function")])
    assert "\n" not in str(info.value)


def test_a_table_without_its_banner_is_one_run():
    text = read(SERIAL)
    (rec,) = parse_stream(text[text.index("Function"):])
    assert (rec.tool_version, rec.array_elements, rec.validated) == (None, None, True)
    assert rec.kernels["triad"].best_bw_bytes == 22263.5e6


def test_older_layout_is_read():
    """Derived: the serial run in the layout of stream.c before 5.10 ('Rate (MB/s)', 'per
    DOUBLE PRECISION word', 'Each test is run N times', no '(elements)')."""
    text = (read(SERIAL)
            .replace("bytes per array element", "bytes per DOUBLE PRECISION word")
            .replace("Array size = 20000000 (elements), Offset = 0 (elements)", "Array size = 20000000, Offset = 0")
            .replace("Each kernel will be executed 20 times.", "Each test is run 20 times, but only")
            .replace("Function    Best Rate MB/s  Avg time", "Function      Rate (MB/s)   Avg time")
            .replace(VALIDATES, "Solution Validates"))
    (rec,) = parse_stream(text)
    assert (rec.bytes_per_element, rec.array_elements, rec.ntimes, rec.validated) == (8, 20000000, 20, True)
    assert rec.kernels["scale"].best_bw_bytes == 19298.0e6


def test_nan_and_negative_figures_are_left_out():
    text = read(SERIAL).replace("30813.6     0.011393", "    nan    -0.011393")
    (rec,) = parse_stream(text)
    assert (rec.kernels["copy"].best_bw_bytes, rec.kernels["copy"].avg_time_s) == (None, None)


@pytest.mark.parametrize("name", ALL)
def test_detected_as_stream_by_content(name):
    assert looks_like_stream(read(name))
    assert detect(read(name)).name == "stream output"


def test_ingest_shows_the_rates_and_the_check(tmp_path):
    failed = tmp_path / "failed.txt"
    failed.write_text(read(OMP4).replace(VALIDATES, FAILED))
    proc = run_cli(["ingest", STREAM / OMP4, failed], check=0)
    good, bad = proc.stdout.split("failed.txt")
    assert "23314.0" in good and "PASSED" in good
    assert "FAILED validation" in bad and "23314.0" not in bad
