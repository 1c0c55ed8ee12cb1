"""The Ceph rungs against a real lab cluster (one per test session, see conftest.ceph_lab).

ceph-quick end to end, with a user pool and image that must come out byte-for-byte
unchanged; a planted slow OSD (CPU-capped by a cgroup) that osd_bench, the ladder and Ceph's
own per-OSD counters must name; Ctrl-C
and a failed step that must still leave no pool, image, object or mount behind; cluster
health shown (WARN) or refused (ERR) before any load.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time

import pytest

from cephlab import ceph_mounts, cpu_limited
from conftest import STACKPROBE, run_cli
from stackprobe.kinds.ceph.keys import client_keys, keys_in_keyring
from stackprobe.report.ladder_tables import run_ladder
from stackprobe.store.rundir import load_results
from stackprobe.units import parse_size
from test_secrets import _files_holding  # the secrets tests' own file search

pytestmark = pytest.mark.ceph

USER_POOL = "userpool"
USER_IMAGE = f"{USER_POOL}/userimg"
# ceph-quick end to end, every step of it, with its loads shortened (the built-in suite's
# steps as they are, a second or two of load each instead of four, fio without its ramp
# (16 steps: 16 s), 64M files, a quarter of rbd bench's bytes): what is checked is that each
# step works and cleans up, and that the run keeps to the time `plan` gives it. rados bench
# runs 3 s a mode: at 2 s its JSON lists seconds 0 and 1 only, second 0 all zeros, so the
# write's series had one point in a clean-clone run (2026-11-30); and at 16 threads only (its
# two block sizes: 2 of the table's 4 cells, each 10-13 s of three modes; the plan of all
# four is tests/golden/plans/ceph-quick.txt)
QUICK_SETS = ("runtime=1", "lat-qd1.runtime=1", "ramp_time=0", "rados.seconds=3",
              "rados.threads=16", "size=64M", "rbd.io_total=16M", "rbd-seq.io_total=128M")
# the wall time may exceed plan's estimate by this much: setup, teardown, the watching
ESTIMATE_SLACK = 1.3


def _run_dir(runs):
    (only,) = [p for p in runs.iterdir() if p.is_dir()]
    return only


def _stackprobe_leftovers(lab, target=None):
    """Anything a run may have created that is still there."""
    left = [p for p in lab.pools() if p.startswith("stackprobe-")]
    left += [f"image {i}" for i in lab.rbd("ls", USER_POOL, check=False).split() if "stackprobe" in i]
    left += [f"object {o}" for o in lab.rados("-p", USER_POOL, "ls", check=False).split()
             if o.startswith(("benchmark_data", "stackprobe"))]
    left += [m for m in ceph_mounts() if "stackprobe-" in m]
    if target is not None:
        left += [str(p) for p in target.iterdir()]
    return left


@pytest.fixture(scope="module")
def user_data(ceph_lab, tmp_path_factory):
    """A user's pool with objects and an image full of random data, and their checksums."""
    lab = ceph_lab
    lab.ceph("osd", "pool", "create", USER_POOL, "8")
    lab.ceph("osd", "pool", "application", "enable", USER_POOL, "rbd")
    src = tmp_path_factory.mktemp("userdata")
    for i in range(3):
        blob = src / f"obj{i}"
        blob.write_bytes(os.urandom(1024 * 1024 + i))
        lab.rados("-p", USER_POOL, "put", f"user-object-{i}", str(blob))
    image_src = src / "image"
    image_src.write_bytes(os.urandom(32 * 1024 * 1024))
    lab.rbd("import", "--no-progress", str(image_src), USER_IMAGE)
    sums = {f"user-object-{i}": lab.sha_of_object(USER_POOL, f"user-object-{i}") for i in range(3)}
    sums[USER_IMAGE] = lab.sha_of_image(USER_IMAGE)
    objects = sorted(lab.rados("-p", USER_POOL, "ls").split())
    yield {"sums": sums, "objects": objects}
    lab.ceph("osd", "pool", "rm", USER_POOL, USER_POOL, "--yes-i-really-really-mean-it")


# librbd's own pool metadata: creating and removing an image in a pool (Pacific's `rbd rm`
# passes through the trash) may create these empty, omap-only objects. They hold no data.
LIBRBD_POOL_METADATA = {"rbd_trash", "rbd_directory", "rbd_info", "rbd_children"}


