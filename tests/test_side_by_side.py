"""Read-only commands side by side (transport/side_by_side.py): AT_ONCE of them at the same
time, never more, and their results in the order asked whatever order they end in."""

from __future__ import annotations

import threading

from stackprobe.transport.base import CommandResult
from stackprobe.transport.side_by_side import AT_ONCE, side_by_side


def _result(argv: list[str]) -> CommandResult:
    return CommandResult(argv=argv, returncode=0, stdout=argv[-1], stderr="", started=0.0, ended=0.0)


def test_at_once_run_together_never_more_and_answers_keep_the_order_asked():
    together = threading.Barrier(AT_ONCE, timeout=10)  # broken unless AT_ONCE meet
    lock = threading.Lock()
    running, most = 0, 0

    def run(argv):
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        if int(argv[-1]) < AT_ONCE:
            together.wait()
        with lock:
            running -= 1
        return _result(argv)

    argvs = [["ceph", "status", str(i)] for i in range(3 * AT_ONCE)]
    results = side_by_side(run, argvs)
    assert [r.stdout for r in results] == [str(i) for i in range(3 * AT_ONCE)]
    assert most == AT_ONCE


def test_nothing_asked_runs_nothing():
    assert side_by_side(lambda argv: 1 / 0, []) == []
