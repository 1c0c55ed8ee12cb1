"""iperf3 -J parser on public and recorded outputs, and on a live run over 127.0.0.1 only."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from stackprobe.parsers.network.iperf3_json import parse_iperf3_json

FIX = Path(__file__).parent / "fixtures"
PUB = FIX / "public" / "iperf3"
REC = FIX / "recorded" / "iperf3"

# file -> fields the record must have (figures read from the files by hand)
EXPECTED = {
    PUB / "iperf3-3.1.6_tcp_json_1800s_180intervals.json": dict(
        tool_version="3.1.6", client="130.246.185.28", server="130.246.184.103",
        protocol="TCP", streams=1, reverse=False, duration_s=1800.000095,
        sent_bps=932357094.832105, received_bps=932342605.517316, retransmits=9760,
    ),
    PUB / "iperf3-3.6_tcp_json_bytes-mode_200MiB.json": dict(
        tool_version="3.6", client="192.168.44.87", server="34.127.52.177", protocol="TCP",
        streams=1, reverse=False, duration_s=18.982433080673218,
        sent_bps=88928988.65102342, received_bps=87443526.20683172, retransmits=0,
    ),
    PUB / "iperf3-3.9_tcp_json_10s_omit3.json": dict(
        tool_version="3.9", client="172.30.85.19", server="52.69.30.79", streams=1,
        duration_s=9.999471, sent_bps=123738513.7673783, received_bps=123000025.8187477,
        retransmits=0,
    ),
    REC / "iperf3-3.12_tcp_json_3s_1stream_loopback.json": dict(
        tool_version="3.12", client="127.0.0.1", server="127.0.0.1", protocol="TCP",
        streams=1, reverse=False, duration_s=3.000464, sent_bps=23330702771.304707,
        received_bps=23329979653.777615, retransmits=56,
    ),
    REC / "iperf3-3.12_tcp_json_3s_2streams_reverse_loopback.json": dict(
        streams=2, reverse=True, duration_s=3.000897, sent_bps=27670637626.016487,
        received_bps=27672057377.863377, retransmits=39,
    ),
    REC / "iperf3-3.12_udp_json_3s_100M_loopback.json": dict(
        protocol="UDP", streams=1, sent_bps=100046290.86448722,
        received_bps=100044123.35741486, retransmits=None,
    ),
}


@pytest.mark.parametrize("path", list(EXPECTED), ids=lambda p: p.name)
def test_figures(path):
    rec = parse_iperf3_json(path.read_text())
    assert rec.error is None
    for field, value in EXPECTED[path].items():
        got = getattr(rec, field)
        if isinstance(value, float):
            assert got == pytest.approx(value), field
        else:
            assert got == value, field


def test_interrupted_run_with_ctrl_c_prefix():
    text = (PUB / "iperf3-3.6_tcp_json_interrupted_ctrl-c-prefix_error-key.txt").read_text()
    assert text.startswith("^C")
    rec = parse_iperf3_json(text)
    assert rec.error == "interrupt - the client has terminated"
    assert rec.sent_bps is None and rec.received_bps is None and rec.retransmits is None
    assert rec.client == "10.84.1.5" and rec.server == "34.83.34.168"
    assert rec.tool_version == "3.6"


def test_recorded_connection_refused():
    rec = parse_iperf3_json((REC / "iperf3-3.12_json_connection-refused_loopback.json").read_text())
    assert rec.error == "unable to connect to server: Connection refused"
    assert rec.sent_bps is None and rec.duration_s is None
    assert rec.client is None and rec.server is None
    assert rec.tool_version == "3.12"
    assert rec.to_json() == {
        "type": "net", "tool": "iperf3", "tool_version": "3.12",
        "error": "unable to connect to server: Connection refused",
    }


def test_connecting_to_used_when_not_connected():
    text = '{"start": {"connecting_to": {"host": "osd1", "port": 5201}}, "error": "x"}'
    rec = parse_iperf3_json(text)
    assert rec.server == "osd1" and rec.client is None


@pytest.mark.parametrize(
    "text",
    ["", "iperf3: error - unable to connect", '{"start": {', "[1, 2]", '{"foo": 1}'],
)
def test_no_document_raises(text):
    with pytest.raises(ValueError, match="no iperf3 JSON document"):
        parse_iperf3_json(text)


def test_document_without_results_raises():
    with pytest.raises(ValueError, match="neither an 'error'"):
        parse_iperf3_json('{"start": {"version": "iperf 3.12"}, "end": {}}')


def test_non_numeric_figure_raises():
    text = '{"start": {}, "end": {"sum_sent": {"bits_per_second": "fast"}}}'
    with pytest.raises(ValueError, match="not a number"):
        parse_iperf3_json(text)


# ------------------------------------------------------------------ live, 127.0.0.1 only

LOOPBACK = "127.0.0.1"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def _listening(port: int) -> bool:
    """Whether something listens on 127.0.0.1:port, read from /proc (no connection made:
    a probe connection would use up the one-off server's single test)."""
    needle = f"0100007F:{port:04X}"
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        cols = line.split()
        if cols[1] == needle and cols[3] == "0A":  # 0A = LISTEN
            return True
    return False


@pytest.fixture
def iperf3_server():
    if shutil.which("iperf3") is None:
        pytest.skip("iperf3 is not installed")
    port = _free_port()
    server = subprocess.Popen(
        ["iperf3", "-s", "-B", LOOPBACK, "-p", str(port), "-1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while not _listening(port):
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail("iperf3 server did not start listening")
            time.sleep(0.05)
        yield port
    finally:
        if server.poll() is None:
            server.terminate()  # this PID only
        server.wait(timeout=10)


@pytest.mark.tools
def test_live_loopback_run(iperf3_server):
    proc = subprocess.run(
        ["iperf3", "-c", LOOPBACK, "-p", str(iperf3_server), "-t", "1", "-J"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0
    rec = parse_iperf3_json(proc.stdout)
    assert rec.error is None
    assert rec.client == LOOPBACK and rec.server == LOOPBACK
    assert rec.protocol == "TCP" and rec.streams == 1 and rec.reverse is False
    assert rec.sent_bps > 1e6 and rec.received_bps > 1e6
    assert rec.duration_s == pytest.approx(1, abs=0.5)


@pytest.mark.tools
def test_live_refused_exits_zero_with_error():
    if shutil.which("iperf3") is None:
        pytest.skip("iperf3 is not installed")
    port = _free_port()  # bound then released: nothing listens there
    proc = subprocess.run(
        ["iperf3", "-c", LOOPBACK, "-p", str(port), "-t", "1", "-J"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0  # iperf3 3.12 reports the failure only in the JSON
    rec = parse_iperf3_json(proc.stdout)
    assert rec.error is not None and "Connection refused" in rec.error
    assert rec.sent_bps is None
