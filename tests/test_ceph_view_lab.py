"""Ceph steps watched from both sides, on the real lab cluster (conftest.ceph_lab).

The hosts file names one entry, the lab's own machine as a local storage host, so a run
has a storage host without any namespace: sadc must watch it during every Ceph step
beside the controller (the client), and Ceph's own view must cover every OSD. (A planted
slow OSD named from Ceph's per-OSD counters: test_ceph_integration's slow-OSD run, which is
watched the same way.)
"""

from __future__ import annotations

import json
import re

import pytest

from conftest import run_cli
from stackprobe.store.rundir import load_results

pytestmark = [pytest.mark.ceph, pytest.mark.slow]

HOSTS = "hosts:\n  - {name: cephhost, access: local, roles: [storage]}\n"
SUITE = """
name: ceph-view
ceph: {pool: create, pg_num: 32}
steps:
  - kind: rados_bench
    name: write-then-read
    block_size: 4M
    threads: 16
    seconds: 4
    modes: [write, seq]
"""
RAW = ("ceph-osd-perf.jsonl", "ceph-pool-stats.jsonl", "ceph-health.jsonl",
       "ceph-perf-dump-before.jsonl", "ceph-perf-dump-after.jsonl", "monitor-cephhost.json")


def _run(lab, tmp_path, suite: str):
    (tmp_path / "s.yaml").write_text(suite)
    (tmp_path / "hosts.yaml").write_text(HOSTS)
    target = tmp_path / "target"
    target.mkdir()
    run_cli(["run", "s.yaml", "--hosts", "hosts.yaml", "--ceph-conf", lab.conf,
             "--target", target, "--out", tmp_path / "runs"], cwd=tmp_path, check=0, timeout=600)
    (run_dir,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    results = load_results(run_dir)
    assert not [p for p in lab.pools() if p.startswith("stackprobe-")], "run pool left"
    assert not list(target.iterdir()), "scratch left"
    return run_dir, results


def test_storage_host_and_every_osd_watched_during_each_ceph_step(ceph_lab, tmp_path):
    run_dir, results = _run(ceph_lab, tmp_path, SUITE)
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