def _user_data_unchanged(lab, user_data):
    """Every user object and the user image byte-for-byte as they were; no user object
    gone; nothing new but librbd's pool metadata."""
    for name, digest in user_data["sums"].items():
        now = lab.sha_of_image(name) if "/" in name else lab.sha_of_object(USER_POOL, name)
        assert now == digest, f"{name} changed"
    now = set(lab.rados("-p", USER_POOL, "ls").split())
    before = set(user_data["objects"])
    assert before <= now, f"objects gone: {before - now}"
    assert now - before <= LIBRBD_POOL_METADATA, f"objects added: {now - before}"


@pytest.fixture(scope="module")
def quick_run(ceph_lab, user_data, tmp_path_factory):
    base = tmp_path_factory.mktemp("cephquick")
    target = base / "target"
    target.mkdir()
    sets = [a for s in QUICK_SETS for a in ("--set", s)]
    plan = run_cli(["plan", "ceph-quick", "--json", *sets], cwd=base, check=0)
    budget = ESTIMATE_SLACK * json.loads(plan.stdout)["estimate_s"]
    t0 = time.monotonic()
    proc = run_cli(["run", "ceph-quick", *sets, "--ceph-conf", ceph_lab.conf, "--target", target,
                    "--out", base / "runs"], cwd=base, timeout=budget + 300)
    wall = time.monotonic() - t0
    assert proc.returncode == 0, (proc.stdout[-4000:], proc.stderr[-3000:])
    return proc, _run_dir(base / "runs"), target, (wall, budget), base


def test_lab_status_reports_a_usable_cluster(ceph_lab):
    proc = run_cli(["lab", "ceph", "status", "--dir", ceph_lab.dir, "--json"], check=0)

    info = json.loads(proc.stdout)
    assert info["up"] and info["health"] == "HEALTH_OK"
    names = sorted(d["name"] for d in info["daemons"])
    assert names == ["ceph-fuse", "mds.a", "mgr.x", "mon.a", "osd.0", "osd.1", "osd.2"]
    assert info["ready_s"] < 120


def test_ceph_quick_all_steps_ok_within_budget(quick_run):
    _, run_dir, _, (wall, budget), _ = quick_run
    results = load_results(run_dir)
    assert [s.id for s in results.steps if s.status != "ok"] == []
    assert wall <= budget, f"ceph-quick took {wall:.0f} s, {ESTIMATE_SLACK} x plan's estimate is {budget:.0f} s"
    assert results.run.ceph["pool_created"] is True
    assert results.run.ceph["cleanup"] == "ok"
    assert results.run.ceph["pool"].startswith("stackprobe-")
    assert any("osd pool rm" in c.command for c in results.run.commands)
    [load_gen] = [s for s in results.steps if s.kind == "rados_load_gen"]
    [rec] = load_gen.records
    assert rec.read.total_ios and rec.write.total_ios and len(rec.series or []) >= 3
    assert (run_dir / "steps" / load_gen.id / "load-gen.times").is_file()


def test_ceph_quick_leaves_nothing_and_user_data_unchanged(ceph_lab, user_data, quick_run):
    _, _, target, _, _ = quick_run
    assert _stackprobe_leftovers(ceph_lab, target) == []
    _user_data_unchanged(ceph_lab, user_data)


def test_rados_bench_figures_are_consistent(quick_run):
    _, run_dir, _, _, _ = quick_run
    steps = [s for s in load_results(run_dir).steps if s.kind == "rados_bench"]
    assert [s.name for s in steps] == ["rados-64k", "rados-4m"]
    for step in steps:
        bs = parse_size(step.params["block_size"])
        modes = {r.job: r for r in step.records}
        assert set(modes) == {"write", "seq", "rand"}
        w = modes["write"].write
        assert w.bw_bytes == pytest.approx(w.iops * bs, rel=0.05)
        assert w.lat_ns["mean"] > 0 and w.lat_ns["max"] >= w.lat_ns["mean"] >= w.lat_ns["min"]
        assert len(modes["write"].series) >= 2, "per-second series kept"  # of a 3 s write
        for m in ("seq", "rand"):
            r = modes[m].read
            assert r.bw_bytes > 0 and r.bw_bytes == pytest.approx(r.iops * bs, rel=0.05)


