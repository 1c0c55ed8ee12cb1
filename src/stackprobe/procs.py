"""Stopping processes stackprobe started: by PID only, and only while they are still ours.

Every place that stops something (the lab's daemons and sshds, a cut-short run's leftovers)
knows how to tell that a PID is still the process it started — the same executable, the
same namespace, the run's own directory in its command line — and passes that test in.
A PID that has exited, or been reused by another program, is never signalled.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable

KILL_WAIT_S = 5.0


def stop_pids(pids: list[int], still_ours: Callable[[int], bool], grace_s: float) -> list[int]:
    """SIGTERM the PIDs still ours, SIGKILL those left after `grace_s`; the ones killed."""
    targets = [p for p in pids if still_ours(p)]
    for pid in targets:
        send(pid, signal.SIGTERM)
    _wait_gone(targets, still_ours, grace_s)
    killed = [p for p in targets if still_ours(p)]
    for pid in killed:
        send(pid, signal.SIGKILL)
    _wait_gone(killed, still_ours, KILL_WAIT_S)
    return killed


def _wait_gone(pids: list[int], still_ours: Callable[[int], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(still_ours(p) for p in pids):
        time.sleep(0.05)


def send(pid: int, sig: int) -> None:
    """A signal to a PID that may have exited meanwhile."""
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
