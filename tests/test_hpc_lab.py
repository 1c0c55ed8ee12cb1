"""The HPC node rungs on lab hosts (network namespaces with their own sshd, all sharing
this machine's 2 cores and its RAM): per-node HPL and STREAM from Debian's hpcc on two hosts,
one capped at 30% of a CPU — the HPL pair is flagged with its ratio, and without the cap
it is not — then one HPL over three hosts (mpirun over the lab's SSH, one rank per host so the
ranks do not fight over the two cores) with a PASSED residual, its N and P x Q.
The lab comes down in `finally`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from child_run import run_to_end
from hostslab import hosts_lab_missing
from stackprobe.lab import hosts_lab
from stackprobe.lab.cgroups import set_cpu_quota
from stackprobe.lab.hosts_lab import HostsLab

pytestmark = [pytest.mark.slow, pytest.mark.root, pytest.mark.netns, pytest.mark.tools]

PREFIX = "spc"  # this module's lab names
CAP = 30  # % of one CPU for h2

# one rank per host, no pinning: the lab's hosts share two cores (Open MPI would pin every
# host's first rank to the same core). hpcc runs all its tests at sizes that follow N
# (RandomAccess's table is half the HPL matrix): N=2000 takes ~20 s a step on the capped
# host, where 4000 took 80 s, and the cap still shows (~2.8 : 1). Two uncapped hosts sharing
# the two cores with everything else here came out 1.0 to 1.25 : 1 at N=2000 and up to 1.1+ at
# 4000: the pair is judged at 30% apart (`compare: differ_pct`, seed 004's 10% is for real
# nodes of their own), and the run without the cap is HPL alone at 4000. STREAM's step runs
# hpcc again, at N=1000: its arrays follow N, and here only its pair is required (below);
# at 2000 the capped host's hpcc took 17 s of the run's 35.
PAIR = """\
name: hpc-pair
steps:
  - {kind: hpl, hosts: [h1, h2], n: 2000, processes: 1, bind: none, compare: {differ_pct: 30}}
  - {kind: stream, hosts: [h1, h2], n: 1000, processes: 1, bind: none}
"""
FREE = """\
name: hpc-free
steps:
  - {kind: hpl, hosts: [h1, h2], n: 4000, processes: 1, bind: none, compare: {differ_pct: 30}}
"""
ACROSS = """\
name: hpc-across
steps:
  - {kind: hpl_cluster, hosts: [h1, h2, h3], n: 1000, per_host: 1, bind: none, timeout: 400}
"""


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    why = hosts_lab_missing("hpcc", "mpirun")
    if why:
        pytest.skip(why)
    tmp = tmp_path_factory.mktemp("hpclab")
    lab = HostsLab(tmp / "lab", prefix=PREFIX, log=lambda *_: None)
    try:
        yield tmp, lab.up(3, slow_cpus={"h2": CAP})
    finally:
        if (tmp / "lab" / hosts_lab.STATE_FILE).exists():
            lab.down()


def _run(tmp: Path, state, name: str, suite: str) -> dict:
    (tmp / f"{name}.yaml").write_text(suite)
    runs = tmp / f"runs-{name}"
    proc = run_to_end(
        [sys.executable, "-m", "stackprobe", "run", str(tmp / f"{name}.yaml"), "--hosts",
         state.hosts_yaml, "--out", str(runs), "--target", str(tmp), "--no-monitor"],
        timeout=900, env={**os.environ, "COLUMNS": "200"})
    (run,) = [p for p in runs.iterdir() if p.is_dir()]
    results = json.loads((run / "results.json").read_text())
    assert all(s["status"] == "ok" for s in results["steps"]), \
        ([(s["id"], s["error"]) for s in results["steps"]], proc.stdout[-2000:])
    shown = subprocess.run([sys.executable, "-m", "stackprobe", "show", str(run)],
                           capture_output=True, text=True, timeout=120,
                           env={**os.environ, "COLUMNS": "200"}).stdout
    print(shown)  # shown with -s or -rP: the step tables as `stackprobe show` prints them
    return {"results": results, "shown": shown, "dir": run}


def _pairs(results: dict) -> dict[str, dict]:
    """metric -> its consistency entry, over the run's per-node steps."""
    return {c["metric"]: c for s in results["steps"]
            for c in (s["findings"] or {}).get("consistency", [])}


