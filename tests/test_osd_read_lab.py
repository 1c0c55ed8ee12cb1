"""osd_read on the real lab cluster: every OSD's block file read, nothing of it written.

One run (under strace, which follows every process stackprobe starts) of osd_read, a rados
bench write + seq read, and osd_read again, in an existing pool so the run changes no
osdmap: every OSD gets a positive read rate, every open of an OSD's block file is
read-only and nothing is written to one (no pwrite, no libaio write), objects put before
read back the same, the osdmap's pools are unchanged, and the seq read rung has its OSD term.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys

import pytest

from child_run import run_to_end
from stackprobe.analysis.ceilings import ladder
from stackprobe.kinds import registry
from stackprobe.schema.results import RunResults

pytestmark = [pytest.mark.ceph, pytest.mark.slow]

POOL = "osdread-check"
SUITE = """\
name: osd-read-lab
ceph:
  pool: {pool}
steps:
  - kind: osd_read
    name: before
  - kind: rados_bench
    block_size: 4M
    threads: 16
    seconds: 3
    modes: [write, seq]
  - kind: osd_read
    name: after
"""


@pytest.fixture
def user_pool(ceph_lab, tmp_path):
    """A pool with three objects in it, removed afterwards; {object: sha256}."""
    ceph_lab.ceph("osd", "pool", "create", POOL, "8", "8", "--autoscale-mode=off")
    ceph_lab.ceph("osd", "pool", "application", "enable", POOL, "rados")
    sums = {}
    try:
        for i in range(3):
            obj = tmp_path / f"obj{i}"
            obj.write_bytes(os.urandom(1 << 20))
            ceph_lab.rados("-p", POOL, "put", f"obj{i}", str(obj))
            sums[f"obj{i}"] = ceph_lab.sha_of_object(POOL, f"obj{i}")
        yield sums
    finally:
        ceph_lab.ceph("osd", "pool", "rm", POOL, POOL, "--yes-i-really-really-mean-it",
                      check=False)


def _pools(ceph_lab) -> list:
    """The osdmap's pools (name, size, pg_num): what the step could have changed there. Not
    the map's epoch: on the shared lab other tests' after-effects (an OSD marked down and up
    again after a CPU cap, pg_temp) move it on their own."""
    dump = json.loads(ceph_lab.ceph("osd", "dump", "-f", "json"))
    return sorted((p["pool_name"], p["size"], p["pg_num"]) for p in dump["pools"])


def test_every_osd_is_read_and_nothing_is_written(ceph_lab, user_pool, tmp_path):
    (tmp_path / "s.yaml").write_text(SUITE.format(pool=POOL))
    blocks = {str(p) for p in ceph_lab.dir.glob("osd/ceph-*/block")}
    assert len(blocks) == 3
    pools = _pools(ceph_lab)
    trace = tmp_path / "trace"
    trace.mkdir()
    proc = subprocess.run(
        ["strace", "-f", "-ff", "-o", str(trace / "t"), "-e",
         "trace=open,openat,pwrite64,pwritev,pwritev2,io_submit",
         sys.executable, "-m", "stackprobe", "run", "s.yaml", "--ceph-conf", str(ceph_lab.conf),
         "--out", str(tmp_path / "runs")],
        cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]

    (run_dir,) = (tmp_path / "runs").glob("*-osd-read-lab")
    results = RunResults.model_validate_json((run_dir / "results.json").read_text())
    reads = [s for s in results.steps if s.kind == "osd_read"]
    assert [s.status for s in reads] == ["ok", "ok"]
    for step in reads:
        osds = step.findings["osd_read"]["osds"]
        assert sorted(o["osd"] for o in osds) == [0, 1, 2]
        assert all(o["bw_bytes"] > 0 and o["iops"] > 0 for o in osds)
        assert {o["path"] for o in osds} == blocks and not any(o["upper_bound"] for o in osds)
        fio = [c for c in step.commands if c.argv[0] == "fio"]
        assert len(fio) == 3 and all("--readonly" in c.argv for c in fio)

    opened = 0
    for f in trace.iterdir():
        text = f.read_text(errors="replace")
        touched = [ln for ln in text.splitlines() if any(f'"{b}"' in ln for b in blocks)]
        for line in touched:
            opened += 1
            assert "O_RDONLY" in line and not re.search(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC", line)
        if touched:
            assert not re.search(r"^pwrite|IOCB_CMD_PWRITE", text, re.MULTILINE), f.name
    assert opened >= 6  # filefrag and fio, each OSD, twice

    assert _pools(ceph_lab) == pools
    for obj, sha in user_pool.items():
        assert ceph_lab.sha_of_object(POOL, obj) == sha

    seq = [r for r in ladder(results, lambda s: registry.kind(s.kind).cluster_io(s))
           if r.step.endswith("rados-bench") and "seq" in r.name]
    assert seq, [r.name for r in ladder(results, lambda s: registry.kind(s.kind).cluster_io(s))]
    (term,) = [t for t in seq[0].terms if t.layer == "OSD devices"]
    assert term.value > 0 and "3 OSDs" in term.text and len(term.inputs) == 3
    assert not [m for m in seq[0].missing if "OSD read rate" in m]


def test_osds_are_reached_through_the_hosts_file(ceph_lab, tmp_path):
    """`hosts:` on the step: the OSDs' host (Ceph's hostname) is the hosts file's entry whose
    address it is — here a local entry under another name, so the records say that name."""
    host = "storage-a"
    (tmp_path / "hosts.yaml").write_text(
        f"hosts:\n  - name: {host}\n    address: {socket.gethostname()}\n    access: local\n"
        "    roles: [storage]\n")
    (tmp_path / "s.yaml").write_text("name: osd-read-hosts\nsteps:\n"
                                     "  - kind: osd_read\n    hosts: storage\n    size: 16M\n")
    proc = run_to_end(
        [sys.executable, "-m", "stackprobe", "run", "s.yaml", "--ceph-conf", str(ceph_lab.conf),
         "--hosts", "hosts.yaml", "--out", str(tmp_path / "runs")],
        cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (run_dir,) = (tmp_path / "runs").glob("*-osd-read-hosts")
    results = RunResults.model_validate_json((run_dir / "results.json").read_text())
    (step,) = [s for s in results.steps if s.kind == "osd_read"]
    assert step.status == "ok" and step.hosts == [host]
    osds = step.findings["osd_read"]["osds"]
    assert sorted(o["osd"] for o in osds) == [0, 1, 2] and {o["host"] for o in osds} == {host}
    assert all(o["bw_bytes"] > 0 and o["range_bytes"] <= 16 * 2**20 for o in osds)
    assert {c.host for c in step.commands if c.argv[0] == "fio"} == {host}
