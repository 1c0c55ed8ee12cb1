"""Inventory parser on this machine's recorded sources and on a synthetic 2-socket host."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from stackprobe.kinds.host.inventory_sources import SOURCES
from stackprobe.parsers.host.inventory import parse_inventory
from stackprobe.schema.records import InventoryRecord

FIX = Path(__file__).parent / "fixtures"
RECORDED = FIX / "recorded" / "inventory"
SYNTHETIC = FIX / "synthetic" / "inventory-2socket"


def load(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in folder.iterdir() if p.name in SOURCES}


@pytest.fixture(scope="module")
def vm() -> InventoryRecord:
    return parse_inventory(load(RECORDED), host="vm")


@pytest.fixture(scope="module")
def synth() -> InventoryRecord:
    return parse_inventory(load(SYNTHETIC), host="osd1")


def test_fixture_sets_use_the_source_keys():
    assert set(load(RECORDED)) == set(SOURCES) - {"dmidecode"}  # not installed here
    assert set(load(SYNTHETIC)) == set(SOURCES)


# ------------------------------------------------------------------ recorded (this VM)


def test_vm_cpu(vm):
    assert vm.host == "vm"
    assert vm.cpu == {
        "model": "AMD EPYC", "vendor": "AuthenticAMD", "architecture": "x86_64",
        "sockets": 1, "logical_cpus": 2, "cores_per_socket": 2, "threads_per_core": 1,
        "numa_nodes": 1, "numa_cpulists": {"node0": "0-1"}, "smt": "unsupported",
        "governor": "none", "hypervisor": "KVM",
    }


def test_vm_memory_kernel_os(vm):
    assert vm.memory == {"total_bytes": 24684100 * 1024}
    assert vm.kernel == "6.18.44-fc-v509"
    assert vm.os == "Debian GNU/Linux 12 (bookworm)"


def test_vm_block_devices(vm):
    # zram0 is a 0-byte disk and is left out; loop devices are not in lsblk at all
    [vda] = vm.block_devices
    assert vda == {
        "name": "vda", "type": "disk", "size_bytes": 274877906944, "model": None,
        "rotational": True, "scheduler": "mq-deadline", "transport": None,
        "mountpoint": "/", "fstype": None, "partitions": 0, "mountpoints": ["/"],
    }


def test_vm_nics(vm):
    nics = {n["name"]: n for n in vm.nics}
    assert set(nics) == {"eth0", "ifb0", "ifb1"}  # lo left out
    assert nics["eth0"] == {
        "name": "eth0", "speed_mbps": None, "operstate": "up", "mtu": 1400,
        "virtual": False, "driver": "virtio_net", "mac": "02:fc:00:00:00:01",
    }
    assert nics["ifb0"]["virtual"] is True and nics["ifb0"]["operstate"] == "down"


def test_vm_flags_only_the_speedless_nic(vm):
    assert vm.flags == [
        "NIC eth0 (virtio_net) is up but reports no link speed: measure it with iperf3 "
        "rather than trusting a nominal figure."
    ]


# ------------------------------------------------------------------ synthetic 2-socket host


def test_synthetic_cpu(synth):
    cpu = synth.cpu
    assert cpu["model"] == "Intel(R) Xeon(R) Gold 6230R CPU @ 2.10GHz"
    assert (cpu["sockets"], cpu["cores_per_socket"], cpu["threads_per_core"]) == (2, 26, 2)
    assert cpu["logical_cpus"] == 104
    assert cpu["numa_nodes"] == 2
    assert cpu["numa_cpulists"] == {"node0": "0-25,52-77", "node1": "26-51,78-103"}
    assert cpu["smt"] == "on"
    assert cpu["governor"] == "powersave"
    assert cpu["max_mhz"] == 4000.0


def test_synthetic_memory_from_dmidecode(synth):
    assert synth.memory == {
        "total_bytes": 394834812 * 1024, "dimm_slots": 24, "dimms_populated": 12,
        "dimm_bytes": 12 * 32 * 1024**3, "dimm_speed_mts": 2933, "dimm_type": "DDR4",
    }


def test_synthetic_disks(synth):
    disks = {d["name"]: d for d in synth.block_devices}
    assert set(disks) == {"sda", "nvme0n1"}
    assert disks["nvme0n1"]["rotational"] is False
    assert disks["nvme0n1"]["transport"] == "nvme"
    assert disks["nvme0n1"]["partitions"] == 2
    assert disks["nvme0n1"]["mountpoints"] == ["/", "/boot/efi"]
    assert disks["sda"]["rotational"] is True and disks["sda"]["scheduler"] == "none"
    assert disks["sda"]["size_bytes"] == 16000900661248
    assert disks["sda"]["partitions"] == 0 and disks["sda"]["mountpoints"] == []


def test_synthetic_nics(synth):
    nics = {n["name"]: n for n in synth.nics}
    assert nics["ens1f0np0"]["speed_mbps"] == 25000 and nics["ens1f0np0"]["mtu"] == 9000
    assert nics["ens1f0np0"]["driver"] == "mlx5_core" and not nics["ens1f0np0"]["virtual"]
    assert nics["ens1f1np1"]["operstate"] == "down" and nics["ens1f1np1"]["speed_mbps"] is None


def test_synthetic_flags(synth):
    text = "\n".join(synth.flags)
    assert len(synth.flags) == 3
    assert "SMT (hyper-threading) is on: 2 threads" in text
    assert "governor is powersave" in text
    assert "Rotational disk sda uses the 'none' I/O scheduler" in text
    assert "ens1f1np1" not in text  # down, so no speed expected
    assert "nvme0n1" not in text  # 'none' is right for NVMe


# ------------------------------------------------------------------ missing and other formats


def test_all_sources_missing_or_empty():
    for outputs in ({}, {key: "" for key in SOURCES}, {key: "\n  \n" for key in SOURCES}):
        rec = parse_inventory(outputs)
        assert rec.cpu == {} and rec.memory == {} and rec.block_devices == [] and rec.nics == []
        assert rec.kernel is None and rec.os is None and rec.flags == []


def test_without_sysfs_falls_back_to_lsblk_and_lscpu():
    outputs = load(SYNTHETIC)
    del outputs["sysfs"]
    rec = parse_inventory(outputs)
    assert "governor" not in rec.cpu  # unknown, not 'none'
    assert rec.cpu["smt"] == "on"  # from threads per core
    assert rec.cpu["numa_cpulists"] == {"node0": "0-25,52-77", "node1": "26-51,78-103"}
    schedulers = {d["name"]: d["scheduler"] for d in rec.block_devices}
    assert schedulers == {"sda": "none", "nvme0n1": "none"}
    assert rec.nics == []


def test_nested_lscpu_layout():
    """util-linux 2.37+ may nest fields under 'children' (e.g. Model name under Vendor ID)."""
    flat = json.loads((RECORDED / "lscpu").read_text())["lscpu"]
    top = [f for f in flat if f["field"] in ("Architecture:", "CPU(s):")]
    rest = [f for f in flat if f not in top]
    nested = {"lscpu": [*top, {**rest[0], "children": rest[1:]}]}
    rec = parse_inventory({"lscpu": json.dumps(nested)})
    assert rec.cpu["model"] == "AMD EPYC" and rec.cpu["cores_per_socket"] == 2


def test_older_lsblk_with_string_values():
    """Older util-linux prints every lsblk value as a string ("rota": "1")."""
    doc = json.loads((RECORDED / "lsblk").read_text())
    for dev in doc["blockdevices"]:
        for key, value in dev.items():
            if isinstance(value, bool):
                dev[key] = "1" if value else "0"
            elif value is not None:
                dev[key] = str(value)
    [vda] = parse_inventory({"lsblk": json.dumps(doc)}).block_devices
    assert vda["size_bytes"] == 274877906944 and vda["rotational"] is True


@pytest.mark.parametrize(
    "outputs, message",
    [
        ({"lscpu": "Architecture: x86_64"}, "lscpu: not JSON"),
        ({"lscpu": '{"cpus": []}'}, "no 'lscpu' list"),
        ({"lsblk": "[]"}, "no 'blockdevices' list"),
        ({"lsblk": '{"blockdevices": ["sda"]}'}, "not an object"),
        ({"sysfs": "speed 1000\n"}, "not a 'path:value' line"),
        ({"meminfo": "MemFree: 1 kB\n"}, "MemTotal"),
        ({"uname": "Linux\n"}, "uname -srvm"),
    ],
)
def test_malformed_sources_raise(outputs, message):
    with pytest.raises(ValueError, match=message):
        parse_inventory(outputs)


def test_record_round_trips():
    rec = parse_inventory(load(SYNTHETIC), host="osd1")
    assert InventoryRecord.model_validate(rec.to_json()) == rec


# ------------------------------------------------------------------ sources, run here


def test_sources_are_fixed_posix_commands():
    sysfs = SOURCES["sysfs"]
    assert sysfs[:2] == ["sh", "-c"] and "{" not in sysfs[2]  # dash has no brace expansion
    assert sysfs[2].endswith("2>/dev/null; true")


def test_sources_run_on_this_machine_parse():
    outputs = {}
    for key, argv in SOURCES.items():
        if shutil.which(argv[0]) is None:
            continue
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        if proc.returncode == 0:
            outputs[key] = proc.stdout
    rec = parse_inventory(outputs)
    assert rec.cpu["logical_cpus"] == os.cpu_count()
    assert rec.memory["total_bytes"] > 0
    assert rec.kernel == os.uname().release
