"""Memory channels per socket and the DDR generation of CPU families, as data.

Why a table: dmidecode lists slots, not channels. How many channels a socket has (and so
what a fully populated socket could move) is a property of the CPU, and lscpu's model name
is what the inventory keeps of it. Each row matches that name (case-insensitive search;
Emerald Rapids parts print it in capitals) and says where its numbers come from; the
sources are listed in docs/hpc-node.md ("Expected memory bandwidth"). The first matching
row wins, so the narrower rows (Cascade Lake-AP, Cooper Lake) come before the wider ones.

A CPU that no row matches leaves the channel count unknown: the board's own slot names
may still give channels (analysis/dimm_locators.py), and nodes are still compared with
one another.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class CpuFamily:
    name: str
    pattern: str  # searched in lscpu's 'Model name', ignoring case
    channels: int  # memory channels per socket
    ddr: str  # the DDR generation its memory controllers drive
    source: str  # key of the source list in docs/hpc-node.md


_SCALABLE = r"xeon\(r\) (?:platinum|gold|silver|bronze)"

CPU_FAMILIES: tuple[CpuFamily, ...] = (
    CpuFamily("Intel Xeon Scalable 2nd gen AP (Cascade Lake-AP)",
              r"xeon\(r\) platinum 92\d\d", 12, "DDR4", "cascade-lake-ap"),
    CpuFamily("Intel Xeon Scalable 3rd gen (Cooper Lake)",
              r"xeon\(r\) (?:platinum|gold) [5-8]3\d\dh", 6, "DDR4", "perfspect"),
    CpuFamily("Intel Xeon Scalable 1st gen (Skylake-SP)",
              _SCALABLE + r" [3-8]1\d\d", 6, "DDR4", "perfspect"),
    CpuFamily("Intel Xeon Scalable 2nd gen (Cascade Lake-SP)",
              _SCALABLE + r" [3-8]2\d\d", 6, "DDR4", "microway-cascade-lake"),
    CpuFamily("Intel Xeon Scalable 3rd gen (Ice Lake-SP)",
              _SCALABLE + r" [4-8]3\d\d", 8, "DDR4", "wwt-xeon-4th-gen"),
    CpuFamily("Intel Xeon Scalable 4th gen (Sapphire Rapids)",
              r"xeon\(r\) (?:platinum|gold|silver|bronze|cpu max) [3-9]4\d\d", 8, "DDR5",
              "wwt-xeon-4th-gen"),
    CpuFamily("Intel Xeon Scalable 5th gen (Emerald Rapids)",
              _SCALABLE + r" [3-8]5\d\d", 8, "DDR5", "perfspect"),
    CpuFamily("Intel Xeon 6 6900 (Granite Rapids-AP, Sierra Forest-AP)",
              r"xeon\(r\) 69\d\d[pe]", 12, "DDR5", "xeon-6"),
    CpuFamily("Intel Xeon 6 6500/6700 (Granite Rapids-SP, Sierra Forest-SP)",
              r"xeon\(r\) 6[5-7]\d\d[pe]", 8, "DDR5", "xeon-6"),
    CpuFamily("Intel Xeon E5-1600/2600/4600 v3/v4 (Haswell-EP, Broadwell-EP)",
              r"xeon\(r\) cpu e5-[124]6\d\d[a-z]* v[34]", 4, "DDR4", "e5-v4"),
    CpuFamily("Intel Xeon E5-2400 v1/v2 (Sandy Bridge-EN, Ivy Bridge-EN)",
              r"xeon\(r\) cpu e5-24\d\d[a-z]*(?: 0| v2)? ", 3, "DDR3", "s2400bb"),
    CpuFamily("Intel Xeon E5-1600/2600/4600 v1/v2 (Sandy Bridge-EP, Ivy Bridge-EP)",
              r"xeon\(r\) cpu e5-[124]6\d\d[a-z]*(?: 0| v2)? ", 4, "DDR3", "e5-v2"),
    CpuFamily("AMD EPYC 7001/7002/7003 (Naples, Rome, Milan)",
              r"amd epyc 7[0-9a-z]{2}[123]", 8, "DDR4", "epyc-7003"),
    CpuFamily("AMD EPYC 9004/9005 (Genoa, Bergamo, Turin)",
              r"amd epyc 9[0-9a-z]{2}[45]", 12, "DDR5", "epyc-9004"),
)


def cpu_family(model: str | None) -> CpuFamily | None:
    """The row whose pattern lscpu's model name matches, or None."""
    if not model:
        return None
    text = " ".join(model.split()) + " "
    for family in CPU_FAMILIES:
        if re.search(family.pattern, text, re.IGNORECASE):
            return family
    return None
