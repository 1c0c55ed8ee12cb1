"""`mpi_pairs`' one-way bandwidth: NetPIPE's output read (recorded real runs, here and from
the lab), the direction matrix and its flags, what the terminal and the criterion show."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest

from stackprobe.analysis.mpi_directions import (
    build_direction_matrix,
    slow_directions,
    still_slow,
)
from stackprobe.analysis.mpi_matrix import build_mpi_matrix
from stackprobe.kinds.network.mpi_report import NoFlaggedMpiPair, mpi_tables
from stackprobe.parsers.network.netpipe_text import looks_like_netpipe, parse_netpipe
from stackprobe.schema.fabric_records import (
    MpiPairRecord,
    MpiPingPongRow,
    MpiStreamRecord,
    MpiStreamRow,
)
from stackprobe.schema.results import StepResult

REC = Path(__file__).parent / "fixtures" / "recorded" / "netpipe"
HOSTS = ("h1", "h2", "h3", "h4")


def _read(name: str) -> str:
    return (REC / name).read_text(encoding="utf-8")


# ------------------------------------------------------------------ the parser

def test_the_lab_stream_into_the_shaped_host_is_its_rate():
    """tbf's 200 Mbit/s into h3 is 25 MB/s; NetPIPE's 182.99 'Mbps' is 2^20 bits/s."""
    assert looks_like_netpipe(_read("lab_stream_h1-to-h3_256KiB_n20.txt"))
    (into,) = parse_netpipe(_read("lab_stream_h1-to-h3_256KiB_n20.txt"))
    (out,) = parse_netpipe(_read("lab_stream_h3-to-h1_256KiB_n20.txt"))
    assert into.streaming and into.complete and into.tool == "NetPIPE NPopenmpi -s"
    (row,) = into.rows
    assert (row.size_bytes, row.repeats, row.time_us) == (262144, 20, 10929.45)
    assert row.bw_bytes == pytest.approx(182.99 * 2**20 / 8)
    assert row.bw_bytes == pytest.approx(262144 / 10929.45e-6, rel=1e-3)
    assert 23e6 < row.bw_bytes < 25e6 and out.rows[0].bw_bytes > 20 * row.bw_bytes


def test_every_size_is_read_and_the_ping_pong_mode_is_told_apart():
    (stream,) = parse_netpipe(_read("stream_1B-4KiB_n100_local.txt"))
    assert stream.streaming and stream.rows[0].size_bytes == 1
    assert stream.rows[-1].size_bytes == 4096 and len(stream.rows) == 24
    (pingpong,) = parse_netpipe(_read("pingpong_1B-64KiB_n50_local.txt"))
    assert not pingpong.streaming
    sizes = [r.size_bytes for r in pingpong.rows]
    assert sizes == sorted(sizes) and {65533, 65536, 65539} <= set(sizes)  # perturbed


def test_a_cut_output_and_foreign_text_are_one_line_each():
    text = _read("stream_4MiB_n20_local.txt")
    cut = text[: text.index(" Mbps in")]
    with pytest.raises(ValueError, match="^NetPIPE: no 'N: SIZE bytes"):
        parse_netpipe(cut)  # the only row is the fragment
    (rec,) = parse_netpipe(_read("stream_1B-4KiB_n100_local.txt").rstrip("\n")[:-4])
    assert rec.complete is False and rec.rows[-1].size_bytes < 4096
    with pytest.raises(ValueError, match="^NetPIPE: no 'N: SIZE"):
        parse_netpipe("mpirun was unable to launch the specified application\n")


def test_a_row_whose_rate_and_time_disagree_is_refused_naming_the_line():
    bad = "Now starting the main loop\n  0: 4194304 bytes 20 times -->  48888.22 Mbps in 100.00 usec\n"
    with pytest.raises(ValueError, match=r"^NetPIPE line 2: 48888.22 Mbps is not 4194304 bytes"):
        parse_netpipe(bad)
    with pytest.raises(ValueError, match="line 1: a size, count, rate or time"):
        parse_netpipe("  0: 0 bytes 20 times --> 1.00 Mbps in 1.00 usec\n")


# ------------------------------------------------------------------ the direction matrix

def _stream(src: str, dst: str, mbps: float) -> MpiStreamRecord:
    bw = mbps * 2**20 / 8
    return MpiStreamRecord(client=src, server=dst, rows=[MpiStreamRow(
        size_bytes=262144, repeats=20, time_us=262144 / bw * 1e6, bw_bytes=bw)])


def _lab_like() -> list[MpiStreamRecord]:
    """The lab's figures: into h3 the shaped 183 'Mbps', the rest 9-20 thousand."""
    fast = {("h1", "h2"): 11182, ("h1", "h4"): 20745, ("h2", "h1"): 19531, ("h2", "h4"): 18718,
            ("h3", "h1"): 19569, ("h3", "h2"): 9276, ("h3", "h4"): 9395, ("h4", "h1"): 9530,
            ("h4", "h2"): 20512}
    slow = {("h1", "h3"): 183, ("h2", "h3"): 183, ("h4", "h3"): 80}
    return [_stream(a, b, v) for (a, b), v in {**fast, **slow}.items()]


