"""Kernel-log records (/dev/kmsg, or `dmesg --raw` where /dev/kmsg cannot be read) -> the
lines that say something failed.

/dev/kmsg gives one record per line, `pri,seq,usec,flags[,...];text` (pri = facility * 8 +
level; the kernel's Documentation/ABI/testing/dev-kmsg), followed by continuation lines
that start with a space (` SUBSYSTEM=pci`: the record's dictionary, skipped here).
`dmesg --raw` gives `<pri>[ seconds.micros] text` without a sequence number.

A line is an error when its level is err or worse (<= 3), or when its text matches one
of PATTERNS: drivers print real hardware trouble at warning or info level too (a NIC's
'Link is Down', an NVMe command timeout), and a user-space line written to /dev/kmsg has
whatever level its writer gave it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackprobe.parsers.bad_input import guard

ERR_LEVEL = 3
_MAX = 2**63

# (name, pattern, why it means hardware trouble); matched case-blind on the record's text
PATTERNS: tuple[tuple[str, str, str], ...] = (
    ("I/O error", r"\bI/O error\b", "the block layer failed a request to a device"),
    ("blk_update_request", r"blk_update_request", "older kernels' form of a failed request"),
    ("critical medium error", r"critical medium error", "SCSI sense: the medium cannot be read"),
    ("machine check", r"\bmachine check\b|\bmce:|\[Hardware Error\]",
     "the CPU reported a hardware error (MCE), often memory or cache"),
    ("hardware error", r"\bHardware Error\b", "firmware-first (APEI/GHES) error reports"),
    ("EDAC", r"\bEDAC\b.*\b(CE|UE|error)", "the memory controller counted a memory error"),
    ("link down", r"\blink is down\b|\blink down\b|\bNIC Link is Down\b",
     "a NIC or port lost its link (cable, switch, optics)"),
    ("tx timeout", r"transmit (queue \d+ )?timed out|tx timeout|NETDEV WATCHDOG",
     "a NIC stopped sending: the driver reset it"),
    ("nvme timeout", r"\bnvme\d*\b.*\btimeout\b|\bnvme\b.*I/O \d+ QID \d+ timeout",
     "an NVMe command did not complete in time (controller reset follows)"),
    ("ata error", r"\bata\d+(\.\d+)?: (exception|failed command|hard resetting link)",
     "a SATA link or command failed"),
)
_COMPILED = tuple((name, re.compile(p, re.IGNORECASE)) for name, p, _ in PATTERNS)

_DMESG = re.compile(r"^<(\d+)>\[\s*(\d+)\.(\d+)\]\s?(.*)$")


@dataclass(frozen=True)
class KmsgLine:
    seq: int | None
    usec: int
    level: int
    facility: int
    text: str


def why_error(level: int, text: str) -> str | None:
    """'level err' (or crit, alert, emerg) or the matching pattern's name; None: not an error."""
    for name, pattern in _COMPILED:
        if pattern.search(text):
            return name
    if level <= ERR_LEVEL:
        return "level " + ("emerg", "alert", "crit", "err")[level]
    return None


def _count(text: str, what: str, number: int) -> int:
    if not text.isdigit() or int(text) >= _MAX:
        raise ValueError(f"kmsg line {number}: {what} {text[:20]!r} is not a count")
    return int(text)


def _kmsg(line: str, number: int) -> KmsgLine:
    head, sep, text = line.partition(";")
    fields = head.split(",")
    if not sep or len(fields) < 4:
        raise ValueError(f"kmsg line {number}: not 'pri,seq,usec,flags;text': {line[:60]!r}")
    pri = _count(fields[0], "priority", number)
    return KmsgLine(_count(fields[1], "sequence", number), _count(fields[2], "usec", number),
                    pri & 7, pri >> 3, text)


def _dmesg(line: str, number: int) -> KmsgLine:
    m = _DMESG.match(line)
    if not m:
        raise ValueError(f"dmesg line {number}: not '<pri>[seconds] text': {line[:60]!r}")
    pri = _count(m.group(1), "priority", number)
    usec = _count(m.group(2), "seconds", number) * 1_000_000 + int(m.group(3).ljust(6, "0")[:6])
    return KmsgLine(None, usec, pri & 7, pri >> 3, m.group(4))


@guard("kmsg")
def parse_kmsg(text: str, source: str = "kmsg") -> list[KmsgLine]:
    """Every record of a /dev/kmsg read (`source` 'kmsg') or `dmesg --raw` ('dmesg')."""
    if source not in ("kmsg", "dmesg"):
        raise ValueError(f"kmsg: unknown source {source!r}")
    read = _kmsg if source == "kmsg" else _dmesg
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith(" "):
            continue  # a record's dictionary line (' SUBSYSTEM=...')
        out.append(read(line, number))
    return out
