"""mdtest text parser on the public outputs (tests/fixtures/public/mdtest, SOURCES.md):
1.9.3 inside a harness log and standalone, 3.3.0+dev and 3.4.0+dev io500 files, a 3.4.0+dev
standalone run, 4.1.0+dev with rate and time tables. Every expected figure below was read
from the files by eye."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from pydantic import TypeAdapter

from fuzz_support import FAST
from stackprobe.parsers.hpc.mdtest_text import OPERATIONS, looks_like_mdtest, parse_mdtest
from stackprobe.schema.records import MdtestRecord, Record, SummaryStat

PUBLIC = Path(__file__).parent / "fixtures" / "public"
MDTEST = PUBLIC / "mdtest"
AKRR = MDTEST / "mdtest-1.9.3_akrr-wrapped_verbose_dir-and-file-tests.txt"
ARCHER = MDTEST / "mdtest-1.9.3_archer_file-only_with-aprun-trailer.log"
IO500_33 = MDTEST / "mdtest-3.3.0dev_io500-2019_easy-write.txt"
IO500_34 = MDTEST / "mdtest-3.4.0dev_io500-2023_hard-write.txt"
README_34 = MDTEST / "mdtest-3.4.0dev_standalone_dir-file-tree_EXTRACTED-from-readme.txt"
IO500_41 = MDTEST / "mdtest-4.1.0dev_io500-2025_hard-write_rate-and-time.txt"
FIXTURES = [AKRR, ARCHER, IO500_33, IO500_34, README_34, IO500_41]
OTHERS = sorted(p for tool in ("ior", "io500", "fio", "iperf3") for p in (PUBLIC / tool).iterdir())

ALL_NINE = ["dir_create", "dir_stat", "dir_remove", "file_create", "file_stat", "file_read",
            "file_remove", "tree_create", "tree_remove"]


def parse(path: Path) -> list[MdtestRecord]:
    return parse_mdtest(path.read_text())


def by_op(records: list[MdtestRecord], test: int = 0) -> dict[str, MdtestRecord]:
    return {r.operation: r for r in records if r.test == test}


def stat(max_: float, min_: float, mean: float, stddev: float) -> SummaryStat:
    return SummaryStat(max=max_, min=min_, mean=mean, stddev=stddev)


def floats(value) -> list[float]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [f for v in value.values() for f in floats(v)]
    if isinstance(value, list):
        return [f for v in value for f in floats(v)]
    return []


def assert_sound(records: list[MdtestRecord]) -> None:
    """Every figure finite; every record survives the trip through results.json."""
    adapter = TypeAdapter(Record)
    for rec in records:
        assert isinstance(rec, MdtestRecord)
        doc = rec.to_json()
        assert all(math.isfinite(f) for f in floats(doc))
        assert adapter.validate_python(json.loads(json.dumps(doc, allow_nan=False))) == rec


def one_line_error(text: str) -> str:
    with pytest.raises(ValueError) as info:
        parse_mdtest(text)
    message = str(info.value)
    assert message.strip() and "\n" not in message and "\r" not in message, message
    return message


def test_fixture_list_is_complete():
    assert sorted(MDTEST.iterdir()) == sorted(FIXTURES)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_every_fixture_parses_soundly(path):
    records = parse(path)
    assert records
    assert_sound(records)
    for rec in records:
        assert rec.tool == "mdtest" and rec.operation == OPERATIONS[rec.label]
        assert rec.warnings == []
        assert rec.rate.max >= rec.rate.mean >= rec.rate.min > 0
        assert rec.command.startswith(("/", "./")) and "mdtest" in rec.command


# -- 1.9.3 inside AKRR's harness output: four runs, two iterations each -------------------

def test_akrr_four_runs_of_nine_rows():
    records = parse(AKRR)
    assert len(records) == 36
    assert [r.test for r in records] == [t for t in range(4) for _ in range(9)]
    for test in range(4):
        assert [r.operation for r in records if r.test == test] == ALL_NINE
    assert {r.tool_version for r in records} == {"1.9.3"}
    assert {(r.tasks, r.nodes, r.iterations) for r in records} == {(96, 8, 2)}
    assert [by_op(records, t)["file_create"].items for t in range(4)] == [3072, 3072, 11904, 11904]
    assert {r.path for r in records} == {"/gpfs/scratch/xdtas/edge12core"}
    assert all(r.time_s is None and r.stonewall == {} for r in records)


def test_akrr_figures():
    records = parse(AKRR)
    first, second, fourth = by_op(records, 0), by_op(records, 1), by_op(records, 3)
    assert first["dir_create"].label == "Directory creation"
    assert first["dir_create"].rate == stat(104.022, 96.640, 100.331, 3.691)
    assert first["file_create"].rate == stat(114.929, 112.725, 113.827, 1.102)
    assert first["file_stat"].rate == stat(1585248.756, 1381314.525, 1483281.640, 101967.116)
    assert first["tree_remove"].rate == stat(159.619, 105.207, 132.413, 27.206)
    assert second["file_create"].rate.max == 37130.998
    assert second["file_create"].rate.mean == 35892.066
    assert second["tree_create"].rate == stat(2.638, 2.255, 2.446, 0.192)
    assert fourth["file_remove"].rate == stat(104676.237, 96944.422, 100810.329, 3865.907)
    assert first["dir_create"].command.endswith("mdtest -v -I 32 -z 0 -b 0 -i 2")
    assert second["dir_create"].command.endswith("mdtest -v -I 32 -z 0 -b 0 -i 2 -u")
    assert fourth["dir_create"].command.endswith("mdtest -v -I 4 -z 4 -b 2 -i 2 -u")


# -- 1.9.3 on ARCHER: one run, File read never ran, aprun trailer --------------------------

def test_archer():
    records = parse(ARCHER)
    assert [r.operation for r in records] == [
        "file_create", "file_stat", "file_remove", "tree_create", "tree_remove"]
    rec = by_op(records)
    assert rec["file_create"].rate == stat(14062.439, 14062.439, 14062.439, 0.0)
    assert rec["file_stat"].rate.mean == 18519.501
    assert rec["file_remove"].rate.max == 3731.414
    assert rec["tree_remove"].rate.min == 6.385
    first = records[0]
    assert (first.tool_version, first.tasks, first.nodes, first.iterations) == ("1.9.3", 384, 16, 1)
    assert first.items == 1048320
    assert first.path is None  # "Path: " printed empty
    assert first.command == ("/home/z01/z01/aturner/benchmark/ior/src/mdtest -n 2730 -u -F -C -T -r"
                             " -N 24 -d /work/z01/z01/aturner/benchmark/mdtest/tmpdir")


# -- 3.3.0+dev io500 easy write: only creation ran, stonewall line ------------------------

def test_io500_33_easy_write():
    records = parse(IO500_33)
    assert [r.operation for r in records] == ["file_create", "tree_create"]
    create = records[0]
    assert create.rate == stat(82172.600, 82172.583, 82172.593, 0.005)
    assert records[1].rate.mean == 7.202
    assert (create.tool_version, create.tasks, create.nodes, create.iterations) == ("3.3.0+dev", 20, 10, 1)
    assert create.items == 26000000
    assert create.stonewall == {"hit_min": 1227479.0, "hit_max": 1300000.0, "hit_avg": 1284303.1}
    assert create.path == "/ai/io-500-dev/datafiles/io500.2019.05.23-22.00.12"
    assert create.command.startswith('/ai/io-500-dev/bin/mdtest "-C" "-F"')
    assert create.time_s is None


# -- 3.4.0+dev io500 hard write: rate and unit-less time table ----------------------------

def test_io500_34_hard_write():
    records = parse(IO500_34)
    assert [r.operation for r in records] == ["file_create", "tree_create"]
    create, tree = records
    assert create.rate == stat(8174.643, 8174.643, 8174.643, 0.0)
    assert create.time_s == stat(318.025, 318.025, 318.025, 0.0)
    assert tree.rate.max == 124.331 and tree.time_s.mean == 0.008
    assert (create.tool_version, create.tasks, create.nodes, create.items) == ("3.4.0+dev", 30, 30, 30000000)
    assert create.stonewall == {"hit_min": 68869.0, "hit_max": 86658.0, "hit_avg": 83317.4}
    assert create.path == "./datafiles/2023.10.25-16.06.23/mdtest-hard"
    # The time table holds seconds: time x rate = the files created (30 tasks x 86658).
    assert create.time_s.mean * create.rate.mean == pytest.approx(30 * 86658, rel=1e-4)


# -- 3.4.0+dev standalone (from a README): all nine rows, File read zero -----------------

def test_readme_34_all_rows():
    records = parse(README_34)
    assert [r.operation for r in records] == [op for op in ALL_NINE if op != "file_read"]
    assert [r.label for r in records][:3] == ["Directory creation", "Directory stat", "Directory removal"]
    rec = by_op(records)
    assert rec["dir_create"].rate.max == 15732.701
    assert rec["dir_stat"].rate.mean == 24678.272
    assert rec["dir_remove"].rate.min == 12923.846
    assert rec["file_create"].rate == stat(14712.633, 14712.633, 14712.633, 0.0)
    assert rec["tree_create"].rate.mean == 18807.731
    assert rec["tree_remove"].rate.mean == 11994.917
    first = records[0]
    assert (first.tool_version, first.tasks, first.nodes, first.items, first.iterations) == (
        "3.4.0+dev", 1, 1, 40, 1)
    assert first.command == "./mdtest '-C' '-T' '-r' '-k' '-n' '40' '-z' '3' '-b' '3' '-d' '/tablefs/out'"
    assert first.path == "/tablefs/out"


# -- 4.1.0+dev io500 hard write: 'rate (in ops/sec)' and 'time (in ms/op)' ----------------

def test_io500_41_rate_and_time():
    records = parse(IO500_41)
    assert [r.operation for r in records] == ["file_create", "tree_create"]
    create, tree = records
    assert create.rate == stat(3137.656, 3137.656, 3137.656, 0.0)
    assert create.time_s == stat(309.714, 309.714, 309.714, 0.0)
    assert tree.rate.mean == 579.084 and tree.time_s.max == 0.002
    assert (create.tool_version, create.tasks, create.nodes, create.items) == ("4.1.0+dev", 128, 4, 128000000)
    assert create.stonewall == {"hit_min": 7335.0, "hit_max": 7592.0, "hit_avg": 7461.4}
    assert create.path == "/mnt/quobyte/io500/datafiles/mdtest-hard"
    # Despite "(in ms/op)", seconds: time x rate = the files created (128 tasks x 7592).
    assert create.time_s.mean * create.rate.mean == pytest.approx(128 * 7592, rel=1e-4)


# -- detection -------------------------------------------------------------------------------

@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_detects_mdtest(path):
    assert looks_like_mdtest(path.read_text())


@pytest.mark.parametrize("path", OTHERS, ids=lambda p: p.name)
def test_does_not_detect_others(path):
    assert len(OTHERS) > 20
    assert not looks_like_mdtest(path.read_text(errors="replace"))


def test_detects_a_pasted_table_and_not_a_bare_word():
    table = "SUMMARY rate: (of 1 iterations)\n   File creation     :  1.0  1.0  1.0  0.0\n"
    assert looks_like_mdtest(table)
    assert not looks_like_mdtest("File creation took long\nSummary: fine\n")
    assert not looks_like_mdtest("")


# -- bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "", "   \n\n", "hello world\n", "\x00\x01\xff junk \x7f",
    "SUMMARY rate: (of 1 iterations)\n",
    "SUMMARY: (of 1 iterations)\n   Operation   Max   Min   Mean   Std Dev\n",
    "mdtest-3.4.0+dev was launched with 2 total task(s) on 1 node(s)\nCommand line used: mdtest -n 1\n",
], ids=["empty", "blank", "words", "binary", "header-only", "header-and-columns", "banner-only"])
def test_garbage_raises_one_line(text):
    assert one_line_error(text).startswith("mdtest output:")


@pytest.mark.parametrize("path", OTHERS, ids=lambda p: p.name)
def test_other_tools_raise_one_line(path):
    one_line_error(path.read_text(errors="replace"))


def test_all_zero_summary_raises():
    text = ("SUMMARY rate: (of 1 iterations)\n"
            "   File creation     :          0.000          0.000          0.000          0.000\n"
            "   File stat         :          0.000          0.000          0.000          0.000\n")
    assert "zero" in one_line_error(text)


def _cuts(path: Path) -> list[str]:
    """The text cut at every offset of its first summary (and what follows, if small); the
    fast tier (make test-fast) at every fifth."""
    text = path.read_text()
    start = max(0, text.index("SUMMARY") - 200)
    end = min(len(text), text.index("-- finished", start) + 20)
    return [text[:at] for at in range(start, end, 5 if FAST else 1)]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_truncated_parses_what_is_complete(path):
    full = {(r.test, r.operation): r for r in parse(path)}
    parsed = 0
    for text in _cuts(path):
        try:
            records = parse_mdtest(text)
        except ValueError as exc:
            message = str(exc)
            assert message.strip() and "\n" not in message, message
            continue
        parsed += 1
        assert_sound(records)
        for rec in records:
            whole = full[(rec.test, rec.operation)]
            assert rec.rate == whole.rate, (repr(text[-80:]), rec.operation)
            assert rec.time_s in (None, whole.time_s)
    assert parsed > 0


def test_row_cut_at_the_end_is_dropped():
    text = ARCHER.read_text()
    row = "   File stat         :      18519.501      18519.501      18519.501          0.0"
    cut = text[:text.index(row) + len(row)]  # four numbers, the last one cut short
    assert cut.endswith(row)
    records = parse_mdtest(cut)
    assert [r.operation for r in records] == ["file_create"]
    assert records[0].warnings == ["last row 'File stat' may be cut short: dropped"]
    # The same row ended by its newline is complete.
    assert [r.operation for r in parse_mdtest(cut + "00\n")] == [
        "file_create", "file_stat"]


# -- other shapes mdtest prints ----------------------------------------------------------------

def test_nan_figure_becomes_none_with_warning():
    text = ("mdtest-3.3.0 was launched with 4 total task(s) on 1 node(s)\n"
            "SUMMARY rate: (of 1 iterations)\n"
            "   File creation     :        100.000        100.000        100.000           -nan\n"
            "   File stat         :            inf        200.000        300.000          1e999\n")
    records = parse_mdtest(text)
    assert_sound(records)
    create, stat_ = records
    assert create.rate == SummaryStat(max=100.0, min=100.0, mean=100.0, stddev=None)
    assert stat_.rate == SummaryStat(max=None, min=200.0, mean=300.0, stddev=None)
    assert create.warnings == ["File creation stddev is not a finite number: '-nan': left out"]
    assert len(stat_.warnings) == 2 and all("left out" in w for w in stat_.warnings)


def test_per_rank_statistics_columns_read_last_four():
    text = ("mdtest-4.0.0 was launched with 8 total task(s) on 2 node(s)\n"
            "SUMMARY rate (in ops/sec): (of 2 iterations)\n"
            "   Operation     per Rank: Max            Min           Mean      per Iteration:"
            " Max            Min           Mean        Std Dev\n"
            "   File creation            10.000          5.000          7.500         "
            "   60.000         40.000         50.000         10.000\n"
            "   Tree creation            1.000          1.000          1.000         "
            "    2.000          1.000          1.500          0.500\n")
    records = parse_mdtest(text)
    assert [r.operation for r in records] == ["file_create", "tree_create"]
    assert records[0].rate == stat(60.0, 40.0, 50.0, 10.0)
    assert records[1].rate == stat(2.0, 1.0, 1.5, 0.5)
    assert records[0].iterations == 2 and records[0].nodes == 2


def test_time_table_alone():
    text = ("SUMMARY time: (of 1 iterations)\n"
            "   File creation                  12.500         12.500         12.500          0.000\n"
            "   File stat                       0.000          0.000          0.000          0.000\n")
    (rec,) = parse_mdtest(text)
    assert (rec.test, rec.operation, rec.tool_version) == (0, "file_create", None)
    assert rec.time_s == stat(12.5, 12.5, 12.5, 0.0) and rec.rate == SummaryStat()


def test_rows_of_a_run_without_rate_row_have_no_time():
    text = ("SUMMARY rate: (of 3 iterations)\n"
            "   Directory rename          :      10.000          8.000          9.000          1.000\n"
            "\n"
            "SUMMARY time: (of 3 iterations)\n"
            "   Directory rename          :       2.000          1.000          1.500          0.500\n"
            "   File creation             :       5.000          5.000          5.000          0.000\n")
    (rec,) = parse_mdtest(text)
    assert (rec.operation, rec.label, rec.iterations) == ("dir_rename", "Directory rename", 3)
    assert rec.rate == stat(10.0, 8.0, 9.0, 1.0) and rec.time_s == stat(2.0, 1.0, 1.5, 0.5)


def test_second_summary_starts_a_run_and_runs_without_summary_count():
    row = "   File creation     :        {0:.3f}        {0:.3f}        {0:.3f}          0.000\n"
    text = ("mdtest-1.9.3 was launched with 2 total task(s) on 1 node(s)\n"
            "ERROR: something went wrong\n"
            "mdtest-1.9.3 was launched with 4 total task(s) on 2 node(s)\n"
            "SUMMARY: (of 1 iterations)\n" + row.format(11) + "\n"
            "SUMMARY: (of 1 iterations)\n" + row.format(22))
    records = parse_mdtest(text + "\n")
    assert [(r.test, r.tasks, r.rate.mean) for r in records] == [(1, 4, 11.0), (2, None, 22.0)]


def test_stonewall_over_iterations_and_bad_stonewall():
    text = ("mdtest-3.4.0 was launched with 2 total task(s) on 1 node(s)\n"
            "Continue stonewall hit min: 10 max: 20 avg: 15.0 \n"
            "Continue stonewall hit min: 12 max: 30 avg: 25.0 \n"
            "Continue stonewall hit min: nan max: 30 avg: 25.0 \n"
            "SUMMARY rate: (of 2 iterations)\n"
            "   File creation     :        100.000         90.000         95.000          5.000\n")
    (rec,) = parse_mdtest(text)
    assert rec.stonewall == {"hit_min": 10.0, "hit_max": 30.0, "hit_avg": 20.0}
    assert rec.warnings == ["mdtest output: stonewall hit min is not a finite number: 'nan': left out"]


def test_operation_table_covers_every_row_name():
    assert sorted(OPERATIONS.values()) == sorted([
        "dir_create", "dir_stat", "dir_read", "dir_rename", "dir_remove", "file_create",
        "file_stat", "file_read", "file_remove", "tree_create", "tree_remove"])
