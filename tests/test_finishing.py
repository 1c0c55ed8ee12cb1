"""Ctrl-C while a run removes what it made waits for the removal (engine/launch.py): the
pool, images and mounts are gone before the interrupt takes effect."""

from __future__ import annotations

import os
import signal

import pytest

from stackprobe.engine.launch import _finishing


def test_ctrl_c_during_cleanup_lets_it_finish_then_interrupts():
    done = []
    with pytest.raises(KeyboardInterrupt):
        with _finishing():
            os.kill(os.getpid(), signal.SIGINT)
            done.append("the rest of the cleanup ran")
    assert done == ["the rest of the cleanup ran"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


def test_no_signal_no_interrupt():
    with _finishing():
        pass
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
