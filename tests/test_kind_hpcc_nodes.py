"""The hpl and stream steps' figures in the per-node comparison (seed 004: two MDS with
STREAM at 3 : 2, HPL more than 10% apart; eight OSS within 0.3%), and a real run of both on
two `access: local` hosts."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli
from stackprobe.analysis.node_figures import node_metrics
from stackprobe.engine.per_node import combine_hosts
from stackprobe.kinds.context import StepOutcome
from stackprobe.plan.expand import one_step
from stackprobe.schema.hpc_records import HpccRecord, HplTest


def _record(host: str, gflops: float | None, triad_per_proc: float, passed: bool = True) -> HpccRecord:
    hpl = HplTest(tv="WR11C2R4", n=40000, nb=192, p=4, q=8, passed=passed,
                  flops_per_s=gflops * 1e9 if passed else None,
                  untrusted_flops_per_s=None if passed else gflops * 1e9)
    return HpccRecord(host=host, procs=32, complete=True, success=passed, hpl=hpl,
                      stream_bw_bytes={"star_triad": triad_per_proc, "single_triad": 9e9})


def test_node_figures_are_hpl_and_the_nodes_summed_triad():
    metrics = {m.metric: m for m in node_metrics("stream", [_record("a", 900.0, 4e9),
                                                             _record("b", 0.0, 3e9, passed=False)])}
    assert metrics["HPL"].values == {"a": 900e9}  # b's residual FAILED: no figure to compare
    assert metrics["STREAM triad (all processes)"].values == {"a": 128e9, "b": 96e9}


def test_two_mds_at_3_to_2_and_hpl_apart_are_named():
    step = one_step({"kind": "stream", "hosts": ["mds1", "mds2"], "n": 40000},
                    hosts=("mds1", "mds2"))
    per_host = [(h, StepOutcome("ok", [_record(h, g, t)]), [])
                for h, g, t in (("mds1", 1000.0, 6e9), ("mds2", 850.0, 4e9))]
    outcome, _ = combine_hosts(step, per_host, {"mds1": ["mds"], "mds2": ["mds"]})
    text = " ".join(outcome.warnings)
    assert "mds1 : mds2 = 3 : 2" in text
    compared = {c["metric"]: c for c in outcome.findings["consistency"]}
    assert compared["HPL"]["pair"]["differ"] and compared["HPL"]["role"] == "mds"


@pytest.mark.tools
@pytest.mark.slow
def test_hpl_on_two_local_hosts_is_compared(tmp_path):
    """Both 'hosts' are this machine, one process each, run at once on its two cores: their
    figures are compared within their role (a wide pair limit: they share the memory)."""
    hosts = {"hosts": [{"name": n, "access": "local", "address": f"127.0.0.{i}", "roles": ["oss"],
                        "directories": [str(tmp_path)]} for i, n in ((41, "oss1"), (42, "oss2"))]}
    (tmp_path / "hosts.yaml").write_text(json.dumps(hosts))
    (tmp_path / "s.yaml").write_text("name: nodes\nsteps:\n  - {kind: hpl, hosts: all, n: 1500, "
                                     "processes: 1, compare: {differ_pct: 60}}\n")
    run_cli(["run", "s.yaml", "--hosts", "hosts.yaml", "--target", tmp_path, "--out",
             tmp_path / "runs", "--no-monitor"], cwd=tmp_path, check=0)
    [run_dir] = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    [step] = json.loads((run_dir / "results.json").read_text())["steps"]
    assert step["status"] == "ok", step.get("error")
    assert sorted(r["host"] for r in step["records"]) == ["oss1", "oss2"]
    compared = {c["metric"]: c for c in step["findings"]["consistency"]}
    assert [f["node"] for f in compared["HPL"]["figures"]] == ["oss1", "oss2"]
    shown = " ".join(run_cli(["show", run_dir], check=0).stdout.split())
    assert "Node consistency: HPL — role oss" in shown
    assert "oss1 : oss2" in shown or "oss2 : oss1" in shown
    assert "N=1500 NB=192" in shown and "residual PASSED" in shown
