"""A command whose stdout is read as it runs (live figures, steady state) ends on its
timeout like any other: SIGTERM, then SIGKILL when it ignores SIGTERM."""

from __future__ import annotations

import time

from stackprobe.transport import local
from stackprobe.transport.local import LocalTransport


def test_a_streamed_command_that_ignores_sigterm_is_killed_after_the_grace(monkeypatch):
    monkeypatch.setattr(local, "KILL_GRACE_S", 0.3)
    seen: list[str] = []
    t0 = time.monotonic()
    result = LocalTransport().run(
        ["sh", "-c", "trap '' TERM; echo started; sleep 30 & wait; wait"], timeout=0.5,
        on_stdout=lambda text: seen.append(text) or False)
    assert time.monotonic() - t0 < 5, "killed after the grace, not after sleep's 30 s"
    assert result.timed_out and result.returncode == -9
    assert "".join(seen) == "started\n" == result.stdout