def test_only_the_directions_into_the_shaped_host_are_flagged():
    m = build_direction_matrix(_lab_like(), slow_fraction=0.3)
    flagged = sorted(k for k, c in m.cells.items() if c.flags)
    assert flagged == [("h1", "h3"), ("h2", "h3"), ("h4", "h3")] == slow_directions(m)
    assert all(not m.cells[("h3", x)].flags for x in ("h1", "h2", "h4"))
    assert m.host_notes == ["every one-way MPI transfer into h3 is flagged for bandwidth (3 "
                            "senders): look at h3's receiving side (its link in, its NIC)"]
    assert m.cells[("h1", "h3")].notes[0].startswith("h1→h3 MPI one-way bandwidth 22.9 MiB/s")
    # the lab's fast directions spread 2x (2 shared cores): the default 0.7 names three of them
    assert len([c for c in build_direction_matrix(_lab_like()).cells.values() if c.flags]) > 3


def test_a_failed_direction_is_flagged_and_two_have_no_typical():
    m = build_direction_matrix([_stream("h1", "h2", 9000), _stream("h2", "h1", 100),
                                MpiStreamRecord(client="h1", server="h3", error="mpirun: lost")])
    assert m.typical_bw_bytes is None and m.cells[("h1", "h3")].flags == ["failed"]
    assert m.flags() == ["h1→h3 MPI one-way bandwidth failed: mpirun: lost"]
    assert slow_directions(m) == []  # a failure is its own finding: not streamed again
    with pytest.raises(ValueError, match="without sender and receiver"):
        build_direction_matrix([MpiStreamRecord()])


def test_every_direction_out_of_a_host_flagged_names_its_sending_side():
    recs = [_stream(a, b, 100 if a == "h2" else 9000) for a in HOSTS[:3] for b in HOSTS[:3]
            if a != b]
    assert build_direction_matrix(recs).host_notes == [
        "every one-way MPI transfer out of h2 is flagged for bandwidth (2 receivers): look at "
        "h2's sending side (its link out, its NIC)"]


# ------------------------------------------------------------------ what is shown and judged

def _pingpongs() -> list[MpiPairRecord]:
    """Every ordered pair's ping-pong: all alike, but slow with h3 (both ways cross it)."""
    out = []
    for a in HOSTS:
        for b in HOSTS:
            if a != b:
                bw = 12e6 if "h3" in (a, b) else 900e6
                out.append(MpiPairRecord(client=a, server=b, rows=[
                    MpiPingPongRow(size_bytes=1, latency_ns=20e3, bw_bytes=0.05e6),
                    MpiPingPongRow(size_bytes=262144, latency_ns=262144 / bw * 1e9, bw_bytes=bw)]))
    return out


