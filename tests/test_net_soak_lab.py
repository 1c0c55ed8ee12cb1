"""`net_soak` on four lab hosts (network namespaces with their own sshd): h3's incoming link
shaped to 200 Mbit/s. One run of two soaks, each over all 12 ordered pairs at once, every
pair at 150 Mbit/s (2 streams of iperf3 -b 75M: a set load, so the unshaped pairs do not
fight over this machine's 2 cores), a dip counted below 0.6 of the median second (not 0.8:
when TCP flows sharing the shaped link re-converge, their total into h3 dips for a second
to about 0.75 of its rate):

- `steady`: 45 s in 15 s chunks. The three pairs into h3 share its 200 Mbit/s (asking for
  450): each is slow beside the others and trades shares with them, their total into h3
  holds: stable (sharing), slow; every pair without h3 is stable and not slow. The total
  into h3 varies by 7-10% from second to second here (tbf on a loaded 2-core machine), so
  this soak allows a CoV of 15% rather than the default 10%: each pair into h3 alone varies
  by 60-90%, still far beyond it. Slow is below 0.8 of the median pair (not 0.7): h3's
  own sending pairs may run well under their rate (their ACKs queue behind h3's shaped
  link), which pulls the median of the 12 pairs down to ~125 Mbit/s, and one pair into h3
  can hold ~90 of the 200 for the whole soak (seen in CI: 91.5, above 0.7 x such a median).
- `drop`: 30 s in 10 s chunks, every pair at 60 Mbit/s (the three into h3 fit its 200);
  17 s after it starts (inside its second chunk) the test cuts h3's link to 30 Mbit/s
  for 7 s with the lab's own shaping (netns.shape), so the pairs into h3 lose most of
  their rate mid-soak: unstable, and the criterion 'stable network under load' fails
  naming them. (The link is given back before the chunk ends: cut at a chunk's end, h3's
  SSH sessions - which share its link - stalled for minutes in some runs.)

Also: each pair's chunks are kept gzip-compressed, the counters of every host are read
before and after, the terminal shows the per-pair table. The lab comes down in `finally`.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from child_run import run_to_end
from hostslab import hosts_lab_missing
from stackprobe.lab import hosts_lab, netns
from stackprobe.lab.hosts_lab import HostsLab
from stackprobe.verdict.codes import EXIT_CRITERIA_FAILED

pytestmark = [pytest.mark.slow, pytest.mark.root, pytest.mark.netns, pytest.mark.tools]

PREFIX = "sps"  # this module's lab names: sps-br, sps-h1 ...
SUITE = """\
name: net-soak-lab
criteria:
  - stable network under load
steps:
  - {kind: net_soak, name: steady, hosts: client, duration: 45s, chunk: 15s, streams: 2,
     bitrate: 75M, port: 5301, dip_fraction: 0.6, cov_limit: 0.15, slow_fraction: 0.8}
  - {kind: net_soak, name: drop, hosts: client, duration: 30s, chunk: 10s, streams: 2,
     bitrate: 30M, port: 5301, dip_fraction: 0.6}
