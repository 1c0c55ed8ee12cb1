"""`mpi_pairs` without hosts: mpi4py's ping-pong output read (recorded here), the matrices
and their flags on records derived from it, the plan, the launch options, the report's
tables and the criterion."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest

from stackprobe.analysis.mpi_matrix import build_mpi_matrix
from stackprobe.kinds import registry
from stackprobe.kinds.mpi_launch import MpiLaunchError, networks
from stackprobe.kinds.network.mpi_pairs import bench_argv, sizes, stream_argv, version_ok
from stackprobe.kinds.network.mpi_report import NoFlaggedMpiPair, mpi_tables
from stackprobe.parsers.network.mpi4py_pingpong import (
    looks_like_mpi4py_pingpong,
    parse_mpi4py_pingpong,
)
from stackprobe.plan.expand import expand
from stackprobe.schema.fabric_records import MpiPairRecord
from stackprobe.schema.results import StepResult
from stackprobe.suite.loader import SuiteError, load_hosts, parse_suite

FIX = Path(__file__).parent / "fixtures"
REC = FIX / "recorded" / "mpi4py"
HOSTS = FIX.parent / "golden" / "plans" / "hosts.yaml"
KIND = registry.kind("mpi_pairs")


def _read(name: str) -> str:
    return (REC / name).read_text(encoding="utf-8")


# ------------------------------------------------------------------ the parser

def test_a_recorded_run_is_read_in_base_units():
    (rec,) = parse_mpi4py_pingpong(_read("pingpong_1B-4MiB_l200_local.txt"), 4 << 20)
    assert [r.size_bytes for r in rec.rows] == [1 << i for i in range(23)]
    assert rec.complete is True and rec.stats is True
    first, last = rec.rows[0], rec.rows[-1]
    assert first.samples == 200 and last.samples == 10  # mpi4py's --loop-huge above 1 MiB
    assert 100 < first.latency_ns < 1e7 and first.stdev_ns is not None
    # the printed MB/s (10^6 B, two decimals) against size over the one-way time
    assert last.bw_bytes == pytest.approx(last.size_bytes / (last.latency_ns / 1e9), rel=1e-3)


def test_the_launchers_lines_around_the_table_are_not_mpi4pys():
    text = _read("pingpong_1B-64KiB_display-map.txt")
    assert looks_like_mpi4py_pingpong(text)
    (rec,) = parse_mpi4py_pingpong(text, 64 << 10)
    assert rec.rows[-1].size_bytes == 64 << 10 and rec.complete is True


def test_the_lab_runs_show_the_shaped_link_and_the_capped_cpu():
    """Recorded by the lab test: 200 Mbit/s into h3 is 25 MB/s one way, the way back is
    fast, so the exchange's size over its half round trip is about twice that; the CPU
    quota's stalls show in the 1 B mean and its spread."""
    (shaped,) = parse_mpi4py_pingpong(_read("lab_h1-to-h3_200mbit_1B-256KiB.txt"), 256 << 10)
    assert shaped.complete is True and shaped.rows[-1].bw_bytes == pytest.approx(47.72e6)
    assert shaped.rows[0].samples == 20000 and shaped.rows[1].samples == 30
    (capped,) = parse_mpi4py_pingpong(_read("lab_h4-cpu30-to-h1_1B-256KiB.txt"), 256 << 10)
    assert capped.rows[0].latency_ns > 2.5 * shaped.rows[0].latency_ns
    assert capped.rows[0].stdev_ns > 10 * shaped.rows[0].stdev_ns


def test_no_stats_gives_latency_from_the_bandwidth():
    (rec,) = parse_mpi4py_pingpong(_read("pingpong_no-stats_1B-1KiB.txt"), 1024)
    assert rec.stats is False and rec.rows[0].samples is None
    row = rec.rows[-1]
    assert row.latency_ns == pytest.approx(row.size_bytes / row.bw_bytes * 1e9)


def test_a_cut_output_keeps_its_whole_rows_and_says_so():
    text = _read("pingpong_1B-4MiB_l200_local.txt")
    cut = text[: text.index("\n", text.index(" 4096 ")) + 12]  # inside the 8 KiB row
    (rec,) = parse_mpi4py_pingpong(cut, 4 << 20)
    assert rec.complete is False and rec.rows[-1].size_bytes == 4096
    (whole,) = parse_mpi4py_pingpong(cut[: cut.rindex("\n") + 1], 4 << 20)
    assert whole.complete is None and whole.rows[-1].size_bytes == 4096  # -n 4096 or cut


