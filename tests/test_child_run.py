"""tests/child_run.py: an interrupted test lets its own `stackprobe run` finish its cleanup.

A stand-in child that takes a second to clean up after SIGINT (as `stackprobe run` removes
its pools and mounts) is started by `run_to_end` in a process of its own; that process gets
SIGINT alone, as pytest does from tests/run_tiers.py. The child's cleanup must have run to
its end; with `subprocess.run` in its place the child is SIGKILLed first (checked too, so
the test shows the difference it guards)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent

CHILD = """\
import signal, sys, time
from pathlib import Path
def stop(*_):
    time.sleep(1.0)  # the cleanup
    Path(sys.argv[1]).write_text("cleaned up")
    sys.exit(130)
signal.signal(signal.SIGINT, stop)
Path(sys.argv[2]).write_text("started")
time.sleep(60)
"""

PARENT = """\
import subprocess, sys
sys.path.insert(0, {tests!r})
from child_run import run_to_end
argv = [sys.executable, "-c", {child!r}, {done!r}, {started!r}]
if sys.argv[1] == "run_to_end":
    run_to_end(argv, timeout=60)
else:
    subprocess.run(argv, capture_output=True, text=True, timeout=60)
"""


def _interrupt(tmp_path: Path, how: str) -> tuple[int, bool]:
    done, started = tmp_path / f"{how}.done", tmp_path / f"{how}.started"
    script = PARENT.format(tests=str(TESTS), child=CHILD, done=str(done), started=str(started))
    parent = subprocess.Popen([sys.executable, "-c", script, how],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), "the child never started"
        os.kill(parent.pid, signal.SIGINT)  # the parent alone, not its child
        parent.communicate(timeout=60)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.communicate()
    return parent.returncode, done.exists()


def test_the_child_gets_sigint_and_finishes_its_cleanup(tmp_path):
    code, cleaned = _interrupt(tmp_path, "run_to_end")
    assert cleaned, "the child's cleanup did not run to its end"
    assert code != 0  # the interrupt went on in the parent (KeyboardInterrupt)


def test_subprocess_run_kills_the_child_before_its_cleanup(tmp_path):
    _, cleaned = _interrupt(tmp_path, "subprocess.run")
    assert not cleaned
