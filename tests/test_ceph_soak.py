"""Soaks on the lab Ceph cluster: rados bench reading one fixed object set chunk after chunk,
and fio's rbd engine overwriting the run's image of `size` - both bounded data sets."""

from __future__ import annotations

import pytest

from conftest import run_cli
from stackprobe.schema.records import IoRecord
from stackprobe.schema.storage_soak_records import StorageSoakRecord
from stackprobe.store.rundir import load_results

MIB = 1024**2
SUITE = """name: ceph-soak
steps:
  - kind: rados_bench
    block_size: 1M
    threads: 4
    soak: {duration: 6s, chunk: 3s, period: 3s, keep: 2s, size: 16M}
  - kind: fio
    target: rbd
    rw: randwrite
    bs: 64k
    size: 16M
    iodepth: 8
    soak: {duration: 6s, chunk: 3s, period: 3s, keep: 2s}
"""


def soak_of(step) -> tuple[list[IoRecord], StorageSoakRecord]:
    return ([r for r in step.records if isinstance(r, IoRecord)],
            next(r for r in step.records if isinstance(r, StorageSoakRecord)))


@pytest.mark.ceph
def test_rados_and_rbd_soaks_stay_on_their_bounded_data(ceph_lab, tmp_path):
    (tmp_path / "s.yaml").write_text(SUITE)
    pools_before = set(ceph_lab.pools())
    proc = run_cli(["run", "s.yaml", "--ceph-conf", ceph_lab.conf, "--out", tmp_path / "runs"],
                   cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, (proc.stdout[-3000:], proc.stderr[-3000:])
    run_dir = next((tmp_path / "runs").glob("*/results.json")).parent
    steps = {s.kind: s for s in load_results(run_dir).steps}

    io, soak = soak_of(steps["rados_bench"])
    made, reads = io[0], io[1]
    assert steps["rados_bench"].status == "ok" and soak.chunks_run == 2
    assert made.write.total_ios == 16 and soak.data_bytes == 16 * MIB  # the set, once
    assert reads.read.total_ios > 16  # read over and over: rand over the same 16 objects
    assert soak.tool == "rados" and soak.seconds >= 4 and soak.periods
    chunks = run_dir / "steps" / steps["rados_bench"].id / "chunks"
    assert sorted(p.name for p in chunks.glob("*.json.gz")) == [
        "chunk-0001.json.gz", "chunk-0002.json.gz"]

    io, soak = soak_of(steps["fio"])
    assert steps["fio"].status == "ok" and soak.chunks_run == 2
    assert io[0].write.io_bytes > 16 * MIB  # more written than the image holds: overwritten
    assert soak.data_bytes == 16 * MIB and soak.seconds >= 4
    assert set(ceph_lab.pools()) == pools_before, "the run's pool (objects, image) removed"
