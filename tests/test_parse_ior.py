"""IOR parser on public outputs of IOR 3.0.1 to 4.1.0 (tests/fixtures/public/ior, SOURCES.md
"## IOR"): every file's figures as read off the file, the eras' quirks, detection, and
bad input (garbage, cut files, nan)."""

from __future__ import annotations

import csv
import io
import json
import math
import statistics
from pathlib import Path

import pytest

from stackprobe.parsers.hpc.ior_text import looks_like_ior, parse_ior, parse_ior_rank_csv
from stackprobe.schema.records import IorRecord

PUBLIC = Path(__file__).parent / "fixtures" / "public"
IOR = PUBLIC / "ior"
MIB = 1024**2
GIB = 1024**3

F301 = "ior-3.0.1_akrr-wrapped_multiple-runs.txt"
F310 = "ior-3.1.0_io500-2018_easy-write_cern.txt"
F320 = "ior-3.2.0_io500-2019_easy-write_csiro_with-openmpi-warnings.txt"
F330_AKRR = "ior-3.3.0dev_akrr-wrapped_write-read-multiple-runs.txt"
F330_HARD = "ior-3.3.0dev_io500-2019_hard-read_birmingham.txt"
F340_CORI = "ior-3.4.0dev_cori-burstbuffer_4k-random-iops.txt"
F340_DDN = "ior-3.4.0dev_io500-2023_easy-write_ddn-stonewall-warnings.txt"
F340_PERL = "ior-3.4.0dev_perlmutter_bw-direct-stonewall.txt"
F400 = "ior-4.0.0_standalone_posix-fpp_10-iterations_write-read.txt"
F410 = "ior-4.1.0dev_io500-2024_hard-read_no-summary.txt"
FCSV = "ior-4.1.0dev_saveRankPerformanceDetailsCSV_easy-write.csv"
ALL = [F301, F310, F320, F330_AKRR, F330_HARD, F340_CORI, F340_DDN, F340_PERL, F400, F410, FCSV]

# The warnings IOR 3.4+ prints when a stonewalled phase moved less than expected.
STONEWALL_WARNINGS = [
    "Expected aggregate file size = 35184372088832",
    "Using actual aggregate bytes moved = {moved}",
    "Maybe caused by deadlineForStonewalling",
]


def read(name: str) -> str:
    return (IOR / name).read_text()


def mib(values):
    return pytest.approx([v * MIB for v in values], rel=1e-12)


def floats(value):
    """Every float anywhere in a JSON-like value."""
    if isinstance(value, float):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from floats(v)
    elif isinstance(value, list):
        for v in value:
            yield from floats(v)


def one_line_error(text: str) -> str:
    with pytest.raises(ValueError) as info:
        parse_ior(text)
    message = str(info.value)
    assert message and "\n" not in message
    return message


# -- every file ----------------------------------------------------------------------------


def test_every_fixture_is_covered_here():
    assert sorted(p.name for p in IOR.iterdir()) == sorted(ALL)


@pytest.mark.parametrize("name", ALL)
def test_every_fixture_parses_to_valid_finite_records(name):
    text = read(name)
    assert looks_like_ior(text)
    records = parse_ior(text)
    assert records
    for rec in records:
        doc = rec.to_json()
        assert all(math.isfinite(v) for v in floats(doc))
        assert IorRecord.model_validate(json.loads(json.dumps(doc, allow_nan=False))) == rec
        assert rec.operation in ("write", "read")
        assert rec.bw_bytes.max is not None and rec.bw_bytes.max > 0
        assert rec.bw_bytes.min <= rec.bw_bytes.mean <= rec.bw_bytes.max