def test_rbd_and_fio_rbd_and_cephfs_results(quick_run):
    _, run_dir, _, _, _ = quick_run
    steps = load_results(run_dir).steps
    rbd = [s for s in steps if s.kind == "rbd_bench"]
    assert {s.params["io_type"] for s in rbd} == {"write", "read"}
    assert all(s.summary.headline_value > 0 for s in rbd)
    for target in ("rbd", "cephfs"):
        fio = [s for s in steps if s.kind == "fio" and s.params["target"] == target]
        assert len(fio) == 8
        writes = [s for s in fio if "write" in s.params["rw"]]
        reads = [s for s in fio if "read" in s.params["rw"]]
        assert all(s.records[0].write.iops > 0 for s in writes)
        assert all(s.records[0].read.iops > 0 for s in reads)
        assert all(s.layer == "client" for s in fio)


def test_show_prints_the_ceph_tables(quick_run):
    _, run_dir, _, _, base = quick_run
    out = run_cli(["show", run_dir], cwd=base, check=0).stdout
    for text in ("Per-OSD bench", "osd.0", "osd.2", "rados bench: block size x concurrency",
                 "rbd bench write rand 4K", "4k random read IOPS on RBD",
                 "4k random read IOPS on CephFS", "RBD vs CephFS", "Ceph:", "Pool stackprobe-",
                 "Storage daemons", "Cluster", "Clients"):
        assert text in out, text
    md = run_cli(["report", run_dir, "--format", "md"], cwd=base, check=0)
    text = (run_dir / "report.md").read_text()
    assert "## RBD vs CephFS" in text and "## Per-OSD bench" in text
    assert md.returncode == 0


def test_lab_client_key_is_in_no_file_of_the_run(ceph_lab, quick_run):
    """Nothing planted: the lab client's real key, read from its keyring, appears in no file
    of ceph-quick's run (its setup and teardown, rados and rbd bench, fio through librbd, the
    CephFS mount), its reports included. (tests/test_secrets.py plants secrets of its own.)"""
    _, run_dir, _, _, base = quick_run
    keyring = ceph_lab.dir / "ceph.client.admin.keyring"
    (key,) = keys_in_keyring(keyring.read_text())
    assert key.startswith("AQ") and client_keys(ceph_lab.conf, "admin") == [key]
    run_cli(["report", run_dir, "--format", "html"], cwd=base, check=0)
    assert (run_dir / "steps" / "ceph-session").is_dir() and (run_dir / "report.html").is_file()
    assert _files_holding(run_dir, [key]) == []


# One run with osd.1 capped, judged three ways: osd_bench and the ladder name it, the
# storage host and every OSD are watched during each Ceph step, and Ceph's own per-OSD
# counters name osd.1 during the rados bench step (the Ceph view, watched from the lab's
# machine as a local storage host). 8 s of writes: at 5 the capped OSD's
# share of the step's counters was too small to stand out in every run.
SLOW_OSD_HOSTS = "hosts:\n  - {name: cephhost, access: local, roles: [storage]}\n"
SLOW_OSD_SUITE = """
name: osd-check
ceph: {pool: create, pg_num: 32}
steps:
  - kind: osd_bench
    bytes: 256M
    block_size: 4M
    threshold_pct: 20
  - kind: rados_bench
    name: write
    block_size: 4M
    threads: 16
    seconds: 8
    modes: [write]
"""


@pytest.fixture(scope="module")
def slow_osd_run(ceph_lab, tmp_path_factory):
    base = tmp_path_factory.mktemp("slowosd")
    (base / "s.yaml").write_text(SLOW_OSD_SUITE)
    (base / "hosts.yaml").write_text(SLOW_OSD_HOSTS)
    target = base / "target"
    target.mkdir()
    with cpu_limited(ceph_lab.osd_pid(1), percent=3):
        run_cli(["run", "s.yaml", "--hosts", "hosts.yaml", "--ceph-conf", ceph_lab.conf,
                 "--target", target, "--out", base / "runs"], cwd=base, check=0, timeout=600)
    run_dir = _run_dir(base / "runs")
    assert _stackprobe_leftovers(ceph_lab, target) == []
    return run_dir, load_results(run_dir)


