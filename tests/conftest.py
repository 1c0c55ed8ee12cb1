"""Shared test helpers: run the real CLI, make scratch dirs, find fixtures."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
STACKPROBE = [sys.executable, "-m", "stackprobe"]


def run_cli(args, *, cwd=None, env=None, timeout=600, check=None):
    """Run `stackprobe ARGS` as a user would; returns the CompletedProcess."""
    full_env = {**os.environ, "COLUMNS": "200", **(env or {})}
    proc = subprocess.run(
        STACKPROBE + [str(a) for a in args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check is not None:
        assert proc.returncode == check, (proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:])
    return proc


@pytest.fixture
def workdir(tmp_path):
    """A scratch directory on a real filesystem (ext4/xfs under /tmp), for real fio runs."""
    d = tmp_path / "work"
    d.mkdir()
    return d