"""
CUT_AFTER_S = 17.0  # into the `drop` soak: inside its second chunk
CUT_RATE = "30mbit"  # below one pair's 60 Mbit/s: no pair into h3 keeps its rate
CUT_FOR_S = 7.0  # then back to 200 Mbit/s: the chunk's end-of-test exchange and the SSH
# sessions to h3 (which share its link) are not left on the cut link
INTO_H3 = {"h1→h3", "h2→h3", "h4→h3"}
WITH_H3 = INTO_H3 | {"h3→h1", "h3→h2", "h3→h4"}


def _cut_h3_when_drop_starts(runs: Path, veth: str, rate: str, done: threading.Event) -> None:
    """Wait for the `drop` step's first command (its counters read), cut h3's link, and
    give it its rate back CUT_FOR_S later, before the chunk ends."""
    while not done.is_set():
        if list(runs.glob("*/steps/*drop*/h3-counters-before.stdout")):
            if not done.wait(CUT_AFTER_S):
                netns.shape(veth, CUT_RATE)
                done.wait(CUT_FOR_S)
                netns.shape(veth, rate)
            return
        time.sleep(0.2)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    why = hosts_lab_missing("iperf3", "tc")
    if why:
        pytest.skip(why)
    tmp = tmp_path_factory.mktemp("soaklab")
    lab = HostsLab(tmp / "lab", prefix=PREFIX, log=lambda *_: None)
    env = {**os.environ, "COLUMNS": "200"}
    done = threading.Event()
    try:
        state = lab.up(4, slow_links={"h3": "200mbit"})
        (h3,) = [h for h in state.hosts if h.name == "h3"]
        (tmp / "suite.yaml").write_text(SUITE)
        cutter = threading.Thread(target=_cut_h3_when_drop_starts,
                                  args=(tmp / "runs", h3.veth, h3.slow_link, done))
        cutter.start()
        try:
            proc = run_to_end(
                [sys.executable, "-m", "stackprobe", "run", str(tmp / "suite.yaml"), "--hosts",
                 state.hosts_yaml, "--out", str(tmp / "runs"), "--target", str(tmp),
                 "--no-monitor"], timeout=300, env=env)
        finally:
            done.set()
            cutter.join()
    finally:
        if (tmp / "lab" / hosts_lab.STATE_FILE).exists():
            lab.down()
    runs = [p for p in (tmp / "runs").iterdir() if p.is_dir()] if (tmp / "runs").is_dir() else []
    assert len(runs) == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = json.loads((runs[0] / "results.json").read_text())
    return proc, {s["name"]: s for s in results["steps"]}, results, runs[0]


def _pairs(step: dict) -> dict[str, dict]:
    return {f"{r['client']}→{r['server']}": r for r in step["records"] if r["type"] == "net_soak"}


def test_both_soaks_load_all_12_pairs_for_their_whole_duration(run):
    proc, steps, _, _ = run
    for name, seconds, chunks in (("steady", 45, 3), ("drop", 30, 3)):
        step = steps[name]
        assert step["status"] == "ok", (step.get("error"), proc.stdout[-3000:], proc.stderr[-2000:])
        pairs = _pairs(step)
        assert len(pairs) == 12
        for label, rec in pairs.items():
            assert len(rec["points"]) == rec["seconds"]  # under 600: kept second by second
            if name == "drop" and label in WITH_H3:
                continue  # h3's link is cut under them: a chunk may fail (the test below)
            assert rec["chunks"] == chunks and rec["chunks_failed"] == 0, (label, rec)
            # each chunk: its first 2 s omitted (-O 2, extra seconds), the receiver's last left
            # out, and now and then a receiver's interval under half a second
            assert seconds - 2 * chunks <= rec["seconds"] <= seconds - chunks, (label, rec)
        ports = {r["port"] for r in pairs.values() if r["server"] == "h3"}
        assert ports == {5301, 5302, 5303}  # a server per pair into h3


def test_the_pairs_into_the_shaped_host_are_slow_but_stable(run):
    """The three pairs into h3 trade shares of its 200 Mbit/s second by second (TCP through
    one tbf queue): each alone fluctuates, their total into h3 holds, so they are stable
    with `sharing`, and slow. Pairs without h3 run at their set rate. h3's own sending pairs
    are not judged here: their ACKs come back through h3's congested link."""
    _, steps, _, _ = run
    found = steps["steady"]["findings"]["net_soak"]
    assert found["hosts"]["h3"]["in"]["stability"] == "stable", found["hosts"]["h3"]
    assert 150e6 < found["hosts"]["h3"]["in"]["mean_bps"] < 210e6
    for label, rec in _pairs(steps["steady"]).items():
        if label in INTO_H3:
            assert rec["verdict"] == "stable", (label, rec["notes"], rec["cov"])
            assert "slow" in rec["flags"] and rec["mean_bps"] < 105e6, (label, rec["mean_bps"])
        elif label not in WITH_H3:
            assert rec["verdict"] == "stable" and not rec["flags"], (label, rec["notes"])
            assert rec["mean_bps"] > 140e6, (label, rec["mean_bps"])