def test_slow_osd_is_named(slow_osd_run):
    """osd_bench flags the capped OSD; the ladder of the pool's write names the OSD layer
    and that OSD as what limits it — in `show` and in the HTML report."""
    run_dir, results = slow_osd_run
    (bench,) = [s for s in results.steps if s.kind == "osd_bench"]
    slow = [w for w in bench.warnings if "below the median" in w]
    assert len(slow) == 1 and slow[0].startswith("osd.1 "), bench.warnings
    [rung] = run_ladder(results)
    assert rung.bottleneck == "OSD layer" and rung.limiting.culprit == "osd.1", rung.verdict
    shown = run_cli(["show", run_dir], check=0).stdout
    assert "SLOW" in shown
    flat = " ".join(shown.split())  # the terminal wraps long sentences
    assert "limited by the OSD layer" in flat and "osd.1 on" in flat, shown[-3000:]
    run_cli(["report", run_dir, "-f", "html"], check=0)
    html = (run_dir / "report.html").read_text()
    assert "The ladder" in html and "limited by the OSD layer" in html


# what the Ceph view keeps of each Ceph step, beside the storage host's sadc samples
RAW = ("ceph-osd-perf.jsonl", "ceph-pool-stats.jsonl", "ceph-health.jsonl",
       "ceph-perf-dump-before.jsonl", "ceph-perf-dump-after.jsonl", "monitor-cephhost.json")


def test_storage_host_and_every_osd_watched_during_each_ceph_step(ceph_lab, slow_osd_run):
    """The hosts file names one entry, the lab's own machine as a local storage host, so the
    run has a storage host without any namespace: sadc watches it during every Ceph step
    beside the controller (the client), and Ceph's own view covers every OSD (the capped
    one too: it is slow, not idle)."""
    run_dir, results = slow_osd_run
    assert [h["name"] for h in results.run.hosts] == ["cephhost"]  # opened, named by no step
    ceph_steps = [s for s in results.steps if s.kind in ("ceph_inventory", "rados_bench")]
    assert len(ceph_steps) == 2 and all(s.status == "ok" for s in ceph_steps)
    for step in ceph_steps:
        assert step.monitor["cephhost"]["summary"]["roles"] == ["storage"], step.id
        assert [r for h, i in step.monitor.items() if h != "cephhost"
                for r in i["summary"]["roles"]] == ["client"]  # the controller drove it
        for name in RAW:
            assert (run_dir / "steps" / step.id / name).is_file(), (step.id, name)
        assert step.ceph_view is not None and step.ceph_view["health"]["before"] is not None
    (bench,) = [s for s in ceph_steps if s.kind == "rados_bench"]
    osds = json.loads(ceph_lab.ceph("osd", "ls", "-f", "json"))
    view = bench.ceph_view
    assert sorted(view["osds"]) == [f"osd.{n}" for n in osds]
    assert all(f["ops"] > 0 and f["ops_w"] > 0 for f in view["osds"].values()), view["osds"]
    assert all(f["op_lat_mean_ns"] > 0 for f in view["osds"].values())
    dumps = (run_dir / "steps" / bench.id / "ceph-perf-dump-after.jsonl").read_text()
    assert sorted(json.loads(line)["osd"] for line in dumps.splitlines()) == osds
    shown = " ".join(run_cli(["show", run_dir], check=0).stdout.split())
    assert f"Resource use by node role ({bench.id})" in shown
    assert re.search(r"storage\W+cephhost\W+\d+% / \d+% \(cephhost\)", shown), shown[-4000:]
    assert f"Ceph OSDs during the step ({bench.id})" in shown
    run_cli(["report", run_dir, "-f", "md"], check=0)
    run_cli(["report", run_dir, "-f", "html"], check=0)
    md = (run_dir / "report.md").read_text()
    html = (run_dir / "report.html").read_text()
    for text in (md, html):
        assert f"Resource use by node role ({bench.id})" in text
        assert f"Ceph OSDs during the step ({bench.id})" in text and "osd.2" in text
    assert re.search(r"\| storage \| cephhost \| \d+% / \d+% \(cephhost\) \|", md)
    assert re.search(r"\| client \| [^|]+ \| \d+% / \d+% ", md)


