"""One SSH connection per host needs a file descriptor per host: a run raises its soft
open-files limit as far as its hosts need, and stops in one line when the hard limit is
below that (transport/open_files.py). Each case runs in a child process whose limits the
test lowers first (never this process's)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import json, resource, sys
from stackprobe.errors import UserError
from stackprobe.transport.open_files import ensure_open_files
soft, hard, hosts = (int(a) for a in sys.argv[1:])
resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
try:
    now = ensure_open_files(hosts)
    print(json.dumps({"now": now, "limits": resource.getrlimit(resource.RLIMIT_NOFILE)}))
except UserError as exc:
    print(json.dumps({"error": str(exc)}))
"""


def child(soft: int, hard: int, hosts: int) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(soft), str(hard), str(hosts)],
                          capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(ROOT / "src")})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_thousand_hosts_raise_the_soft_limit_within_the_hard_one():
    out = child(1024, 4096, 1000)
    assert out["now"] == 1256 and out["limits"] == [1256, 4096]
    # and the raised limit is real: that many descriptors can be open at once
    opened = subprocess.run([sys.executable, "-c", CHILD.replace(
        'print(json.dumps({"now"', 'import os; fds = [os.open("/dev/null", 0) for _ in range(1200)]'
        '; print(json.dumps({"now"'), "1024", "4096", "1000"],
        capture_output=True, text=True, timeout=60, env={"PYTHONPATH": str(ROOT / "src")})
    assert opened.returncode == 0 and '"now": 1256' in opened.stdout, opened.stderr[-500:]


@pytest.mark.parametrize("soft", [2000, 1256])
def test_a_limit_already_high_enough_is_left_alone(soft):
    assert child(soft, 4096, 1000) == {"now": soft, "limits": [soft, 4096]}


def test_a_hard_limit_too_low_stops_the_run_in_one_line():
    out = child(256, 512, 1000)
    assert out["error"].startswith("1000 hosts need about 1256 open files; this process may "
                                   "open at most 512 (ulimit -Hn)")
    assert "\n" not in out["error"]
