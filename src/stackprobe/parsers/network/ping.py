"""iputils `ping` summary -> PingRecord (loss, round-trip times in nanoseconds).

Only the two summary lines are read, so `-q` output and full output parse alike:

    5 packets transmitted, 5 received, 0% packet loss, time 815ms
    rtt min/avg/max/mdev = 0.018/0.037/0.045/0.009 ms

What iputils (20221126) writes, and what this parser does about it:

- ICMP errors that came back instead of replies ('Destination Host Unreachable') are
  counted as ', +K errors' after 'received' (also '+K duplicates', '+K corrupted'); the loss
  is printed with %g ('33.3333%').
- The rtt line is printed only when a reply arrived. 100% loss is still a measurement of
  the path - nothing came back - so it is a record with loss_pct 100, no rtt and the
  error 'no reply', not an exception.
- A refused command prints only its own message ('ping: invalid argument: ...'); that
  line is the ValueError's message.
- The output names no version; tool_version stays None.
- With -w (a deadline) and -c, ping keeps sending until `count` replies came back or the
  deadline passed: on a lossy path `transmitted` can exceed the count asked for.
"""

from __future__ import annotations

import math
import re

from stackprobe.parsers.bad_input import guard
from stackprobe.schema.records import PingRecord

_STATS = re.compile(
    r"^(\d+) packets transmitted, (\d+) received((?:, \+\d+ \w+)*)"
    r"(?:, ([0-9.]+)% packet loss)?",
    re.MULTILINE,
)
_EXTRA = re.compile(r"\+(\d+) (\w+)")
_RTT = re.compile(
    r"^(?:rtt|round-trip) min/avg/max/mdev = ([0-9.]+)/([0-9.]+)/([0-9.]+)/([0-9.]+) ms",
    re.MULTILINE,
)
_TARGET = re.compile(r"^--- (\S+) ping statistics ---", re.MULTILINE)
_PING_MESSAGE = re.compile(r"^ping: [^\r\n]*", re.MULTILINE)  # a '\r' would rewrite the line
NS_PER_MS = 1_000_000


@guard("ping output")
def parse_ping(text: str, *, client: str | None = None, server: str | None = None) -> PingRecord:
    """The PingRecord of one `ping -c N ...` run.

    `server` defaults to the address in ping's '--- ADDRESS ping statistics ---' line.
    Raises ValueError when the text has no statistics line.
    """
    stats = _STATS.search(text)
    if not stats:
        message = _PING_MESSAGE.search(text)
        if message:
            raise ValueError(message.group(0).strip())
        raise ValueError("no 'packets transmitted' line: not ping output")
    transmitted, received = int(stats.group(1)), int(stats.group(2))
    extras = {name: int(n) for n, name in _EXTRA.findall(stats.group(3))}
    if stats.group(4) is not None:
        loss = float(stats.group(4))
    else:  # iputils leaves the loss out when nothing was sent
        loss = 100.0 if transmitted == 0 else 100.0 * (transmitted - received) / transmitted
    rtt = _RTT.search(text)
    rtt_ns = {}
    if rtt and received > 0:
        for key, value in zip(("min", "avg", "max", "mdev"), rtt.groups()):
            rtt_ns[key] = float(round(float(value) * NS_PER_MS))
    target = _TARGET.search(text)
    return PingRecord(
        client=client,
        server=server if server is not None else (target.group(1) if target else None),
        transmitted=transmitted,
        received=received,
        errors=extras.get("errors", 0),
        loss_pct=loss,
        rtt_ns=rtt_ns,
        error=("no packet sent" if transmitted == 0 else "no reply") if received == 0 else None,
    )


def ping_argv(address: str, count: int = 5, interval_s: float = 0.2) -> list[str]:
    """`ping -c COUNT -i INTERVAL -q -n -w DEADLINE ADDRESS`: quiet, numeric, bounded.

    -w caps the whole run at count x interval + 2 s (whole seconds, rounded up), so a
    host that never answers cannot hold the step; replies within it are all counted.
    """
    if count < 1:
        raise ValueError(f"ping count must be at least 1, not {count}")
    if not interval_s > 0:
        raise ValueError(f"ping interval must be positive, not {interval_s}")
    if not address or address.startswith("-"):
        raise ValueError(f"not an address to ping: {address!r}")
    deadline = math.ceil(round(count * interval_s + 2, 6))
    return ["ping", "-c", str(count), "-i", str(interval_s), "-q", "-n",
            "-w", str(deadline), address]
