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

Usage: python tests/run_tiers.py [extra pytest arguments for both tiers]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

PYTEST = [sys.executable, "-m", "pytest", "-q"]
# beside the system tier: the fast tier, and the system tests marked `beside` (they judge
# no measured figure and no wall time and use no lab: the wheel, Chromium, ingest of real
# tool output), which then wait for a core in the idle time too
FAST = ["-m", "not system or beside", "-n", "2", "--dist", "worksteal"]
SYSTEM = ["-m", "system and not beside", "--durations=25"]  # where the time goes, in every log


def main(extra: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="stackprobe-fast-tier-") as scratch:
        log_path = Path(scratch) / "fast.log"
        with log_path.open("wb") as log:
            # its own basetemp (in the scratch directory, removed with it): the two pytest
            # sessions never number or clean up each other's directories under /tmp/pytest-of-*
            fast = subprocess.Popen([*PYTEST, *FAST, "--basetemp", str(Path(scratch) / "tmp"), *extra],
                                    stdout=log, stderr=subprocess.STDOUT,
                                    preexec_fn=lambda: os.nice(19))
            try:
                system = subprocess.run([*PYTEST, *SYSTEM, *extra]).returncode
                fast_rc = fast.wait()
            finally:
                if fast.poll() is None:  # interrupted: stop the fast tier we started
                    fast.terminate()
                    fast.wait()
        # its own last line says how long it took
        print("\n===== fast tier (beside the system tier at nice 19) =====", flush=True)
        sys.stdout.buffer.write(log_path.read_bytes())
        sys.stdout.flush()
    print(f"system tier exit {system}, fast tier exit {fast_rc}")
    return system or fast_rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