@pytest.mark.parametrize(
    "path",
    sorted(p for d in ("mdtest", "io500", "fio", "iperf3") for p in (PUBLIC / d).iterdir()),
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_other_tools_do_not_look_like_ior(path):
    text = path.read_text(errors="replace")
    assert not looks_like_ior(text)
    assert "no IOR results found" in one_line_error(text)


# -- file by file: the figures as printed -------------------------------------------------


def test_301_akrr_twenty_runs_in_harness_output():
    recs = parse_ior(read(F301))
    assert [r.test for r in recs] == list(range(20))
    assert [r.operation for r in recs] == ["write"] * 10 + ["read"] * 10
    apis = ["POSIX", "POSIX", "MPIIO", "MPIIO", "MPIIO", "HDF5", "HDF5", "HDF5", "NCMPI", "NCMPI"]
    assert [r.api for r in recs] == apis * 2  # "HDF5-1.8.14 (Parallel)" in its Summary: block
    fpp = [False, True, False, False, True, False, False, True, False, False]  # -F runs
    assert [r.file_per_process for r in recs] == fpp * 2
    assert [r.bw_bytes.max for r in recs] == mib([
        613.20, 488.70, 517.62, 468.32, 701.60, 544.09, 189.38, 755.65, 317.39, 752.14,
        742.56, 938.84, 492.79, 357.51, 927.21, 812.37, 411.51, 929.46, 861.72, 803.91,
    ])
    assert [r.mean_time_s for r in recs[:3]] == [31.31128, 39.28823, 37.09316]
    for r in recs:
        assert r.tool_version == "3.0.1" and r.source_format == "text"
        assert (r.tasks, r.tasks_per_node, r.repetitions, r.segments) == (96, 12, 1, 1)
        assert r.nodes == 8  # eight hosts in the -vv "task N on host" lines
        assert (r.transfer_bytes, r.block_bytes) == (20 * MIB, 200 * MIB)
        assert r.aggregate_bytes == 20132659200
        assert r.bw_bytes.min == r.bw_bytes.mean == r.bw_bytes.max and r.bw_bytes.stddev == 0
        assert r.ops.max is None  # 3.0's table has no OPs columns
        assert len(r.iterations) == 1 and r.warnings == [] and r.stonewall == {}
    assert recs[0].command == (
        "/projects/ccrstaff/general/appker/edge12core/execs/ior/src/ior -vv -Z -b 200m -t 20m -a POSIX"
        " -w -k -o /gpfs/scratch/xdtas/edge12core/ior.v41LZf7X4/ior_test_file__a_POSIX"
    )
    assert recs[19].path == "/gpfs/scratch/xdtas/edge12core/ior.v41LZf7X4/ior_test_file__a_NCMPI__c"
    assert recs[10].iterations == [{
        "bw_bytes": 742.56 * MIB, "block_bytes": 204800 * 1024, "xfer_bytes": 20480 * 1024,
        "open_s": 0.082365, "wrrd_s": 25.11, "close_s": 22.47, "total_s": 25.86, "iter": 0,
    }]


def test_310_old_summary_block_and_rounded_row():
    (r,) = parse_ior(read(F310))
    assert (r.tool_version, r.operation, r.api, r.test) == ("3.1.0", "write", "MPIIO", 0)
    assert (r.tasks, r.tasks_per_node, r.nodes, r.file_per_process) == (64, 1, None, True)
    assert (r.transfer_bytes, r.block_bytes, r.segments) == (16 * MIB, 16 * MIB, 1860)
    assert r.aggregate_bytes == 1997159792640  # the aggsize column, in bytes in 3.0/3.1
    assert r.bw_bytes.max == pytest.approx(5053.67 * MIB)
    assert r.iterations[0]["bw_bytes"] == 5054 * MIB  # the row rounds from 3600 MiB/s on
    assert r.mean_time_s == 376.88274
    # Printed after the banner, before the test: about the whole run.
    assert r.warnings == ["fsync() only available in POSIX. Using value of 0."]


def test_320_open_mpi_banner_and_stonewall_line():
    (r,) = parse_ior(read(F320))
    assert (r.tool_version, r.operation, r.api) == ("3.2.0", "write", "POSIX")
    assert (r.tasks, r.tasks_per_node, r.segments, r.file_per_process) == (260, 10, 1, True)
    assert (r.transfer_bytes, r.block_bytes) == (2 * MIB, 330 * GIB)
    assert r.bw_bytes.max == pytest.approx(274345.48 * MIB)
    assert r.ops.max == 137172.74
    # aggs(MiB) 87859200.0 is exactly block x segments x tasks.
    assert r.aggregate_bytes == 330 * GIB * 260
    assert r.stonewall == pytest.approx({
        "pairs_min": 168960, "pairs_max": 168960, "min_data_bytes": 330.0 * GIB,
        "mean_data_bytes": 330.0 * GIB, "time_s": 319.8,
    })
    assert r.warnings == []  # the Open MPI banner's WARNING is not IOR's
    # 8 columns (no IOPS/latency yet), a block(KiB) of 346030080.
    assert r.iterations == [{
        "bw_bytes": 274345 * MIB, "block_bytes": 346030080 * 1024, "xfer_bytes": 2048 * 1024,
        "open_s": 0.015440, "wrrd_s": 320.23, "close_s": 0.009578, "total_s": 320.25, "iter": 0,
    }]


def test_330_akrr_ten_write_read_runs():
    recs = parse_ior(read(F330_AKRR))
    assert [r.test for r in recs] == [i // 2 for i in range(20)]
    assert [r.operation for r in recs] == ["write", "read"] * 10
    apis = ["POSIX"] * 2 + ["MPIIO"] * 3 + ["HDF5"] * 3 + ["NCMPI"] * 2
    assert [r.api for r in recs[::2]] == apis and [r.api for r in recs[1::2]] == apis
    assert [r.file_per_process for r in recs[::2]] == [False, True, False, False, True, False, False, True,
                                                        False, False]
    assert [r.bw_bytes.max for r in recs] == mib([
        426.77, 332.55, 571.46, 429.89, 430.38, 377.96, 115.87, 144.62, 564.00, 418.41,
        215.10, 416.17, 76.18, 486.98, 587.81, 430.84, 388.08, 204.63, 229.05, 240.25,
    ])
    assert [r.ops.max for r in recs[:4]] == [21.34, 16.63, 28.57, 21.49]
    assert [r.mean_time_s for r in recs[:2]] == [0.93727, 1.20283]
    for r in recs:
        assert r.tool_version == "3.3.0+dev"
        assert (r.tasks, r.nodes, r.tasks_per_node, r.repetitions) == (2, 2, 1, 1)
        assert (r.transfer_bytes, r.block_bytes, r.aggregate_bytes) == (20 * MIB, 200 * MIB, 400 * MIB)
        assert r.stonewall == {} and r.warnings == []
    assert recs[0].iterations == [{
        "bw_bytes": 426.77 * MIB, "iops": 21.38, "latency_s": 0.093502, "block_bytes": 204800 * 1024,
        "xfer_bytes": 20480 * 1024, "open_s": 0.001392, "wrrd_s": 0.935444, "close_s": 0.037859,
        "total_s": 0.937271, "iter": 0,
    }]


def test_330_io500_hard_read():
    (r,) = parse_ior(read(F330_HARD))
    assert (r.tool_version, r.operation, r.file_per_process) == ("3.3.0+dev", "read", False)
    assert (r.tasks, r.tasks_per_node, r.segments) == (20, 2, 280000)
    assert (r.transfer_bytes, r.block_bytes) == (47008, 47008)
    assert r.bw_bytes.max == pytest.approx(764.89 * MIB) and r.ops.max == 17061.83
    # aggs(MiB) 251049.8 is 47008 x 280000 x 20 within its rounding: the exact product.
    assert r.aggregate_bytes == 47008 * 280000 * 20
    assert r.iterations[0]["block_bytes"] == pytest.approx(45.91 * 1024)
    assert r.mean_time_s == 328.21798


def test_340_cori_4k_random_stonewalled():
    (r,) = parse_ior(read(F340_CORI))
    assert (r.tool_version, r.operation, r.api) == ("3.4.0+dev", "write", "posix")
    assert (r.tasks, r.nodes, r.tasks_per_node, r.segments) == (32, 4, 8, 1024)
    assert (r.transfer_bytes, r.block_bytes) == (4096, 1 * GIB)
    assert r.bw_bytes.max == pytest.approx(603.36 * MIB) and r.ops.max == 154460.15
    assert r.aggregate_bytes == 28485722112  # the actual bytes moved, exact
    assert r.stonewall == {"deadline_s": 45, "wear_out": 0}  # Stonewall columns: NA
    assert r.warnings == [
        STONEWALL_WARNINGS[0], "Stat() of aggregate file size = 34359738368",
        *(w.format(moved=28485722112) for w in STONEWALL_WARNINGS[1:]),
    ]
    assert r.iterations[0]["iops"] == 154484 and r.iterations[0]["latency_s"] == 0.000172


def test_340_ddn_stonewall_columns():
    (r,) = parse_ior(read(F340_DDN))
    assert (r.tasks, r.nodes, r.tasks_per_node, r.file_per_process) == (640, 10, 64, True)
    assert (r.transfer_bytes, r.block_bytes) == (1 * MIB, 60 * GIB)
    assert r.bw_bytes.max == pytest.approx(63359.55 * MIB) and r.ops.max == 63359.55
    assert r.aggregate_bytes == 23116319293440
    assert r.stonewall == pytest.approx({
        "deadline_s": 300, "wear_out": 1, "pairs_min": 28790, "pairs_max": 34446,
        "min_data_bytes": 28.1 * GIB, "mean_data_bytes": 29.8 * GIB,
        "time_s": 300.01,  # the table's two decimals, not the line's 300.0
        "task_bw_bytes": 101.81 * MIB,  # Stonewall(MiB): mean data per task / stonewall time
    })
    # Consistent: 29.8 GiB per task over 300.01 s is the 101.8 MiB/s per task.
    assert r.stonewall["mean_data_bytes"] / r.stonewall["time_s"] == pytest.approx(
        r.stonewall["task_bw_bytes"], rel=2e-3)
    assert r.warnings == [
        "Expected aggregate file size = 41231686041600", "Stat() of aggregate file size = 23116319293440",
        "Using actual aggregate bytes moved = 23116319293440", "Maybe caused by deadlineForStonewalling",
    ]


def test_340_perlmutter_stonewalled_bandwidth():
    (r,) = parse_ior(read(F340_PERL))
    assert (r.tasks, r.nodes, r.tasks_per_node, r.segments) == (32, 4, 8, 1024)
    assert (r.transfer_bytes, r.block_bytes) == (1 * MIB, 1 * GIB)
    assert r.bw_bytes.max == pytest.approx(6906.03 * MIB) and r.mean_time_s == 45.00430
    assert r.aggregate_bytes == 325898469376
    assert r.stonewall == {"deadline_s": 45, "wear_out": 0}
    assert "Stat() of aggregate file size = 325898469376" in r.warnings and len(r.warnings) == 4


def test_400_ten_iterations_with_mean_and_stddev():
    write, read_ = parse_ior(read(F400))
    assert (write.operation, read_.operation) == ("write", "read")
    for r in (write, read_):
        assert (r.tool_version, r.test, r.repetitions) == ("4.0.0", 0, 10)
        assert (r.tasks, r.nodes, r.tasks_per_node, r.file_per_process) == (64, 1, 64, True)
        assert (r.transfer_bytes, r.block_bytes, r.aggregate_bytes) == (1 * MIB, 64 * MIB, 4 * GIB)
        assert [it["iter"] for it in r.iterations] == list(range(10))
    w, rd = write.bw_bytes, read_.bw_bytes
    assert [w.max, w.min, w.mean, w.stddev] == mib([10311.25, 2579.49, 4945.72, 2014.34])
    assert [rd.max, rd.min, rd.mean, rd.stddev] == mib([127371.51, 120928.79, 125174.23, 2287.49])
    assert write.ops.max == 10311.25 and read_.ops.stddev == 2287.49
    assert (write.mean_time_s, read_.mean_time_s) == (0.93715, 0.03273)
    assert [it["bw_bytes"] for it in write.iterations] == mib(
        [10311, 4453, 5198, 3561.85, 4543, 3677, 3906, 5946, 2579.49, 5281])
    # IOR's StdDev is the population one: the rows (rounded) give it back, not the sample one.
    rows = [it["bw_bytes"] for it in write.iterations]
    assert statistics.pstdev(rows) == pytest.approx(w.stddev, rel=1e-3)
    assert statistics.stdev(rows) != pytest.approx(w.stddev, rel=1e-2)


def test_410_io500_results_line_only():
    (r,) = parse_ior(read(F410))
    assert (r.tool_version, r.operation, r.api, r.file_per_process) == ("4.1.0+dev", "read", "POSIX", False)
    assert (r.tasks, r.nodes, r.tasks_per_node, r.repetitions) == (640, 80, 8, 1)
    assert (r.transfer_bytes, r.block_bytes, r.segments) == (47008, 47008, 10000000)
    # No summary table: the one row gives max = min = mean, no stddev, no OPs.
    assert r.bw_bytes.model_dump() == {"max": 233147 * MIB, "min": 233147 * MIB, "mean": 233147 * MIB,
                                       "stddev": None}
    assert r.ops.max is None
    assert r.mean_time_s == 8.54
    assert r.aggregate_bytes == 2086764093440
    assert r.iterations[0]["iops"] == 5234314 and r.iterations[0]["latency_s"] == 8.48
    assert r.warnings == [
        "Expected aggregate file size = 300851200000000", "Stat() of aggregate file size = 2086764093440",
        "Using actual aggregate bytes moved = 2086764093440",
    ]


def test_410_rank_csv():
    text = read(FCSV)
    (r,) = parse_ior_rank_csv(text)
    assert parse_ior(text) == [r]
    assert (r.source_format, r.operation, r.tasks) == ("rank_csv", "write", 640)
    # Ranks 391 and 539 are the fastest and slowest (throughput-withopenclose, bytes/s).
    assert (r.bw_bytes.max, r.bw_bytes.min) == (5.9191331958e08, 5.9190533098e08)
    rows = list(csv.DictReader(io.StringIO(text)))
    bws = [float(row["throughput-withopenclose"]) for row in rows]
    assert r.bw_bytes.mean == pytest.approx(statistics.fmean(bws), rel=1e-12)
    assert r.bw_bytes.stddev == pytest.approx(statistics.pstdev(bws), rel=1e-9)
    assert r.mean_time_s == pytest.approx(statistics.fmean(float(x["runtime-with-openclose"]) for x in rows))


# -- quirks on crafted text ---------------------------------------------------------------

TABLE_HEADER = (
    "Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   Max(OPs)   Min(OPs)  Mean(OPs)     StdDev"
    "    Mean(s) Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps fPP reord reordoff reordrand seed"
    " segcnt   blksiz    xsize aggs(MiB)   API RefNum"
)
ROW_HEADER = (
    "access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    wr/rd(s)   close(s)"
    "   total(s)   iter"
)


def test_script_with_two_tests_in_one_run():
    text = f"""IOR-3.3.0: MPI Coordinated Test of Parallel I/O
Command line        : ior -f script
TestID              : 0
Options:
api                 : POSIX
test filename       : /mnt/a/f0
access              : single-shared-file
tasks               : 4
clients per node    : 4
repetitions         : 1
xfersize            : 1 MiB
blocksize           : 16 MiB

Results:

{ROW_HEADER}
write     100.00     100.00     0.010000    16384      1024.00    0.001000   0.640000   0.001000   0.640000   0
WARNING: about the write of test 0
TestID              : 1
Options:
api                 : MPIIO
test filename       : /mnt/a/f1
access              : file-per-process
tasks               : 4
clients per node    : 4
repetitions         : 1
xfersize            : 2 MiB
blocksize           : 32 MiB

Results:

{ROW_HEADER}
WARNING: about the read of test 1
read      200.00     100.00     0.010000    32768      2048.00    0.001000   0.640000   0.001000   0.640000   0

Summary of all tests:
{TABLE_HEADER}
write         100.00     100.00     100.00       0.00     100.00     100.00     100.00       0.00    0.64000         NA            NA     0      4   4    1   0     0        1         0    0      1 16777216  1048576      64.0 POSIX      0
read          200.00     200.00     200.00       0.00     100.00     100.00     100.00       0.00    0.64000         NA            NA     1      4   4    1   1     0        1         0    0      1 33554432  2097152     128.0 MPIIO      0
Finished            : now
"""  # noqa: E501
    write, read_ = parse_ior(text)
    assert (write.test, write.operation, write.api, write.file_per_process) == (0, "write", "POSIX", False)
    assert (read_.test, read_.operation, read_.api, read_.file_per_process) == (1, "read", "MPIIO", True)
    assert (write.transfer_bytes, read_.transfer_bytes) == (1 * MIB, 2 * MIB)
    assert (write.aggregate_bytes, read_.aggregate_bytes) == (64 * MIB, 128 * MIB)
    assert (write.path, read_.path) == ("/mnt/a/f0", "/mnt/a/f1")
    assert write.command == read_.command == "ior -f script"
    assert write.warnings == ["about the write of test 0"]
    assert read_.warnings == ["about the read of test 1"]
    assert read_.bw_bytes.max == 200 * MIB


def test_warning_before_a_row_belongs_to_that_access_only():
    text = read(F330_HARD).replace("read      764.89", "WARNING: read only\nread      764.89")
    text = text.replace("Options:", "WARNING: for every access\nOptions:")
    (r,) = parse_ior(text)
    assert r.warnings == ["for every access", "read only"]
    write_read = read(F330_AKRR).split("TACC:  Shutdown complete")[0]
    write_read = write_read.replace("Commencing read performance", "WARNING: read side\nCommencing read")
    write, read_ = parse_ior(write_read)
    assert (write.warnings, read_.warnings) == ([], ["read side"])


def test_open_mpi_block_inside_a_run_is_not_an_ior_warning():
    rule = "-" * 74
    banner = f"{rule}\nWARNING: There are more than one active ports on host 'bms04', but the\nNOTE: x\n{rule}\n"
    text = read(F330_HARD).replace("Results: \n", "Results: \n" + banner)
    (r,) = parse_ior(text)
    assert r.warnings == [] and r.bw_bytes.max == pytest.approx(764.89 * MIB)


def test_nan_and_inf_are_left_out_with_a_warning():
    text = read(F340_PERL).replace("write        6906.03    6906.03", "write            nan    6906.03")
    text = text.replace("0.043946    1048576", "inf         1048576")
    (r,) = parse_ior(text)
    assert r.bw_bytes.max is None and r.bw_bytes.min == pytest.approx(6906.03 * MIB)
    assert "latency_s" not in r.iterations[0] and r.iterations[0]["iops"] == 6906
    notes = [w for w in r.warnings if w.endswith("left out")]
    assert len(notes) == 2 and "Max(MiB)" in notes[1] and "Latency(s)" in notes[0]


def test_table_without_banner_and_version():
    table = read(F400).split("Summary of all tests:")[1]
    write, read_ = parse_ior("Summary of all tests:" + table)
    assert write.tool_version is None and write.test == 0
    assert read_.bw_bytes.mean == pytest.approx(125174.23 * MIB) and read_.tasks == 64
    assert looks_like_ior("Summary of all tests:" + table)


def test_a_run_without_result_keeps_its_place():
    failed = "IOR-3.3.0+dev: MPI Coordinated Test of Parallel I/O\nior ERROR: open64 failed, errno 2\n"
    recs = parse_ior(failed + read(F330_HARD))
    assert [r.test for r in recs] == [1]


# -- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "", "   \n\t\n", "hello world\n", "\x00\xff\x00garbage", "write 1 2 3\n", "Max Write: MiB/sec\n",
    "IOR-3.3.0+dev: MPI Coordinated Test of Parallel I/O\nBegan : today\n",
    ROW_HEADER + "\n",
])
def test_garbage_raises_one_line_value_error(text):
    one_line_error(text)


