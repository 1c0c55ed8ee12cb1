"""iperf3's text output (no -J) -> NetRecords: client and server, TCP and UDP, -P (the
[SUM] lines), -R. The same record iperf3 -J gives (iperf3_json.py), from what the text has.

What iperf3 3.x prints (tests/fixtures/recorded/iperf3), and what is read:

- A client's output opens with 'Connecting to host H, port P'; a server's with 'Server
  listening on P' and 'Accepted connection from A, port P' for each test it serves. Each
  stream's '[  5] local A port p connected to B port q' gives the endpoints: on a client
  local is the client, on a server the remote is.
- After the dashed line '- - - - ...' come the test's totals: a line per stream and, with
  more than one, a [SUM] line, each ending in 'sender' or 'receiver'. The [SUM] lines are
  the test's figures when present. Sender and receiver give sent_bps and received_bps;
  TCP's sender line its retransmits (the 'Retr' column); UDP's lines their jitter and
  lost datagrams, not kept (NetRecord has no field for them). A server's log holds a
  record per test, and so does a file of client runs appended one after another; a server
  prints only its own side's line when the client did not ask for the server's output.
- Rates are printed as 'N Kbits/sec' (also Mbits, Gbits, bits): decimal multiples, as
  iperf3 counts rates. 'Reverse mode' (-R) sets reverse. iperf3 before 3.7 heads the rate
  column 'Bandwidth', not 'Bitrate', and its servers print a 'sender' total of 0 bytes
  beside their 'receiver' one: the server did not send, so that line is no figure. Lines
  indented as a pasted log indents them are read the same.
- 'iperf3: error - ...' is a failed run: a record with the message and no figures, as
  the -J parser gives. A figure that is not a number is refused with its line.
"""

from __future__ import annotations

import re

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.schema.records import NetRecord

_CLIENT = re.compile(r"^\s*Connecting to host (\S+?),? port \d+", re.MULTILINE)
_SERVER = re.compile(r"^\s*Server listening on ", re.MULTILINE)
_HEADER = re.compile(r"^\s*\[ ID\] Interval\s+Transfer\s+(?:Bitrate|Bandwidth)", re.MULTILINE)
_CONNECTED = re.compile(r"^\s*\[\s*(\d+)\] local (\S+) port \d+ connected to (\S+) port \d+")
_TOTAL = re.compile(r"^\s*\[\s*(\d+|SUM)\]\s+([0-9.]+)-([0-9.]+)\s+sec\s+([0-9.]+)\s+\w?Bytes\s+"
                    r"([0-9.]+)\s+([KMGT]?)bits/sec\s*(.*?)\s*(sender|receiver)\s*$")
_ERROR = re.compile(r"^iperf3: error - (.*)$", re.MULTILINE)
_VERSION = re.compile(r"^iperf (3[\w.+-]*)", re.MULTILINE)
_RATE = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def looks_like_iperf3_text(text: str) -> bool:
    if _ERROR.search(text):
        return True
    return _HEADER.search(text) is not None and (
        _CLIENT.search(text) is not None or _SERVER.search(text) is not None)


class _Test:
    """What one test's lines said, until its totals make it a record."""

    def __init__(self) -> None:
        self.local: str | None = None
        self.remote: str | None = None
        self.streams: set[str] = set()
        self.totals: dict[tuple[str, str], tuple[float, float, str]] = {}
        self.udp = False  # its column header has 'Datagrams'
        self.reverse = False  # a client's 'Reverse mode' line


def _record(test: _Test, *, client_side: bool, version: str | None) -> NetRecord:
    pick = "SUM" if any(k[0] == "SUM" for k in test.totals) else None

    def total(side: str) -> tuple[float, float, str] | None:
        found = [v for (sid, s), v in test.totals.items() if s == side and (pick is None or sid == pick)]
        return found[0] if len(found) == 1 else None

    sent, received = total("sender"), total("receiver")
    if not client_side and sent and received and sent[1] == 0:
        sent = None  # an older server's placeholder: '0.00 Bytes  0.00 bits/sec  sender'
    protocol = "UDP" if test.udp else "TCP"
    retr = sent[2].split()[0] if sent and protocol == "TCP" and sent[2] else None
    client, server = (test.local, test.remote) if client_side else (test.remote, test.local)
    return NetRecord(tool_version=version, client=client, server=server, protocol=protocol,
                     streams=len(test.streams) or None, reverse=test.reverse,
                     duration_s=(sent or received)[0] if (sent or received) else None,
                     sent_bps=sent[1] if sent else None,
                     received_bps=received[1] if received else None,
                     retransmits=int(retr) if retr and retr.isdigit() and len(retr) < 18 else None)


@guard("iperf3 text output")
def parse_iperf3_text(text: str) -> list[NetRecord]:
    """One record per test in the text (a client's output has one)."""
    client_side = _CLIENT.search(text) is not None
    version = _VERSION.search(text)
    common = dict(client_side=client_side, version=version.group(1) if version else None)
    records: list[NetRecord] = []
    test = _Test()
    for no, line in enumerate(text.splitlines(), 1):
        line = line.rstrip()
        starts = line.lstrip().startswith(("Accepted connection from", "Connecting to host"))
        if starts and (test.totals or test.streams):
            if test.totals:
                records.append(_record(test, **common))
            test = _Test()
        elif line.lstrip().startswith("Reverse mode"):
            test.reverse = True
        elif _HEADER.match(line):
            test.udp = test.udp or "Datagrams" in line
        elif m := _CONNECTED.match(line):
            test.streams.add(m.group(1))
            test.local, test.remote = m.group(2), m.group(3)
        elif m := _TOTAL.match(line):
            sid, start, end, _amount, rate, prefix, middle, side = m.groups()
            seconds = finite(end, f"iperf3 line {no}: interval end") - \
                finite(start, f"iperf3 line {no}: interval start")
            bps = finite(rate, f"iperf3 line {no}: bitrate") * _RATE[prefix]
            test.totals[(sid, side)] = (seconds, bps, middle)
    if test.totals:
        records.append(_record(test, **common))
    if not records:
        error = _ERROR.search(text)
        if error:
            return [NetRecord(tool_version=common["version"], error=" ".join(error.group(1).split()),
                              server=_CLIENT.search(text).group(1) if client_side else None)]
        raise ValueError("iperf3 output without its totals (the 'sender'/'receiver' lines)")
    return records
