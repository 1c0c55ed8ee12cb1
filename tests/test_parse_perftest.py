"""perftest parser on public client outputs (tests/fixtures/public/perftest, SOURCES.md
"## perftest"): a shell log of nine tests (ib_write_bw, ib_write_lat, ib_read_bw twice,
ib_read_lat, ib_atomic_bw, ib_atomic_lat, ib_send_bw, ib_send_lat; MB/sec), an ib_write_bw
with --report_gbits and Post List, an ib_atomic_bw of perftest 2.0; `stackprobe ingest` on
each as a user runs it.

perftest divides its MB and MiB by 0x100000 (2^20 bytes) and its Gb by 125000000 bytes
(10^9 bits) (src/perftest_parameters.c); Mpps is 10^6 messages/s, usec 10^3 ns.

Synthetic (tests/fixtures/synthetic/perftest): perftest_send-lat-cut-in-table.txt is the
nine-test log cut inside ib_send_lat's table, after " 65536   20000          19." (no
citable cut output was found)."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES, run_cli
from stackprobe.ingest.detect import detect
from stackprobe.parsers.network.perftest_text import looks_like_perftest, parse_perftest

PUBLIC = FIXTURES / "public" / "perftest"
LOG = "perftest_9-tests_write-read-send-atomic_bw-lat_mlx4_shell-log.txt"
GBITS = "ib_write_bw_postlist_report-gbits_perftest-issue-273.txt"
ATOMIC = "ib_atomic_bw_perftest-2.0_pib-issue-4.txt"
CUT = FIXTURES / "synthetic" / "perftest" / "perftest_send-lat-cut-in-table.txt"
MIB = 1024 * 1024


def read(name: str) -> str:
    return (PUBLIC / name).read_text()


def test_every_public_fixture_is_covered_here():
    assert sorted(p.name for p in PUBLIC.iterdir()) == sorted([LOG, GBITS, ATOMIC])


def test_nine_tests_in_a_shell_log():
    records = parse_perftest(read(LOG))
    assert [r.benchmark for r in records] == [
        "ib_write_bw", "ib_write_lat", "ib_read_bw", "ib_read_bw", "ib_read_lat", "ib_atomic_bw",
        "ib_atomic_lat", "ib_send_bw", "ib_send_lat"]
    assert {(r.device, r.link_type, r.transport, r.connection, r.mtu_bytes, r.qps, r.complete)
            for r in records} == {("mlx4_0", "IB", "IB", "RC", 2048, 1, True)}
    assert [len(r.rows) for r in records] == [23, 23, 23, 23, 23, 1, 1, 23, 23]


def test_write_bw_rows_in_bytes_per_second():
    write_bw = parse_perftest(read(LOG))[0]
    assert (write_bw.bw_unit, write_bw.tx_depth, write_bw.title) == ("MB/sec", 128, "RDMA_Write BW Test")
    first, last = write_bw.rows[0], write_bw.rows[-1]
    assert (first.size_bytes, first.iterations) == (2, 20000)
    assert first.bw_peak_bytes == 9.88 * MIB and first.bw_avg_bytes == 9.78 * MIB
    assert first.messages_per_s == 5128076.0
    assert (last.size_bytes, last.bw_avg_bytes, last.messages_per_s) == (8388608, 3665.25 * MIB, 458.0)


def test_send_lat_rows_in_nanoseconds():
    send_lat = parse_perftest(read(LOG))[-1]
    assert (send_lat.title, send_lat.tx_depth, send_lat.bw_unit) == ("Send Latency Test", 1, None)
    row = send_lat.rows[0]
    assert (row.size_bytes, row.iterations, row.t_min_ns, row.t_max_ns, row.t_typical_ns) == (
        2, 20000, 1020.0, 11760.0, 1070.0)
    assert (row.t_avg_ns, row.t_stdev_ns, row.p99_ns, row.p99_9_ns) == (1110.0, 300.0, 1680.0, 5000.0)
    assert row.bw_avg_bytes is None


def test_report_gbits_is_bits():
    (rec,) = parse_perftest(read(GBITS))
    assert (rec.benchmark, rec.title, rec.bw_unit) == ("ib_write_bw", "RDMA_Write Post List BW Test", "Gb/sec")
    assert (rec.device, rec.link_type, rec.tx_depth, rec.mtu_bytes) == ("ib0", "Ethernet", 256, 4096)
    (row,) = rec.rows
    assert (row.size_bytes, row.iterations, row.bw_peak_bytes) == (8, 224958464, 0.0)
    assert row.bw_avg_bytes == 0.48e9 / 8 and row.messages_per_s == 7498617.0


def test_atomic_bw_of_perftest_2():
    (rec,) = parse_perftest(read(ATOMIC))
    assert (rec.benchmark, rec.title, rec.device) == ("ib_atomic_bw", "Atomic CMP_AND_SWAP BW Test", "pib_1")
    assert rec.rows[0].bw_peak_bytes == 1.70 * MIB and rec.rows[0].messages_per_s == 219031.0


@pytest.mark.parametrize("name", [LOG, GBITS, ATOMIC])
def test_detected_as_perftest_by_content(name):
    assert looks_like_perftest(read(name)) and detect(read(name)).name == "perftest output"


def test_a_file_cut_in_the_table_keeps_whole_rows():
    records = parse_perftest(CUT.read_text())
    send_lat = records[-1]
    assert [r.complete for r in records] == [True] * 8 + [False]
    assert send_lat.rows[-1].size_bytes == 32768 and send_lat.rows[-1].t_avg_ns == 11470.0


def test_a_negative_figure_is_left_out():
    text = read(ATOMIC).replace("1.67                 0.219031", "-1.67                0.219031")
    (rec,) = parse_perftest(text)
    assert rec.rows[0].bw_avg_bytes is None and rec.rows[0].bw_peak_bytes == 1.70 * MIB


def test_duration_mode_latency_columns():
    """The header and row layout of RESULT_FMT_LAT_DUR / REPORT_FMT_LAT_DUR in perftest's
    perftest_parameters.h, figures taken from the nine-test log's ib_send_lat first row."""
    text = (" #bytes        #iterations       t_avg[usec]    tps average\n"
            " 2       20000            1.11        900900.90\n" + "-" * 87 + "\n")
    (rec,) = parse_perftest(text)
    assert (rec.rows[0].t_avg_ns, rec.rows[0].transactions_per_s, rec.complete) == (1110.0, 900900.9, True)


