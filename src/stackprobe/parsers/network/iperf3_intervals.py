"""iperf3 `-J` output -> its per-second series (SeriesPoint, bytes/s), for long soaks.

iperf3 3.12 has no --json-stream: a soak runs it in chunks (`-t <chunk>`), and each chunk's
document holds its intervals. What this parser does with them:

- The receiver's intervals when the document has them: a client run with
  `--get-server-output` against a server started with `-J` carries the server's whole
  document under `server_output_json`. What the receiver got each second is what the path
  delivered; the sender's seconds count bytes handed to its socket, which swing with the
  send buffer even when the link's rate is steady. Else the client's own intervals. The
  receiver's last interval is left out: it also holds what was still queued on the path
  when the sender stopped (a shaped link's backlog arrives then), not that second's rate.
- `intervals[].sum` is the interval's total over the streams; `end` its end in seconds
  since the chunk's start, `bits_per_second` its rate (bits, as iperf3 counts; the point
  holds bytes/s like every series of the project).
- Intervals iperf3 marks `omitted` (-O, the warm-up it leaves out of its sums) are left out
  here too; so is an interval shorter than half a second (iperf3 closes a test with a
  fraction of a second whose rate says little). The first interval right after the
  omitted ones is left out when its end is not after its start: iperf3 resets its clock
  when the omitted seconds end, and that one interval's start is taken before the reset
  (seen from a server run with -O: zero-length, 1.00004-1.00004 s, or ending 6 ms before
  it starts with `seconds` 2.006, 1.005925-1.000241 s). Anywhere else such times are an
  error.
- A document with an "error" key still has the intervals run before it (an interrupted
  chunk): they are returned; whether to keep them is the caller's choice.
- Times must rise interval by interval; `offset_s` shifts them (the chunk's start in the
  soak).
"""

from __future__ import annotations

from typing import Any

from stackprobe.parsers.bad_input import guard
from stackprobe.parsers.network.iperf3_json import first_object
from stackprobe.schema.records import SeriesPoint

MIN_INTERVAL_S = 0.5
CLOCK_SLACK_S = 0.001  # a zero-length interval may end a hair before it starts


def _document(text: str) -> dict[str, Any]:
    doc = first_object(text, ("intervals",))
    if doc is None:
        raise ValueError("iperf3 intervals: no iperf3 JSON document with 'intervals'")
    return doc


def _num(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"iperf3 intervals: {where} is not a number: {str(value)[:40]!r}")
    return float(value)


@guard("iperf3 intervals")
def parse_iperf3_intervals(text: str, offset_s: float = 0.0) -> list[SeriesPoint]:
    """The chunk's seconds, each ending at `offset_s` + its end."""
    doc = _document(text)
    server = doc.get("server_output_json")
    receiver = isinstance(server, dict) and "intervals" in server
    if receiver:
        doc = server
    intervals = doc["intervals"]
    if not isinstance(intervals, list):
        raise ValueError("iperf3 intervals: 'intervals' is not a list")
    points: list[SeriesPoint] = []
    last = None
    after_omitted = False  # the interval before this one was an omitted one
    for i, item in enumerate(intervals):
        where = f"intervals[{i}].sum"
        total = item.get("sum") if isinstance(item, dict) else None
        if not isinstance(total, dict):
            raise ValueError(f"iperf3 intervals: {where} is not an object")
        if total.get("omitted") is True:
            after_omitted = True
            continue
        first_after_omitted, after_omitted = after_omitted, False
        start = _num(total.get("start"), f"{where}.start")
        end = _num(total.get("end"), f"{where}.end")
        bps = _num(total.get("bits_per_second"), f"{where}.bits_per_second")
        if first_after_omitted and end <= start and bps >= 0:
            continue
        if bps < 0 or end < start - CLOCK_SLACK_S:
            raise ValueError(f"iperf3 intervals: {where}: times or rate out of order "
                             f"({start:g}-{end:g} s, {bps:g} bit/s)")
        if end - start < MIN_INTERVAL_S:
            continue
        if last is not None and end <= last:
            raise ValueError(f"iperf3 intervals: {where}: ends at {end:g} s, not after the "
                             f"interval before it ({last:g} s)")
        last = end
        points.append(SeriesPoint(t_s=offset_s + end, bw_bytes=bps / 8))
    return points[:-1] if receiver else points