def test_cut_in_the_summary_table_keeps_what_is_complete():
    text = read(F400)
    cut = text[: text.index("read       127371.51") + 40]
    write, read_ = parse_ior(cut)
    assert write.ops.max == 10311.25  # its table row is whole
    assert read_.ops.max is None  # its table row is cut: from the ten result rows
    assert read_.bw_bytes.max == 127372 * MIB and len(read_.iterations) == 10
    assert read_.bw_bytes.mean == pytest.approx(125174.4 * MIB)


def test_cut_in_the_result_rows_says_so():
    text = read(F400)
    cut = text[: text.index("write     3906")]
    write, read_ = parse_ior(cut)
    assert len(write.iterations) == 6 and len(read_.iterations) == 6
    assert write.bw_bytes.mean == pytest.approx(statistics.fmean(
        [10311, 4453, 5198, 3561.85, 4543, 3677]) * MIB)
    assert any("6 of 10 write iterations" in w for w in write.warnings)


@pytest.mark.parametrize("name", ALL)
def test_any_cut_parses_or_raises_value_error(name):
    text = read(name)
    step = max(1, len(text) // 300)
    for end in range(0, len(text), step):
        try:
            records = parse_ior(text[:end])
        except ValueError as exc:
            assert "\n" not in str(exc)
            continue
        for rec in records:
            assert all(math.isfinite(v) for v in floats(rec.to_json()))


def test_rank_csv_cut_and_bad_lines():
    text = read(FCSV)
    cut = text[: text.rindex("\n", 0, len(text) - 1) + 20]  # inside the last line's numbers
    (r,) = parse_ior_rank_csv(cut)
    assert r.tasks == 639 and any("cut short" in w for w in r.warnings)
    lines = text.splitlines()
    with pytest.raises(ValueError, match="line 3"):
        parse_ior_rank_csv("\n".join(lines[:2] + ["write,1,oops"] + lines[3:]))
    with pytest.raises(ValueError, match="not a finite number"):
        parse_ior_rank_csv(lines[0] + "\nwrite,0,1.0000000000e+999,1.0000000000e+00,1.0000000000e+00,"
                           "1.0000000000e+00\n")
    with pytest.raises(ValueError, match="no rank rows"):
        parse_ior_rank_csv(lines[0] + "\n")