@pytest.mark.parametrize(("text", "message"), [
    ("hello\n", "no '# Size [B]  Bandwidth [MB/s]' header found"),
    ("# Size [B]  Bandwidth [MB/s] | Time Mean [s] ± StdDev [s]  Samples\n"
     "         3              0.04 | 2.6e-05 ± 4.1e-06     1000\n", "line 2: size 3 is not"),
    ("# Size [B]  Bandwidth [MB/s] | Time Mean [s] ± StdDev [s]  Samples\n"
     "         1              0.04 | nan ± nan     0\n", "line 2: time mean is not a finite"),
    ("# Size [B]  Bandwidth [MB/s]\n         1   0.04 | 2.6e-05 ± 4.1e-06   10\n",
     "line 2: time columns under a header without them"),
])
def test_bad_input_is_one_line_naming_the_line(text, message):
    with pytest.raises(ValueError) as exc:
        parse_mpi4py_pingpong(text)
    assert message in str(exc.value) and "\n" not in str(exc.value)


# ------------------------------------------------------------------ the matrices

def _pair(a: str, b: str, lat_us: float, bw_mbs: float, base: MpiPairRecord) -> MpiPairRecord:
    """The recorded run's rows scaled so that 1 B takes `lat_us` and the largest size
    moves at `bw_mbs` MB/s: a derived record for hosts a and b."""
    first, last = base.rows[0], base.rows[-1]
    rows = [r.model_copy(update={"latency_ns": r.latency_ns * lat_us * 1e3 / first.latency_ns})
            for r in base.rows[:-1]]
    rows.append(last.model_copy(update={"bw_bytes": bw_mbs * 1e6,
                                        "latency_ns": last.size_bytes / bw_mbs * 1e3}))
    return base.model_copy(update={"client": a, "server": b, "rows": rows})


@pytest.fixture(scope="module")
def base() -> MpiPairRecord:
    return parse_mpi4py_pingpong(_read("pingpong_1B-4MiB_l200_local.txt"), 4 << 20)[0]


def _lab_like(base: MpiPairRecord) -> list[MpiPairRecord]:
    """4 hosts, both orders of each pair: h3's link slow, h4's CPU slow (a third of the
    bandwidth, three times the latency), as in the lab test."""
    out = []
    hosts = ["h1", "h2", "h3", "h4"]
    for a in hosts:
        for b in hosts:
            if a != b:
                pair = {a, b}
                lat = 30.0 * (3 if "h4" in pair else 1)
                bw = 50.0 if "h3" in pair else 1000.0 / (3 if "h4" in pair else 1)
                out.append(_pair(a, b, lat * (1.05 if a < b else 0.95), bw, base))
    return out


def test_the_slow_link_and_the_slow_cpu_are_flagged_in_their_pairs_only(base):
    m = build_mpi_matrix(_lab_like(base))
    assert (m.latency_size, m.bw_size) == (1, 4 << 20) and len(m.cells) == 6
    for (a, b), c in m.cells.items():
        assert ("bandwidth" in c.flags) == ("h3" in (a, b)), (a, b, c)
        assert ("latency" in c.flags) == ("h4" in (a, b)), (a, b, c)
        assert c.orders == [f"{a}→{b}", f"{b}→{a}"]
    assert m.typical_latency_ns == pytest.approx(30e3)  # a good host's median pair
    assert m.cell("h3", "h1").latency_ns == pytest.approx(30e3)  # the median of both orders
    [note] = m.cells[("h1", "h3")].notes
    assert note.startswith("h1↔h3 MPI bandwidth 47.7 MiB/s at 4.00 MiB, 0.15× the typical pair's")
    assert note.endswith("either direction may be the slow one (a ping-pong crosses both)")
    assert m.host_notes == [
        "every MPI pair with h3 is flagged for bandwidth (3 pairs): look at h3 itself "
        "(its link, NIC or CPU)",
        "every MPI pair with h4 is flagged for latency (3 pairs): look at h4 itself "
        "(its link, NIC or CPU)"]


def test_a_plain_median_would_miss_the_capped_host(base):
    """Half the pairs of 4 hosts touch h4: the median of all pairs sits between the good
    and the bad, and 3x would not be 1.5x of it; the hosts' medians keep it at the good."""
    recs = _lab_like(base)
    lats = sorted(build_mpi_matrix(recs).cells[k].latency_ns
                  for k in build_mpi_matrix(recs).cells)
    plain = (lats[2] + lats[3]) / 2
    assert 90e3 / plain <= 1.5 < 90e3 / build_mpi_matrix(recs).typical_latency_ns  # > 1.5 flags


def test_a_failed_pair_is_flagged_and_two_pairs_have_no_typical(base):
    recs = [_pair("h1", "h2", 30, 1000, base), _pair("h1", "h3", 90, 100, base),
            MpiPairRecord(client="h2", server="h3", error="mpirun: ORTE lost contact")]
    m = build_mpi_matrix(recs)
    assert m.typical_latency_ns is None  # 2 measured pairs: either may be the odd one
    assert m.cells[("h2", "h3")].flags == ["failed"]
    assert m.flags() == ["h2↔h3 MPI ping-pong failed: mpirun: ORTE lost contact"]
    with pytest.raises(ValueError, match="without client and server"):
        build_mpi_matrix([MpiPairRecord()])


