"""The iperf3 matrix between hosts, on hand-built records: failed, slow, asymmetric, lossy pairs."""

from __future__ import annotations

import pytest

from stackprobe.analysis.network_matrix import build_matrix, link_speed_mbps
from stackprobe.schema.records import NetRecord, PingRecord

G = 1e9


def net(client: str, server: str, gbit: float | None = None, **kw) -> NetRecord:
    bps = gbit * G if gbit is not None else None
    return NetRecord(client=client, server=server, sent_bps=bps, received_bps=bps, **kw)


def ping(client: str, server: str, sent: int = 5, got: int = 5, avg_ms: float = 0.2) -> PingRecord:
    rtt = {"min": avg_ms * 1e6, "avg": avg_ms * 1e6, "max": avg_ms * 1e6, "mdev": 0.0} if got else {}
    return PingRecord(client=client, server=server, transmitted=sent, received=got,
                      loss_pct=100.0 * (sent - got) / sent, rtt_ns=rtt,
                      error=None if got else "no reply")


def three_hosts_slow_into_h2() -> list[NetRecord]:
    return [net(a, b, 0.2 if b == "h2" else 9.0)
            for a in ("h1", "h2", "h3") for b in ("h1", "h2", "h3") if a != b]


def test_slow_links_into_one_host_median_rule():
    m = build_matrix(three_hosts_slow_into_h2(), [], {})
    assert m.hosts == ["h1", "h2", "h3"]
    assert len(m.cells) == 6
    flagged = {key: cell.flags for key, cell in m.cells.items() if cell.flags}
    assert flagged == {("h1", "h2"): ["slow", "asymmetric"], ("h3", "h2"): ["slow", "asymmetric"]}
    assert m.flags() == [
        "h1→h2 0.2 Gbit/s, 0.022× the median pair (9 Gbit/s)",
        "h1→h2 0.2 Gbit/s vs h2→h1 9 Gbit/s (45×)",
        "h3→h2 0.2 Gbit/s, 0.022× the median pair (9 Gbit/s)",
        "h3→h2 0.2 Gbit/s vs h2→h3 9 Gbit/s (45×)",
    ]


def test_expected_speed_rule_uses_the_slower_end():
    records = [net("h1", "h2", 5.0), net("h2", "h1", 9.4), net("h1", "h3", 0.94),
               net("h3", "h1", 0.94)]
    m = build_matrix(records, [], {"h1": 10000.0, "h2": 10000.0, "h3": 1000.0})
    assert m.cells[("h1", "h3")].expected_bps == 1000e6
    assert m.cells[("h1", "h3")].flags == []  # 0.94 of a 1 Gbit/s end is fine
    assert m.cells[("h1", "h2")].flags == ["slow", "asymmetric"]
    assert m.cells[("h1", "h2")].notes[0] == (
        "h1→h2 5 Gbit/s, 0.5× the expected 10 Gbit/s (the slower end's link speed)"
    )
    # the median of these four pairs (2.97 Gbit/s) would not have called 5 Gbit/s slow
    assert "slow" not in build_matrix(records, [], {}).cells[("h1", "h2")].flags


def test_unknown_speed_falls_back_to_the_median():
    records = three_hosts_slow_into_h2()
    m = build_matrix(records, [], {"h1": 10000.0, "h2": None, "h3": 10000.0})
    assert m.cells[("h1", "h2")].expected_bps is None
    assert "the median pair" in m.cells[("h1", "h2")].notes[0]
    assert m.cells[("h1", "h3")].expected_bps == 10e9


def test_failed_pair():
    records = three_hosts_slow_into_h2()[1:] + [
        net("h1", "h2", error="unable to connect to server: Connection refused")
    ]
    m = build_matrix(records, [], {})
    cell = m.cells[("h1", "h2")]
    assert cell.bps is None
    assert cell.flags == ["failed"]
    assert cell.notes == ["h1→h2 failed: unable to connect to server: Connection refused"]
    assert m.as_rows()[0] == {"client": "h1", "h1": None, "h2": None, "h3": 9.0}


def test_two_hosts_asymmetric_but_no_median():
    m = build_matrix([net("a", "b", 9.4), net("b", "a", 0.2)], [], {})
    assert m.hosts == ["a", "b"]
    assert m.cells[("a", "b")].flags == []
    assert m.cells[("b", "a")].flags == ["asymmetric"]
    assert m.flags() == ["b→a 0.2 Gbit/s vs a→b 9.4 Gbit/s (47×)"]


def test_asymmetry_threshold():
    records = [net("a", "b", 9.0), net("b", "a", 6.5)]
    assert build_matrix(records, [], {}).flags() == []  # 1.38×
    assert build_matrix(records, [], {}, asymmetry=1.3).flags() == [
        "b→a 6.5 Gbit/s vs a→b 9 Gbit/s (1.4×)"
    ]


def test_ping_loss_and_rtt():
    pings = [ping("a", "b", 5, 4, avg_ms=0.3), ping("b", "a", 5, 0)]
    m = build_matrix([net("a", "b", 9.0), net("b", "a", 9.0)], pings, {})
    ab, ba = m.cells[("a", "b")], m.cells[("b", "a")]
    assert ab.rtt_avg_ns == pytest.approx(300_000) and ab.loss_pct == 20.0
    assert ba.rtt_avg_ns is None and ba.loss_pct == 100.0
    assert ba.error is None  # iperf3 worked; only ping got no reply
    assert m.flags() == ["a→b ping lost 20% of packets", "b→a ping lost 100% of packets, no reply"]


def test_ping_without_iperf_is_a_cell_without_bandwidth():
    m = build_matrix([], [ping("a", "c")], {})
    assert m.hosts == ["a", "c"]
    assert m.cells[("a", "c")].bps is None and m.cells[("a", "c")].loss_pct == 0.0
    assert m.flags() == []


def test_reverse_run_goes_to_the_direction_data_went():
    m = build_matrix([net("a", "b", 1.0, reverse=True), net("a", "b", 9.0)], [], {})
    assert m.cells[("b", "a")].bps == 1.0 * G
    assert m.cells[("a", "b")].bps == 9.0 * G


def test_repeated_runs_median_retransmits_summed_sent_as_fallback():
    records = [net("a", "b", 8.0, retransmits=3), net("a", "b", 9.0, retransmits=4),
               NetRecord(client="a", server="b", sent_bps=9.5 * G, retransmits=None)]
    cell = build_matrix(records, [], {}).cells[("a", "b")]
    assert cell.bps == 9.0 * G
    assert cell.retransmits == 7


def test_as_rows_in_gbit():
    rows = build_matrix(three_hosts_slow_into_h2(), [], {}).as_rows()
    assert rows == [
        {"client": "h1", "h1": None, "h2": 0.2, "h3": 9.0},
        {"client": "h2", "h1": 9.0, "h2": None, "h3": 9.0},
        {"client": "h3", "h1": 9.0, "h2": 0.2, "h3": None},
    ]


def test_records_without_host_names_raise():
    with pytest.raises(ValueError):
        build_matrix([NetRecord(client="a", sent_bps=1.0)], [], {})


@pytest.mark.parametrize("text, expected", [
    ("10000\n", 10000.0), ("1000", 1000.0), ("-1\n", None), ("", None), ("\n", None),
    ("0\n", None), ("unknown", None), ("2.5e3", None),
])
def test_link_speed(text, expected):
    assert link_speed_mbps(text) == expected
