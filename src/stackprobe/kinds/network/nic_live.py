"""Live figures for the iperf3 steps: the sending NIC's byte counter, read every second on
the host while iperf3 runs (docs/live.md).

Why this way: iperf3 3.12 (Debian 12's) prints its JSON only at the end with `-J` and has
no `--json-stream`, so it gives nothing live; its own per-second intervals are in that JSON,
in the report afterwards. The run's monitor (sadc) writes a binary file read with sadf after
the step. What the kernel counts is there all along: /sys/class/net/NIC/statistics/
tx_bytes (rx_bytes for `reverse`, where the server sends). A small sh loop on the client
host prints `/proc/uptime` and the counter once a second for the length of the iperf3 run,
as a command of its own beside iperf3 (kept with the step's commands, like every command);
each pair of lines is an interval's rate, shown as 'h1: 3-4 s  NIC eth0 sent 117 MiB/s'.
It is the NIC's rate, not iperf3's: other traffic on that NIC counts too, which is why the
line names the NIC, and the result is still iperf3's JSON. Nothing runs with no display (`--quiet`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from stackprobe.analysis.live_figures import LiveFigures
from stackprobe.kinds.context import StepContext
from stackprobe.kinds.live import stdout_reader
from stackprobe.transport.fleet import HostHandle

T = TypeVar("T")

_LOOP = ('n=$1; f=/sys/class/net/$2/statistics/$3; i=0; '
         'while [ "$i" -le "$n" ]; do read t _ < /proc/uptime; read b < "$f"; echo "$t $b"; '
         'i=$((i + 1)); if [ "$i" -le "$n" ]; then sleep 1; fi; done')


def counter_argv(nic: str, seconds: int, received: bool) -> list[str]:
    """`seconds` + 1 samples, one a second: `<uptime s> <bytes>` per line. No pause after
    the last one: the loop ends with iperf3, and the pair after it does not wait a second."""
    return ["sh", "-c", _LOOP, "sh", str(seconds), nic,
            "rx_bytes" if received else "tx_bytes"]


class NicRateFeeder:
    """The counter loop's lines -> one LiveFigures per pair of samples. A line that is not
    two numbers is skipped (a view, never the result)."""

    def __init__(self, host: str | None, nic: str, received: bool):
        self.host = host
        self.label = f"NIC {nic} {'received' if received else 'sent'}"
        self._buffer = ""
        self._first: float | None = None
        self._last: tuple[float, int] | None = None

    def feed(self, text: str) -> list[list[LiveFigures]]:
        self._buffer += text
        *lines, self._buffer = self._buffer.split("\n")
        out = []
        for line in lines:
            try:
                t_text, b_text = line.split()
                t, b = float(t_text), int(b_text)
            except ValueError:
                continue
            if self._first is None:
                self._first = t
            if self._last is not None and t > self._last[0] and b >= self._last[1]:
                t0, b0 = self._last
                out.append([LiveFigures(host=self.host, direction=self.label,
                                        start_s=t0 - self._first, end_s=t - self._first,
                                        iops=None, bw_bytes=(b - b0) / (t - t0))])
            self._last = (t, b)
        return out


def watched(ctx: StepContext, handle: HostHandle, nic: str | None, seconds: int,
            received: bool, label: str, measure: Callable[[], T]) -> T:
    """measure(), with the NIC's counter streamed to the live display meanwhile (when there
    is a display and the NIC is known); the counter's command ends on its own."""
    if ctx.live is None or nic is None:
        return measure()
    reader = stdout_reader(ctx.live, NicRateFeeder(handle.name, nic, received))
    watcher = threading.Thread(
        target=ctx.execute, name=f"nic-{handle.name}",
        args=(f"{label}-nic-counter", counter_argv(nic, seconds, received)),
        kwargs={"on": handle.transport, "on_stdout": reader}, daemon=True)
    watcher.start()
    try:
        return measure()
    finally:
        watcher.join()
