"""The configuration review against the real lab cluster (conftest.ceph_lab): what the
one-host lab is known to get wrong is found, each finding with its docs.ceph.com source;
pools made with too few and too many PGs are flagged and a sane one is not; the command
changes nothing; the step runs in a suite and its criterion decides the exit status."""

from __future__ import annotations

import contextlib
import json
import time

import pytest

from conftest import run_cli
from stackprobe.kinds.ceph.ceph_review_sources import REVIEW_SOURCES
from stackprobe.store.rundir import load_results

pytestmark = [pytest.mark.ceph, pytest.mark.slow]

# On the lab's 3 OSDs: pg_num 1 at size 2 is 2 PG copies, one OSD holds none of the pool
# (with min_size 1 as well: a fail); 128 x 3 / 3 = 128 PGs per OSD from one pool is
# above mon_target_pg_per_osd 100; 16 x 3 / 3 = 16 per OSD is sane.
POOLS = {"rv-lab-few": ("1", "2"), "rv-lab-many": ("128", "3"), "rv-lab-sane": ("16", "3")}


@contextlib.contextmanager
def review_pools(lab):
    """The test's pools, autoscaler in warn mode (it reports, never changes pg_num);
    removed afterwards, also when the test fails."""
    try:
        for name, (pgs, size) in POOLS.items():
            lab.ceph("osd", "pool", "create", name, pgs, pgs, "--autoscale-mode=warn")
            lab.ceph("osd", "pool", "set", name, "size", size, "--yes-i-really-mean-it")
        lab.ceph("osd", "pool", "set", "rv-lab-few", "min_size", "1")
        yield
    finally:
        for name in POOLS:
            lab.ceph("osd", "pool", "rm", name, name, "--yes-i-really-really-mean-it",
                     check=False)
    assert not set(POOLS) & set(lab.pools())


def settled(lab, timeout_s: float = 180) -> None:
    """Until every PG is active+clean and the osdmap epoch holds still for 3 s (new pools
    move the epoch on for a while by themselves)."""
    deadline = time.monotonic() + timeout_s
    last = None
    while time.monotonic() < deadline:
        status = json.loads(lab.ceph("-s", "-f", "json"))
        states = {s["state_name"] for s in status["pgmap"].get("pgs_by_state", [])}
        epoch = cluster_state(lab)[0]
        if states == {"active+clean"} and epoch == last:
            return
        last = epoch
        time.sleep(3)
    raise AssertionError(f"the lab did not settle in {timeout_s:.0f} s")


def cluster_state(lab) -> tuple:
    dump = json.loads(lab.ceph("osd", "dump", "-f", "json"))
    config = lab.ceph("config", "dump", "-f", "json")
    return dump["epoch"], sorted(p["pool_name"] for p in dump["pools"]), config


def test_review_finds_the_labs_known_problems_and_changes_nothing(ceph_lab, tmp_path):
    with review_pools(ceph_lab):
        settled(ceph_lab)
        before = cluster_state(ceph_lab)
        proc = run_cli(["ceph", "review", "--ceph-conf", ceph_lab.conf, "--format", "json"],
                       cwd=tmp_path, timeout=300)
        after = cluster_state(ceph_lab)
    assert before == after  # same osdmap epoch, pools, config database
    assert proc.returncode in (0, 3), proc.stderr[-2000:]
    review = json.loads(proc.stdout)
    assert review["unread"] == {}
    found = review["findings"]
    assert all(f["doc_url"].startswith("https://docs.ceph.com/") and f["doc_title"]
               and f["evidence"] for f in found)
    by_rule: dict[str, list[dict]] = {}
    for f in found:
        by_rule.setdefault(f["rule"], []).append(f)
    # (a) DB/WAL on the data device (the lab's OSDs are files on one disk)
    (db,) = by_rule["bluestore-db-placement"]
    assert "osd.0, osd.1, osd.2" in db["message"]
    assert db["evidence"][0]["command"] == "ceph osd metadata"
    assert db["doc_url"].endswith("bluestore-config-ref/#devices")
    # (b) the pools with too few and too many PGs, not the sane one
    pools = {f["subject"] for f in by_rule["pool-pg-num"]}
    assert pools == {"pool rv-lab-few", "pool rv-lab-many"}
    assert any("3x off the autoscaler" in f["message"] for f in by_rule["pool-pg-num"])
    assert by_rule["pool-pg-num"][0]["doc_url"].endswith("#choosing-the-number-of-pgs")
    # (c) the mon shares the host with the OSDs
    mon = [f for f in by_rule["mon-mds-on-osd-hosts"] if f["subject"].startswith("mon.")]
    assert mon and mon[0]["evidence"][0]["command"] == "ceph mon metadata"
    # min_size 1 of rv-lab-few is a fail: exit 3
    assert any(f["severity"] == "fail" for f in by_rule["pool-redundancy"])
    assert proc.returncode == 3
    shown = run_cli(["ceph", "review", "--ceph-conf", ceph_lab.conf], cwd=tmp_path,
                    timeout=300)
    assert shown.returncode == 0, shown.stderr[-2000:]  # the pools are gone: nothing fails
    assert "Ceph configuration review" in shown.stdout and "bluestore-db-placement" in shown.stdout


SUITE = """\
name: review-only
ceph:
  pool: create
criteria:
  - no configuration finding
steps:
  - kind: ceph_review
"""


def test_the_step_keeps_every_output_and_its_criterion_decides_the_exit(ceph_lab, tmp_path):
    (tmp_path / "s.yaml").write_text(SUITE)
    proc = run_cli(["run", "s.yaml", "--ceph-conf", ceph_lab.conf, "--out", tmp_path / "runs"],
                   cwd=tmp_path, timeout=600)
    assert proc.returncode == 3, (proc.stdout[-2000:], proc.stderr[-2000:])  # the lab's findings
    (run_dir,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    results = load_results(run_dir)
    (step,) = [s for s in results.steps if s.kind == "ceph_review"]
    assert step.status == "ok" and not step.warnings
    asked = {" ".join(c.argv[c.argv.index("--id") + 2:]) for c in step.commands}
    wanted = {" ".join([*args, "-f", "json"]) for args in REVIEW_SOURCES.values()}
    assert wanted <= asked  # every query, each output kept in the step's directory
    assert all(a.startswith(("config show osd.", "osd erasure-code-profile get"))
               for a in asked - wanted), asked - wanted
    for c in step.commands:
        assert (run_dir / "steps" / step.id / c.stdout_file).stat().st_size > 0
    rules = {r.rule for r in step.records}
    assert {"bluestore-db-placement", "mon-mds-on-osd-hosts"} <= rules
    assert results.verdict is not None and results.verdict.exit_code == 3
    (item,) = [i for i in results.verdict.items if i.rule == "no configuration finding"]
    assert item.status == "fail" and "bluestore-db-placement" in item.measured
