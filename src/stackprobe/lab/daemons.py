"""Long-running daemons the lab starts: detached, recorded by PID, stopped by PID only.

A daemon runs in its own session (so the terminal's Ctrl-C and the stackprobe process
ending do not reach it), with output to a log file. Before signalling a recorded PID the
process is checked to still be the one started (same executable, same lab config in its
command line): a PID recycled by another program is never touched.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

from stackprobe.procs import stop_pids


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
    by_pid = {d.pid: d for d in daemons}
    killed = stop_pids(list(by_pid), lambda pid: alive(by_pid[pid]), grace_s)
    return [by_pid[pid].name for pid in killed]
