"""NetPIPE's output (`NPopenmpi`, NetPIPE 3.7) -> MpiStreamRecord: the rows of one test.

What NetPIPE prints (its netpipe.c; Debian's netpipe-openmpi): on stdout each rank's
start-up lines (`Streaming in one direction only.`, `Using no perturbations`, `Sending
output to ...`, `0: host`), on stderr `Now starting the main loop` and the transmitter's
row per message size (the text read here is both, stdout first):

      0: 4194304 bytes     10 times -->  33476.60 Mbps in     955.89 usec

- the trial number, the message size in bytes, how many messages each timed trial sent,
  the throughput and the time: the best trial's time over its messages, so one message's
  share (in streaming mode the messages go one way, back to back, and only the last is
  answered). NetPIPE's 'Mbps' is 2^20 bits per second; it is kept in bytes/s (the time is
  rounded to 0.01 µs, too coarse for small messages), and a row whose rate and time
  disagree beyond that rounding is refused.
- Open MPI's own lines (a failed rank's box, the job map) are not NetPIPE's and are skipped.
- A last line without its newline is a fragment of a cut output: dropped, and the record
  marked `complete: False`.
"""

from __future__ import annotations

import re

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.schema.fabric_records import MpiStreamRecord, MpiStreamRow

_ROW = re.compile(r"^\s*(\d{1,6}):\s+(\d{1,12}) bytes\s+(\d{1,12}) times -->\s+(\S+) Mbps "
                  r"in\s+(\S+) usec\s*$")
_STREAMING = "Streaming in one direction only."
_DETECT = re.compile(r"^\s*\d{1,6}:\s+\d+ bytes\s+\d+ times -->\s+\S+ Mbps in\s+\S+ usec\s*$",
                     re.MULTILINE)
_ROUNDING_US = 0.006  # the time is printed to 0.01 µs; the rate to 6 or more digits


def looks_like_netpipe(text: str) -> bool:
    """A row as NetPIPE prints it."""
    return _DETECT.search(text) is not None


@guard("NetPIPE")
def parse_netpipe(text: str) -> list[MpiStreamRecord]:
    """The one test in `text` as a record; ValueError (one line, naming the line) when no
    row is found or a row is not what NetPIPE prints."""
    lines = text.split("\n")
    fragment = len(lines) - 1 if lines and lines[-1].strip() else None  # no newline after it
    rec = MpiStreamRecord(streaming=any(line.strip() == _STREAMING for line in lines))
    for number, raw in enumerate(lines, start=1):
        if number - 1 == fragment:
            rec.complete = False
            break
        m = _ROW.match(raw.rstrip("\r"))
        if m is not None:
            rec.rows.append(_row(m, rec, number))
    if not rec.rows:
        raise ValueError("NetPIPE: no 'N: SIZE bytes REPEATS times --> X Mbps in T usec' row found")
    return [rec]


def _row(m: re.Match, rec: MpiStreamRecord, number: int) -> MpiStreamRow:
    where = f"NetPIPE line {number}"
    size, repeats = int(m.group(2)), int(m.group(3))
    mbps = finite(m.group(4), f"{where}: Mbps")
    usec = finite(m.group(5), f"{where}: usec")
    if size <= 0 or repeats <= 0 or usec <= 0 or mbps <= 0:
        raise ValueError(f"{where}: a size, count, rate or time that is not above zero")
    if rec.rows and size < rec.rows[-1].size_bytes:
        raise ValueError(f"{where}: size {size} after {rec.rows[-1].size_bytes} (sizes grow)")
    bw = mbps * (1 << 20) / 8
    if abs(size / bw * 1e6 - usec) > _ROUNDING_US + 1e-3 * usec:
        raise ValueError(f"{where}: {m.group(4)} Mbps is not {size} bytes in {m.group(5)} usec")
    return MpiStreamRow(size_bytes=size, repeats=repeats, time_us=usec, bw_bytes=bw)