def test_a_rate_cut_mid_soak_makes_the_pairs_into_h3_unstable(run):
    """Cut to 30 Mbit/s, the total into h3 falls (replacing the qdisc under load stops
    the flows into h3 for seconds): every pair into h3 is unstable; h3's own sending pairs
    may be too (their ACKs, their SSH sessions), no pair without h3 is."""
    _, steps, _, _ = run
    pairs = _pairs(steps["drop"])
    unstable = {label for label, rec in pairs.items() if rec["verdict"] == "unstable"}
    details = {k: (r["verdict"], r["cov"], r["notes"]) for k, r in pairs.items()}
    assert INTO_H3 <= unstable <= WITH_H3, details
    for label in INTO_H3:
        # either the cut seconds were measured (a second under half the best), or the chunk
        # under the cut failed (its seconds are lost: seen in CI, 58.7 of 60.8 Mbit/s left)
        # and the failed chunk is what made the pair unstable, said in its notes
        rec = pairs[label]
        if rec["chunks_failed"]:
            assert "chunk errors" in rec["flags"], rec["flags"]
            assert any("chunks failed" in n for n in rec["notes"]), rec["notes"]
        else:
            assert rec["min_bps"] < 0.5 * rec["max_bps"], rec
    found = steps["drop"]["findings"]["net_soak"]
    assert set(found["unstable"]) == unstable
    into_h3 = found["hosts"]["h3"]["in"]
    assert into_h3["stability"] != "stable", into_h3
    assert steps["steady"]["findings"]["net_soak"]["hosts"]["h3"]["in"]["stability"] == "stable"


def test_the_criterion_fails_the_run_naming_the_unstable_pairs(run):
    proc, _, results, _ = run
    assert proc.returncode == EXIT_CRITERIA_FAILED, (proc.stdout[-3000:], proc.stderr[-2000:])
    (item,) = [i for i in results["verdict"]["items"] if i["rule"] == "stable network under load"]
    assert item["status"] == "fail" and "→h3" in item["measured"], item


def test_counters_are_read_on_every_host_before_and_after(run):
    _, steps, _, _ = run
    for step in steps.values():
        hosts = [r for r in step["records"] if r["type"] == "nic_counters"]
        assert sorted(h["host"] for h in hosts) == ["h1", "h2", "h3", "h4"]
        assert all(h.get("error") is None and h["nics"] == ["eth0"] and h["counters"] > 10
                   for h in hosts), hosts


def test_each_chunk_is_kept_compressed_and_each_pair_s_first_command_listed(run):
    _, steps, _, run_dir = run
    step = steps["steady"]
    chunks = sorted((run_dir / "steps" / step["id"] / "chunks").glob("*/chunk-*.json.gz"))
    assert len(chunks) == 12 * 3
    doc = json.loads(gzip.decompress(chunks[0].read_bytes()))
    assert len(doc["intervals"]) >= 14 and "error" not in doc  # a 15 s chunk
    iperf = [c for c in step["commands"] if "iperf3" in c["argv"]]
    assert len(iperf) == 12 and all(c["stdout_file"].endswith("chunk-0001.json.gz")
                                    for c in iperf)


def test_the_terminal_shows_the_per_pair_table_of_each_soak(run):
    proc, steps, _, _ = run
    for step in steps.values():
        assert f"Network soak: per-pair stability ({step['id']}, 12 pairs at once" in proc.stdout
    print(proc.stdout)  # shown with -s: the tables as the terminal prints them
