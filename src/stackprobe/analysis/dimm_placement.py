"""Slots placed on sockets and channels by the first locator pattern that reads them all.

Why all: a pattern that reads some slots of a board and not others would place the rest
nowhere, and an empty channel 'found' that way would send someone to open a server for
nothing. So a board is either recognised whole, or not at all (then nodes are compared by
their slot and DIMM counts only). A pattern is refused too when it finds more channels on
a socket than the CPU family has (analysis/memory_channels.py), or two slots in one place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from stackprobe.analysis.dimm_locators import LOCATOR_PATTERNS, LocatorPattern


@dataclass
class Placed:
    """One slot's place: socket 0.., channel key within the socket, slot within channel."""

    socket: int
    channel: tuple[int, int | str]  # (node, channel) as the pattern read them
    slot: int | None


@dataclass
class Channel:
    socket: int  # 1-based, as sentences name it
    label: str  # 'A'.., the board's letter or the channel's position in its socket
    slots: list[dict[str, Any]]  # the slot dicts of InventoryRecord.dmi_memory, in order


def _number(text: str | None) -> int | str:
    if text is None:
        return 0
    return int(text) if text.isdigit() else text


def _socket(text: str | None) -> int:
    if text is None:
        return 0
    return int(text) if text.isdigit() else ord(text.upper()) - ord("A")


def _read(pattern: LocatorPattern, slot: dict[str, Any]) -> dict[str, str] | None:
    groups: dict[str, str] = {}
    for regex, value in ((pattern.locator, slot.get("locator")), (pattern.bank,
                                                                  slot.get("bank_locator"))):
        if regex is None:
            continue
        m = re.fullmatch(regex, value or "")
        if m is None:
            return None
        groups.update({k: v for k, v in m.groupdict().items() if v is not None})
    return groups


def _by_index(pattern: LocatorPattern, socket: int, index: int, per_socket: int,
              channels: int | None) -> Placed | None:
    """Dell: slot n of a socket is on channel (n-1) mod channels; HPE: two slots a channel."""
    if channels is None or index < 1 or index > 3 * channels:
        return None
    if pattern.by == "modulo":
        return Placed(socket, (0, (index - 1) % channels), (index - 1) // channels)
    if pattern.by == "pairs" and per_socket == 2 * channels:
        return Placed(socket, (0, (index - 1) // 2), (index - 1) % 2)
    return None


def _try(pattern: LocatorPattern, slots: Sequence[dict[str, Any]],
         channels: int | None) -> list[Placed] | None:
    read = [_read(pattern, s) for s in slots]
    if not slots or any(g is None for g in read):
        return None
    groups = [g for g in read if g is not None]
    raw = [_socket(g.get("socket")) for g in groups]
    sockets = [r - min(raw) for r in raw]
    placed: list[Placed] = []
    for socket, g in zip(sockets, groups, strict=True):
        if "index" in g:
            where = _by_index(pattern, socket, int(g["index"]), sockets.count(socket), channels)
            if where is None:
                return None
            placed.append(where)
        else:
            channel = (int(g.get("node", 0)), _number(g.get("channel")))
            placed.append(Placed(socket, channel, int(g["slot"]) if "slot" in g else None))
    return placed if _plausible(placed, channels) else None


def _plausible(placed: list[Placed], channels: int | None) -> bool:
    seen = set()
    for p in placed:
        if p.slot is not None and (p.socket, p.channel, p.slot) in seen:
            return False
        seen.add((p.socket, p.channel, p.slot))
    per_socket: dict[int, set] = {}
    for p in placed:
        per_socket.setdefault(p.socket, set()).add(p.channel)
    return channels is None or all(len(c) <= channels for c in per_socket.values())


def _label(key: tuple[int, int | str], position: int) -> str:
    channel = key[1]
    if isinstance(channel, str) and key[0] == 0:
        return channel
    return chr(ord("A") + position) if position < 26 else str(position + 1)


def place(slots: Sequence[dict[str, Any]], channels: int | None
          ) -> tuple[str, list[Channel]] | None:
    """(pattern name, channels in socket order) for the first pattern that reads every
    slot; None when none does. `channels`: the CPU family's channels per socket, if known."""
    for pattern in LOCATOR_PATTERNS:
        placed = _try(pattern, slots, channels)
        if placed is None:
            continue
        out: list[Channel] = []
        for socket in sorted({p.socket for p in placed}):
            keys = sorted({p.channel for p in placed if p.socket == socket},
                          key=lambda k: (k[0], str(k[1]).zfill(4)))
            for position, key in enumerate(keys):
                members = [s for s, p in zip(slots, placed, strict=True)
                           if p.socket == socket and p.channel == key]
                out.append(Channel(socket + 1, _label(key, position), members))
        return pattern.name, out
    return None
