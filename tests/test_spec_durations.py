"""Durations in a suite: every time must be > 0, but fio's ramp_time may be 0 (fio's own
default: no ramp), so a suite or `--set ramp_time=0` can run fio without one."""

from __future__ import annotations

import pytest

from conftest import run_cli
from stackprobe.kinds.fio.fio_job import build_job
from stackprobe.plan.expand import one_step


def test_ramp_time_zero_is_fio_without_a_ramp():
    step = one_step({"kind": "fio", "rw": "read", "bs": "4k", "size": "1M", "runtime": 1,
                     "ramp_time": 0})
    assert step.spec.ramp_time.seconds == 0
    assert "ramp_time=0\n" in build_job("j", step.spec, directory="/scratch")


@pytest.mark.parametrize(("field", "value", "said"), [
    ("ramp_time", "-1", "steps[0].ramp_time: must be >= 0"),
    ("runtime", "0", "steps[0].runtime: must be > 0"),
])
def test_a_time_below_its_least_is_one_line_naming_it(tmp_path, field, value, said):
    suite = tmp_path / "s.yaml"
    suite.write_text(f"name: x\nsteps:\n  - {{kind: fio, rw: read, bs: 4k, size: 1M, "
                     f"{field}: {value}}}\n")
    proc = run_cli(["plan", suite], cwd=tmp_path, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    (line,) = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert line == f"stackprobe: {suite}:3: {said}", line


def test_set_ramp_time_zero_plans_every_fio_step_without_a_ramp(tmp_path):
    proc = run_cli(["plan", "quick", "--json", "--set", "ramp_time=0"], cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert '"ramp_time": 1' not in proc.stdout and '"ramp_time": 0' in proc.stdout
