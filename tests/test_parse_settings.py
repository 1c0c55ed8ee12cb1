"""The settings kind's parsers on public outputs of real machines, and its probe script run
with `sh` over recorded trees (tests/fixtures/synthetic/settings: three hosts, one with
another governor, one with an older BIOS) — the kind's own path, not a copy of it.

Why the real script on trees: the probe only reads files, so the same code that runs on a
live host over SSH runs here on a directory, with no root and no hardware.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES
from stackprobe.kinds.host.settings_probe_script import probe_argv
from stackprobe.parsers.host.dmidecode_system import parse_dmidecode_system
from stackprobe.parsers.host.ethtool_settings import parse_ethtool_features, parse_ethtool_ring
from stackprobe.parsers.host.kernel_cmdline import parse_cmdline
from stackprobe.parsers.host.settings_names import EXPECTED_SOURCES
from stackprobe.parsers.host.settings_probe import parse_settings_probe
from stackprobe.parsers.host.time_sync import parse_chronyc_tracking, parse_timedatectl

PUBLIC = FIXTURES / "public"
TREES = FIXTURES / "synthetic" / "settings"
CPU = "/sys/devices/system/cpu"


def probe(root: Path, host: str, mounts: tuple[str, ...] = ()):
    """The real probe script over a recorded tree, parsed."""
    out = subprocess.run(probe_argv(str(root)), capture_output=True, text=True, check=True)
    return parse_settings_probe(out.stdout, host=host, mounts=mounts)


def values(found) -> dict[str, str | None]:
    return {name: s.value for name, s in found.record.settings.items()}


# ------------------------------------------------------------------ public outputs

def test_ethtool_rings_current_and_maximum():
    ring = parse_ethtool_ring((PUBLIC / "ethtool/ethtool-g_pri_4096-max_insights-core.txt")
                              .read_text())
    assert (ring.rx, ring.tx, ring.rx_max, ring.tx_max) == (1024, 512, 4096, 4096)
    small = parse_ethtool_ring((PUBLIC / "ethtool/ethtool-g_ens3_na-rings_insights-core.txt")
                               .read_text())
    assert (small.rx, small.tx, small.rx_max, small.tx_max) == (256, 256, 256, 256)


def test_ethtool_features_drop_fixed_and_requested_and_sub_features():
    features = parse_ethtool_features((PUBLIC / "ethtool/ethtool-k_bond0_insights-core.txt")
                                      .read_text())
    assert features["rx-checksumming"] == "off"  # 'off [fixed]'
    assert features["generic-segmentation-offload"] == "off"  # 'off [requested on]'
    assert features["large-receive-offload"] == "on"
    assert features["scatter-gather"] == "on"
    assert "tx-checksum-ipv4" not in features  # an indented sub-feature


def test_chronyc_tracking_and_timedatectl():
    sync = parse_chronyc_tracking((PUBLIC / "chrony/chronyc-tracking_ubuntu-20.04_nelisys-docs"
                                   ".txt").read_text())
    assert sync.synchronized is True
    assert sync.offset_ms == pytest.approx(1.983523)  # 'seconds fast of NTP time'
    slow = parse_chronyc_tracking("System time     : 0.000006523 seconds slow of NTP time\n"
                                  "Leap status     : Not synchronised\n")
    assert (slow.synchronized, slow.offset_ms) == (False, pytest.approx(-0.006523))
    for name in ("timedatectl_synchronized_insights-core.txt",
                 "timedatectl_ntp-synchronized-old_insights-core.txt"):
        assert parse_timedatectl((PUBLIC / "timedatectl" / name).read_text()).synchronized
    status = parse_timedatectl("       Server: 10.0.0.1 (ntp)\n       Offset: -1.234ms\n")
    assert status.offset_ms == pytest.approx(-1.234)


def test_cmdline_params_as_the_kernel_splits_them():
    params = parse_cmdline((PUBLIC / "procfs/cmdline_icx2s0_pepc.txt").read_text())
    assert params["console"] == "ttyS0,115200"
    assert params["ro"] == "set" and params["msr.allow_writes"] == "on"
    quoted = parse_cmdline('ro dyndbg="file x +p" nosmt intel_idle.max_cstate=1 -- idle=poll\n')
    assert quoted == {"ro": "set", "dyndbg": "file x +p", "nosmt": "set",
                      "intel_idle.max_cstate": "1"}  # after '--': init's, not the kernel's


def test_dmidecode_bios_board_and_system():
    dell = parse_dmidecode_system((PUBLIC / "dmidecode/dmidecode-3.3_dell-r640_2x-gold-6230r_"
                                   "12-of-24.txt").read_text())
    assert dell == {"bios.vendor": "Dell Inc.", "bios.version": "2.17.1",
                    "bios.date": "11/15/2022", "system.vendor": "Dell Inc.",
                    "system.product": "PowerEdge R640", "board.vendor": "Dell Inc.",
                    "board.name": "0H28RR"}
    smc = parse_dmidecode_system((PUBLIC / "dmidecode/dmidecode-3.3_supermicro-sys-6029p-wtrt_"
                                  "2x-gold-6226r_12-of-12.txt").read_text())
    assert (smc["bios.vendor"], smc["bios.version"], smc["board.name"]) == \
        ("American Megatrends Inc.", "3.4", "X11DDW-NT")


def test_dimms_and_bios_from_dmidecode_in_the_probe_output():
    dump = (PUBLIC / "dmidecode/dmidecode-3.6_asrockrack-rome2d16-2t_2x-epyc-7402_16-of-16.txt"
            ).read_text()
    text = f"### cmd dmidecode_memory.txt\n{dump}\n### cmd dmidecode_bios.txt\n{dump}\n### end\n"
    found = values(parse_settings_probe(text, host="r1"))
    assert found["memory.dimms"] == "16 of 16 slots"
    assert found["memory.dimm_size"] == "mixed: 32 GB x14, 16 GB x2"
    assert found["memory.dimm_speed_mts"] == "2133"
    assert found["bios.version"] is not None
    source = parse_settings_probe(text, host="r1").record.settings["memory.dimms"].source
    assert source == "dmidecode -t memory"


# ------------------------------------------------------------------ the probe on recorded trees

def test_a_tree_parses_to_its_files_values_with_host_paths_as_sources():
    found = probe(TREES / "s1", "s1")
    assert found.warnings == []
    s = found.record.settings
    v = values(found)
    assert (v["cpu.smt"], v["cpu.governor"], v["cpu.turbo"]) == ("on", "powersave", "on")
    assert s["cpu.smt"].source == f"{CPU}/smt/control"
    assert s["cpu.turbo"].source == f"{CPU}/intel_pstate/no_turbo"
    assert v["cpu.cstates_enabled"] == "POLL,C1,C1E,C6"
    assert (v["cpu.deepest_cstate"], v["cpu.deepest_cstate_latency_us"]) == ("C6", "170")
    assert s["cpu.deepest_cstate"].source == f"{CPU}/cpu0/cpuidle/state3/name"
    assert v["cpu.cstate.C6.disabled"] == "0" and v["cpu.idle_driver"] == "intel_idle"
    assert (v["cpu.min_freq_khz"], v["cpu.hw_max_freq_khz"]) == ("800000", "3500000")
    assert v["kernel.version"] == "7.0.0-rc1-g6de23f81a5e0"
    assert s["kernel.version"].source == "uname -r"
    assert v["kernel.cmdline.intel_idle.max_cstate"] == "unset"
    assert v["kernel.mitigations.mds"] == "Vulnerable"
    assert (v["mm.thp"], v["mm.thp_defrag"]) == ("madvise", "madvise")
    assert (v["vm.swappiness"], v["kernel.numa_balancing"]) == ("60", "1")
    assert v["net.ipv4.tcp_rmem"] == "4096 131072 6291456"  # tabs become one space
    assert (v["bios.vendor"], v["bios.version"], v["system.product"]) == \
        ("Dell Inc.", "2.2.4", "PowerEdge R6515")
    assert s["bios.version"].source == "/sys/class/dmi/id/bios_version"
    assert (v["nic.eth0.driver"], v["nic.eth0.firmware"], v["nic.eth0.mtu"]) == \
        ("mlx5_core", "14.23.1020", "9000")
    assert (v["nic.eth0.rx_ring"], v["nic.eth0.rx_ring_max"]) == ("1024", "4096")
    assert v["nic.eth0.offload.generic-receive-offload"] == "on"
    assert s["nic.eth0.rx_ring"].source == "ethtool -g eth0"
    assert not any(name.startswith(("nic.lo.", "nic.bond0.", "disk.loop0.")) for name in v)
    assert (v["disk.nvme0n1.scheduler"], v["disk.nvme0n1.write_cache"]) == ("none", "write back")
    assert (v["mount./.fstype"], v["mount./.device"]) == ("xfs", "/dev/nvme0n1p2")
    assert not any(name.startswith(("mount./run.", "mount./proc.")) for name in v)
    assert (v["tuned.profile"], v["irqbalance"]) == ("throughput-performance", "active")
    assert (v["time.sync"], v["time.service"], v["time.offset_ms"]) == \
        ("synchronized", "chrony", "1.984")
    assert s["time.offset_ms"].volatile and not s["time.sync"].volatile


def test_the_planted_drift_governor_on_s2_bios_on_s3():
    fleet = {h: values(probe(TREES / h, h)) for h in ("s1", "s2", "s3")}
    assert [fleet[h]["cpu.governor"] for h in ("s1", "s2", "s3")] == \
        ["powersave", "performance", "powersave"]
    assert [fleet[h]["bios.version"] for h in ("s1", "s2", "s3")] == ["2.2.4", "2.2.4", "2.1.6"]
    differ = {name for name in fleet["s1"]
              if len({fleet[h].get(name) for h in fleet}) > 1}
    assert differ == {"cpu.governor", "bios.version"}


def test_mixed_governors_and_an_asked_mount(tmp_path):
    root = tmp_path / "m1"
    shutil.copytree(TREES / "s1", root, symlinks=True)
    (root / "sys/devices/system/cpu/cpu3/cpufreq/scaling_governor").write_text("performance\n")
    found = probe(root, "m1", mounts=("/boot/efi/EFI",))
    v = values(found)
    assert v["cpu.governor"] == "mixed: powersave x3, performance x1"
    assert (v["mount./boot/efi.fstype"], v["mount./boot/efi.options"]) == \
        ("vfat", "rw,relatime,fmask=0077,dmask=0077")


def test_missing_sources_leave_only_what_a_profile_asks_as_unknown(tmp_path):
    found = probe(tmp_path, "empty")
    assert found.warnings == []
    assert {n: (s.value, s.source) for n, s in found.record.settings.items()} == \
        {n: (None, source) for n, source in EXPECTED_SOURCES.items()}


def test_unreadable_sources_are_unknown_with_a_warning(tmp_path):
    root = tmp_path / "u1"
    shutil.copytree(TREES / "s1", root, symlinks=True)
    (root / "sys/devices/system/cpu/smt/control").write_text("sideways\n")
    (root / "sys/kernel/mm/transparent_hugepage/enabled").write_text("always madvise never\n")
    (root / "commands/ethtool-g_eth0.txt").write_text("RX: lots\n")
    found = probe(root, "u1")
    v = values(found)
    assert v["cpu.smt"] is None and v["mm.thp"] is None
    assert v["nic.eth0.rx_ring"] is None and v["nic.eth0.tx_ring_max"] is None
    assert found.warnings[0] == ("u1: cpu.smt: /sys/devices/system/cpu/smt/control: "
                                 "not an SMT state: 'sideways'")
    assert any(w.startswith("u1: mm.thp: /sys/kernel/mm/transparent_hugepage/enabled")
               for w in found.warnings)
    assert any("ethtool -g eth0" in w for w in found.warnings)


# ------------------------------------------------------------------ bad input, the probe's form

def test_bad_input_is_one_line():
    text = subprocess.run(probe_argv(str(TREES / "s1")), capture_output=True, text=True,
                          check=True).stdout
    cases = [(parse_settings_probe, text[: len(text) // 2], r"^settings probe: no '### end'"),
             (parse_ethtool_ring, "RX: 12\n", r"^ethtool -g: no 'Ring parameters"),
             (parse_ethtool_ring, "Ring parameters for e:\nPre-set maximums:\nRX: x\n",
              r"^ethtool -g: line 3: RX: not a count"),
             (parse_ethtool_features, "tso: on\n", r"^ethtool -k: no 'Features for"),
             (parse_chronyc_tracking, "506 Cannot talk to daemon\n", r"^chronyc tracking: no"),
             (parse_chronyc_tracking, "System time : 1e999 seconds fast of NTP time\n",
              r"^chronyc tracking: line 1"),
             (parse_timedatectl, "Failed to connect to bus\n", r"^timedatectl: no"),
             (parse_cmdline, "a\nb\n", r"^/proc/cmdline: 2 lines"),
             (parse_dmidecode_system, "hello\n", r"^dmidecode: no 'Handle")]
    for parse, bad, message in cases:
        with pytest.raises(ValueError, match=message) as err:
            parse(bad)
        assert len(str(err.value).splitlines()) == 1


def test_probe_argv_runs_over_ssh_as_sh_c_and_refuses_a_missing_root(tmp_path):
    argv = probe_argv(None)
    assert argv[:2] == ["sh", "-c"] and argv[3:] == ["settings-probe", ""]
    out = subprocess.run(probe_argv(str(tmp_path / "nope")), capture_output=True, text=True)
    assert out.returncode == 3 and "no such directory" in out.stderr


def test_services_from_the_live_probes_tool_and_process_lists():
    """What the live probe adds (which.txt, running.txt): tuned and irqbalance absent when
    not installed, timesyncd's flag file when no tool answered."""
    text = ("### cmd which.txt\n/usr/sbin/ethtool\n/usr/sbin/irqbalance\n"
            "### cmd running.txt\nsystemd-timesyn\n"
            "### f /run/systemd/timesync/synchronized\n### end\n")
    found = parse_settings_probe(text, host="t1").record.settings
    assert (found["tuned.profile"].value, found["tuned.profile"].source) == \
        ("none", "command -v tuned-adm")
    assert found["irqbalance"].value == "inactive"  # installed, not running
    assert found["time.service"].value == "systemd-timesyncd"
    assert (found["time.sync"].value, found["time.sync"].source) == \
        ("synchronized", "/run/systemd/timesync/synchronized")
    bare = parse_settings_probe("### cmd which.txt\n### cmd running.txt\nsystemd-timesyn\n"
                                "### end\n", host="t2").record.settings
    assert (bare["irqbalance"].value, bare["time.sync"].value) == ("absent", "not synchronized")
