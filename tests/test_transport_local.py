"""LocalTransport on real processes: output capture, timeouts, live stdout with a stop
request, interrupts, background processes — every stop by the PID it started."""

from __future__ import annotations

import time

from cephlab import pid_alive
from stackprobe.transport.local import LocalTransport

COUNT = ["sh", "-c", "for i in 1 2 3 4 5 6 7 8; do echo tick $i; sleep 0.5; done; echo done"]


def test_output_and_exit_status():
    res = LocalTransport().run(["sh", "-c", "echo out; echo err >&2; exit 3"])
    assert (res.stdout, res.stderr, res.returncode) == ("out\n", "err\n", 3)
    assert not res.ok and res.pid and res.duration_s >= 0


def test_missing_program_is_a_result_not_an_exception():
    res = LocalTransport().run(["no-such-program-xyz"])
    assert res.returncode is None and "no-such-program-xyz" in res.stderr


def test_timeout_stops_the_command():
    t0 = time.monotonic()
    res = LocalTransport().run(["sleep", "30"], timeout=1)
    assert res.timed_out and time.monotonic() - t0 < 10
    assert not pid_alive(res.pid)


def test_live_stdout_can_end_the_command():
    seen = []

    def on_stdout(text: str) -> bool:
        seen.append(text)
        return "tick 3" in "".join(seen)

    t0 = time.monotonic()
    res = LocalTransport().run(COUNT, on_stdout=on_stdout, timeout=30)
    assert res.stopped_early and not res.timed_out
    assert "tick 3" in res.stdout and "done" not in res.stdout
    assert time.monotonic() - t0 < 3.5
    assert not pid_alive(res.pid)


def test_streaming_keeps_everything_when_not_stopped():
    res = LocalTransport().run(COUNT[:2] + ["echo a; echo b >&2; echo c"], on_stdout=lambda t: False)
    assert (res.stdout, res.stderr, res.ok) == ("a\nc\n", "b\n", True)


def test_streaming_timeout():
    res = LocalTransport().run(["sleep", "30"], timeout=1, on_stdout=lambda t: False)
    assert res.timed_out and not pid_alive(res.pid)


def test_interrupt_then_clear():
    t = LocalTransport()
    t.interrupt()
    res = t.run(["sleep", "5"])
    assert res.interrupted and res.duration_s < 3
    t.clear_interrupt()
    res = t.run(["true"])
    assert res.ok and not res.interrupted


def test_background_start_and_stop(tmp_path):
    t = LocalTransport()
    bg = t.start(["sleep", "60"], log=str(tmp_path / "bg.log"))
    assert bg.alive() and pid_alive(bg.pid)
    bg.stop(grace_s=2)
    assert not bg.alive() and not pid_alive(bg.pid)