# ------------------------------------------------------------------ report and criterion

def _step(records) -> StepResult:
    m = build_mpi_matrix(records)
    cells = [{k: v for k, v in asdict(c).items() if v is not None} for c in m.cells.values()]
    return StepResult(id="01-mpi-pairs", index=1, name="mpi-pairs", kind="mpi_pairs",
                      title="t", layer="network", params={}, status="ok", records=records,
                      findings={"mpi_pairs": {"hosts": m.hosts, "latency_size": m.latency_size,
                                              "bw_size": m.bw_size, "cells": cells,
                                              "typical_latency_ns": m.typical_latency_ns,
                                              "typical_bw_bytes": m.typical_bw_bytes,
                                              "host_notes": m.host_notes}})


def test_the_tables_are_symmetric_with_the_flags_marked_and_named(base):
    lat, bw = mpi_tables([_step(_lab_like(base))])
    assert lat.title == "MPI latency matrix, 1 B one way (01-mpi-pairs)"
    assert bw.title == "MPI bandwidth matrix, 4.00 MiB (01-mpi-pairs)"
    assert [r[0] for r in lat.rows] == ["h1", "h2", "h3", "h4"]
    assert lat.rows[0][1] == "—" and lat.rows[0][4] == lat.rows[3][1]
    assert lat.rows[0][4].startswith("⚠") and not lat.rows[0][3].startswith("⚠")
    assert bw.rows[0][3].startswith("⚠") and not bw.rows[0][4].startswith("⚠")
    assert any(n.startswith("h1↔h4 MPI latency") for n in lat.notes)
    assert not any("MPI latency" in n for n in bw.notes)
    outcomes = NoFlaggedMpiPair().outcomes(None, [_step(_lab_like(base))])
    assert [o.ok for o in outcomes] == [True, False, False, False, False, False]
    assert outcomes[1].measured.startswith("h1↔h3 ") and "(bandwidth)" in outcomes[1].measured


# ------------------------------------------------------------------ plan and launch

def test_the_plan_draws_hosts_and_estimates_every_pair():
    suite = parse_suite("name: t\nsteps:\n  - {kind: mpi_pairs, hosts: all}\n"
                        "  - {kind: mpi_pairs, hosts: all, pairs: [[h1, h2]], max_size: 1M,"
                        " iterations: 200, iterations_large: 8}\n", "s.yaml")
    every, one = expand(suite, hosts=load_hosts(HOSTS))
    assert list(every.hosts) == ["h1", "h2", "h3"] and every.kind == "mpi_pairs"
    assert every.estimate_s > 6 * 3 and one.estimate_s < every.estimate_s / 6
    assert sizes(one.spec) == [1 << i for i in range(21)]
    assert bench_argv(one.spec, "/v/bin/python") == [
        "/v/bin/python", "-m", "mpi4py.bench", "pingpong", "-a", "none", "-m", "1", "-n", "1048576",
        "-l", "200", "--loop-large", "8", "--large-size", "16384"]
    assert KIND.needs(one.spec) == ("orted", "NPopenmpi")
    assert KIND.controller_needs(one.spec) == ("mpirun",)
    assert stream_argv(one.spec) == ["NPopenmpi", "-s", "-l", "1048576", "-u", "1048576",
                                     "-p", "0", "-n", "50", "-o", "/dev/null"]
    (pingpong_only,) = expand(parse_suite("name: t\nsteps:\n  - {kind: mpi_pairs, hosts: all,"
                                          " oneway: false}\n", "s.yaml"), hosts=load_hosts(HOSTS))
    assert KIND.needs(pingpong_only.spec) == ("orted",)
    assert pingpong_only.estimate_s < every.estimate_s


def test_a_pair_of_one_host_is_a_suite_error_naming_the_line():
    with pytest.raises(SuiteError) as exc:
        parse_suite("name: t\nsteps:\n  - kind: mpi_pairs\n    pairs: [[h1, h1]]\n", "s.yaml")
    assert "s.yaml:" in str(exc.value) and "a pair of one host" in str(exc.value)


def test_mpi4py_versions_with_a_pingpong():
    assert version_ok("4.1.2\n") and version_ok("5.0.0")
    assert not version_ok("3.1.4") and not version_ok("") and not version_ok("x.y")


def test_launch_networks_refuse_a_name_in_one_line():
    assert networks(["10.99.0.11", "10.99.0.14"], None) == "10.99.0.0/24"
    with pytest.raises(MpiLaunchError, match="'node1' is not an IP address"):
        networks(["node1"], None)
