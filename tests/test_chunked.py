"""The chunk loop (kinds/chunked.py) with real short commands: chunks in turn, Ctrl-C
keeping what was measured."""

from __future__ import annotations

import threading

import pytest

from stackprobe.kinds.chunked import chunk_lengths, run_chunks
from stackprobe.transport.local import LocalTransport


def test_chunk_lengths_cover_the_duration():
    assert chunk_lengths(130, 60) == [60, 60, 10]
    assert chunk_lengths(120.5, 60) == [60, 60.5]
    assert chunk_lengths(30, 60) == [30]
    with pytest.raises(ValueError):
        chunk_lengths(0, 60)


def test_the_chunk_loop_runs_each_chunk_of_a_real_command_in_turn():
    transport = LocalTransport("here")
    run = run_chunks([0.05, 0.05, 0.05], lambda i, s: transport.run(
        ["sh", "-c", f"sleep {s}; echo chunk {i}"], timeout=10))
    assert run.complete and [r.stdout for r in run.results] == [f"chunk {i}\n" for i in range(3)]


def test_ctrl_c_ends_the_loop_keeping_the_chunks_measured_and_the_stopped_one():
    transport = LocalTransport("here")
    timer = threading.Timer(0.9, transport.interrupt)
    timer.start()
    try:
        run = run_chunks([0.4] * 10, lambda i, s: transport.run(["sleep", str(s)], timeout=10),
                         stopped=lambda r: r.interrupted)
    finally:
        timer.cancel()
    assert run.stopped and not run.complete and run.planned == 10
    assert [r.interrupted for r in run.results] == [False, False, True]


def test_keyboard_interrupt_in_a_chunk_keeps_the_ones_before():
    def one(i, s):
        if i == 2:
            raise KeyboardInterrupt
        return i

    run = run_chunks([1.0] * 5, one)
    assert run.stopped and run.results == [0, 1]