def _step(pingpongs, streams) -> StepResult:
    m = build_mpi_matrix(pingpongs, flag_bandwidth=not streams)
    d = build_direction_matrix(streams, slow_fraction=0.3)
    finding = {"hosts": m.hosts, "latency_size": m.latency_size, "bw_size": m.bw_size,
               "typical_latency_ns": m.typical_latency_ns, "typical_bw_bytes": m.typical_bw_bytes,
               "host_notes": m.host_notes,
               "cells": [{k: v for k, v in asdict(c).items() if v is not None}
                         for c in m.cells.values()],
               "oneway": {"size": d.size, "typical_bw_bytes": d.typical_bw_bytes,
                          "host_notes": d.host_notes,
                          "cells": [{k: v for k, v in asdict(c).items() if v is not None}
                                    for c in d.cells.values()]}}
    return StepResult(id="01-mpi-pairs", index=1, name="mpi-pairs", kind="mpi_pairs", title="t",
                      layer="network", params={}, status="ok", records=[*pingpongs, *streams],
                      findings={"mpi_pairs": finding})


def test_the_bandwidth_matrix_is_one_of_directions_and_the_ping_pong_flags_no_bandwidth():
    step = _step(_pingpongs(), _lab_like())
    lat, bw = mpi_tables([step])
    assert bw.title == "MPI one-way bandwidth matrix, 256 KiB, sender → receiver (01-mpi-pairs)"
    rows = {r[0]: r for r in bw.rows}
    assert rows["h1"][3].startswith("⚠") and not rows["h3"][1].startswith("⚠")  # h1→h3, h3→h1
    assert rows["h4"][3].startswith("⚠") and rows["h3"][3] == "—"
    assert any(n.startswith("every one-way MPI transfer into h3") for n in bw.notes)
    assert not any("bandwidth" in c.get("flags", []) for c in step.findings["mpi_pairs"]["cells"])
    outcomes = NoFlaggedMpiPair().outcomes(None, [step])
    failed = [o.measured for o in outcomes if not o.ok]
    assert len(outcomes) == 6 + 12 and len(failed) == 3
    assert all(" one way " in f and "→h3" in f and "(bandwidth)" in f for f in failed)


def test_a_direction_streamed_again_keeps_its_best_stream_and_its_dip_stays_on_record():
    """h3→h2 sank once (a descheduled rank) and not again; into h3 is slow every time."""
    recs = [r for r in _lab_like() if (r.client, r.server) != ("h3", "h2")]
    recs += [_stream("h3", "h2", 4000), _stream("h1", "h3", 180), _stream("h1", "h3", 185),
             _stream("h3", "h2", 9276)]
    m = build_direction_matrix(recs, slow_fraction=0.3)
    dip, slow = m.cells[("h3", "h2")], m.cells[("h1", "h3")]
    assert dip.flags == [] and dip.bw_bytes == pytest.approx(9276 * 2**20 / 8)
    assert dip.streams == pytest.approx([4000 * 2**20 / 8, 9276 * 2**20 / 8])
    assert slow.flags == ["bandwidth"] and slow.bw_bytes == pytest.approx(185 * 2**20 / 8)
    assert " at 256 KiB (the best of 3 streams), " in slow.notes[0]
    assert m.cells[("h2", "h3")].streams is None  # streamed once: nothing to list
    _, bw = mpi_tables([_step(_pingpongs(), recs)])
    cleared = [n for n in bw.notes if n.startswith("h3→h2 streamed 2×: ")]
    assert cleared == ["h3→h2 streamed 2×: 500 MiB/s, then 1.13 GiB/s; the best is kept (a dip "
                       "another stream does not repeat is the hosts', not the link's)"]
    assert not any(n.startswith("h1→h3 streamed") for n in bw.notes)  # flagged: its own note


def test_a_further_stream_is_judged_by_the_flags_rule_against_the_first_streams_typical():
    m = build_direction_matrix(_lab_like(), slow_fraction=0.3)
    typical_mbps = m.typical_bw_bytes * 8 / 2**20
    assert not still_slow(m, _stream("h1", "h3", typical_mbps * 0.31), 0.3)
    assert still_slow(m, _stream("h1", "h3", typical_mbps * 0.29), 0.3)
    assert still_slow(m, MpiStreamRecord(client="h1", server="h3", error="mpirun: lost"), 0.3)
    other_size = _stream("h1", "h3", typical_mbps)
    other_size.rows[0].size_bytes = 4096
    assert still_slow(m, other_size, 0.3)  # no row at the matrix's size: not yet cleared
