"""Long-running daemons the lab starts: detached, recorded by PID, stopped by PID only.

A daemon runs in its own session (so the terminal's Ctrl-C and the stackprobe process
ending do not reach it), with output to a log file. Before signalling a recorded PID the
process is checked to still be the one started (same executable, same lab config in its
command line): a PID recycled by another program is never touched.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass
class Daemon:
    name: str  # e.g. 'mon.a', 'osd.0', 'ceph-fuse'
    pid: int
    argv: list[str]
    log: str

    def as_dict(self) -> dict:
        return asdict(self)


def start(name: str, argv: list[str], log: Path) -> Daemon:
    """Start argv detached; return its record."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True, close_fds=True,
        )
    return Daemon(name=name, pid=proc.pid, argv=list(argv), log=str(log))


def is_ours(d: Daemon) -> bool:
    """The PID is alive and still runs the command we started (not a recycled PID)."""
    try:
        cmdline = Path(f"/proc/{d.pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    args = [a.decode(errors="replace") for a in cmdline if a]
    if not args:
        return False  # a zombie: exited, not yet reaped
    return os.path.basename(args[0]) == os.path.basename(d.argv[0]) and args[1:] == d.argv[1:]


def alive(d: Daemon) -> bool:
    if not is_ours(d):
        return False
    try:
        state = Path(f"/proc/{d.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def stop(daemons: list[Daemon], grace_s: float) -> list[str]:
    """SIGTERM the recorded daemons that are still ours, SIGKILL after `grace_s`.

    Returns what had to be killed (for the record)."""
    targets = [d for d in daemons if alive(d)]
    for d in targets:
        _signal(d.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(alive(d) for d in targets):
        time.sleep(0.1)
    killed = []
    for d in targets:
        if alive(d):
            _signal(d.pid, signal.SIGKILL)
            killed.append(d.name)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(alive(d) for d in targets):
        time.sleep(0.05)
    return killed


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
