"""bench/sweep_overhead.py still runs: its short mode, end to end, printing its ratio line."""

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
def test_sweep_overhead_short_prints_its_ratio_and_reuses_the_files():
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "sweep_overhead.py"), "--short"],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    lines = proc.stdout.strip().splitlines()
    m = re.fullmatch(r"sweep_wall_ratio=(\d+\.\d+) wall_s=\d+\.\d+ configured_s=2\.0 steps=2",
                     lines[-1])
    assert m and 1.0 < float(m.group(1)) < 20.0, lines[-1]
    steps = [ln for ln in lines if re.match(r"\d\d-", ln)]
    assert len(steps) == 2, lines
    assert "laid out by this step" in steps[0], steps[0]
    assert "reused (made by step 01-" in steps[1], steps[1]
    assert re.search(r"^bare_fio_wall_s=\d+\.\d+ ", proc.stdout, re.MULTILINE), proc.stdout
    # fio's own floor: the same two jobs in one fio process (the bench checks it ran both)
    floor = re.search(r"^one_fio_wall_s=(\d+\.\d+) one_fio_ratio=(\d+\.\d+) ", proc.stdout,
                      re.MULTILINE)
    assert floor and float(floor[1]) > 2.0, proc.stdout  # two jobs of 1 s cannot take less
    # the time between the two fio runs, split by command and stackprobe's own time
    between = [ln for ln in lines if ln.startswith("  ")]
    assert [ln.split(":")[0].strip() for ln in between] == [
        "before the first fio", "between fio 1 and 2", "after the last fio"], between
    m = re.fullmatch(r"  between fio 1 and 2: (\d+\.\d+) s = commands (\d+\.\d+) s \((.*)\) "
                     r"\+ stackprobe alone (\d+\.\d+) s", between[1])
    assert m and float(m[1]) == pytest.approx(float(m[2]) + float(m[4]), abs=0.011), between[1]
    assert "sadf" in m[3] or "sadc" in m[3], between[1]  # the monitor's commands are seen
    assert re.search(r"^outside fio: commands \d+\.\d+ s, stackprobe alone \d+\.\d+ s$",
                     proc.stdout, re.MULTILINE), proc.stdout
