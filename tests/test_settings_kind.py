"""The settings kind through `stackprobe run`: on this machine (no probe root: sysfs,
procfs and the tools installed here), and on three recorded hosts (`access: local`,
`probe_root:`) whose table shows the planted governor and BIOS drift.

Why both: the live run is the kind's real path on a host (the same script goes over SSH
to a fleet's hosts); the recorded run shows a fleet the test machine does not have.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from typer.testing import CliRunner

from conftest import FIXTURES
from stackprobe.cli.app import app

TREES = FIXTURES / "synthetic" / "settings"


def _run(tmp: Path, suite: str, hosts: dict | None = None):
    (tmp / "suite.yaml").write_text(suite)
    args = ["run", str(tmp / "suite.yaml"), "--out", str(tmp / "runs"), "--target", str(tmp),
            "--no-monitor"]
    if hosts is not None:
        (tmp / "hosts.yaml").write_text(yaml.safe_dump(hosts))
        args += ["--hosts", str(tmp / "hosts.yaml")]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "250"})
    runs = sorted(p for p in (tmp / "runs").glob("*") if (p / "results.json").is_file())
    assert runs, result.output
    return result, json.loads((runs[-1] / "results.json").read_text()), runs[-1]


def test_settings_of_this_machine(tmp_path):
    runs = tmp_path / "runs"
    suite = f"name: here\nsteps:\n  - kind: settings\n    mounts: [{runs}]\n"
    result, results, run_dir = _run(tmp_path, suite)
    assert result.exit_code == 0, result.output
    step = results["steps"][0]
    assert step["status"] == "ok", step
    (record,) = step["records"]
    settings = record["settings"]
    cpu = settings.get("cpu.governor", {}).get("value") or settings["cpu.smt"]["value"]
    assert cpu, settings
    live_smt = Path("/sys/devices/system/cpu/smt/control")
    if live_smt.exists():
        assert settings["cpu.smt"]["value"] == live_smt.read_text().strip()
    assert settings["kernel.version"]["value"] == Path("/proc/sys/kernel/osrelease").read_text().strip()
    # the mount holding the runs directory, whatever its filesystem
    mounts = [line.split() for line in Path("/proc/mounts").read_text().splitlines()]
    points = [m[1] for m in mounts if str(run_dir).startswith(m[1].rstrip("/") + "/")]
    holder = max(points, key=len)
    assert settings[f"mount.{holder}.fstype"]["source"] == "/proc/mounts"
    assert settings[f"mount.{holder}.fstype"]["value"] == \
        [m for m in mounts if m[1] == holder][-1][2]
    assert "Settings" in result.output
    assert list(run_dir.glob("steps/*/*settings-probe.stdout"))  # the raw output kept


def test_settings_of_three_recorded_hosts_show_the_drift(tmp_path):
    hosts = {"hosts": [{"name": h, "access": "local", "address": f"127.0.3.{i}",
                        "roles": ["storage"]} for i, h in enumerate(("s1", "s2", "s3"), 1)]}
    suite = (f"name: settings\nsteps:\n  - kind: settings\n    hosts: all\n"
             f"    probe_root: {TREES}/{{host}}\n")
    result, results, _ = _run(tmp_path, suite, hosts)
    assert result.exit_code == 0, result.output
    step = results["steps"][0]
    assert step["title"] == "Settings (recorded trees)"
    assert step["findings"]["settings"]["hosts"] == ["s1", "s2", "s3"]
    by_host = {r["host"]: r["settings"] for r in step["records"]}
    assert by_host["s2"]["cpu.governor"]["value"] == "performance"
    assert by_host["s3"]["bios.version"]["value"] == "2.1.6"
    rows = [" ".join(re.findall(r"[\w.-]+", line)) for line in result.output.splitlines()]
    tail = "7.0.0-rc1-g6de23f81a5e0 {} throughput-performance synchronized"
    assert f"s2 on performance on C6 madvise {tail.format('2.2.4')}" in rows
    assert f"s3 on powersave on C6 madvise {tail.format('2.1.6')}" in rows
    assert "read from recorded trees" in result.output


def test_a_table_with_nothing_in_it_is_its_title_and_notes(tmp_path):
    """One host has nothing to drift from: the drift table is its title and its summary
    line in the terminal and in Markdown, no empty grid."""
    suite = f"name: one\nsteps:\n  - kind: settings\n    probe_root: {TREES / 's1'}\n"
    result, results, run_dir = _run(tmp_path, suite)
    assert results["steps"][0]["findings"]["settings_drift"]["drifts"] == []
    lines = result.output.splitlines()
    title = next(i for i, line in enumerate(lines) if line.startswith("Settings drift"))
    assert lines[title + 1].strip().startswith("0 settings compared"), lines[title:title + 3]
    assert "odd hosts" not in result.output
    done = CliRunner().invoke(app, ["report", str(run_dir), "--format", "md"])
    assert done.exit_code == 0, done.output
    md = (run_dir / "report.md").read_text()
    section = md.split("## Settings drift", 1)[1].split("\n## ", 1)[0]
    assert "| setting |" not in section and "0 settings compared" in section
