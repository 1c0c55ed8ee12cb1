"""An fio output someone ran by hand, ingested as a run, compares side by side with a live
stackprobe run of the same workload (real fio on a scratch directory, both)."""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import run_cli

# beside the one-at-a-time system tests (tests/run_tiers.py): real fio output read back: no level
pytestmark = pytest.mark.beside

SUITE = """
name: live-fio
steps:
  - kind: fio
    rw: randread
    bs: 4k
    iodepth: 4
    size: 8M
    runtime: 1
    time_based: true
    ioengine: libaio
"""
# the same load as an engineer types it: other spellings, a longer run, their own job name
BY_HAND = ["fio", "--name=nightly-check", "--readwrite=randread", "--blocksize=4096",
           "--iodepth=4", "--size=8m", "--runtime=1500ms", "--time_based", "--ioengine=libaio",
           "--output-format=json"]


@pytest.mark.tools
def test_hand_run_fio_ingested_pairs_with_the_live_step(tmp_path):
    runs, target, scratch = tmp_path / "runs", tmp_path / "target", tmp_path / "by-hand"
    target.mkdir()
    scratch.mkdir()
    (tmp_path / "suite.yaml").write_text(SUITE)
    run_cli(["run", tmp_path / "suite.yaml", "--target", target, "--runs-dir", runs,
             "--no-health"], cwd=tmp_path, check=0)
    live = next(p.name for p in runs.iterdir() if p.name.endswith("-live-fio"))

    output = tmp_path / "nightly.json"
    with open(output, "wb") as f:
        subprocess.run([*BY_HAND, f"--directory={scratch}"], stdout=f, check=True, timeout=60)
    run_cli(["ingest", output, "--new", "by-hand", "--runs-dir", runs], check=0)
    ingested = next(p.name for p in runs.iterdir() if p.name.endswith("-by-hand"))

    doc = json.loads(run_cli(["compare", live, ingested, "-f", "json", "--runs-dir", runs],
                             check=0).stdout)
    (row,) = [r for r in doc["rows"] if r["direction"] == "read"]
    assert row["present_in"] == ["A", "B"], doc["rows"]
    assert all(side["value"] > 0 for side in row["runs"])
    assert any("runtime differs" in note for note in doc["notes"])
