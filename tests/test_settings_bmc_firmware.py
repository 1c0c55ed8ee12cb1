"""`bmc.firmware` of the settings step, from `ipmitool mc info` (parsers/host/settings_system.py),
on recorded outputs of real BMCs put in a recorded tree as `commands/ipmitool_mc_info.txt`:

- tests/fixtures/recorded/ipmitool/ipmi_sim_mc-info.stdout: OpenIPMI's ipmi_sim as `stackprobe
  lab bmc up` runs it, asked over lanplus on 127.0.0.1 (RECORDED.md, "ipmitool against
  ipmi_sim"): Firmware Revision 9.08;
- tests/fixtures/public/ipmitool/hp-ilo3_mc-info.txt: an HP ProLiant's iLO 3 (SOURCES.md,
  "ipmitool"): Firmware Revision 1.28.

Why recorded: this machine has no BMC device (/dev/ipmi0), so the live probe never runs
`ipmitool mc info` here; the tree's recorded output goes through the same probe script and
parser a host with a BMC does. Two BMCs of one role with different firmware are a drift
like a BIOS version (a serviced host whose BMC was not updated).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from conftest import FIXTURES
from stackprobe.analysis.settings_drift import settings_drift
from stackprobe.kinds.host.settings_probe_script import probe_argv
from stackprobe.parsers.host.settings_probe import parse_settings_probe

SIM = FIXTURES / "recorded" / "ipmitool" / "ipmi_sim_mc-info.stdout"
ILO = FIXTURES / "public" / "ipmitool" / "hp-ilo3_mc-info.txt"
S1 = FIXTURES / "synthetic" / "settings" / "s1"


def tree_with_mc_info(tmp: Path, host: str, text: str) -> Path:
    """s1's tree with `ipmitool mc info` recorded in it."""
    root = tmp / host
    shutil.copytree(S1, root, symlinks=True)
    (root / "commands" / "ipmitool_mc_info.txt").write_text(text)
    return root


def probe(root: Path, host: str):
    out = subprocess.run(probe_argv(str(root)), capture_output=True, text=True, check=True,
                         timeout=30)
    return parse_settings_probe(out.stdout, host=host)


def test_the_lab_bmcs_firmware_from_its_recorded_mc_info(tmp_path):
    found = probe(tree_with_mc_info(tmp_path, "h1", SIM.read_text()), "h1")
    assert found.warnings == []
    firmware = found.record.settings["bmc.firmware"]
    assert (firmware.value, firmware.source) == ("9.08", "ipmitool mc info")


def test_a_real_ilo_and_the_lab_bmc_in_one_role_are_a_drift(tmp_path):
    records = [probe(tree_with_mc_info(tmp_path, h, text), h).record
               for h, text in (("h1", SIM.read_text()), ("h2", SIM.read_text()),
                               ("h3", ILO.read_text()))]
    assert records[2].settings["bmc.firmware"].value == "1.28"
    drifts = [d.text for d in settings_drift(records, {}).drifts]
    assert drifts == ["h3: bmc.firmware 1.28, 2 hosts 9.08"]


def test_a_tree_without_mc_info_has_no_bmc_firmware(tmp_path):
    """No BMC device: the live probe does not run ipmitool, and a profile does not ask for
    the BMC's firmware, so the setting is left out rather than unknown."""
    assert "bmc.firmware" not in probe(S1, "s1").record.settings


def test_mc_info_that_is_not_one_or_has_no_firmware_is_unknown_with_a_warning(tmp_path):
    error = (FIXTURES / "recorded" / "ipmitool" / "closed-port_mc-info.stderr").read_text()
    found = probe(tree_with_mc_info(tmp_path, "h1", error), "h1")
    assert found.record.settings["bmc.firmware"].value is None
    assert found.warnings == ["h1: bmc.firmware: ipmitool mc info: ipmitool mc info: no "
                              "'Device ID' or 'Firmware Revision' line"]
    no_firmware = "".join(line + "\n" for line in SIM.read_text().splitlines()
                          if not line.startswith("Firmware Revision"))
    found = probe(tree_with_mc_info(tmp_path, "h2", no_firmware), "h2")
    assert found.record.settings["bmc.firmware"].value is None
    assert found.warnings == ["h2: bmc.firmware: ipmitool mc info: no 'Firmware Revision' line"]
