"""The settings probe on two real servers' sysfs, as their public recordings hold it
(tests/fixtures/public/sysfs, cited in SOURCES.md): an Ice Lake server's cpuidle and cpufreq
files recorded by intel/pepc, and a Dell PowerEdge R6515's /sys/class/dmi/id recorded by
prometheus/procfs.

Why these and not only the synthetic trees: the synthetic hosts (s1-s4) are made of parts
copied from these files; reading the recordings themselves, unpacked into a probe root
(tests/public_sysfs_trees.py), checks that the probe script and the parsers read a real
machine's C-states, governor, scaling driver, turbo and BIOS/board/system fields as the
machine wrote them, and that the built-in profile judges them as it should.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES
from public_sysfs_trees import unpack_inlinefiles, unpack_ttar
from stackprobe.analysis.settings_profile import evaluate
from stackprobe.kinds.host.settings_probe_script import probe_argv
from stackprobe.parsers.host.settings_names import DMI_FILES
from stackprobe.parsers.host.settings_probe import parse_settings_probe
from stackprobe.spec.settings_profile import load_profile

SYSFS = FIXTURES / "public" / "sysfs"
PEPC = SYSFS / "inlinefiles_icx2s0_cpuidle-cpufreq_pepc.txt"
DMI = SYSFS / "dmi-id_poweredge-r6515_procfs.ttar"
CPU = "/sys/devices/system/cpu"
POLICY = f"{CPU}/cpufreq/policy0"


def probe(root: Path, host: str):
    """The real probe script with the tree as its root, parsed."""
    out = subprocess.run(probe_argv(str(root)), capture_output=True, text=True, check=True,
                         timeout=30)
    return parse_settings_probe(out.stdout, host=host)


def test_the_ice_lake_servers_cstates_governor_and_driver_as_pepc_recorded_them(tmp_path):
    files = unpack_inlinefiles(PEPC, tmp_path)
    found = probe(tmp_path, "icx2s0")
    assert found.warnings == []
    s = found.record.settings
    v = {name: setting.value for name, setting in s.items()}
    states = {n: {f: files[f"{CPU}/cpu0/cpuidle/state{n}/{f}"]
                  for f in ("name", "latency", "disable")} for n in range(4)}
    assert [states[n]["name"] for n in range(4)] == ["POLL", "C1", "C1E", "C6"]
    for n, state in states.items():
        setting = s[f"cpu.cstate.{state['name']}.disabled"]
        assert (setting.value, setting.source) == \
            (state["disable"], f"{CPU}/cpu0/cpuidle/state{n}/disable")
    assert v["cpu.cstates_enabled"] == "POLL,C1,C1E,C6"  # none disabled on this server
    assert (v["cpu.deepest_cstate"], v["cpu.deepest_cstate_latency_us"]) == \
        ("C6", states[3]["latency"]) == ("C6", "170")
    assert s["cpu.deepest_cstate_latency_us"].source == f"{CPU}/cpu0/cpuidle/state3/latency"
    assert v["cpu.idle_driver"] == files[f"{CPU}/cpuidle/current_driver"] == "intel_idle"
    assert v["cpu.governor"] == files[f"{POLICY}/scaling_governor"] == "powersave"
    assert v["cpu.scaling_driver"] == files[f"{POLICY}/scaling_driver"] == "intel_pstate"
    assert (v["cpu.min_freq_khz"], v["cpu.max_freq_khz"], v["cpu.hw_max_freq_khz"]) == (
        files[f"{POLICY}/scaling_min_freq"], files[f"{POLICY}/scaling_max_freq"],
        files[f"{POLICY}/cpuinfo_max_freq"]) == ("800000", "3500000", "3500000")
    # intel_pstate's no_turbo 0: turbo is on
    assert files[f"{CPU}/intel_pstate/no_turbo"] == "0" and v["cpu.turbo"] == "on"
    assert s["cpu.turbo"].source == f"{CPU}/intel_pstate/no_turbo"
    # read through the kernel's cpu0/cpufreq link, named by the path a host shows
    assert s["cpu.scaling_driver"].source == f"{CPU}/cpu0/cpufreq/scaling_driver"
    # what the recording does not hold stays unknown, never a guess
    assert v["cpu.smt"] is None and v["mm.thp"] is None and v["bios.version"] is None


def test_without_the_kernels_cpufreq_link_the_governor_is_unknown_not_guessed(tmp_path):
    """A tree that holds only cpufreq/policyN (as pepc records it) and no cpuN/cpufreq: the
    probe reads a CPU's frequency settings where a host shows them, so they are unknown —
    and the C-states, read from cpu0's own cpuidle, are still there."""
    unpack_inlinefiles(PEPC, tmp_path)
    (tmp_path / "sys/devices/system/cpu/cpu0/cpufreq").unlink()
    v = {n: s.value for n, s in probe(tmp_path, "icx2s0").record.settings.items()}
    assert v["cpu.governor"] is None and "cpu.scaling_driver" not in v
    assert v["cpu.deepest_cstate"] == "C6"


