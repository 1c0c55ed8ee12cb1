"""Where a DIMM slot sits (socket, channel, slot), read from dmidecode's slot names.

Why data and not code: SMBIOS leaves `Locator` and `Bank Locator` to the board vendor, so
each vendor names slots its own way: 'P1-DIMMA1' (Supermicro), 'CPU1_DIMM_A1' (Intel server
boards), 'DIMM_P0_A0' (Gigabyte), 'DIMM 0' in bank 'P0 CHANNEL A' (AMD reference BIOS),
bank 'P0_Node0_Channel0_Dimm0' (AMI firmware), 'A1'..'A12' (Dell PowerEdge), 'PROC 1 DIMM 1'
(HPE ProLiant). Each pattern below is one naming, with where it was seen; docs/hpc-node.md
lists the sources. A pattern is used for a board only when it reads every slot of it.

Named groups: `socket` (a number, or A-D for Dell), `node` and `channel` (a channel is
the pair), `slot`, or `index` (Dell and HPE number the slots of a socket in one run, and
the channel follows from the CPU's channel count: `by` says how). Sockets are counted from
the lowest number seen, whatever the board's first number is (CPU0 or CPU1).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LocatorPattern:
    name: str
    locator: str | None  # full match on Locator, or None: any locator
    bank: str | None  # full match on Bank Locator, or None: any bank locator
    seen_on: str  # boards it was seen on; sources in docs/hpc-node.md
    # how `index` gives the channel: 'modulo' (slot n of a socket is on channel
    # (n-1) mod channels, Dell), 'pairs' (slots 2k-1 and 2k share a channel, HPE)
    by: str | None = None


LOCATOR_PATTERNS: tuple[LocatorPattern, ...] = (
    LocatorPattern("Supermicro P1-DIMMA1",
                   r"P(?P<socket>\d)[-_]DIMM_?(?P<channel>[A-P])(?P<slot>\d)", None,
                   "Supermicro X10/X11/X12/X13 and H11/H12 boards; Gigabyte C621 'P1_DIMM_A1'"),
    LocatorPattern("CPU1_DIMM_A1", r"CPU(?P<socket>\d)[_ ]?DIMM[_ ]?(?P<channel>[A-P])(?P<slot>\d)",
                   None, "Intel S2600WF/S2600WT server boards, ASUS RS720A-E12, Inspur"),
    LocatorPattern("Gigabyte DIMM_P0_A0", r"DIMM_P(?P<socket>\d)_(?P<channel>[A-P])(?P<slot>\d)",
                   None, "Gigabyte MZ71/MZ72/R182 (EPYC)"),
    LocatorPattern("Inspur CPU0_C0D0", r"CPU(?P<socket>\d)_C(?P<channel>\d+)D(?P<slot>\d)",
                   None, "Inspur and Intel M70KLP (Ice Lake, Cooper Lake)"),
    LocatorPattern("CPU0 Channel0 DIMM0",
                   r"CPU(?P<socket>\d+) Channel(?P<channel>\d+) DIMM(?P<slot>\d+)", None,
                   "Amazon EC2 c6i.metal"),
    LocatorPattern("AMD bank P0 CHANNEL A", None, r"P(?P<socket>\d) CHANNEL (?P<channel>[A-P])",
                   "AMD EPYC boards: ASRock Rack ROME2D16-2T, ASUS RS720A-E12, HPE Cray XD665"),
    LocatorPattern("AMI bank P0_Node0_Channel0_Dimm0", None,
                   r"P(?P<socket>\d+)_Node(?P<node>\d+)_Channel(?P<channel>\d+)_Dimm(?P<slot>\d+)",
                   "AMI Aptio firmware on Supermicro, PSSC Labs, Joyent boards"),
    LocatorPattern("ChannelA-DIMM0",
                   r"(?:Controller(?P<node>\d)-)?Channel(?P<channel>[A-H])-DIMM(?P<slot>\d)", None,
                   "one-socket desktop boards (Intel Alder Lake and later)"),
    LocatorPattern("Dell A1", r"(?P<socket>[A-D])(?P<index>\d{1,2})", None,
                   "Dell PowerEdge R640, R740, R750, R7525, R7625", by="modulo"),
    LocatorPattern("HPE PROC 1 DIMM 1", r"PROC\s+(?P<socket>\d+)\s+DIMM\s+(?P<index>\d+)", None,
                   "HPE ProLiant Gen10 and Gen10 Plus (two slots per channel)", by="pairs"),
)
