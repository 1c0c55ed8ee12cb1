"""iperf3 `-J` output -> NetRecord.

What iperf3 really writes, and what this parser does about it:

- iperf3 exits 0 when it cannot connect, and when it is interrupted; the document then has
  an "error" key ("unable to connect to server: Connection refused", "interrupt - the
  client has terminated"). The record carries that message and no figures: an interrupted
  run still has end.sum_sent, but its sum_received is 0 because the server's results never
  came back, and a half-run is not a measurement.
- A terminal can put text before the document (a '^C' echoed by the shell on interrupt),
  so the first JSON object in the text is used, wherever it starts.
- TCP results are end.sum_sent / end.sum_received (retransmits on the sender side). UDP
  documents of 3.12 have them too; older UDP documents have only end.sum, used for both.
- With -R (reverse) the server sends: sum_sent is still the sending side's figure.
- Figures are bits/s, as iperf3 prints them and network people quote them.
"""

from __future__ import annotations

import json
from typing import Any

from stackprobe.parsers.bad_input import guard, raw_decode
from stackprobe.schema.records import NetRecord


def first_object(text: str, keys: tuple[str, ...]) -> dict[str, Any] | None:
    """The first JSON object in `text` holding one of `keys`, skipping whatever comes
    before it (ssh banners, a shell's lines)."""
    pos = text.find("{")
    while pos >= 0:
        try:
            doc, _end = raw_decode(text, pos)
        except json.JSONDecodeError:
            pos = text.find("{", pos + 1)
            continue
        if isinstance(doc, dict) and any(k in doc for k in keys):
            return doc
        pos = text.find("{", pos + 1)
    return None


def _document(text: str) -> dict[str, Any]:
    doc = first_object(text, ("start", "end", "error"))
    if doc is None:
        raise ValueError("no iperf3 JSON document (an object with 'start'/'end'/'error')")
    return doc


def _dict(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"iperf3 JSON: {where} is not an object")
    return value


def _number(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"iperf3 JSON: {where} is not a number: {value!r}")
    return float(value)


def _endpoints(start: dict[str, Any]) -> tuple[str | None, str | None]:
    """(client, server): the client's own address and its peer, else the name it dialled."""
    connected = start.get("connected")
    if isinstance(connected, list) and connected and isinstance(connected[0], dict):
        first = connected[0]
        return first.get("local_host"), first.get("remote_host")
    connecting = _dict(start.get("connecting_to"), "start.connecting_to")
    return None, connecting.get("host")


@guard("iperf3 JSON")
def parse_iperf3_json(text: str) -> NetRecord:
    """The NetRecord of one iperf3 client run (`iperf3 -c ... -J`)."""
    doc = _document(text)
    start = _dict(doc.get("start"), "start")
    end = _dict(doc.get("end"), "end")
    test = _dict(start.get("test_start"), "start.test_start")
    version = start.get("version")
    if isinstance(version, str) and version.startswith("iperf "):
        version = version[len("iperf ") :]
    client, server = _endpoints(start)
    streams = test.get("num_streams")
    reverse = test.get("reverse")
    base = dict(
        tool_version=version,
        client=client,
        server=server,
        protocol=test.get("protocol"),
        streams=int(streams) if isinstance(streams, (int, float)) else None,
        reverse=bool(reverse) if reverse is not None else None,
    )
    error = doc.get("error")
    if error is not None:
        return NetRecord(**base, error=str(error))

    sent = _dict(end.get("sum_sent"), "end.sum_sent")
    received = _dict(end.get("sum_received"), "end.sum_received")
    if not sent and not received:
        # UDP from iperf3 before sum_sent/sum_received were written for UDP.
        sent = received = _dict(end.get("sum"), "end.sum")
    if not sent and not received:
        raise ValueError("iperf3 JSON has neither an 'error' nor end.sum_sent/sum_received")
    retransmits = _number(sent.get("retransmits"), "end.sum_sent.retransmits")
    duration = _number(sent.get("seconds"), "end.sum_sent.seconds")
    if duration is None:
        duration = _number(test.get("duration"), "start.test_start.duration")
    return NetRecord(
        **base,
        duration_s=duration,
        sent_bps=_number(sent.get("bits_per_second"), "end.sum_sent.bits_per_second"),
        received_bps=_number(
            received.get("bits_per_second"), "end.sum_received.bits_per_second"
        ),
        retransmits=int(retransmits) if retransmits is not None else None,
    )
