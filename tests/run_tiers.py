"""Run both test tiers at once for `make test`: the system tier in front, the fast tier
beside it at nice 19.

Why: the system tier runs one test at a time (the labs share a subnet, and most of its tests
judge measured figures), and while it waits on the real tools (fio's runtime, Ceph, sshd,
iperf3) the two cores are idle about two thirds of the time. The fast tier (pure Python,
~9 CPU-minutes) fills that idle time instead of adding five minutes before it. At nice 19
it takes a core only when the system tier leaves one free, so the system tier's figures
stay its own; the fast tier's own time limits count CPU time, not wall time, for that reason
(tests/fuzz_support.py time_limit).

The fast tier's output goes to a scratch file and is printed after the system tier's, so
the two do not interleave; the exit status is the first failing tier's.

Stopping it: Ctrl-C reaches both pytest processes (one process group) and each tears its
labs down; a SIGTERM to this script (a CI job cancelled, `kill PID`) is passed on to both
as SIGINT, for the same teardown, and this script waits for them. Each tier gets SIGINT's
default action back before pytest starts: a shell that starts `make test` in the
background hands it SIGINT ignored, and a Python started with SIGINT ignored never turns
it into KeyboardInterrupt, so its labs would be left running.

Usage: python tests/run_tiers.py [extra pytest arguments for both tiers]
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

PYTEST = [sys.executable, "-m", "pytest", "-q"]
# beside the system tier: the fast tier, and the system tests marked `beside` (they use no
# lab, judge nothing another load could move and put little load on the disk: the wheel,
# Chromium, fio's output read back, SSH to 127.0.0.1; nice shares CPU time only, not the
# disk, memory bandwidth or an MPI rank's polling: docs/ARCHITECTURE.md), which then wait
# for a core in the idle time too; their 15 slowest are printed as the front's 25 are
FAST = ["-m", "not system or beside", "-n", "2", "--dist", "worksteal", "--durations=15"]
SYSTEM = ["-m", "system and not beside", "--durations=25"]  # where the time goes, in every log
TEARDOWN_S = 300  # after SIGINT: a tier tearing its labs down (a lab Ceph cluster, hosts)


class Terminated(Exception):
    """This script got SIGTERM."""


def _terminated(signum, frame):
    raise Terminated


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _stop(proc: subprocess.Popen) -> None:
    """SIGINT (pytest tears its fixtures down), then SIGTERM if it outlives TEARDOWN_S."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(TEARDOWN_S)
    except subprocess.TimeoutExpired:
        proc.terminate()
        proc.wait()


def main(extra: list[str]) -> int:
    signal.signal(signal.SIGTERM, _terminated)
    with tempfile.TemporaryDirectory(prefix="stackprobe-fast-tier-") as scratch:
        log_path = Path(scratch) / "fast.log"
        with log_path.open("wb") as log:
            # its own basetemp (in the scratch directory, removed with it): the two pytest
            # sessions never number or clean up each other's directories under /tmp/pytest-of-*
            fast = subprocess.Popen([*PYTEST, *FAST, "--basetemp", str(Path(scratch) / "tmp"), *extra],
                                    stdout=log, stderr=subprocess.STDOUT,
                                    preexec_fn=lambda: (_sigint_default(), os.nice(19)))
            tiers = [fast]
            try:
                system_proc = subprocess.Popen([*PYTEST, *SYSTEM, *extra],
                                               preexec_fn=_sigint_default)
                tiers.append(system_proc)
                system = system_proc.wait()
                fast_rc = fast.wait()
            except Terminated:  # passed on: both tiers tear their labs down
                for proc in tiers:
                    _stop(proc)
                return 143
            except KeyboardInterrupt:  # Ctrl-C reached the tiers too: let them finish it
                for proc in tiers:
                    try:
                        proc.wait(TEARDOWN_S)
                    except subprocess.TimeoutExpired:
                        proc.terminate()
                        proc.wait()
                return 130
        # its own last line says how long it took
        print("\n===== fast tier (beside the system tier at nice 19) =====", flush=True)
        sys.stdout.buffer.write(log_path.read_bytes())
        sys.stdout.flush()
    print(f"system tier exit {system}, fast tier exit {fast_rc}")
    return system or fast_rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
