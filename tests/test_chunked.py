"""The chunk loop (kinds/chunked.py) with real short commands: chunks in turn, Ctrl-C
keeping what was measured."""

from __future__ import annotations

import threading
import time

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
    """Ctrl-C lands while the third chunk's command runs (not after a wall-clock delay: on a
    busy CI machine the first chunks can take longer than any fixed delay)."""
    transport = LocalTransport("here")

    def interrupt_once_running():
        deadline = time.monotonic() + 10
        while not transport.running_pids() and time.monotonic() < deadline:
            time.sleep(0.01)
        transport.interrupt()

    def one(i, s):
        if i == 2:
            threading.Thread(target=interrupt_once_running, daemon=True).start()
        return transport.run(["sleep", str(s)], timeout=10)

    started = time.monotonic()
    run = run_chunks([0.05, 0.05] + [5.0] * 8, one, stopped=lambda r: r.interrupted)
    assert run.stopped and not run.complete and run.planned == 10
    assert [r.interrupted for r in run.results] == [False, False, True]
    assert time.monotonic() - started < 5  # the stopped chunk ended at the interrupt


def test_keyboard_interrupt_in_a_chunk_keeps_the_ones_before():
    def one(i, s):
        if i == 2:
            raise KeyboardInterrupt
        return i

    run = run_chunks([1.0] * 5, one)
    assert run.stopped and run.results == [0, 1]
