"""Live figures as a person at a terminal sees them: `stackprobe run` of two short fio steps
inside a real terminal (a detached tmux session on a tmux server of this test's own), its
screen captured every 0.3 s while the steps run.

Why tmux: the other live tests read a pipe (plain lines) or a rich console forced to act
as a terminal; only a real terminal shows whether the line under the bar is redrawn in
place (one live line per running step on the screen at any moment, its figures changing
from interval to interval) instead of scrolling a log. The figures on the screen must be
the intervals fio itself wrote to the step's kept stdout. One mid-run screen is saved to
tests/artifacts/live-tmux.txt for a person to look at.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from stackprobe.analysis.live_figures import FioLive
from stackprobe.cli.live_lines import live_text
from stackprobe.store.rundir import load_results

pytestmark = [pytest.mark.tools]

ARTIFACT = Path(__file__).resolve().parent / "artifacts" / "live-tmux.txt"
POLL_S = 0.3
TIMEOUT_S = 180
DONE = "tmux-test-run-exit="  # what the pane's shell prints when the run has ended
# The line under the bar: an interval's span, then its figures ('  3-4 s  read 2.00k IOPS ...').
LIVE = re.compile(r"^\s+\d+(?:\.\d)?-\d+(?:\.\d)? s  .*\bIOPS\b")
BAR = re.compile(r"^\[\d/2\] .* ETA ")  # the progress bar (a finished step's line has no ETA)

SUITE = """
name: live-tmux
steps:
  - kind: fio
    name: randread
    rw: randread
    bs: 4k
    size: 32M
    ioengine: psync
    runtime: 4
    time_based: true
  - kind: fio
    name: randwrite
    rw: randwrite
    bs: 4k
    size: 32M
    ioengine: psync
    runtime: 4
    time_based: true
"""


def tmux(socket: str, *args: str) -> subprocess.CompletedProcess:
    """tmux on this test's own server (-L socket), with no user configuration (-f /dev/null)."""
    return subprocess.run(["tmux", "-L", socket, "-f", "/dev/null", *args],
                          capture_output=True, text=True, timeout=30)


def watch_run(tmp_path: Path) -> tuple[list[tuple[float, str]], Path]:
    """Start the run in a 200x50 terminal and capture the screen until it ends: every
    capture with its time, and the run's directory."""
    (tmp_path / "target").mkdir()
    suite = tmp_path / "live-tmux.yaml"
    suite.write_text(SUITE)
    run = [sys.executable, "-m", "stackprobe", "run", str(suite), "--target", str(tmp_path / "target"),
           "--out", str(tmp_path / "runs"), "--no-monitor", "--no-health"]
    # The terminal's own size, not a COLUMNS a test runner may have set; UTF-8 for 'µs'.
    shell = (f"cd {shlex.quote(str(tmp_path))} && env -u COLUMNS -u LINES {shlex.join(run)}; "
             f"echo {DONE}$?; sleep 600")
    socket = f"stackprobe-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    captures: list[tuple[float, str]] = []
    sock = ""
    try:
        started = subprocess.run(["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d",
                                  "-s", "run", "-x", "200", "-y", "50", shell],
                                 env=env, capture_output=True, text=True, timeout=30)
        assert started.returncode == 0, started.stderr
        sock = tmux(socket, "display-message", "-p", "#{socket_path}").stdout.strip()
        t0 = time.monotonic()
        while time.monotonic() - t0 < TIMEOUT_S:
            screen = tmux(socket, "capture-pane", "-p", "-t", "run").stdout
            captures.append((time.monotonic() - t0, screen))
            if DONE in screen:
                break
            time.sleep(POLL_S)
    finally:
        tmux(socket, "kill-server")  # this test's server alone, and what runs in it
        if sock:  # tmux 3.3 leaves its socket file behind
            Path(sock).unlink(missing_ok=True)
    assert captures and DONE in captures[-1][1], captures[-1][1] if captures else "no capture"
    assert f"{DONE}0" in captures[-1][1], captures[-1][1]
    return captures, next(p for p in (tmp_path / "runs").iterdir() if p.is_dir())


def live_lines(screen: str) -> list[str]:
    return [ln for ln in screen.splitlines() if LIVE.match(ln)]


def test_a_terminal_shows_each_steps_live_line_redrawn_in_place(tmp_path):
    captures, run_dir = watch_run(tmp_path)
    steps = load_results(run_dir).steps
    assert [s.status for s in steps] == ["ok", "ok"]

    running = [(t, s) for t, s in captures if any(BAR.match(ln) for ln in s.splitlines())]
    with_live = [(t, s) for t, s in running if live_lines(s)]
    assert with_live, "no live line while the steps ran:\n" + (running or captures)[-1][1]
    # the screen a person would see mid-run, kept to look at (also when a check below fails)
    mid = with_live[len(with_live) // 2][1]
    print(mid)  # shown with -s or -rP: the pane as tmux captured it mid-run
    ARTIFACT.parent.mkdir(exist_ok=True)
    ARTIFACT.write_text(mid.rstrip() + "\n")
    for _, screen in captures:
        # in place: one bar and at most one live line on the screen at any moment
        assert len(live_lines(screen)) <= 1, screen
        assert sum(1 for ln in screen.splitlines() if BAR.match(ln)) <= 1, screen

    # every figure on the screen is an interval fio wrote to the step's kept stdout; each
    # step showed its own, and the line changed in place as intervals ended
    shown = {live_lines(screen)[0].strip() for _, screen in with_live}
    per_step = []
    for step in steps:
        stdout = (run_dir / "steps" / step.id / "fio.stdout").read_text()
        per_step.append({live_text(fs) for fs in FioLive().feed(stdout)})
    assert shown <= set().union(*per_step), (shown, per_step)
    assert all(shown & intervals for intervals in per_step), (shown, per_step)
    assert max(len(shown & intervals) for intervals in per_step) >= 2, shown
