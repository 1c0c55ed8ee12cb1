"""`subprocess.run` for a test's own `stackprobe run`, that lets the run tear down when the
test is interrupted.

Why: `subprocess.run` SIGKILLs its child when the caller gets KeyboardInterrupt (0.25 s
after, if the child got the terminal's Ctrl-C too; at once if only pytest got SIGINT, as
from tests/run_tiers.py). A killed `stackprobe run` cannot stop what it started: a Ceph
view's sadc left sampling, a pool or a mount left in the lab. Here the child gets SIGINT
instead, as a user's Ctrl-C, and is waited for while it removes what it made.
"""

from __future__ import annotations

import signal
import subprocess

STOP_S = 120  # a run interrupted mid-step: its cleanup (pools, mounts, the hosts' scratch)


def run_to_end(argv: list[str], *, timeout: float, cwd=None, env=None
               ) -> subprocess.CompletedProcess:
    """Run `argv` with its output captured as text, like `subprocess.run(argv,
    capture_output=True, text=True, timeout=...)`; on KeyboardInterrupt the child gets SIGINT
    and up to STOP_S to end before it is killed, then the interrupt goes on."""
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          cwd=cwd, env=env) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            raise subprocess.TimeoutExpired(argv, timeout, out, err) from None
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            try:
                proc.communicate(timeout=STOP_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
            raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)