def test_capped_osd_is_named_from_cephs_own_counters(slow_osd_run):
    """The rados bench step's own view: its per-OSD counters (perf dumps before and after
    the step, `ceph osd perf` during it) flag osd.1, and the step's hint names it."""
    run_dir, results = slow_osd_run
    (bench,) = [s for s in results.steps if s.kind == "rados_bench"]
    assert bench.monitor["cephhost"]["summary"]["roles"] == ["storage"]
    osds = bench.ceph_view["osds"]
    assert osds["osd.1"]["flags"], osds
    assert not osds["osd.0"]["flags"] and not osds["osd.2"]["flags"], osds
    named = [h for h in bench.hints if "stands out" in h]
    assert len(named) == 1 and named[0].startswith("osd.1 "), bench.hints
    shown = " ".join(run_cli(["show", run_dir], check=0).stdout.split())
    assert "osd.1 stands out among the 3 OSDs" in shown


# A slow write (4K objects, 2 at a time) so the 60 s step cannot fill the small lab.
INTERRUPT_SUITE = """
name: interrupt
steps:
  - kind: rados_bench
    block_size: 4K
    threads: 2
    seconds: 60
  - kind: fio
    target: cephfs
    rw: write
    bs: 1M
    size: 64M
    runtime: 2
"""