@pytest.mark.parametrize(("text", "message"), [
    ("", "lines 1-1 hold no perftest test title"),
    ("                    Send Latency Test\n Device : mlx5_0\n",
     "line 1: 'Send Latency Test' is followed by no '#bytes #iterations'"),
    (" #bytes #iterations    t_min[usec]    t_wobble[usec]\n", "line 1: column 't_wobble[usec]'"),
])
def test_refusals_are_one_line_naming_the_line(text, message):
    with pytest.raises(ValueError) as info:
        parse_perftest(text)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_ingest_cli_gives_the_files_figures_and_one_line_per_bad_file(tmp_path):
    server = tmp_path / "server.txt"
    server.write_text(read(LOG)[: read(LOG).index(" local address")].split("\n", 1)[1])
    proc = run_cli(["ingest", "--json", *(PUBLIC / n for n in (LOG, GBITS, ATOMIC)), CUT, server], check=1)
    records = json.loads(proc.stdout)
    assert len(records) == 9 + 1 + 1 + 9
    gbits = next(r for r in records if r["source"].endswith(GBITS))
    assert gbits["rows"] == [{"size_bytes": 8, "iterations": 224958464, "bw_peak_bytes": 0.0,
                              "bw_avg_bytes": 60000000.0, "messages_per_s": 7498617.0}]
    assert [r["complete"] for r in records if r["source"] == str(CUT)][-1] is False
    (error,) = proc.stderr.strip().splitlines()
    assert error.startswith(f"stackprobe: {server}: cannot ingest: perftest output: line 3:")
    assert "Traceback" not in proc.stderr


def test_ingest_cli_table_shows_settings_and_the_printed_figures():
    proc = run_cli(["ingest", PUBLIC / GBITS], check=0)
    assert "ib_write_bw: ib0, Ethernet link, RC" in " ".join(proc.stdout.split())
    assert "BW average Gb/sec" in proc.stdout and "0.48" in proc.stdout and "224958464" in proc.stdout
