"""`stackprobe ingest` of sysbench, stress-ng and iperf3 text outputs as people save them:
the format found from the content, and the figures each recorded file prints (read from the
file named beside each check; tests/fixtures/recorded/RECORDED.md says how they were made)."""

from __future__ import annotations

import pytest

from conftest import FIXTURES, run_cli
from stackprobe.ingest.detect import detect
from stackprobe.ingest.files import ingest_file
from stackprobe.schema.records import CpuRecord, MemBwRecord

REC = FIXTURES / "recorded"


def _ingest(rel: str):
    found = ingest_file(REC / rel)
    return found.format, found.records


def test_sysbench_cpu():
    fmt, (rec,) = _ingest("sysbench/sysbench-1.0.20_cpu_2threads_2s.txt")
    assert fmt == "sysbench output" and (rec.test, rec.threads, rec.tool_version) == ("cpu", 2, "1.0.20")
    assert (rec.events_per_s, rec.total_time_s, rec.events) == (2800.80, 2.0042, 5615)
    assert rec.latency_ms == {"min": 0.22, "avg": 0.71, "max": 24.30, "p95": 5.57, "sum": 3979.57}
    assert rec.settings == {"Prime numbers limit": "10000"}


def test_sysbench_fileio():
    _, (rec,) = _ingest("sysbench/sysbench-1.0.20_fileio_rndrw_4files_64M_2threads_2s.txt")
    assert rec.test == "fileio" and rec.events_per_s is None
    assert rec.rates == {"reads/s": 21236.38, "writes/s": 14157.58, "fsyncs/s": 1418.23,
                         "read, MiB/s": 331.82, "written, MiB/s": 221.21}
    assert rec.settings["Block size 16KiB"] == "" and rec.settings["Number of IO requests"] == "0"
    assert rec.latency_ms["max"] == 16.01 and rec.events == 74357


def test_sysbench_memory_goes_to_the_memory_parser():
    fmt, (rec,) = _ingest("sysbench/sysbench-1.0.20_memory_write_seq_2threads_1M_16G.txt")
    assert isinstance(rec, MemBwRecord) and rec.operation == "write" and rec.threads == 2
    with pytest.raises(ValueError, match="^sysbench failed: Invalid value for memory-oper: copy$"):
        ingest_file(REC / "sysbench/sysbench-1.0.20_memory_invalid-oper_fatal.txt")


def test_stress_ng_metrics_text_and_yaml_agree():
    fmt, text = _ingest("stress-ng/stress-ng-0.15.06_cpu1_matrix1_2s_metrics-brief.txt")
    yfmt, yaml = _ingest("stress-ng/stress-ng-0.15.06_cpu1_matrix1_2s.yaml")
    assert (fmt, yfmt) == ("stress-ng metrics", "stress-ng yaml")
    assert [(r.stressor, r.bogo_ops, r.bogo_ops_per_s, r.workers) for r in text] == [
        ("cpu", 1091, 545.33, 1), ("matrix", 3118, 1558.93, 1)]
    assert [(r.stressor, r.bogo_ops, r.bogo_ops_per_s, r.seconds) for r in yaml] == [
        ("cpu", 1091, 545.330653, 2.000621), ("matrix", 3118, 1558.932726, 2.000086)]
    assert yaml[1].bogo_ops_per_cpu_s == 4958.832782 and yaml[0].tool_version == "0.15.06"


def test_stress_ng_stream_gives_memory_bandwidth_too():
    _, recs = _ingest("stress-ng/stress-ng-0.15.06_stream2_10s_metrics-brief.txt")
    assert [type(r) for r in recs] == [CpuRecord, MemBwRecord, MemBwRecord]
    assert [r.operation for r in recs[1:]] == ["read", "write"]


@pytest.mark.parametrize(("name", "side", "figures"), [
    ("tcp_2s_1stream", "client", ("TCP", 1, False, 15.4e9, 15.4e9, 10)),
    ("tcp_2s_1stream", "server", ("TCP", 1, False, None, 15.4e9, None)),
    ("tcp_2s_2streams", "client", ("TCP", 2, False, 12.8e9, 12.8e9, 3)),
    ("tcp_2s_2streams", "server", ("TCP", 2, False, None, 12.8e9, None)),
    ("udp_2s_100M", "client", ("UDP", 1, False, 100e6, 100e6, None)),
    ("udp_2s_100M", "server", ("UDP", 1, False, None, 100e6, None)),
    ("tcp_2s_2streams_reverse", "client", ("TCP", 2, True, 9.08e9, 9.01e9, 47)),
    ("tcp_2s_2streams_reverse", "server", ("TCP", 2, False, 9.08e9, None, 47)),
])
def test_iperf3_text(name, side, figures):
    fmt, (rec,) = _ingest(f"iperf3/iperf3-3.12_text_{name}_loopback_{side}.txt")
    assert fmt == "iperf3 text" and (rec.client, rec.server) == ("127.0.0.1", "127.0.0.1")
    got = (rec.protocol, rec.streams, rec.reverse, rec.sent_bps, rec.received_bps, rec.retransmits)
    assert got == pytest.approx(figures) if None not in figures else got == figures
    assert rec.duration_s == 2.0


