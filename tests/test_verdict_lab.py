"""`no flagged link` decides a real run: cluster-acceptance on three lab hosts (network
namespaces with their own sshd), once with h2's link shaped to 200 Mbit/s — the run exits
with the criteria-failed code and the checklist names h2 — and, without the shaping, the
same criteria over the rungs they judge exit 0.
One lab for both (the link shaped between the runs), down in `finally`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import stackprobe
from hostslab import hosts_lab_missing
from stackprobe.lab import hosts_lab, netns
from stackprobe.lab.hosts_lab import HostsLab
from stackprobe.verdict.codes import EXIT_CRITERIA_FAILED, EXIT_OK

pytestmark = [pytest.mark.slow, pytest.mark.root, pytest.mark.netns, pytest.mark.tools]

PREFIX = "spv"  # this module's lab names: spv-br, spv-h1 ...




BUILTIN = Path(stackprobe.__file__).parent / "suite" / "builtin" / "cluster-acceptance.yaml"


def _links_only(tmp: Path) -> str:
    """cluster-acceptance with its criteria and only the rungs they judge on this lab: the
    inventory and the network matrix (the full suite runs once, with the slow link)."""
    head = BUILTIN.read_text().split("\nsteps:\n")[0]
    (tmp / "links.yaml").write_text(head + "\nsteps:\n  - {kind: inventory, hosts: all}\n"
                                    "  - {kind: network, hosts: all, seconds: 2, streams: 1}\n")
    return str(tmp / "links.yaml")


def _acceptance(tmp: Path, state, name: str, suite: str = "cluster-acceptance"):
    runs = tmp / f"runs-{name}"
    proc = subprocess.run(
        [sys.executable, "-m", "stackprobe", "run", suite, "--hosts",
         str(state.hosts_yaml), "--out", str(runs), "--target", str(tmp), "--no-monitor"],
        capture_output=True, text=True, timeout=600, env={**os.environ, "COLUMNS": "200"})
    (run,) = [p for p in runs.iterdir() if p.is_dir()]
    return proc, json.loads((run / "results.json").read_text())["verdict"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One lab: its links judged as they are, then the whole acceptance run with h2's link
    shaped to 200 Mbit/s."""
    why = hosts_lab_missing()
    if why:
        pytest.skip(why)
    tmp = tmp_path_factory.mktemp("verdict")
    lab = HostsLab(tmp / "lab", prefix=PREFIX, log=lambda *_: None)
    try:
        state = lab.up(3)
        normal = _acceptance(tmp, state, "normal", _links_only(tmp))
        (h2,) = [h for h in state.hosts if h.name == "h2"]
        netns.shape(h2.veth, "200mbit")
        slow = _acceptance(tmp, state, "slow")
        return {"normal": normal, "slow": slow}
    finally:
        if (tmp / "lab" / hosts_lab.STATE_FILE).exists():
            lab.down()


def test_a_slow_link_fails_the_run_and_its_checklist_names_the_host(runs):
    proc, verdict = runs["slow"]
    assert proc.returncode == EXIT_CRITERIA_FAILED, (proc.stdout[-3000:], proc.stderr[-2000:])
    [link] = [i for i in verdict["items"] if i["rule"] == "no flagged link"]
    assert link["status"] == "fail" and link["origin"] == "cluster-acceptance.yaml:12"
    assert "→h2" in link["measured"] or "h2→" in link["measured"], link
    assert "Verdict: FAIL: a criterion failed (exit 3" in proc.stdout
    print("\n".join(line for line in proc.stdout.splitlines()[-40:]))


def test_without_the_slow_link_the_same_criteria_exit_0(runs):
    proc, verdict = runs["normal"]
    assert proc.returncode == EXIT_OK, (proc.stdout[-3000:], proc.stderr[-2000:])
    assert {(i["rule"], i["status"]) for i in verdict["items"] if i["kind"] == "criterion"} == {
        ("no flagged link", "pass"), ("every host reported", "pass"), ("no failed step", "pass")}