def test_ctrl_c_mid_rados_bench_removes_everything(ceph_lab, tmp_path):
    (tmp_path / "s.yaml").write_text(INTERRUPT_SUITE)
    target = tmp_path / "target"
    target.mkdir()
    proc = subprocess.Popen(
        STACKPROBE + ["run", "s.yaml", "--ceph-conf", str(ceph_lab.conf), "--target", str(target),
                      "--out", str(tmp_path / "runs")],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            if list((tmp_path / "runs").glob("*/steps/*rados*/rados-bench-write.cmd")) or \
                    list((tmp_path / "runs").glob("*/steps/*rados*")):
                break
            time.sleep(0.2)
        time.sleep(4)  # well into the 60 s write
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, (out[-2000:], err[-2000:])
    results = load_results(_run_dir(tmp_path / "runs"))
    statuses = {s.kind: s.status for s in results.steps}
    assert statuses["rados_bench"] == "interrupted" and statuses["fio"] == "skipped"
    assert _stackprobe_leftovers(ceph_lab, target) == []


FAILING_SUITE = """
name: failing
ceph:
  pool: userpool
  image_size: 128M
steps:
  - kind: fio
    target: cephfs
    rw: write
    bs: 1M
    size: 32M
    runtime: 1
  - kind: fio
    target: rbd
    rw: randwrite
    bs: 4k
    size: 64M
    runtime: 1
    options: {verify: no-such-verify-mode}
  - kind: rados_bench
    block_size: 64K
    threads: 8
    seconds: 2
  - kind: rbd_bench
    io_type: write
    io_size: 4K
    io_total: 4M
"""


def test_user_pool_failed_step_and_cleanup(ceph_lab, user_data, tmp_path):
    """In a user's pool: a failed fio step is recorded, the suite goes on, and afterwards
    only the user's objects and image are there, unchanged."""
    (tmp_path / "s.yaml").write_text(FAILING_SUITE)
    target = tmp_path / "target"
    target.mkdir()
    proc = run_cli(["run", "s.yaml", "--ceph-conf", ceph_lab.conf, "--target", target,
                    "--out", tmp_path / "runs"], cwd=tmp_path, check=1, timeout=600)
    results = load_results(_run_dir(tmp_path / "runs"))
    assert [s.status for s in results.steps] == ["ok", "ok", "failed", "ok", "ok"], proc.stdout
    assert "verify" in results.steps[2].error
    assert results.run.ceph == {"conf": str(ceph_lab.conf), "client": "admin",
                                "pool": USER_POOL, "pool_created": False, "cleanup": "ok"}
    assert _stackprobe_leftovers(ceph_lab, target) == []
    _user_data_unchanged(ceph_lab, user_data)
    assert USER_POOL in ceph_lab.pools()


INVENTORY_SUITE = "name: inv\nsteps:\n  - kind: ceph_inventory\n"


def test_health_warn_is_reported(ceph_lab, tmp_path):
    (tmp_path / "s.yaml").write_text(INVENTORY_SUITE)
    ceph_lab.ceph("osd", "set", "noout")
    try:
        run_cli(["run", "s.yaml", "--ceph-conf", ceph_lab.conf, "--out", tmp_path / "runs"],
                cwd=tmp_path, check=0)
    finally:
        ceph_lab.ceph("osd", "unset", "noout")
    results = load_results(_run_dir(tmp_path / "runs"))
    assert any("HEALTH_WARN" in w and "noout" in w for w in results.run.warnings)
    inv = results.steps[0].records[0]
    assert inv.health == "HEALTH_WARN" and len(inv.osds) == 3
    assert run_cli(["show", _run_dir(tmp_path / "runs")], check=0).stdout.count("noout") >= 1


def test_health_err_refused_unless_forced(ceph_lab, tmp_path):

    (tmp_path / "s.yaml").write_text(INVENTORY_SUITE)
    original = json.loads(ceph_lab.ceph("osd", "dump", "-f", "json"))["full_ratio"]
    ceph_lab.ceph("osd", "set-full-ratio", "0.001")  # every OSD is now "full": HEALTH_ERR
    try:
        _wait_health(ceph_lab, "HEALTH_ERR")
        refused = run_cli(["run", "s.yaml", "--ceph-conf", ceph_lab.conf, "--out",
                           tmp_path / "runs"], cwd=tmp_path, check=2)
        assert "HEALTH_ERR" in refused.stderr and "--force" in refused.stderr
        assert not (tmp_path / "runs").exists(), "refused before any run directory"
        run_cli(["run", "s.yaml", "--ceph-conf", ceph_lab.conf, "--out", tmp_path / "runs",
                 "--force"], cwd=tmp_path, check=0)
    finally:
        ceph_lab.ceph("osd", "set-full-ratio", str(original))
        _wait_health(ceph_lab, "HEALTH_OK")


def _wait_health(lab, want: str, timeout: float = 60) -> None:

    deadline = time.time() + timeout
    while time.time() < deadline:
        if json.loads(lab.ceph("health", "-f", "json"))["status"] == want:
            return
        time.sleep(0.5)
    raise AssertionError(f"cluster never reached {want}")


HEALTH_SUITE = """
name: health
steps:
  - kind: rados_bench
    name: first
    block_size: 64K
    threads: 8
    seconds: 8
    modes: [write]
  - kind: rados_bench
    name: second
    block_size: 64K
    threads: 8
    seconds: 2
    modes: [write]
  - kind: rados_bench
    name: third
    block_size: 64K
    threads: 8
    seconds: 2
    modes: [write]
"""


def test_cluster_going_health_err_mid_run_stops_the_ceph_steps(ceph_lab, tmp_path):
    """`ceph fs fail` takes the lab's CephFS offline: HEALTH_ERR without blocking RADOS.
    The run must stop loading the cluster at the next Ceph step, say why, and still remove
    what it made; the file system is made joinable again afterwards."""
    (tmp_path / "s.yaml").write_text(HEALTH_SUITE)
    target = tmp_path / "target"
    target.mkdir()
    proc = subprocess.Popen(
        STACKPROBE + ["run", "s.yaml", "--ceph-conf", str(ceph_lab.conf), "--target", str(target),
                      "--out", str(tmp_path / "runs")],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and not list((tmp_path / "runs").glob("*/steps/*-first")):
            time.sleep(0.2)
        ceph_lab.ceph("fs", "fail", "labfs")
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        ceph_lab.ceph("fs", "set", "labfs", "joinable", "true")
        _wait_healthy(ceph_lab)
    assert proc.returncode == 1, (out[-2000:], err[-2000:])
    results = load_results(_run_dir(tmp_path / "runs"))
    by_name = {s.name: s for s in results.steps}
    assert by_name["first"].status == "ok"
    assert by_name["third"].status == "skipped"
    assert "went HEALTH_ERR" in by_name["third"].error
    assert any("went HEALTH_ERR" in w for w in results.run.warnings)
    assert _stackprobe_leftovers(ceph_lab, target) == []


def _wait_healthy(lab, timeout: float = 120) -> None:
    from stackprobe.lab.health import LAB_TOLERATED_CHECKS, usable

    deadline = time.time() + timeout
    while time.time() < deadline:
        ok, _why = usable(lab.ceph("-s", "-f", "json", check=False), 3, LAB_TOLERATED_CHECKS)
        if ok:
            return
        time.sleep(1)
    raise AssertionError("the lab cluster did not become usable again")
