"""Every benchmark script still runs: its short mode, end to end, printing its figure line.

The short modes measure nothing worth quoting (a second of load); they exist so a
refactoring that breaks a bench fails `make test` instead of being found months later.
The figures themselves come from the full runs (`python bench/X.py`, see the notes).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def bench(script: str, *args: str, timeout: float = 600) -> str:
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / script), "--short", *args],
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    return proc.stdout


@pytest.mark.bench
@pytest.mark.tools
def test_overhead_short_prints_its_ratio_with_monitoring_and_live_figures_on():
    out = bench("overhead.py")
    last = out.strip().splitlines()[-1]
    m = re.fullmatch(r"overhead_ratio=(\d+\.\d+) monitor=on live=on", last)
    assert m and 0.2 < float(m.group(1)) < 2.0, last


@pytest.mark.bench
@pytest.mark.netns
@pytest.mark.root
def test_fleet_scale_short_drives_two_lab_hosts():
    out = bench("fleet_scale.py")
    figures = r"controller_cpu_s=\d+\.\d+ wall_s=\d+\.\d+ rss_mb=\d+"
    assert re.search(rf"^hosts=2 {figures} mode=real step=null-fleet kind=fio .*"
                     r"status=ok clients_reported=2$", out, re.MULTILINE), out
    # one pair drawn among 20 hosts: sadc watches its two hosts, not all 20 (docs/scale.md)
    assert re.search(rf"^hosts=20 {figures} mode=sim step=pairs kind=network .*status=ok "
                     r"pairs=1 watched=2$", out, re.MULTILINE), out
    assert re.search(rf"^hosts=20 {figures} mode=sim step=run .* unanswered=0$", out,
                     re.MULTILINE), out
    assert re.search(r"^hosts=2 .*mode=real step=run .*threads_peak=\d+ fds_peak=\d+ ", out,
                     re.MULTILINE), out


@pytest.mark.bench
@pytest.mark.ceph
def test_slo_search_short_on_the_lab_cluster(ceph_lab):
    out = bench("slo_search.py", "--conf", str(ceph_lab.conf))
    assert re.search(r"^slo_time_ratio=\d+\.\d+ answer_diff=\d+\.\d+ answer_diff_max=\d+\.\d+$",
                     out, re.MULTILINE), out
    assert out.count("stackprobe search:") == 1 and "probes at the answer" in out, out
    assert re.search(r"^reference_spread=0\.000 ", out, re.MULTILINE), out  # K = 1: its own median
    # the ramp and the search both probe numjobs 1 (and the confirmation repeats the answer)
    assert re.search(r"^probe_noise=\d+\.\d{3} \(.*pooled over [1-9]\d* settings.* in \d+% of "
                     r"simulated draws$", out, re.MULTILINE), out
