"""The memory step's runner through its own command lines, on this machine: `stress-ng` here
is a script that prints what the real stress-ng 0.15.06 printed for the same command on a
guest with a 300 MiB L3 (tests/fixtures/recorded/stress-ng, RECORDED.md): too short at 10 s,
a rate at 20 s. The step must run it again, longer, say so, and keep both runs' outputs."""

from __future__ import annotations

import os

import pytest

from conftest import FIXTURES
from stackprobe.kinds.context import StepContext, TargetInfo
from stackprobe.kinds.host.memory import MemoryRunner
from stackprobe.plan.expand import one_step
from stackprobe.store.rundir import RunDir
from stackprobe.transport.local import LocalTransport

RECORDED = FIXTURES / "recorded" / "stress-ng"
SHORT = RECORDED / "stress-ng-0.15.06_stream1_10s_too-short_300MiB-L3.txt"
OK = RECORDED / "stress-ng-0.15.06_stream1_20s_300MiB-L3.txt"


@pytest.fixture
def recorded_stress_ng(tmp_path, monkeypatch):
    """A `stress-ng` first on PATH that prints the recording of its --timeout's run."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "stress-ng"
    tool.write_text(f'#!/bin/sh\ncase "$*" in\n  *"--timeout 10s"*) cat "{SHORT}" >&2 ;;\n'
                    f'  *"--timeout 20s"*) cat "{OK}" >&2 ;;\n  *) echo "no recording: $*" >&2; exit 1 ;;\n'
                    f'esac\n')
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    return bin_dir


def _ctx(tmp_path) -> StepContext:
    step = one_step({"kind": "memory", "tool": "stress-ng", "threads": 1, "seconds": 1})
    run_dir = RunDir.create(tmp_path / "runs", "memory-test")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    return StepContext(step, LocalTransport(), run_dir, TargetInfo(root=scratch), 120.0)


def test_a_run_stress_ng_calls_too_short_is_run_again_twice_as_long(tmp_path, recorded_stress_ng):
    ctx = _ctx(tmp_path)
    outcome = MemoryRunner().run(ctx)
    assert outcome.status == "ok", outcome.error
    assert {r.operation: round(r.bw_bytes / 1024**2, 2) for r in outcome.records} == \
        {"read": 6115.35, "write": 4076.9}
    assert outcome.warnings == ["stress-ng: a 10 s run was too short for it to give a rate on "
                                "this host; run again for 20 s"]
    assert [c.argv[-2] for c in ctx.commands] == ["10s", "20s"]
    kept = sorted(p.name for p in ctx.step_dir.iterdir() if p.suffix == ".stderr")
    assert kept == ["stress-ng-20s.stderr", "stress-ng.stderr"]