def test_the_capped_host_of_a_pair_is_named_with_the_ratio_and_not_without_the_cap(lab):
    """HPL runs long enough for a 30% CPU quota to bite (seconds); hpcc's STREAM at a size
    that takes seconds would take hpcc's other tests minutes, so STREAM is only required
    to be measured and compared as a pair here (its kernels fit in a quota period)."""
    tmp, state = lab
    capped = _run(tmp, state, "capped", PAIR)
    pairs = _pairs(capped["results"])
    hpl = pairs["HPL"]
    assert hpl["pair"] is not None and hpl["pair"]["high"] == "h1", hpl
    assert all(f["flagged"] for f in hpl["figures"]), hpl  # a pair that differs: both named
    assert f"h1 : h2 = {hpl['pair']['ratio_text']}" in capped["shown"]
    stream = pairs["STREAM triad (all processes)"]
    assert stream["pair"] is not None and {f["node"] for f in stream["figures"]} == {"h1", "h2"}
    (h2,) = [h for h in state.hosts if h.name == "h2"]
    set_cpu_quota(Path(h2.cgroup), None)
    try:
        free = _run(tmp, state, "free", FREE)
    finally:
        set_cpu_quota(Path(h2.cgroup), CAP)
    hpl = _pairs(free["results"])["HPL"]
    assert not any(f["flagged"] for f in hpl["figures"]), hpl


def test_hpl_across_three_hosts_passes_its_residual_with_one_figure(lab):
    """Without h2's cap: the MPI job goes at its slowest rank's pace, and hpcc's latency and
    bandwidth rounds (25 s here) take 50% longer with one rank capped."""
    tmp, state = lab
    (h2,) = [h for h in state.hosts if h.name == "h2"]
    set_cpu_quota(Path(h2.cgroup), None)
    try:
        run = _run(tmp, state, "across", ACROSS)
    finally:
        set_cpu_quota(Path(h2.cgroup), CAP)
    (step,) = run["results"]["steps"]
    (rec,) = [r for r in step["records"] if r["type"] == "hpcc"]
    assert rec["procs"] == 3 and rec["hpl"]["passed"] is True
    assert rec["hpl"]["residual"] < rec["hpl"]["residual_threshold"]
    assert (rec["hpl"]["n"], rec["hpl"]["p"] * rec["hpl"]["q"]) == (1000, 3)
    assert rec["hpl"]["flops_per_s"] > 0
    assert "HPL, N=1000 NB=192 P x Q=1x3" in run["shown"] and "Gflop/s" in run["shown"]
    # Open MPI's daemons started over the lab's sshd from here, its TCP held to the lab network
    steps_dir = run["dir"] / "steps" / step["id"]
    assert (steps_dir / "hostfile").read_text() == \
        "".join(f"{h.address} slots=1\n" for h in state.hosts)
    [line] = [c for c in step["commands"] if c["argv"][0] == "mpirun"]
    assert "btl_tcp_if_include 10.99.0.0/24" in line["command"]
    assert "oob_tcp_if_include 10.99.0.0/24" in line["command"]
    assert "plm_rsh_no_tree_spawn 1" in line["command"]
    assert "End of Summary section." in (steps_dir / "hpccoutf.txt").read_text()
    # one figure for the job, every host ran a rank: each host counts as reported
    assert step["findings"]["reported_hosts"] == ["h1", "h2", "h3"]
    reported = [i for i in run["results"]["verdict"]["items"] if i["rule"] == "every host reported"]
    assert all(i["status"] == "pass" for i in reported), reported
