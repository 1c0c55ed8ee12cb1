"""What a host is made of, from the stdout of the commands in runners/inventory_sources.py.

`outputs` maps a source name (lscpu, lsblk, meminfo, uname, os_release, sysfs, dmidecode) to
what its command printed. Any source may be missing or empty - a command that failed, a
tool not installed, dmidecode without root - and the facts it would give are then left out,
never guessed. A source that is present but unreadable raises ValueError.

The InventoryRecord body:
- cpu: model, vendor, architecture, sockets, cores_per_socket, threads_per_core,
  logical_cpus, numa_nodes, numa_cpulists {node: cpulist}, smt ('on'/'off'/'unsupported'),
  governor (cpufreq governor, 'none' when the host has no cpufreq, several joined by ','),
  max_mhz, hypervisor;
- memory: total_bytes (MemTotal), and from dmidecode dimm_slots, dimms_populated,
  dimm_bytes, dimm_speed_mts (configured speed), dimm_type; every slot itself, empty ones
  too, is the record's dmi_memory (parsers/host/dmidecode_memory.py);
- block_devices: one entry per whole disk of non-zero size (partitions, LVM volumes are
  summarised as its `partitions` count and `mountpoints`), rotational and scheduler from
  sysfs when it was read, else from lsblk;
- nics: every interface but lo; virtual when sysfs shows no device behind it;
- flags: sentences for settings that skew storage benchmarks. Advice, never an error.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict
from typing import Any

from stackprobe.parsers.bad_input import finite, guard, load_json
from stackprobe.parsers.host.dmidecode_memory import DmiMemory, parse_dmidecode_memory
from stackprobe.schema.records import InventoryRecord

POWER_SAVING_GOVERNORS = ("powersave", "ondemand", "conservative", "schedutil")
# What the kernel picks for a rotational disk: mq-deadline (blk-mq), deadline/cfq before 5.0.
ROTATIONAL_DEFAULT_SCHEDULERS = ("mq-deadline", "deadline", "cfq")
# Old kernels and some drivers report an unknown speed as 65535 or (u32)-1 instead of -1.
_UNKNOWN_SPEEDS = (65535, 4294967295)


def _text(outputs: dict[str, str], key: str) -> str | None:
    value = outputs.get(key)
    return value if value and value.strip() else None


def _compact(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}  # unknown facts are left out


def _int(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def _json(text: str, source: str) -> Any:
    return load_json(text, source)


def _parse_sysfs(text: str | None) -> dict[str, Any] | None:
    """'path:value' lines of `grep -H .` sorted into net / block / smt / governors / nodes."""
    if text is None:
        return None
    fs: dict[str, Any] = {"net": {}, "block": {}, "smt": {}, "governors": {}, "nodes": {}}
    for line in text.splitlines():
        if not line.strip():
            continue
        path, sep, value = line.partition(":")  # sysfs names never hold ':'
        if not sep or not path.startswith("/sys/"):
            raise ValueError(f"sysfs: not a 'path:value' line: {line[:80]!r}")
        value = value.strip()
        parts = path.split("/")[1:]  # ['sys', 'class', 'net', 'eth0', 'speed']
        if parts[1:3] == ["class", "net"] and len(parts) >= 5:
            nic = fs["net"].setdefault(parts[3], {})
            if parts[4:] == ["device", "uevent"]:
                key, _, val = value.partition("=")
                nic.setdefault("uevent", {})[key] = val
            else:
                nic[parts[4]] = value
        elif parts[1] == "block" and len(parts) == 5 and parts[3] == "queue":
            fs["block"].setdefault(parts[2], {})[parts[4]] = value
        elif parts[1:5] == ["devices", "system", "cpu", "smt"] and len(parts) == 6:
            fs["smt"][parts[5]] = value
        elif parts[-2:] == ["cpufreq", "scaling_governor"]:
            fs["governors"][parts[4]] = value
        elif parts[1:4] == ["devices", "system", "node"] and parts[-1] == "cpulist":
            fs["nodes"][parts[4]] = value
    return fs


def _active_scheduler(text: str | None) -> str | None:
    """'none [mq-deadline] kyber bfq' -> 'mq-deadline'; a lone 'none' -> 'none'."""
    if not text:
        return None
    m = re.search(r"\[([^\]]+)\]", text)
    if m:
        return m.group(1)
    words = text.split()
    return words[0] if len(words) == 1 else None


def _lscpu_fields(text: str | None) -> dict[str, str]:
    """lscpu -J as {field without ':': data}; newer util-linux nests fields in 'children'."""
    if text is None:
        return {}
    doc = _json(text, "lscpu")
    if not isinstance(doc, dict) or not isinstance(doc.get("lscpu"), list):
        raise ValueError("lscpu: no 'lscpu' list in the JSON")
    fields: dict[str, str] = {}
    stack = list(doc["lscpu"])
    while stack:  # depth-first, in lscpu's order
        item = stack.pop(0)
        if not isinstance(item, dict) or "field" not in item:
            raise ValueError("lscpu: an entry without 'field'")
        if item.get("data") is not None:
            fields[str(item["field"]).rstrip(":")] = str(item["data"])
        stack[:0] = item.get("children") or []
    return fields


def _smt(fs: dict[str, Any] | None, threads_per_core: int | None) -> str | None:
    smt = fs["smt"] if fs else {}
    if smt.get("control") in ("notsupported", "notimplemented"):
        return "unsupported"
    if smt.get("active") in ("0", "1"):
        return "on" if smt["active"] == "1" else "off"
    if smt.get("control") in ("on", "off", "forceoff"):
        return "on" if smt["control"] == "on" else "off"
    return "on" if threads_per_core and threads_per_core > 1 else None


def _cpu(lscpu: dict[str, str], fs: dict[str, Any] | None, machine: str | None) -> dict:
    tpc = _int(lscpu.get("Thread(s) per core"))
    nodes = dict(sorted(fs["nodes"].items(), key=lambda kv: _int(kv[0][4:]) or 0)) if fs else {}
    if not nodes:
        nodes = {k[5:-7]: v for k, v in lscpu.items() if re.fullmatch(r"NUMA node\d+ CPU\(s\)", k)}
    governor = None
    if fs is not None:
        governors = set(fs["governors"].values())
        governor = ",".join(sorted(governors)) if governors else "none"
    max_mhz = lscpu.get("CPU max MHz")
    return _compact(dict(
        model=lscpu.get("Model name"), vendor=lscpu.get("Vendor ID"),
        architecture=lscpu.get("Architecture") or machine,
        sockets=_int(lscpu.get("Socket(s)")), logical_cpus=_int(lscpu.get("CPU(s)")),
        cores_per_socket=_int(lscpu.get("Core(s) per socket")), threads_per_core=tpc,
        numa_nodes=len(nodes) or _int(lscpu.get("NUMA node(s)")), numa_cpulists=nodes or None,
        smt=_smt(fs, tpc), governor=governor,
        max_mhz=finite(max_mhz, "lscpu: CPU max MHz") if max_mhz and max_mhz[0].isdigit() else None,
        hypervisor=lscpu.get("Hypervisor vendor"),
    ))


_MEMTOTAL = re.compile(r"^MemTotal:\s+(\d+) kB", re.MULTILINE)


def mem_total_bytes(meminfo: str) -> int | None:
    """MemTotal of /proc/meminfo in bytes (its kB are KiB); None when the text has none."""
    m = _MEMTOTAL.search(meminfo)
    return int(m.group(1)) * 1024 if m else None


def _memory(meminfo: str | None, dmi: DmiMemory | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if meminfo is not None:
        total = mem_total_bytes(meminfo)
        if total is None:
            raise ValueError("meminfo: no 'MemTotal: N kB' line")
        out["total_bytes"] = total
    slots = dmi.system_slots() if dmi is not None else []
    if slots:
        populated = [s for s in slots if s.populated]
        # MT/s the modules run at: the configured speed, else the rated one
        speeds = Counter(s.configured_mts or s.speed_mts for s in populated)
        types = Counter(s.type for s in populated if s.type)
        out.update(
            dimm_slots=len(slots),
            dimms_populated=len(populated),
            dimm_bytes=sum(s.size_bytes or 0 for s in populated) or None,
            dimm_speed_mts=max((s for s in speeds if s), key=speeds.get, default=None),
            dimm_type=types.most_common(1)[0][0] if types else None,
        )
    return _compact(out)


def _dmi_memory(dmi: DmiMemory | None) -> dict[str, Any] | None:
    """The arrays and slots as results.json keeps them (unknown facts left out)."""
    if dmi is None:
        return None
    return {"arrays": [_compact(asdict(a)) for a in dmi.arrays],
            "slots": [_compact(asdict(s)) for s in dmi.slots]}


def _bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    return {"1": True, "0": False, "true": True, "false": False}.get(str(value).lower())


def _block_devices(lsblk: str | None, fs: dict[str, Any] | None) -> list[dict[str, Any]]:
    if lsblk is None:
        return []
    doc = _json(lsblk, "lsblk")
    if not isinstance(doc, dict) or not isinstance(doc.get("blockdevices"), list):
        raise ValueError("lsblk: no 'blockdevices' list in the JSON")
    disks = []
    for dev in doc["blockdevices"]:
        if not isinstance(dev, dict):
            raise ValueError("lsblk: a block device entry is not an object")
        size = _int(dev.get("size"))
        if dev.get("type") != "disk" or not size:
            continue
        queue = (fs or {}).get("block", {}).get(dev.get("name"), {})
        tree, mounts = list(dev.get("children") or []), [dev.get("mountpoint")]
        parts = 0
        while tree:
            child = tree.pop()
            parts += child.get("type") == "part"
            mounts.append(child.get("mountpoint"))
            tree.extend(child.get("children") or [])
        rotational = _bool(queue["rotational"]) if "rotational" in queue else _bool(dev.get("rota"))
        disks.append(dict(
            name=dev.get("name"), type="disk", size_bytes=size,
            model=(dev.get("model") or "").strip() or None, rotational=rotational,
            scheduler=_active_scheduler(queue.get("scheduler")) or dev.get("sched"),
            transport=dev.get("tran"), mountpoint=dev.get("mountpoint"), fstype=dev.get("fstype"),
            partitions=parts, mountpoints=sorted(m for m in set(mounts) if m),
        ))
    return disks


def _nics(fs: dict[str, Any] | None) -> list[dict[str, Any]]:
    if fs is None:
        return []
    nics = []
    for name, attrs in sorted(fs["net"].items()):
        if name == "lo":
            continue
        speed = _int(attrs.get("speed"))
        uevent = attrs.get("uevent")
        if speed is not None and (speed <= 0 or speed in _UNKNOWN_SPEEDS):
            speed = None
        nics.append(dict(
            name=name, speed_mbps=speed, operstate=attrs.get("operstate"),
            mtu=_int(attrs.get("mtu")), virtual=uevent is None,
            driver=(uevent or {}).get("DRIVER"), mac=attrs.get("address"),
        ))
    return nics


def _flags(cpu: dict, disks: list[dict], nics: list[dict]) -> list[str]:
    """Short sentences for what the seed reports warn about; physical NICs only for speed."""
    flags = []
    if cpu.get("smt") == "on":
        flags.append(f"SMT (hyper-threading) is on: {cpu.get('threads_per_core', 'several')} "
                     "threads share each core, so CPU-bound figures depend on thread placement.")
    power_saving = [g for g in cpu.get("governor", "").split(",") if g in POWER_SAVING_GOVERNORS]
    if power_saving:
        flags.append(f"CPU frequency governor is {', '.join(power_saving)} (power-saving): "
                     "clocks ramp with load, adding latency; use 'performance' to benchmark.")
    for nic in nics:
        if nic["operstate"] == "up" and nic["speed_mbps"] is None and not nic["virtual"]:
            driver = f" ({nic['driver']})" if nic.get("driver") else ""
            flags.append(f"NIC {nic['name']}{driver} is up but reports no link speed: "
                         "measure it with iperf3 rather than trusting a nominal figure.")
    for disk in disks:
        sched = disk.get("scheduler")
        if disk.get("rotational") and sched and sched not in ROTATIONAL_DEFAULT_SCHEDULERS:
            flags.append(f"Rotational disk {disk['name']} uses the '{sched}' I/O scheduler "
                         "instead of the default mq-deadline.")
    return flags


def _os_name(text: str | None) -> str | None:
    if text is None:
        return None
    values = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key.strip()] = value.strip().strip("\"'")
    fallback = " ".join(v for v in (values.get("NAME"), values.get("VERSION_ID")) if v)
    return values.get("PRETTY_NAME") or fallback or None


@guard("inventory")
def parse_inventory(outputs: dict[str, str], host: str | None = None) -> InventoryRecord:
    """The InventoryRecord of one host from its sources' stdout (see the module docstring)."""
    kernel = machine = None
    uname = _text(outputs, "uname")
    if uname is not None:
        words = uname.split()
        if len(words) < 2:
            raise ValueError(f"uname: expected 'uname -srvm' output, got {uname.strip()!r}")
        kernel, machine = words[1], (words[-1] if len(words) >= 3 else None)
    fs = _parse_sysfs(_text(outputs, "sysfs"))
    cpu = _cpu(_lscpu_fields(_text(outputs, "lscpu")), fs, machine)
    disks = _block_devices(_text(outputs, "lsblk"), fs)
    nics = _nics(fs)
    dmidecode = _text(outputs, "dmidecode")
    dmi = parse_dmidecode_memory(dmidecode) if dmidecode is not None else None
    return InventoryRecord(
        host=host,
        cpu=cpu,
        memory=_memory(_text(outputs, "meminfo"), dmi),
        block_devices=disks,
        nics=nics,
        kernel=kernel,
        os=_os_name(_text(outputs, "os_release")),
        flags=_flags(cpu, disks, nics),
        dmi_memory=_dmi_memory(dmi),
    )