def test_iperf3_server_log_gives_a_record_per_test():
    fmt, (first, second) = _ingest("iperf3/iperf3-3.12_text_server_2tests_sigterm_loopback.txt")
    assert (first.streams, first.received_bps, first.sent_bps) == (1, pytest.approx(18.1e9), None)
    assert (second.streams, second.sent_bps, second.retransmits) == (2, pytest.approx(17.7e9), 0)
    assert second.received_bps is None and fmt == "iperf3 text"


def test_iperf3_older_server_totals():
    """The recorded server output as iperf3 before 3.7 writes it ('Bandwidth' heading, a
    0-byte 'sender' total beside the 'receiver' one, as public logs show), indented."""
    text = (REC / "iperf3/iperf3-3.12_text_tcp_2s_1stream_loopback_server.txt").read_text()
    text = text.replace("Bitrate", "Bandwidth").replace(
        "[  5]   0.00-2.00   sec  3.59 GBytes  15.4 Gbits/sec                  receiver",
        "[  5]   0.00-2.00   sec  0.00 Bytes  0.00 bits/sec                  sender\n"
        "[  5]   0.00-2.00   sec  3.59 GBytes  15.4 Gbits/sec                  receiver")
    assert "0.00 bits/sec                  sender" in text
    text = "".join("\t" + line for line in text.splitlines(True))
    (rec,) = detect(text).parse(text)
    assert (rec.sent_bps, rec.received_bps, rec.client) == (None, pytest.approx(15.4e9), "127.0.0.1")


def test_iperf3_client_runs_appended_to_one_file():
    """Two recorded client outputs one after the other, as a script appending to a log."""
    text = "".join((REC / f"iperf3/iperf3-3.12_text_{n}_loopback_client.txt").read_text()
                   for n in ("tcp_2s_1stream", "udp_2s_100M"))
    tcp, udp = detect(text).parse(text)
    assert (tcp.protocol, tcp.retransmits, udp.protocol, udp.received_bps) == ("TCP", 10, "UDP", 100e6)


def test_iperf3_text_error_is_an_error_record():
    _, (rec,) = _ingest("iperf3/iperf3-3.12_text_connection-refused_loopback_client.txt")
    assert rec.error == "unable to connect to server: Connection refused" and rec.received_bps is None


@pytest.mark.parametrize(("text", "message"), [
    ("sysbench 1.0.20\nThreads started!\nCPU speed:\n    events per second:  28OO.8\n",
     "sysbench line 4: events per second is not a number: '28OO.8'"),
    ("Connecting to host 127.0.0.1, port 5201\n[ ID] Interval           Transfer     Bitrate\n"
     "[  5]   0.00-2.00   sec  3.59 GBytes  15.4.1 Gbits/sec    10             sender\n",
     "iperf3 line 3: bitrate is not a number: '15.4.1'"),
    ("metrics:\n  - stressor: cpu\n    bogo-ops: 1091\n    bogo-ops-per-second-real-time: fast\n"
     "    wall-clock-time: 2.0\n",
     "stress-ng YAML: stressor cpu: bogo-ops-per-second-real-time is not a number: 'fast'"),
])
def test_bad_figure_names_line_and_field(text, message):
    with pytest.raises(ValueError) as exc:
        detect(text).parse(text)
    assert str(exc.value) == message


def test_terminal_tables():
    proc = run_cli(["ingest", REC / "sysbench/sysbench-1.0.20_cpu_2threads_2s.txt",
                    REC / "iperf3/iperf3-3.12_text_tcp_2s_2streams_reverse_loopback_client.txt",
                    REC / "stress-ng/stress-ng-0.15.06_cpu1_matrix1_2s.yaml"], check=0)
    out = proc.stdout
    assert "2,800.8" in out and "latency p95 ms" in out and "5.57" in out
    assert "9.080" in out and "9.010" in out and "47" in out
    assert "1,558.932726" in out and "matrix" in out


def test_refusal_names_what_was_looked_for():
    with pytest.raises(ValueError) as exc:
        detect("Vdbench? elbencho? neither: a note someone saved\n")
    message = str(exc.value)
    assert message.startswith("unknown format (looked for fio json") and "\n" not in message
    for named in ("elbencho output", "--csvfile", "--livecsv", "vdbench's summary.html",
                  "flatfile.html", "sysbench cpu, fileio and memory", "stress-ng --metrics-brief",
                  "--yaml", "iperf3 text output"):
        assert named in message
