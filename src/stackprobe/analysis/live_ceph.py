"""Live figures of rados bench and rbd bench, from the per-second rows they print as they run.

rados bench prints one row a second: in text `sec Cur ops started finished avg MB/s cur MB/s
last lat(s) avg lat(s)`, with `--format json` (what stackprobe runs) one entry of the
`datas` array, which its status printer flushes every second. The interval's IOPS is the
change in `finished` over the change in `sec` (as parsers/ceph/rados_bench.py makes the
stored series), its bandwidth that times the op size the step asked for, and its mean
latency comes from the two running means (`avg lat`), left out when their rounding would
blur it. rados bench has no per-interval percentile: no p99 is shown.

rbd bench prints `SEC OPS OPS/SEC BYTES/SEC` rows; OPS/SEC and BYTES/SEC are averages over
the last rows, so the interval is the change in OPS over the change in SEC, times the
header's io_size. rbd bench prints no latency; a readwrite run is one figure for both
directions ('all').

Lines these cannot read are passed over: live figures are a view, never the result.
"""

from __future__ import annotations

import re

from stackprobe.analysis.live_figures import LiveFigures, finite
from stackprobe.parsers.ceph.rados_bench import ROW as RADOS_ROW
from stackprobe.parsers.ceph.rados_bench import TIMESTAMP, interval_lat_ns
from stackprobe.parsers.ceph.rbd_bench import HEADER as RBD_HEADER
from stackprobe.parsers.ceph.rbd_bench import ROW as RBD_ROW

_JSON_ROW = re.compile(
    r'\{"sec":"(\d+)","cur_ops":"-?\d+","started":"\d+","finished":"(\d+)"'
    r'[^{}]*?"avg_lat":"([^"]*)"\}'
)
_KEEP = 4096  # characters of an unfinished line kept while waiting for its end


class _Lines:
    """Complete lines out of text that arrives in pieces."""

    def __init__(self) -> None:
        self.rest = ""

    def feed(self, text: str) -> list[str]:
        self.rest += text
        cut = self.rest.rfind("\n")
        if cut < 0:
            self.rest = self.rest[-_KEEP:]
            return []
        lines, self.rest = self.rest[:cut].splitlines(), self.rest[cut + 1:]
        return lines


class RadosLive:
    """rados bench's stdout (text or --format json) -> each second's figures."""

    def __init__(self, host: str | None, direction: str, op_size: int):
        self.host = host
        self.direction = direction  # write, or read for seq and rand
        self.op_size = op_size
        self._buf = ""
        self._prev = (0, 0, "0")  # sec, finished, avg lat as printed

    def feed(self, text: str) -> list[list[LiveFigures]]:
        self._buf += text
        rows = []
        end = 0
        for m in _JSON_ROW.finditer(self._buf):
            rows.append((int(m[1]), int(m[2]), m[3]))
            end = m.end()
        cut = self._buf.rfind("\n") + 1
        for line in self._buf[:cut].splitlines():  # the rows the parser reads, as it reads them
            if m := RADOS_ROW.match(TIMESTAMP.sub("", line.strip(), count=1)):
                rows.append((int(m[1]), int(m[4]), m[5]))
        self._buf = self._buf[max(end, cut):][-_KEEP:]
        return [f for row in rows if (f := self._row(*row))]

    def _row(self, sec: int, finished: int, avg: str) -> list[LiveFigures]:
        try:
            return [f for f in self._figures(sec, finished, avg) if finite(f)]
        except (OverflowError, ValueError):  # numbers no rados bench prints
            return []

    def _figures(self, sec: int, finished: int, avg: str) -> list[LiveFigures]:
        prev_sec, prev_done, prev_avg = self._prev
        if sec <= prev_sec or finished < prev_done:
            if sec == 0:
                self._prev = (0, finished, avg)
            return []
        self._prev = (sec, finished, avg)
        iops = (finished - prev_done) / (sec - prev_sec)
        try:
            lat = interval_lat_ns(prev_avg, prev_done, avg, finished)
        except (ArithmeticError, ValueError):
            lat = None
        return [LiveFigures(self.host, self.direction, float(prev_sec), float(sec), iops,
                            iops * self.op_size, lat)]


class RbdLive:
    """rbd bench's stdout -> each row's interval figures (no latency: rbd bench has none)."""

    def __init__(self, host: str | None):
        self.host = host
        self._lines = _Lines()
        self._io_size: int | None = None
        self._direction = "all"
        self._prev = (0, 0)

    def feed(self, text: str) -> list[list[LiveFigures]]:
        out = []
        for line in self._lines.feed(text):  # the header and rows the parser reads
            line = line.strip()
            if m := RBD_HEADER.match(line):
                self._io_size = int(m["size"])
                self._direction = {"read": "read", "write": "write"}.get(m["type"] or "write", "all")
            elif (m := RBD_ROW.match(line)) and self._io_size is not None:
                try:
                    figures = self._row(int(m[1]), int(m[2]), self._io_size)
                except OverflowError:  # numbers no rbd bench prints
                    continue
                if figures is not None and finite(figures):
                    out.append([figures])
        return out

    def _row(self, sec: int, ops: int, io_size: int) -> LiveFigures | None:
        prev_sec, prev_ops = self._prev
        if sec <= prev_sec:
            return None
        self._prev = (sec, max(ops, prev_ops))
        iops = max(ops - prev_ops, 0) / (sec - prev_sec)
        return LiveFigures(self.host, self._direction, float(prev_sec), float(sec), iops,
                           iops * io_size)
