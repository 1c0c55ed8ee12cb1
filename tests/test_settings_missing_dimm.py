"""The planted missing DIMM: host s4 of tests/fixtures/synthetic/settings is s1 with slot B6
empty (its README says how it was derived from a real PowerEdge R640's dmidecode), and the
settings drift must name s4's memory population against the other three hosts.

Why: a missing DIMM is the drift seed 004 found by its effect (one node at two thirds of its
twins' memory bandwidth); the settings step should say it before any benchmark, from
`dmidecode -t memory` (parsers/host/dmidecode_memory.py, issue 17's parser) read by the
settings probe — the same script that reads a live host, here over recorded trees.
"""

from __future__ import annotations

import json
import re
import subprocess

import yaml
from typer.testing import CliRunner

from conftest import FIXTURES
from stackprobe.cli.app import app
from stackprobe.kinds.host.settings_judging import judge_settings
from stackprobe.kinds.host.settings_probe_script import probe_argv
from stackprobe.kinds.host.settings_tables import settings_judging_tables
from stackprobe.parsers.host.dmidecode_memory import parse_dmidecode_memory
from stackprobe.parsers.host.settings_probe import parse_settings_probe
from stackprobe.schema.results import StepResult

TREES = FIXTURES / "synthetic" / "settings"
HOSTS = ("s1", "s2", "s3", "s4")
ROLES = {h: ["storage"] for h in HOSTS}


def probe(host: str):
    out = subprocess.run(probe_argv(str(TREES / host)), capture_output=True, text=True,
                         check=True, timeout=30)
    found = parse_settings_probe(out.stdout, host=host)
    assert found.warnings == [], found.warnings
    return found.record


def test_s4_is_s1_with_slot_b6_empty_and_32_gib_less_memory():
    def populated(host: str) -> set[str]:
        text = (TREES / host / "commands" / "dmidecode_memory.txt").read_text()
        return {s.locator for s in parse_dmidecode_memory(text).system_slots() if s.populated}

    assert populated("s1") - populated("s4") == {"B6"} and populated("s4") < populated("s1")
    s1, s4 = probe("s1").settings, probe("s4").settings
    differ = {name for name in s1.keys() | s4.keys()
              if getattr(s1.get(name), "value", None) != getattr(s4.get(name), "value", None)}
    assert differ == {"memory.dimms", "memory.total_kib"}
    assert (s1["memory.dimms"].value, s4["memory.dimms"].value) == \
        ("12 of 24 slots", "11 of 24 slots")
    assert s4["memory.dimms"].source == "dmidecode -t memory"
    assert int(s1["memory.total_kib"].value) - int(s4["memory.total_kib"].value) == 32 * 2**20
    # the DIMMs left are the same part, size and speed as on the other hosts
    assert [s4[n].value for n in ("memory.dimm_size", "memory.dimm_speed_mts",
                                  "memory.dimm_part")] == ["32 GB", "2933", "HMAA4GR7CJR8N-XN"]


def test_the_drift_table_names_s4s_memory_population():
    records = [probe(h) for h in HOSTS]
    findings, warnings = judge_settings(records, ROLES, None, None)
    assert "settings drift (storage): s4: memory.dimms 11 of 24 slots, 3 hosts 12 of 24 slots" \
        in warnings
    step = StepResult(id="01-settings", index=1, name="settings", kind="settings",
                      title="Settings", layer="hardware", params={}, status="ok",
                      findings=findings)
    (table,) = settings_judging_tables([step])
    assert ["memory.dimms", "storage", "12 of 24 slots (3 hosts)", "s4: 11 of 24 slots"] \
        in table.rows
    assert ["memory.total_kib", "storage", "527951468 (3 hosts)", "s4: 494397036"] in table.rows
    # the other plants stay as they were: nothing else differs
    assert sorted(row[0] for row in table.rows) == \
        ["bios.version", "cpu.governor", "memory.dimms", "memory.total_kib"]


def test_a_run_over_the_four_trees_says_the_missing_dimm(tmp_path):
    """`stackprobe run` of a settings step over the four trees (hosts of `access: local`):
    the drift is in results.json and in the terminal's "Settings drift" table."""
    hosts = {"hosts": [{"name": h, "access": "local", "address": f"127.0.3.{i}",
                        "roles": ["storage"]} for i, h in enumerate(HOSTS, 1)]}
    (tmp_path / "hosts.yaml").write_text(yaml.safe_dump(hosts))
    (tmp_path / "suite.yaml").write_text(
        f"name: settings\nsteps:\n  - kind: settings\n    hosts: all\n"
        f"    probe_root: {TREES}/{{host}}\n")
    result = CliRunner().invoke(app, [
        "run", str(tmp_path / "suite.yaml"), "--out", str(tmp_path / "runs"), "--target",
        str(tmp_path), "--no-monitor", "--hosts", str(tmp_path / "hosts.yaml")],
        env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    (doc,) = [json.loads(p.read_text()) for p in (tmp_path / "runs").glob("*/results.json")]
    drifts = doc["steps"][0]["findings"]["settings_drift"]["drifts"]
    (dimms,) = [d for d in drifts if d["setting"] == "memory.dimms"]
    assert dimms["text"] == "s4: memory.dimms 11 of 24 slots, 3 hosts 12 of 24 slots"
    assert dimms["values"][1] == {"value": "11 of 24 slots", "hosts": ["s4"]}
    table = result.output.split("Settings drift", 1)[1]
    rows = [" ".join(re.findall(r"[\w.:-]+", line)) for line in table.splitlines()]
    assert "memory.dimms storage 12 of 24 slots 3 hosts s4: 11 of 24 slots" in rows, table
