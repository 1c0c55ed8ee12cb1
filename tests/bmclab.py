"""The lab BMC for a test module: `stackprobe lab bmc up` through the CLI (ipmi_sim on
127.0.0.1), and `lab bmc down` however the tests ended — ipmi_sim stopped by its PID, its
directory removed — checked each time, so no test leaves a simulator running."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from stackprobe.lab import daemons
from stackprobe.lab.bmc import BmcLab


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stackprobe", *args], capture_output=True,
                          text=True, timeout=120)


@contextmanager
def bmc_lab(d: Path) -> Iterator[tuple[BmcLab, dict, str]]:
    """(the lab, its state, what `lab bmc up` printed) for a lab in `d` (not yet there)."""
    up = _cli("lab", "bmc", "up", "--dir", str(d))
    bmc = BmcLab(d)
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        yield bmc, bmc.state(), up.stdout
    finally:
        state = bmc.state()
        down = _cli("lab", "bmc", "down", "--dir", str(d))
        assert down.returncode == 0, down.stdout + down.stderr
        assert state is None or not daemons.alive(daemons.Daemon(**state["daemon"]))
        assert not d.exists()
