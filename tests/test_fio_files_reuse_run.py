"""A real run: the second read step of a sweep reuses the files the first laid out, says so
in its notes and in the summary, and nothing is left in the target afterwards. (fio's JSON
output does not say whether it laid a file out; tests/test_fio_files_reuse.py follows the
files themselves.)"""

from __future__ import annotations

import json

import pytest

from conftest import run_cli

# beside the one-at-a-time system tests (tests/run_tiers.py): which test files are reused: no level
pytestmark = pytest.mark.beside

SUITE = """\
name: reuse
steps:
  - kind: fio
    rw: randread
    bs: 4k
    iodepth: [1, 2]
    size: 16M
    runtime: 1s
    time_based: true
    direct: 1
"""


@pytest.mark.tools
def test_a_second_read_step_reuses_the_files_of_the_first(workdir, tmp_path):
    suite = tmp_path / "reuse.yaml"
    suite.write_text(SUITE)
    out = tmp_path / "runs"
    proc = run_cli(["run", suite, "--target", workdir, "--out", out, "--no-health"], check=0)
    run_dir = next(p for p in out.iterdir() if p.is_dir())
    first, second = json.loads((run_dir / "results.json").read_text())["steps"]
    assert first["status"] == second["status"] == "ok"
    assert "test files: 1 × 16.0 MiB laid out by this step" in first["notes"]
    assert f"test files: 1 × 16.0 MiB reused (made by step {first['id']})" in second["notes"]
    assert "reused (made by step" in proc.stdout
    assert list(workdir.iterdir()) == []  # the run's scratch, kept files and all, is gone
