"""`stackprobe run quick --target /dev/loopN` end to end on real loop devices: a device that
holds a filesystem is refused untouched, a blank one named with --destroy-data gets quick's
fio table, and a suite that only reads runs on the filesystem's device and leaves it as it
was. The two loop devices are made once for the module on sparse files in a temp dir and
detached in the fixture's finalizer, whatever the tests did."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import run_cli
from stackprobe.store.rundir import load_results

pytestmark = [pytest.mark.root, pytest.mark.tools, pytest.mark.slow]

DEVICE_BYTES = 64 * 1024**2
# quick as it is, made short with the suite options every user has: size-bound fio jobs
# of a few MiB instead of 5-second runs, a one-second memory test, no samplers
SHORT = ("--set", "time_based=false", "--set", "size=4M", "--set", "ramp_time=null",
         "--set", "memory.seconds=1", "--no-monitor", "--no-health")


def sha(dev: str) -> str:
    with open(dev, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


class LoopDevices:
    """Loop devices on sparse files in `root`; detach() undoes every one this made."""

    def __init__(self, root: Path):
        self.root = root
        self.made: list[tuple[str, Path]] = []

    def make(self) -> str:
        img = self.root / f"disk{len(self.made)}.img"
        img.write_bytes(b"")
        os.truncate(img, DEVICE_BYTES)
        r = subprocess.run(["losetup", "--find", "--show", str(img)], capture_output=True,
                           text=True)
        if r.returncode != 0:
            img.unlink()
            pytest.skip(f"losetup not permitted here: {r.stderr.strip()}")
        self.made.append((r.stdout.strip(), img))
        return self.made[-1][0]

    def detach(self) -> None:
        for dev, img in reversed(self.made):
            subprocess.run(["losetup", "-d", dev], capture_output=True)
            img.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def devices(tmp_path_factory):
    """(ext4 device, blank device), both 64 MiB, for the whole module."""
    if os.geteuid() != 0 or not shutil.which("losetup"):
        pytest.skip("loop devices need root and losetup")
    loops = LoopDevices(tmp_path_factory.mktemp("loop-images"))
    try:
        ext4 = loops.make()
        subprocess.run(["mkfs.ext4", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0",
                        ext4], check=True, capture_output=True)
        yield ext4, loops.make()
    finally:
        loops.detach()


def run_dir_of(runs: Path) -> Path:
    (found,) = [p for p in runs.iterdir() if p.is_dir()]
    return found


def test_a_device_holding_a_filesystem_is_refused_untouched(devices, tmp_path):
    ext4, _ = devices
    before = sha(ext4)
    link = tmp_path / "by-id-disk"  # as /dev/disk/by-id names a device: resolved
    link.symlink_to(ext4)
    plan = run_cli(["plan", "quick", "--target", link], cwd=tmp_path, check=0).stdout
    assert f"target {link} ({ext4}), block device of 64.0 MiB" in " ".join(plan.split())
    assert f"{ext4}: the whole device (64.0 MiB)" in plan
    steps = json.loads(run_cli(["plan", "quick", "--target", link, "--json"], cwd=tmp_path,
                               check=0).stdout)["steps"]
    assert {s["kind"]: (s["device"], s["skip"]) for s in steps if s["kind"] != "memory"} == {
        "inventory": (None, None), "fio": (ext4, None),
        "metadata": (None, "works on files in a directory: give --target a directory for it")}
    proc = run_cli(["run", "quick", "--target", ext4, "--out", tmp_path / "runs", *SHORT],
                   cwd=tmp_path, check=2)
    line = proc.stderr.strip()
    assert "\n" not in line and line.startswith(f"stackprobe: {ext4}: refusing to write (steps ")
    assert "03-randwrite-iops: rw=randwrite" in line and "ext4 filesystem (UUID " in line
    assert f"name it with --destroy-data {ext4} to allow" in line
    assert not (tmp_path / "runs").exists()  # refused before any load
    assert sha(ext4) == before


def test_quick_fio_table_on_a_blank_device_with_destroy_data(devices, tmp_path):
    _, blank = devices
    assert sha(blank) == hashlib.sha256(bytes(DEVICE_BYTES)).hexdigest()
    run_cli(["run", "quick", "--target", blank, "--destroy-data", blank,
             "--out", tmp_path / "runs", *SHORT], cwd=tmp_path, check=0)
    run = run_dir_of(tmp_path / "runs")
    results = load_results(run)
    assert results.run.target == blank and results.run.status == "ok"
    assert any(w.startswith(f"{blank}: written by steps 03-randwrite-iops: rw=randwrite")
               and "as allowed by --destroy-data" in w for w in results.run.warnings)
    by_status = {}
    for step in results.steps:
        by_status.setdefault(step.status, []).append(step.kind)
    assert by_status["skipped"] == ["metadata"]
    assert sorted(set(by_status["ok"])) == ["fio", "inventory", "memory"]
    (metadata,) = [s for s in results.steps if s.status == "skipped"]
    assert metadata.error == "works on files in a directory: give --target a directory for it"
    fio = [s for s in results.steps if s.kind == "fio"]
    assert len(fio) == 12
    for step in fio:
        job = (run / "steps" / step.id / "job.fio").read_text()
        assert f"filename={blank}" in job and "directory=" not in job
        (rec,) = step.records
        moved = rec.directions()
        assert moved and all(d.iops > 0 and d.io_bytes > 0 for _, d in moved), step.id
    assert sha(blank) != hashlib.sha256(bytes(DEVICE_BYTES)).hexdigest()  # fio wrote it


def test_a_read_only_suite_runs_on_the_filesystems_device_untouched(devices, tmp_path):
    ext4, _ = devices
    before = sha(ext4)
    suite = tmp_path / "reads.yaml"
    suite.write_text("name: device-reads\ndefaults:\n  ioengine: libaio\n  direct: 1\n"
                     "  size: 8M\nsteps:\n  - kind: fio\n    name: reads\n"
                     "    rw: [read, randread]\n    bs: 64k\n    iodepth: 8\n")
    run_cli(["run", suite, "--target", ext4, "--out", tmp_path / "runs", "--no-monitor",
             "--no-health"], cwd=tmp_path, check=0)
    results = load_results(run_dir_of(tmp_path / "runs"))
    assert results.run.target == ext4 and [s.status for s in results.steps] == ["ok", "ok"]
    assert all(s.records[0].read.io_bytes == 8 * 1024**2 for s in results.steps)
    assert sha(ext4) == before