def test_the_poweredge_r6515s_bios_board_and_system_as_procfs_recorded_them(tmp_path):
    files = unpack_ttar(DMI, tmp_path, strip="fixtures")
    found = probe(tmp_path, "r6515")
    assert found.warnings == []
    s = found.record.settings
    for file, name in DMI_FILES.items():
        path = f"/sys/class/dmi/id/{file}"
        assert (s[name].value, s[name].source) == (files[path], path), name
    assert {name: s[name].value for name in DMI_FILES.values()} == {
        "bios.vendor": "Dell Inc.", "bios.version": "2.2.4", "bios.date": "04/12/2021",
        "board.vendor": "Dell Inc.", "board.name": "07PXPY", "system.vendor": "Dell Inc.",
        "system.product": "PowerEdge R6515"}
    # the serials (mode 400 in the recording) are not settings and are not read
    assert not any("serial" in name or "uuid" in name for name in s)


def test_the_built_in_profile_fails_the_ice_lake_servers_governor_and_deep_cstates(tmp_path):
    """The server as recorded runs powersave and lets its CPUs reach C6 (170 us to wake):
    hpc-storage fails both on it, and says UNKNOWN (not PASS) for SMT, which pepc's
    recording does not hold."""
    unpack_inlinefiles(PEPC, tmp_path)
    unpack_ttar(DMI, tmp_path, strip="fixtures")
    record = probe(tmp_path, "icx2s0").record
    results = {r.expectation.setting: r for r in evaluate(load_profile("hpc-storage", None),
                                                          [record], {})}
    assert results["cpu.governor"].status == "fail"
    assert results["cpu.deepest_cstate_latency_us"].status == "fail"
    (judged,) = results["cpu.deepest_cstate_latency_us"].hosts[0].judged
    assert judged.value == "170"
    assert results["cpu.smt"].status == "not measured"


@pytest.mark.parametrize("unpack, text, where", [
    (unpack_inlinefiles, "rw|/sys/x|1\nbroken line\n", "inline.txt:2"),
    (unpack_ttar, "Path: fixtures/a\nLines: 2\nonly one\n", "inline.txt:3: ends inside"),
    (unpack_ttar, "Path: fixtures/a\nLines: 1\nx\nMode: rw\n", "inline.txt:4: expected 'Mode"),
    (unpack_ttar, "Path: fixtures/a\nSize: 3\n", "inline.txt:2"),
    (unpack_ttar, "Path: elsewhere/a\nLines: 0\nMode: 444\n", "inline.txt:1"),
])
def test_a_recording_in_another_form_is_refused_naming_its_line(tmp_path, unpack, text, where):
    archive = tmp_path / "inline.txt"
    archive.write_text(text)
    kwargs = {"strip": "fixtures"} if unpack is unpack_ttar else {}
    with pytest.raises(ValueError, match=where):
        unpack(archive, tmp_path / "root", **kwargs)
