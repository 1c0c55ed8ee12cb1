"""OSU Micro-Benchmarks parser on public outputs (tests/fixtures/public/osu, SOURCES.md "## OSU
Micro-Benchmarks"): osu_latency, osu_bw, osu_bibw, osu_mbw_mr of 5.0 to 5.7.1, a BOM and a
missing last newline, rows after launcher lines; `stackprobe ingest` on each as a user runs it.

Synthetic files (tests/fixtures/synthetic/osu), each derived from a public one, since no
citable 7.x output or cut file was found:
- osu_bw_v7.3-header_datatype_in-job-log.txt: osu_bw_v5.6.2_alaska with the banner's
  version set to v7.3, 7.x's "# Datatype: MPI_CHAR." after the column header, three srun
  lines before and one after (test_7x_header_in_a_job_log checks the rows are the 5.6.2 ones);
- osu_latency_v7.3-full-stats_from-5.6.2-and-5.6.3.txt: -f's columns laid out as OSU
  prints them (10 + 18 + 18 + 18 + 12 wide); Avg is the 5.6.2 alaska figure, Min and Max the
  lower and higher of the 5.6.2 and 5.6.3 figures for the size, Iterations OSU's defaults
  (10000 up to 8 KiB, 1000 above);
- osu_mbw_mr_cut-mid-row.txt: the osu_mbw_mr file cut after "524288              12414.".

OSU's MB/s is 10^6 bytes/s (the benchmarks compute size / 1e6 * iterations * window / time),
so 12164.86 MB/s is 12164.86e6 bytes/s; its µs are 10^3 ns."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES, run_cli
from stackprobe.ingest.detect import detect
from stackprobe.parsers.network.osu_text import looks_like_osu, parse_osu

PUBLIC = FIXTURES / "public" / "osu"
SYNTHETIC = FIXTURES / "synthetic" / "osu"
BW = "osu_bw_v5.6.2_alaska-ib-openmpi4.txt"
BOM = "osu_bw_v5.7.1_virtualclient-example_utf8-bom.txt"
LAT = "osu_latency_v5.6.2_alaska-ib-openmpi4.txt"
LAT3 = "osu_latency_v5.6.3_csd3-cclake-ompi3.txt"
BIBW = "osu_bibw_v5.6.2_alaska-ib-impi-verbs.txt"
MBW = "osu_mbw_mr_v5.6.2_alaska-ib-impi-verbs_8pairs.txt"
SRUN = "osu_latency_v5.0_srun-log_libfabric-cray-pr-859.txt"
V7 = "osu_bw_v7.3-header_datatype_in-job-log.txt"
FULL = "osu_latency_v7.3-full-stats_from-5.6.2-and-5.6.3.txt"
CUT = "osu_mbw_mr_cut-mid-row.txt"
# file -> (benchmark, version, rows, first size, last size, the figure checked, its field, row)
EXPECTED = {
    BW: ("osu_bw", "5.6.2", 23, 1, 4194304, 12164.86e6, "bw_bytes", -1),
    BOM: ("osu_bw", "5.7.1", 23, 1, 4194304, 3455.26e6, "bw_bytes", -1),
    LAT: ("osu_latency", "5.6.2", 24, 0, 4194304, 351210.0, "latency_ns", -1),
    LAT3: ("osu_latency", "5.6.3", 24, 0, 4194304, 980.0, "latency_ns", 0),
    BIBW: ("osu_bibw", "5.6.2", 23, 1, 4194304, 6660.37e6, "bw_bytes", 13),
    MBW: ("osu_mbw_mr", "5.6.2", 23, 1, 4194304, 8710288.67, "messages_per_s", 0),
    SRUN: ("osu_latency", "5.0", 24, 0, 4194304, 497370.0, "latency_ns", -1),
}


def read(name: str, folder=PUBLIC) -> str:
    return (folder / name).read_text(encoding="utf-8")


def test_every_public_fixture_is_covered_here():
    assert sorted(p.name for p in PUBLIC.iterdir()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_public_file_as_printed(name):
    bench, version, count, first, last, value, field, at = EXPECTED[name]
    (rec,) = parse_osu(read(name))
    assert (rec.benchmark, rec.tool_version, rec.complete, rec.run) == (bench, version, True, 0)
    assert [len(rec.rows), rec.rows[0].size_bytes, rec.rows[-1].size_bytes] == [count, first, last]
    assert getattr(rec.rows[at], field) == value
    assert looks_like_osu(read(name)) and detect(read(name)).name == "osu output"


def test_mbw_mr_pairs_window_and_both_columns():
    (rec,) = parse_osu(read(MBW))
    assert (rec.pairs, rec.window_size, rec.columns) == (8, 64, ["MB/s", "Messages/s"])
    assert rec.rows[-1].bw_bytes == 12437.72e6 and rec.rows[-1].messages_per_s == 2965.38
    assert rec.title == "OSU MPI Multiple Bandwidth / Message Rate Test"


def test_bom_and_missing_last_newline_keep_the_last_row():
    text = read(BOM)
    assert text.startswith("\ufeff") and not text.endswith("\n")
    (rec,) = parse_osu(text)
    assert rec.rows[-1].size_bytes == 4194304 and rec.complete


def test_7x_header_in_a_job_log():
    (rec,) = parse_osu(read(V7, SYNTHETIC))
    assert (rec.tool_version, rec.datatype, rec.complete) == ("7.3", "MPI_CHAR", True)
    assert rec.rows == parse_osu(read(BW))[0].rows  # the derivation: the 5.6.2 rows, unchanged
    assert detect(read(V7, SYNTHETIC)).name == "osu output"


def test_full_statistics_columns():
    (rec,) = parse_osu(read(FULL, SYNTHETIC))
    assert rec.columns == ["Avg Latency(us)", "Min Latency(us)", "Max Latency(us)", "Iterations"]
    first, last = rec.rows[0], rec.rows[-1]
    assert (first.latency_ns, first.min_latency_ns, first.max_latency_ns, first.iterations) == (
        1000.0, 980.0, 1000.0, 10000)
    assert (last.latency_ns, last.min_latency_ns, last.max_latency_ns, last.iterations) == (
        351210.0, 346790.0, 351210.0, 1000)


def test_a_run_cut_mid_row_keeps_its_whole_rows_and_says_so():
    (rec,) = parse_osu(read(CUT, SYNTHETIC))
    assert rec.complete is False
    assert rec.rows[-1].size_bytes == 262144 and rec.rows[-1].bw_bytes == 12408.01e6
    assert len(rec.rows) == 19


def test_a_run_ending_after_a_whole_row_below_4_mib_is_not_known_complete():
    """Cut there, or run with -m 4096: the file cannot tell, so neither is claimed."""
    text = read(LAT)
    (rec,) = parse_osu(text[: text.index("8192 ")])
    assert rec.complete is None and rec.rows[-1].size_bytes == 4096


def test_two_runs_in_one_log_and_a_repeated_banner():
    text = read(LAT) + "srun: step done\n" + read(BW).replace("# OSU", "# OSU", 1)
    banner = read(BW).splitlines()[0] + "\n"
    lat, bw = parse_osu(text.replace(banner, banner * 2))
    assert (lat.benchmark, lat.run, lat.complete) == ("osu_latency", 0, True)
    assert (bw.benchmark, bw.run, len(bw.rows)) == ("osu_bw", 1, 23)


@pytest.mark.parametrize(("text", "message"), [
    ("", "lines 1-1 hold no '# OSU MPI"),
    ("# OSU MPI Latency Test v5.6.2\n", "line 1: 'OSU MPI Latency Test' is followed by no '# Size'"),
    ("# OSU MPI Latency Test v5.6.2\n# Size    Speed (furlongs)\n0   1.00\n",
     "line 2: column 'Speed (furlongs)'"),
    ("hello\nworld\n", "lines 1-2 hold no"),
])
def test_refusals_are_one_line_naming_the_line(text, message):
    with pytest.raises(ValueError) as info:
        parse_osu(text)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_ingest_cli_gives_the_files_figures_and_one_line_per_bad_file(tmp_path):
    """As a user runs it: every public file, the synthetic ones and three bad inputs in one
    call; the good ones' figures in base units, one stderr line per bad file, no traceback."""
    empty, cut, wrong = tmp_path / "empty.txt", tmp_path / "header-only.txt", tmp_path / "wrong.txt"
    empty.write_text("")
    cut.write_text("# OSU MPI Bandwidth Test v5.6.2\n")
    wrong.write_text("# OSU MPI Bandwidth Test v5.6.2\n# Size   Goodput (MB/s)\n1  0.50\n")
    files = [PUBLIC / n for n in sorted(EXPECTED)] + [SYNTHETIC / n for n in (V7, FULL, CUT)]
    proc = run_cli(["ingest", "--json", *files, empty, cut, wrong], check=1)
    records = {r["source"].rsplit("/", 1)[1]: r for r in json.loads(proc.stdout)}
    assert set(records) == set(EXPECTED) | {V7, FULL, CUT}
    assert records[BW]["rows"][-1] == {"size_bytes": 4194304, "bw_bytes": 12164860000.0}
    assert records[LAT]["rows"][0] == {"size_bytes": 0, "latency_ns": 1000.0}
    assert records[MBW]["pairs"] == 8 and records[CUT]["complete"] is False
    errors = proc.stderr.strip().splitlines()
    assert len(errors) == 3 and "Traceback" not in proc.stderr
    assert errors[0].startswith(f"stackprobe: {empty}: cannot ingest:")
    assert f"{cut}: cannot ingest: OSU output: line 1:" in errors[1]
    assert f"{wrong}: cannot ingest: OSU output: line 2: column 'Goodput (MB/s)'" in errors[2]


def test_ingest_cli_table_shows_the_printed_figures(tmp_path):
    deep = tmp_path / ("a-long-folder-name-" * 4) / "osu"  # a long path wraps the table's title
    deep.mkdir(parents=True)
    (deep / CUT).write_bytes((SYNTHETIC / CUT).read_bytes())
    proc = run_cli(["ingest", PUBLIC / MBW, deep / CUT], check=0)
    whole, cut, after = proc.stdout.split("└")  # each table ends with its bottom-left corner
    assert "12437.72" in whole and "2965.38" in whole and "cut short" not in whole
    assert "12408.01" in cut and "12414" not in cut and "cut short" not in cut
    assert "cut short: the file ends inside the table; only the 19 rows printed are shown" in after
