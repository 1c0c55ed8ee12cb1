"""Read jobs lay their files out in 1M writes, and their records keep the read block size.

fio lays out a read job's files with the job's write block size; a 4k random read of a
512M file on a network filesystem spent 22 s of a 27 s step writing it 4k at a time.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from stackprobe.kinds.fio.fio import FioStep
from stackprobe.kinds.fio.fio_job import build_job
from stackprobe.parsers.fio.workload import normalise_workload

# beside the one-at-a-time system tests (tests/run_tiers.py): which test files are laid out: no level
pytestmark = pytest.mark.beside


def _job(directory="/data", engine=None, **params):
    spec = FioStep.model_validate({"kind": "fio", "name": "j", **params})
    text = build_job("j", spec, directory=directory, engine=engine)
    return [line for line in text.splitlines() if line.startswith("bs=")]


def test_a_small_block_read_job_lays_out_in_1m_writes():
    assert _job(rw="randread", bs="4k") == ["bs=4k,1M"]
    assert _job(rw="read", bs="64k") == ["bs=64k,1M"]


@pytest.mark.parametrize("params", [
    {"rw": "randwrite", "bs": "4k"},         # writes: the write size is the workload
    {"rw": "randrw", "bs": "4k"},            # a mix writes too
    {"rw": "randread", "bs": "1M"},          # already large
    {"rw": "randread", "bs": "4k", "options": {"bssplit": "4k/50:64k/50"}},  # the user's sizes
])
def test_other_jobs_keep_their_block_size(params):
    assert _job(**params) == [f"bs={params['bs']}"]


def test_jobs_without_files_keep_their_block_size():
    assert _job(directory=None, engine={"ioengine": "rbd"}, rw="randread", bs="4k") == ["bs=4k"]


def test_records_read_fio_block_sizes_by_direction():
    assert normalise_workload({"rw": "randread", "bs": "4k,1M"})["bs"] == 4096
    assert normalise_workload({"rw": "write", "bs": "4k,1M"})["bs"] == 1024 * 1024
    assert normalise_workload({"rw": "randwrite", "bs": "4k,"})["bs"] == 4096
    assert normalise_workload({"rw": "randrw", "bs": "4k,1M"})["bs"] == "4k,1M"
    assert normalise_workload({"bs": "8k,1M"})["bs"] == 8192  # fio's default rw is read


@pytest.mark.tools
def test_real_fio_lays_out_in_large_writes_and_reads_in_small_ones(tmp_path):
    job = tmp_path / "job.fio"
    spec = FioStep.model_validate({"kind": "fio", "name": "j", "rw": "randread", "bs": "4k",
                                   "size": "8M", "ioengine": "psync", "runtime": 1,
                                   "time_based": True})
    job.write_text(build_job("j", spec, directory=str(tmp_path)))
    trace = tmp_path / "trace"
    out = subprocess.run(["strace", "-f", "-e", "trace=write,pwrite64", "-o", str(trace),
                          "fio", "--output-format=json", str(job)],
                         capture_output=True, text=True, check=True).stdout
    writes = [line for line in trace.read_text().splitlines() if line.rstrip().endswith("= 1048576")]
    assert len(writes) == 8  # 8M laid out in 1M writes, not 2,048 of 4k
    [entry] = json.loads(out[out.index("{"):])["jobs"]
    assert entry["read"]["io_bytes"] > 0 and entry["job options"]["bs"] == "4k,1M"
    assert normalise_workload(entry["job options"])["bs"] == 4096
