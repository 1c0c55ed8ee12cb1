"""The network soak's pure parts: the bounded series, the per-pair verdicts, the counters
dump and its deltas, a chunk's JSON, the pairs and their ports, and the table and criterion
read back from the stored records (the chunk loop: test_chunked.py; pairs sharing a link:
test_net_soak_sharing.py). The soak itself, on real
hosts, is tests/test_net_soak_lab.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from conftest import FIXTURES
from stackprobe.analysis.soak import (
    counter_deltas,
    downsample,
    flag_counters,
    flag_slow,
    fold,
    soak_verdict,
)
from stackprobe.analysis.soak import judge_pair as judge_folded
from stackprobe.kinds.network.net_soak import NetSoakStep, assign_ports
from stackprobe.kinds.network.pairs import resolve_pairs
from stackprobe.kinds.network.soak_chunk import read_chunk
from stackprobe.kinds.network.soak_report import StableUnderLoad, soak_rows, soak_table
from stackprobe.parsers.network.iperf3_intervals import parse_iperf3_intervals
from stackprobe.parsers.network.nic_counters import parse_nic_counters
from stackprobe.schema.records import SeriesPoint
from stackprobe.schema.results import StepResult
from stackprobe.schema.soak_records import NicCountersRecord, SoakPairRecord
from stackprobe.transport.base import CommandResult

IPERF3 = FIXTURES / "recorded" / "iperf3"
DUMP = FIXTURES / "recorded" / "nic_counters" / "sysfs-net_all-interfaces_vm.txt"
IB_DUMP = FIXTURES / "synthetic" / "nic_counters" / "eth0_and_ib-port_counters.txt"
MBIT = 1e6 / 8  # bytes/s in a Mbit/s


def series(rates_mbit: list[float], start_s: float = 0.0) -> list[SeriesPoint]:
    return [SeriesPoint(t_s=start_s + i + 1, bw_bytes=r * MBIT) for i, r in enumerate(rates_mbit)]


def pair(client: str = "h1", server: str = "h2") -> SoakPairRecord:
    return SoakPairRecord(client=client, server=server, chunks=1)


def judge_pair(rec: SoakPairRecord, points: list[SeriesPoint], **rule) -> SoakPairRecord:
    """The pair judged on its whole series folded at once (the soak folds chunk by chunk)."""
    return judge_folded(rec, fold(points, label=f"{rec.client}→{rec.server}", **rule))


def kept(points: list[SeriesPoint]):
    """What the soak keeps of a series before it is downsampled (analysis/soak_series.py)."""
    return fold(points).figures()["points"]


# ------------------------------------------------------------------ the bounded series

def test_two_hours_of_seconds_keep_600_points_at_most_with_a_one_second_dip_visible():
    rates = [100.0] * 7200
    rates[4321] = 5.0
    points = downsample(kept(series(rates)), 600)
    # the first and last ten minutes second by second, 12 s a point; between them the
    # kept minute buckets, one point each
    assert len(points) <= 600 and sum(p.seconds for p in points) == 7200
    assert {p.seconds for p in points} == {12, 60} and points[-1].t_s == 7200
    dipped = [p for p in points if p.bw_min_bytes < 50 * MBIT]
    assert len(dipped) == 1 and dipped[0].bw_max_bytes == pytest.approx(100 * MBIT)
    assert dipped[0].bw_bytes == pytest.approx((59 * 100 + 5) / 60 * MBIT)


def test_a_short_series_is_kept_second_by_second_and_the_last_bucket_may_be_shorter():
    assert [p.seconds for p in downsample(kept(series([1.0] * 40)))] == [1] * 40
    assert [p.seconds for p in downsample(kept(series([1.0] * 25)), 10)] == [3] * 8 + [1]


# ------------------------------------------------------------------ the verdicts

def test_a_steady_pair_is_stable_and_its_figures_are_bits_per_second():
    rec = judge_pair(pair(), series([100, 101, 99, 100, 100, 102, 98, 100]))
    assert (rec.verdict, rec.stability, rec.flags) == ("stable", "stable", [])
    assert rec.mean_bps == pytest.approx(100e6) and rec.min_bps == pytest.approx(98e6)
    assert rec.seconds == 8 and rec.cov < 0.02


def test_a_rate_that_falls_mid_soak_is_unstable_with_the_rule_s_sentence():
    rec = judge_pair(pair("h1", "h3"), series([66] * 15 + [10] * 15))
    assert rec.verdict == "unstable" and rec.flags[0] == "fluctuating"
    assert rec.notes[0].startswith("h1→h3: fluctuating: CoV")


def test_a_stall_is_unstable_and_the_thresholds_are_the_step_s():
    rec = judge_pair(pair(), series([100] * 10 + [0] + [100] * 10))
    assert (rec.verdict, rec.stability) == ("unstable", "stalled")
    wobbly = [100, 85, 100, 85, 100, 85, 100, 85]  # CoV 8%
    assert judge_pair(pair(), series(wobbly)).verdict == "stable"
    assert judge_pair(pair(), series(wobbly), cov_limit=0.05).verdict == "unstable"


def test_a_pair_with_a_failed_chunk_is_unstable_whatever_its_other_seconds():
    rec = SoakPairRecord(client="h1", server="h2", chunks=2, chunks_failed=1,
                         error="unable to connect to server: Connection refused")
    rec = judge_pair(rec, series([100] * 20))
    assert (rec.verdict, rec.stability, rec.flags) == ("unstable", "stable", ["chunk errors"])
    assert rec.notes == ["h1→h2: 1 of 3 chunks failed (unable to connect to server: "
                         "Connection refused)"]


def test_a_pair_without_seconds_failed_and_fails_the_step():
    rec = judge_pair(pair(), [])
    assert rec.verdict == "failed" and rec.error == "no second measured"
    assert soak_verdict([judge_pair(pair(), series([1] * 9)), rec]) == "failed"


def test_slow_is_beside_the_median_pair_and_leaves_the_verdict_stable():
    recs = [judge_pair(pair("h1", s), series([r] * 10)) for s, r in
            (("h2", 150), ("h3", 50), ("h4", 150), ("h5", 140))]
    flag_slow(recs, 0.7)
    assert [r.flags for r in recs] == [[], ["slow"], [], []]
    assert recs[1].verdict == "stable" and "0.34× the median pair's" in recs[1].notes[0]
    two = [judge_pair(pair("h1", s), series([r] * 10)) for s, r in (("h2", 150), ("h3", 50))]
    flag_slow(two)
    assert all(not r.flags for r in two)  # two pairs: no telling which is the odd one


# ------------------------------------------------------------------ the counters

def test_the_recorded_dump_reads_every_interface_s_statistics():
    counters = parse_nic_counters(DUMP.read_text())
    assert counters["eth0 rx_bytes"] > 0 and "lo rx_dropped" in counters
    assert len(counters) == len(DUMP.read_text().splitlines()) - 2


def test_ib_port_counters_are_keyed_by_device_and_port():
    counters = parse_nic_counters(IB_DUMP.read_text())
    assert counters["mlx5_0/1 symbol_error"] == 4 and counters["mlx5_0/1 VL15_dropped"] == 4


@pytest.mark.parametrize(("text", "message"), [
    ("eth0 0\n", "no '## stackprobe nic counters' line"),
    ("## stackprobe nic counters\n/sys/class/net/eth0/statistics/rx_errors:0\n",
     "cut short (no '## end of nic counters' line after line 2)"),
    ("## stackprobe nic counters\n/sys/class/net/eth0/statistics/rx_errors:x1\n"
     "## end of nic counters\n", "line 2: eth0 rx_errors: 'x1' is not a count"),
    ("## stackprobe nic counters\n/etc/passwd:0\n## end of nic counters\n",
     "line 2: not a counter file's 'path:value'"),
])
def test_a_bad_dump_is_one_line_naming_the_line(text, message):
    with pytest.raises(ValueError, match="nic counters") as err:
        parse_nic_counters(text)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_only_error_and_drop_counters_that_grew_are_deltas():
    before = {"eth0 rx_bytes": 10, "eth0 rx_dropped": 3, "eth0 rx_crc_errors": 0,
              "mlx5_0/1 symbol_error": 7, "mlx5_0/1 link_downed": 2, "eth0 tx_errors": 0}
    after = {"eth0 rx_bytes": 99, "eth0 rx_dropped": 5, "eth0 rx_crc_errors": 0,
             "mlx5_0/1 symbol_error": 1, "mlx5_0/1 link_downed": 2, "eth1 rx_errors": 9}
    # traffic is not an error; a counter that went down was reset; eth1 was not read before
    assert counter_deltas(before, after) == {"eth0 rx_dropped": 2, "mlx5_0/1 symbol_error": 1}


def test_grown_counters_flag_the_pairs_with_that_host_at_either_end():
    recs = [judge_pair(pair(a, b), series([100] * 6)) for a, b in (("h1", "h2"), ("h2", "h3"))]
    flag_counters(recs, {"h3": {"eth0 rx_crc_errors": 4}, "h1": {}})
    assert recs[0].flags == [] and recs[1].flags == ["counters"]
    assert recs[1].notes == ["h2→h3: counters grew on its hosts: h3 eth0 rx_crc_errors +4"]


# ------------------------------------------------------------------ a chunk's JSON

def _result(path: Path | None, stdout: str = "", interrupted: bool = False) -> CommandResult:
    text = path.read_text() if path else stdout
    return CommandResult(["iperf3"], 0, text, "", 0.0, 1.0, interrupted=interrupted)


def test_a_chunk_gives_its_seconds_shifted_to_the_soak_s_clock_and_its_retransmits():
    got = read_chunk(_result(IPERF3 / "iperf3-3.12_tcp_json_3s_1stream_loopback.json"), 40.0)
    assert [p.t_s for p in got.points] == pytest.approx([41.0, 42.0, 43.0], abs=0.01)
    assert got.error is None and got.retransmits is not None and got.tool_version == "3.12"
    whole = parse_iperf3_intervals((IPERF3 / "iperf3-3.12_tcp_json_3s_1stream_loopback.json")
                                   .read_text())
    assert [p.bw_bytes for p in whole] == [p.bw_bytes for p in got.points]


def test_the_receiver_s_seconds_are_read_when_the_server_s_output_came_back():
    text = (IPERF3 / "iperf3-3.12_tcp_json_3s_2streams_50M_get-server-output_loopback.json"
            ).read_text()
    doc = json.loads(text)
    received = [i["sum"]["bits_per_second"] / 8 for i in doc["server_output_json"]["intervals"]]
    # the receiver's last second also holds the path's backlog: left out
    assert [p.bw_bytes for p in parse_iperf3_intervals(text)] == pytest.approx(received[:-1])
    assert not any(i["sum"]["sender"] for i in doc["server_output_json"]["intervals"])


def test_a_client_killed_on_its_host_after_its_chunk_is_a_failed_chunk():
    killed = CommandResult(["timeout"], 137, "", "", 0.0, 31.0)
    assert read_chunk(killed, 0).error == "iperf3 did not end within its chunk and 20 s: killed"


def test_a_zero_length_interval_after_the_omitted_seconds_is_left_out():
    text = (IPERF3 / ("iperf3-3.12_tcp_json_lab_20s_O2_2streams_75M_get-server-output_"
                      "shaped-200mbit_zero-length-interval.json")).read_text()
    points = parse_iperf3_intervals(text, 100.0)
    # 21 receiver intervals after the omitted one: the zero-length one, 1-2 .. 19-20 s, and
    # a 0.008 s tail; kept: 1-2 .. 18-19 s (the receiver's last whole second left out)
    assert [round(p.t_s - 100) for p in points] == list(range(2, 20))


def test_an_interval_after_the_omitted_seconds_that_ends_before_it_starts_is_left_out():
    text = (IPERF3 / ("iperf3-3.12_tcp_json_lab_20s_O2_2streams_75M_get-server-output_"
                      "post-omit-interval-ends-before-start.json")).read_text()
    server = json.loads(text)["server_output_json"]["intervals"]
    assert server[1]["sum"]["end"] < server[1]["sum"]["start"] - 0.005  # as iperf3 wrote it
    points = parse_iperf3_intervals(text)
    assert [round(p.t_s) for p in points] == list(range(2, 20))
    # the same times anywhere but right after the omitted seconds are still refused
    doc = json.loads(text)
    doc["server_output_json"]["intervals"][5]["sum"]["end"] = 3.0
    with pytest.raises(ValueError, match=r"intervals\[5\]\.sum: times or rate out of order"):
        parse_iperf3_intervals(json.dumps(doc))


def test_a_refused_chunk_has_the_tool_s_error_and_no_seconds():
    got = read_chunk(_result(IPERF3 / "iperf3-3.12_json_connection-refused_loopback.json"), 0)
    assert got.points == [] and "Connection refused" in got.error
    assert read_chunk(_result(None, "iperf3: error - no JSON"), 0).error.startswith("iperf3: ")


# ------------------------------------------------------------------ the step's fields

def test_pairs_all_n_or_a_list_and_a_server_port_per_pair_into_a_host():
    hosts = ["h1", "h2", "h3", "h4"]
    def soak_pairs(step, names, seed):
        return resolve_pairs(step.pairs, names, seed)

    every = soak_pairs(NetSoakStep(kind="net_soak"), hosts, "run-1")
    assert len(every) == 12
    ports = assign_ports(every, 5300)
    into_h3 = sorted(p for (a, b), p in ports.items() if b == "h3")
    assert into_h3 == [5300, 5301, 5302]
    some = soak_pairs(NetSoakStep(kind="net_soak", pairs=4), hosts, "run-1")
    assert len(some) == 4 and some == soak_pairs(NetSoakStep(kind="net_soak", pairs=4),
                                                 hosts, "run-1")
    listed = NetSoakStep(kind="net_soak", pairs=[["h1", "h3"], ["h2", "h3"]])
    assert soak_pairs(listed, hosts, "x") == [("h1", "h3"), ("h2", "h3")]
    bad = NetSoakStep(kind="net_soak", pairs=[["h1", "h9"], ["h1", "h3"], ["h1", "h3"]])
    assert soak_pairs(bad, hosts, "x") == "pairs: h9 not among the step's hosts (h1, h2, h3, h4)"
    twice = NetSoakStep(kind="net_soak", pairs=[["h1", "h3"], ["h1", "h3"]])
    assert soak_pairs(twice, hosts, "x") == [("h1", "h3")]
    with pytest.raises(ValueError, match="a pair of one host"):
        NetSoakStep(kind="net_soak", pairs=[["h2", "h2"]])


def test_durations_are_the_project_s_and_a_bad_bitrate_is_refused():
    step = NetSoakStep(kind="net_soak", duration="2h", chunk="90s", bitrate="150M")
    assert (step.duration.seconds, step.chunk.seconds) == (7200, 90)
    with pytest.raises(ValidationError, match="bitrate"):
        NetSoakStep(kind="net_soak", bitrate="fast")


# ------------------------------------------------------------------ read back from results

def _step() -> StepResult:
    stable = judge_pair(pair("h1", "h3"), series([60] * 20))
    falling = judge_pair(pair("h2", "h3"), series([60] * 10 + [10] * 10))
    fast = judge_pair(pair("h1", "h2"), series([150] * 20))
    back = judge_pair(pair("h2", "h1"), series([150] * 20))
    flag_slow([stable, falling, fast, back])  # median 105 Mbit/s
    hosts = [NicCountersRecord(host="h1", deltas={}), NicCountersRecord(host="h2", error="x"),
             NicCountersRecord(host="h3", deltas={"eth0 rx_dropped": 2})]
    flag_counters([stable, falling, fast, back], {"h1": {}, "h3": {"eth0 rx_dropped": 2}})
    step = StepResult(id="01-soak", index=1, name="soak", kind="net_soak", title="t",
                      layer="network", params={}, records=[stable, falling, fast, back, *hosts],
                      findings={"net_soak": {"chunks": 2, "chunk_s": 10}})
    return StepResult.model_validate_json(step.model_dump_json())  # as results.json holds it


def test_the_table_has_a_row_per_pair_with_its_verdict_and_its_hosts_counters():
    table = soak_table(_step())
    assert table.headers == ["pair", "mean", "min", "CoV", "stability", "retransmits",
                             "counters", "verdict"]
    rows = {r[0]: r for r in table.rows}
    assert rows["h1→h2"][1] == "150 Mbit/s" and rows["h1→h2"][6] == "h2 ?"
    assert rows["h1→h3"][7] == "⚠ stable (slow, counters)"
    assert rows["h1→h3"][6] == "h3 rx_dropped +2"
    assert rows["h2→h3"][4] == "fluctuating" and rows["h2→h3"][7].startswith("⚠ unstable")
    assert "2 chunk(s) of 10 s" in table.title


def test_the_criterion_passes_only_stable_pairs_without_grown_counters():
    outcomes = StableUnderLoad().outcomes(None, [_step()])
    assert [(o.measured.split()[0], o.ok) for o in outcomes] == [
        ("h1→h3", False), ("h2→h3", False), ("h1→h2", True), ("h2→h1", True)]


def test_the_summary_row_is_the_load_of_all_pairs_together():
    (row,) = soak_rows(_step())
    assert row.bw_bytes == pytest.approx((60 + 35 + 150 + 150) * MBIT)
    assert row.note == "4 pairs at once: 3 stable, 1 unstable" and row.headline == "bw"
