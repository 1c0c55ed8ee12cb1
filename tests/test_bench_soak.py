"""bench/soak_cost.py still runs: its short mode (a 20 s fio soak, its synthetic day and the
report of it) prints the figure line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.bench
@pytest.mark.tools
def test_soak_cost_short_prints_disk_memory_and_report_time():
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "soak_cost.py"), "--short"],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    last = proc.stdout.strip().splitlines()[-1]
    m = re.fullmatch(r"soak_disk_mb_per_host_day=(\d+\.\d) rss_growth_mb=(-?\d+\.\d) "
                     r"report_s_24h=(\d+\.\d\d)", last)
    assert m, proc.stdout
    assert float(m.group(1)) > 0 and float(m.group(3)) > 0
    assert re.search(r"^soak: 2 chunks, \d+ s measured", proc.stdout, re.MULTILINE), proc.stdout
