"""`stackprobe check` on 3 lab hosts (network namespaces, each with its own sshd) and the lab
BMC (ipmi_sim on 127.0.0.1), end to end through the CLI.

Planted: the hosts read recorded trees (`--probe-root`, tests/fixtures/synthetic/settings:
h2's governor is performance where h1 and h3 run powersave, h3's BIOS is older), and the BMC
has a sensor over its critical threshold and a power-supply failure in its SEL. What must
hold: the drift names h2's governor and h3's BIOS against the majority; every expectation of
the built-in profile is its own checklist line, failing on the hosts that miss it; the BMC
answers and its sensor and SEL errors fail their criteria; every host's health counters are
read; the run exits 3. Read live instead (the lab hosts share this machine's kernel and
firmware) no setting differs between them, and with no profile and no BMC the check passes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from bmclab import bmc_lab
from hostslab import hosts_lab_missing
from stackprobe.lab.hosts_lab import HostsLab
from stackprobe.verdict.codes import EXIT_CRITERIA_FAILED, EXIT_OK

pytestmark = [pytest.mark.slow, pytest.mark.root, pytest.mark.netns, pytest.mark.tools]

TREES = Path(__file__).parent / "fixtures" / "synthetic" / "settings"
TREE_OF = {"h1": "s1", "h2": "s2", "h3": "s3"}


def _cli(*args, timeout=180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stackprobe", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "COLUMNS": "200"})


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    missing = hosts_lab_missing("ipmi_sim", "ipmitool")
    if missing:
        pytest.skip(missing)
    d = tmp_path_factory.mktemp("check")
    hosts = HostsLab(d / "hosts", prefix="spk", log=lambda *_: None)
    hosts.up(3)
    try:
        with bmc_lab(d / "bmc"):
            shells = yaml.safe_load((hosts.dir / "hosts.yaml").read_text())
            bmcs = yaml.safe_load((d / "bmc" / "hosts.yaml").read_text())
            lab_hosts = [h for h in shells["hosts"] if h["name"] in TREE_OF]  # not its Ceph entry
            (d / "all.yaml").write_text(yaml.safe_dump({**shells, "hosts": lab_hosts + bmcs["hosts"]}))
            (d / "trees").mkdir()
            for host, tree in TREE_OF.items():
                (d / "trees" / host).symlink_to(TREES / tree)
            yield d
    finally:
        hosts.down()


def _results(runs: Path) -> dict:
    (run,) = [p for p in runs.iterdir() if p.is_dir()]
    return json.loads((run / "results.json").read_text())


def _step(results: dict, kind: str) -> dict:
    return next(s for s in results["steps"] if s["kind"] == kind)


def test_check_names_the_drift_the_profile_misses_and_the_bmc_findings(lab):
    t0 = time.monotonic()
    proc = _cli("check", "--hosts", lab / "all.yaml", "--probe-root", lab / "trees" / "{host}",
                "--runs-dir", lab / "runs-trees")
    took = time.monotonic() - t0
    out = proc.stdout + proc.stderr
    print(out)  # shown with -s or -rP: the drift, the profile checklist and the BMC findings
    assert proc.returncode == EXIT_CRITERIA_FAILED, out[-4000:]
    results = _results(lab / "runs-trees")
    settings = _step(results, "settings")
    assert settings["status"] == "ok" and settings["hosts"] == ["h1", "h2", "h3"]
    sentences = [d["text"] for d in settings["findings"]["settings_drift"]["drifts"]]
    assert "h2: cpu.governor performance, 2 hosts powersave" in sentences, sentences
    assert "h3: bios.version 2.1.6, 2 hosts 2.2.4" in sentences, sentences
    items = {i["rule"]: i for i in results["verdict"]["items"]}
    assert items["no settings drift"]["status"] == "fail"
    governor = items["profile hpc-storage: cpu.governor = performance"]
    assert governor["status"] == "fail" and governor["origin"].startswith("hpc-storage.yaml:")
    assert "h1, h3" in governor["measured"], governor
    assert items["profile hpc-storage: cpu.smt in off, forceoff, notsupported"]["status"] == "fail"
    assert items["every bmc answers"]["status"] == "pass"
    assert items["no sensor out of range"]["status"] == "fail"
    assert "Inlet Temp" in items["no sensor out of range"]["measured"]
    assert items["no sel error"]["status"] == "fail"
    assert "Failure detected" in items["no sel error"]["measured"]
    health = _step(results, "health")
    assert health["status"] == "ok"
    assert {r["host"] for r in health["records"]} == {"h1", "h2", "h3"}
    assert "Settings profile hpc-storage" in proc.stdout and "Settings drift" in proc.stdout
    assert took < 60, f"check took {took:.0f} s"


def test_live_lab_hosts_agree_and_without_profile_or_bmc_the_check_passes(lab):
    proc = _cli("check", "--hosts", lab / "hosts" / "hosts.yaml", "--profile", "none",
                "--runs-dir", lab / "runs-live")
    assert proc.returncode == EXIT_OK, (proc.stdout + proc.stderr)[-4000:]
    results = _results(lab / "runs-live")
    settings = _step(results, "settings")
    drift = settings["findings"]["settings_drift"]
    assert drift["drifts"] == [] and drift["compared"] > 20, drift
    assert _step(results, "ipmi")["status"] == "skipped"
    items = {i["rule"]: i["status"] for i in results["verdict"]["items"]}
    assert items["no settings drift"] == "pass" and items["healthy hardware"] == "pass"
    assert not any(rule.startswith("profile ") for rule in items)
