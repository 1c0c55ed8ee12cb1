"""A fio soak end to end with real fio on real files: chunk after chunk over the same bounded
files, each chunk's raw output compressed, and Ctrl-C keeping the chunks measured."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import threading
import time

import pytest

from conftest import STACKPROBE, run_cli
from stackprobe.schema.records import IoRecord
from stackprobe.schema.storage_soak_records import StorageSoakRecord
from stackprobe.store.rundir import load_results

SIZE = 8 * 1024**2
SUITE = """name: soak
steps:
  - kind: fio
    name: soak
    rw: randwrite
    bs: 4k
    size: 8M
    iodepth: 4
    ioengine: libaio
    direct: 1
    soak: {{duration: {duration}s, chunk: 3s, period: 3s, keep: 2s}}
"""


def allocated(root) -> int:
    """Bytes the files under root take on the disk now."""
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
            except OSError:
                pass
    return total


@pytest.mark.tools
def test_a_soak_overwrites_its_bounded_files_chunk_after_chunk(tmp_path):
    (tmp_path / "soak.yaml").write_text(SUITE.format(duration=9))
    target = tmp_path / "target"
    target.mkdir()
    most, done = [0], threading.Event()

    def watch():
        while not done.is_set():
            most[0] = max(most[0], allocated(target))
            done.wait(0.1)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        run_cli(["run", "soak.yaml", "--target", target, "--out", tmp_path / "runs"],
                cwd=tmp_path, check=0)
    finally:
        done.set()
        watcher.join()
    run_dir = next((tmp_path / "runs").glob("*/results.json")).parent
    step = load_results(run_dir).steps[0]
    whole = next(r for r in step.records if isinstance(r, IoRecord))
    soak = next(r for r in step.records if isinstance(r, StorageSoakRecord))
    assert step.status == "ok" and soak.chunks_run == soak.chunks_planned == 3
    assert [c.status for c in soak.chunks] == ["ok"] * 3
    # hours of writes never take more than the data set: written 3x over, held once
    assert whole.write.io_bytes > 2 * SIZE and 0 < most[0] <= SIZE + 1024**2
    assert soak.data_bytes == SIZE and whole.write.total_ios == sum(
        json.loads(gzip.decompress((run_dir / "steps" / step.id / c.raw).read_bytes()))
        ["jobs"][0]["write"]["total_ios"] for c in soak.chunks)
    chunks = run_dir / "steps" / step.id / "chunks"
    names = sorted(p.name for p in chunks.iterdir())
    assert [n for n in names if n.endswith(".json.gz")] == [
        f"chunk-000{i}.json.gz" for i in (1, 2, 3)]
    assert any(n.startswith("chunk-0003.iops.") for n in names)
    assert not list((run_dir / "steps" / step.id).glob("*.log"))  # every log compressed
    fio = [c for c in step.commands if c.argv[0] == "fio"]
    assert len(fio) == 1  # the first chunk's line stands for all of them
    assert 6 <= soak.seconds <= 10 and len(soak.periods) >= 2
    assert soak.points[-1].t_s > soak.chunks[-1].start_s  # one clock over all chunks
    assert list(target.iterdir()) == [], "test files removed"
    # its monitor read a period (3 s) at a time: sadf's documents kept compressed, one per
    # segment, the summary over every second
    (host, mon), = step.monitor.items()
    assert mon["raw"] == f"monitor-{host}.sadf.json.gz" and mon["segments"] >= 3, mon
    raw = gzip.decompress((run_dir / "steps" / step.id / mon["raw"]).read_bytes()).decode()
    assert raw.count('"sysstat"') >= mon["segments"] - 1
    assert mon["summary"]["samples"] >= 8


@pytest.mark.tools
def test_ctrl_c_keeps_every_finished_chunk(tmp_path):
    (tmp_path / "soak.yaml").write_text(SUITE.format(duration=60))
    target = tmp_path / "target"
    target.mkdir()
    proc = subprocess.Popen(
        STACKPROBE + ["run", "soak.yaml", "--target", str(target), "--out",
                      str(tmp_path / "runs")],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not list(
                (tmp_path / "runs").glob("*/steps/*/chunks/chunk-0002.json.gz")):
            time.sleep(0.1)
        time.sleep(1.0)  # into the third chunk
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, (out[-2000:], err[-2000:])
    assert "Traceback" not in err
    run_dir = next((tmp_path / "runs").glob("*/results.json")).parent
    step = load_results(run_dir).steps[0]
    soak = next(r for r in step.records if isinstance(r, StorageSoakRecord))
    assert step.status == "interrupted" and soak.chunks_planned == 20
    assert [c.status for c in soak.chunks[:2]] == ["ok", "ok"]
    assert soak.chunks[-1].status == "interrupted" and len(soak.chunks) == 3
    assert soak.seconds >= 3 and soak.periods  # the measured seconds are judged
    whole = next(r for r in step.records if isinstance(r, IoRecord))
    assert whole.write.total_ios > 0
    assert list(target.iterdir()) == [], "test files removed"
