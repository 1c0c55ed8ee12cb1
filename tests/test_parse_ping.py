"""iputils ping summary parser on recorded (127.0.0.1) and synthetic (packet loss) outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from stackprobe.parsers.network.ping import parse_ping, ping_argv

FIX = Path(__file__).parent / "fixtures"
REC = FIX / "recorded" / "ping"
SYN = FIX / "synthetic" / "ping"


def test_full_output_figures_in_ns():
    rec = parse_ping((REC / "ping-iputils-20221126_c2_W1_127.0.0.1.txt").read_text(),
                     client="h1")
    assert (rec.client, rec.server) == ("h1", "127.0.0.1")
    assert (rec.transmitted, rec.received, rec.errors, rec.loss_pct) == (2, 2, 0, 0.0)
    assert rec.rtt_ns == {"min": 47_000, "avg": 121_000, "max": 195_000, "mdev": 74_000}
    assert rec.error is None and rec.type == "ping"


def test_quiet_output_and_server_given():
    rec = parse_ping((REC / "ping-iputils-20221126_c5_i0.2_q_127.0.0.1.txt").read_text(),
                     client="h1", server="h2")
    assert rec.server == "h2"
    assert (rec.transmitted, rec.received) == (5, 5)
    assert rec.rtt_ns == {"min": 18_000, "avg": 37_000, "max": 45_000, "mdev": 9_000}


def test_count_0_error_raises_pings_own_line():
    with pytest.raises(ValueError) as err:
        parse_ping((REC / "ping-iputils-20221126_error_count-0.txt").read_text())
    assert str(err.value) == (
        "ping: invalid argument: '0': out of range: 1 <= value <= 9223372036854775807"
    )


def test_not_ping_output_raises():
    with pytest.raises(ValueError, match="not ping output"):
        parse_ping("hello\n")


def test_total_loss_is_a_record_not_an_exception():
    rec = parse_ping((SYN / "ping_c5_i0.2_q_192.0.2.10_100pct-loss.txt").read_text())
    assert rec.server == "192.0.2.10"
    assert (rec.transmitted, rec.received, rec.loss_pct) == (5, 0, 100.0)
    assert rec.rtt_ns == {}
    assert rec.error == "no reply"


def test_partial_loss_with_icmp_errors():
    rec = parse_ping((SYN / "ping_c3_192.0.2.20_partial-loss_errors.txt").read_text())
    assert (rec.transmitted, rec.received, rec.errors) == (3, 2, 1)
    assert rec.loss_pct == pytest.approx(33.3333)
    assert rec.rtt_ns == {"min": 398_000, "avg": 405_000, "max": 412_000, "mdev": 7_000}
    assert rec.error is None


def test_duplicates_do_not_count_as_errors():
    text = ("--- 10.0.0.2 ping statistics ---\n"
            "4 packets transmitted, 4 received, +2 duplicates, 0% packet loss, time 3004ms\n"
            "rtt min/avg/max/mdev = 1.500/2.250/3.000/0.500 ms\n")
    rec = parse_ping(text)
    assert rec.errors == 0 and rec.received == 4
    assert rec.rtt_ns["avg"] == 2_250_000


def test_argv_with_whole_second_deadline():
    assert ping_argv("10.0.0.2") == [
        "ping", "-c", "5", "-i", "0.2", "-q", "-n", "-w", "3", "10.0.0.2"
    ]
    # 3 x 0.2 + 2 = 2.6 s -> 3; 50 x 1.1 + 2 = 57 s although in floats it is 57.00000000000001
    assert ping_argv("h", count=3)[-3:] == ["-w", "3", "h"]
    assert ping_argv("h", count=50, interval_s=1.1)[-3:] == ["-w", "57", "h"]
    assert ping_argv("h", count=4, interval_s=1)[3:5] == ["-i", "1"]


@pytest.mark.parametrize("kwargs", [dict(count=0), dict(interval_s=0), dict(address="-f")])
def test_argv_refuses_nonsense(kwargs):
    args = {"address": "10.0.0.2", **kwargs}
    with pytest.raises(ValueError):
        ping_argv(**args)


def test_nothing_sent_is_no_packet_sent():
    rec = parse_ping("--- 10.0.0.2 ping statistics ---\n0 packets transmitted, 0 received\n")
    assert (rec.transmitted, rec.received, rec.loss_pct) == (0, 0, 100.0)
    assert rec.error == "no packet sent"
