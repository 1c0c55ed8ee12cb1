"""The output of the system tools the target guard probes with, as typed values (pure).

lsblk -J, blkid -o export, wipefs (JSON and table), /proc/*/mountinfo, mount namespaces,
/proc/*/fd scans, ps, /proc/swaps, loop devices' backing files, /sys holders and stat:
each parser takes the tool's text and returns what runners/target_guard.py judges.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass


# ------------------------------------------------------------------ tool output (pure)
@dataclass(frozen=True)
class Node:
    """One lsblk row: the device, or one of its partitions or holders."""

    name: str
    path: str
    majmin: str
    type: str
    fstype: str | None
    uuid: str | None
    pttype: str | None
    mountpoints: tuple[str, ...]
    depth: int


def parse_lsblk(text: str) -> list[Node]:
    """`lsblk -J -o NAME,PATH,MAJ:MIN,TYPE,PKNAME,FSTYPE,UUID,PTTYPE,MOUNTPOINTS DEV`,
    flattened: the device first, then its children (partitions, holders) depth first."""
    out: list[Node] = []

    def walk(items: list[dict], depth: int) -> None:
        for d in items:
            mounts = tuple(m for m in (d.get("mountpoints") or [d.get("mountpoint")]) if m)
            out.append(Node(d["name"], d.get("path") or f"/dev/{d['name']}", d.get("maj:min", ""),
                            d.get("type", ""), d.get("fstype"), d.get("uuid"), d.get("pttype"),
                            mounts, depth))
            walk(d.get("children", []), depth + 1)

    walk(json.loads(text)["blockdevices"], 0)
    return out


def parse_blkid(text: str) -> dict[str, str]:
    """`blkid -p -o export DEV`: KEY=value lines (nothing when no signature: exit 2)."""
    tags = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            tags[key.strip()] = value.strip()
    return tags


def parse_wipefs_json(text: str) -> list[dict[str, str]]:
    """`wipefs -n -J DEV` (util-linux >= 2.29); empty text: no signature."""
    if not text.strip():
        return []
    return [{k: v for k, v in s.items() if v is not None}
            for s in json.loads(text).get("signatures", [])]


def parse_wipefs_table(text: str) -> list[dict[str, str]]:
    """`wipefs -n DEV`, the table older util-linux prints: DEVICE OFFSET TYPE UUID LABEL."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines or not lines[0].startswith("DEVICE"):
        return []
    out = []
    for line in lines[1:]:
        cols = line.split()
        row = dict(zip(("device", "offset", "type", "uuid", "label"), cols))
        out.append(row)
    return out


@dataclass(frozen=True)
class Mount:
    majmin: str
    mountpoint: str
    source: str


def parse_mountinfo(text: str) -> list[Mount]:
    """/proc/PID/mountinfo lines, optionally prefixed `/proc/PID/mountinfo:` (grep -H)."""
    out = []
    for line in text.splitlines():
        if line.startswith("/proc/") and "/mountinfo:" in line:
            line = line.split("/mountinfo:", 1)[1]
        fields = line.split()
        if " - " not in line or len(fields) < 10:
            continue
        after = line.split(" - ", 1)[1].split()
        out.append(Mount(fields[2], _unescape(fields[4]), _unescape(after[1]) if len(after) > 1
                         else ""))
    return out


def _unescape(text: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text)


def parse_namespaces(text: str) -> list[str]:
    """`stat -L -c '%i %n' /proc/[0-9]*/ns/mnt`: one PID per mount namespace."""
    seen: dict[str, str] = {}
    for line in text.splitlines():
        inode, _, path = line.partition(" ")
        m = re.match(r"/proc/(\d+)/ns/mnt$", path.strip())
        if m and inode not in seen:
            seen[inode] = m.group(1)
    return list(seen.values())


def parse_fd_scan(text: str) -> list[tuple[int, str]]:
    """`stat -L -c '%t:%T %n'` of the block devices in /proc/*/fd: (pid, major:minor)."""
    out = []
    for line in text.splitlines():
        m = re.match(r"([0-9a-f]+):([0-9a-f]+) /proc/(\d+)/fd/\d+$", line.strip())
        if m:
            out.append((int(m.group(3)), f"{int(m.group(1), 16)}:{int(m.group(2), 16)}"))
    return out


def parse_ps(text: str) -> dict[int, str]:
    """`ps -o pid=,comm= -p PIDS`."""
    out = {}
    for line in text.splitlines():
        pid, _, comm = line.strip().partition(" ")
        if pid.isdigit():
            out[int(pid)] = comm.strip()
    return out


def parse_swaps(text: str) -> list[str]:
    return [ln.split()[0] for ln in text.splitlines()[1:] if ln.strip()]


def parse_backing(text: str) -> list[tuple[str, str]]:
    """`grep -H '' /sys/block/loop*/loop/backing_file`: (loop device, its backing file)."""
    out = []
    for line in text.splitlines():
        m = re.match(r"/sys/block/([^/]+)/loop/backing_file:(.*)$", line)
        if m:
            out.append((m.group(1), m.group(2).strip()))
    return out


def parse_holders(text: str) -> list[tuple[str, str]]:
    """`NAME HOLDER` lines from /sys/class/block/NAME/holders/."""
    return [(a, b) for a, _, b in (ln.strip().partition(" ") for ln in text.splitlines()) if b]


def parse_stat(text: str) -> tuple[str, str]:
    """`stat -L -c '%F|%t|%T' PATH`: (kind 'block'|'char'|'file'|..., 'major:minor')."""
    kind, _, rest = text.strip().partition("|")
    major, _, minor = rest.partition("|")
    short = {"block special file": "block", "character special file": "char",
             "directory": "directory"}.get(kind, "file")
    majmin = f"{int(major, 16)}:{int(minor, 16)}" if short in ("block", "char") else ""
    return short, majmin
