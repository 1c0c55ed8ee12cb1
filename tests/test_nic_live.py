"""The iperf3 steps' live line: the sending NIC's byte counter, read once a second
(kinds/network/nic_live.py), as intervals the display shows."""

from __future__ import annotations

import subprocess
import time

import pytest

from stackprobe.cli.live_lines import live_text
from stackprobe.kinds.network.nic_live import NicRateFeeder, counter_argv


def test_each_pair_of_samples_is_an_interval_of_the_nics_rate():
    feeder = NicRateFeeder("h1", "eth0", received=False)
    assert feeder.feed("100.00 1000\n101.00 12") == []  # the second line is not whole yet
    (first,) = feeder.feed("5001000\n")
    assert first[0].bw_bytes == pytest.approx(125e6) and (first[0].start_s, first[0].end_s) == (0, 1)
    (second,) = feeder.feed("oops\n102.00 125001000\n")  # not two numbers: skipped
    assert (second[0].start_s, second[0].end_s, second[0].bw_bytes) == (1, 2, 0)
    assert live_text(first) == "h1: 0-1 s  NIC eth0 sent 119 MiB/s"


def test_a_counter_that_went_back_or_time_that_did_not_move_gives_nothing():
    feeder = NicRateFeeder(None, "lo", received=True)
    assert feeder.feed("5.0 900\n5.0 950\n6.0 100\n") == []  # same time, then a reset counter
    (after,) = feeder.feed("7.0 200\n")
    assert after[0].direction == "NIC lo received" and after[0].bw_bytes == 100


@pytest.mark.tools
def test_the_loop_reads_a_real_counter_for_its_seconds():
    t0 = time.monotonic()
    out = subprocess.run(counter_argv("lo", 2, received=False), capture_output=True,
                         text=True, timeout=10, check=True).stdout
    took = time.monotonic() - t0
    lines = out.splitlines()
    assert len(lines) == 3 and all(len(ln.split()) == 2 for ln in lines)
    # it ends with its last sample, as iperf3 ends: not a second after it (which the pair
    # after it waited for)
    assert 2.0 <= took < 2.8, took
    figures = NicRateFeeder(None, "lo", received=False).feed(out)
    assert len(figures) == 2 and figures[0][0].bw_bytes >= 0
