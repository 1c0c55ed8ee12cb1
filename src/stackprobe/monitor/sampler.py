"""HostMonitor: sysstat's own collector running on one host for the length of one step.

Why sadc and not a loop of our own reading /proc: stackprobe measures with the real tools
(docs/ARCHITECTURE.md), and sadc is the collector people already trust, with one binary
file format for CPU, memory, every block device and every NIC. It runs on the host taking
part in the step, started through that host's transport (local or SSH alike), and
afterwards `sadf -j` turns the file into JSON *on that host*, where device names resolve.

What sadc 12.6.1 does, seen with strace on the development machine:

- `sadc -S XALL 1 FILE` (no count) takes its first reading at once and writes it, then one
  every second (alarm(1), pause()), each record with plain write() calls right after the
  reading — no buffering, no fsync, nothing left to flush: what is in the file is all it
  will ever write.
- It handles SIGINT (exit status 1, at once) and leaves SIGTERM at its default (killed).
  Neither writes a last record: the part of the interval since the last reading is lost,
  whatever the signal. The transport's stop (SIGTERM by PID) is therefore enough.
- A stop that lands during the few hundred microseconds of writing leaves a cut record:
  sadf then prints the complete ones, exits 0 and says "End of system activity file
  unexpected" on stderr (kept, not a problem). Stopped inside the header (right after
  start), sadf prints a JSON document cut short and exits 2: a problem.
- An existing file of the same format is appended to, so a stale one is removed first
  (and the log, which the transport appends to).

Monitoring must never fail a step: start() and stop() never raise for a host or tool
problem; stop() returns what went wrong as one line in MonitorResult.problem, beside the
raw sadf output (kept unchanged) and the parsed series.

Call stop() after the transport's interrupt is cleared: an interrupted transport would
interrupt sadf too (LocalTransport interrupts every command it starts meanwhile).

A step of hours is monitored in segments (`segment_s`): every segment a new sadc starts on
a new file, the one before is stopped, turned into JSON by sadf and handed to
`on_segment(series, raw_json)` (engine/step_monitor.py folds it and keeps the raw output
compressed), then removed from the host. Neither the controller nor the host then holds a
whole day of seconds (docs/soak.md); what sadc read while the two overlap is read twice and
dropped once (monitor/stream_fold.py).
"""

from __future__ import annotations

import posixpath
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from stackprobe.parsers.host.sadf_json import MonitorSeries, parse_sadf_json
from stackprobe.spec.tools import Tool
from stackprobe.transport.base import Background, CommandResult, Transport

SADC = "/usr/lib/sysstat/sadc"  # Debian/Ubuntu; RHEL-like systems: /usr/lib64/sa/sadc
SADF = "sadf"
# sysstat: sadc samples every second, sadf turns its file into JSON
SYSSTAT = Tool(SADF, "sysstat", (SADF, "-V"), "per-second resource monitoring (sadc, sadf)")
DATA_FILE = "monitor.sa"
SEGMENT_FILE = "monitor-{:04d}.sa"  # a segmented monitor's files, one per segment
OVERLAP_MARGIN_S = 1.0  # the two sadc of a handover run together an interval and this long
LOG_FILE = "monitor.sadc.log"
SADF_OPTIONS = ("-u", "ALL", "-P", "ALL", "-r", "ALL", "-d", "-n", "DEV,EDEV")
SADF_TIMEOUT_S = 300.0
SHORT_TIMEOUT_S = 30.0


def sadc_argv(sadc: str, interval_s: int, datafile: str, count: int | None = None) -> list[str]:
    """sadc collecting everything (XALL: partitions too) every interval until stopped — or,
    with `count`, until it has taken that many readings: a controller killed outright
    (SIGKILL, a crash) cannot stop it, and sadc must not then sample forever."""
    return [sadc, "-S", "XALL", str(interval_s), *([str(count)] if count else []), datafile]


def sadf_argv(sadf: str, datafile: str) -> list[str]:
    """sadf printing the file as JSON: CPUs, memory, disks, NICs and their errors."""
    return [sadf, "-j", datafile, "--", *SADF_OPTIONS]


def first_line(text: str) -> str:
    """The first non-empty line of a tool's message (what a one-line problem quotes)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _why(exc: BaseException) -> str:
    return first_line(str(exc)) or type(exc).__name__


@dataclass
class MonitorResult:
    host: str
    raw_json: str = ""  # sadf's stdout, unchanged ("" when sadf did not run)
    series: MonitorSeries | None = None
    problem: str | None = None  # one line; None when monitoring worked
    sadf_stderr: str = ""
    sadc_log: str = ""  # sadc's own output; read only when it ended on its own
    sadc_pid: int | None = None
    datafile: str | None = None  # on the host; removed with the host's scratch directory
    commands: list[CommandResult] = field(default_factory=list)  # sadf (and cat of the log)
    segments: int = 0  # a segmented monitor's segments, each handed to on_segment


class HostMonitor:
    """Per-second resource sampling on one host during one step: start(), then stop()."""

    def __init__(self, *, sadc: str = SADC, sadf: str = SADF, interval_s: int = 1,
                 max_s: float | None = None, segment_s: float | None = None,
                 on_segment: Callable[[MonitorSeries, str], None] | None = None):
        self.sadc = sadc
        self.sadf = sadf
        self.interval_s = interval_s
        self.max_s = max_s  # sadc ends by itself after this long (None: only when stopped)
        self.segment_s = segment_s if on_segment is not None else None
        self.on_segment = on_segment
        self._transport: Transport | None = None
        self._bg: Background | None = None
        self._datafile: str | None = None
        self._dir: str | None = None
        self._log: str | None = None
        self._problem: str | None = None
        self._segments = 0
        self._segment_problems: list[str] = []
        self._stop = threading.Event()
        self._rotation: threading.Thread | None = None

    @property
    def pid(self) -> int | None:
        """sadc's PID on its host while started."""
        return self._bg.pid if self._bg is not None else None

    def start(self, transport: Transport, remote_dir: str) -> None:
        """Start sadc on the transport's host writing `<remote_dir>/monitor.sa` (remote_dir
        must exist there). Never raises for host problems: stop() reports them."""
        if self._bg is not None:
            raise RuntimeError("HostMonitor already started; stop() it first")
        self._transport = transport
        self._dir = remote_dir
        name = SEGMENT_FILE.format(1) if self.segment_s else DATA_FILE
        self._datafile = posixpath.join(remote_dir, name)
        self._log = posixpath.join(remote_dir, LOG_FILE)
        self._problem = None
        try:
            transport.run(["rm", "-f", "--", self._datafile, self._log], timeout=SHORT_TIMEOUT_S)
            self._bg = self._sadc(transport, self._datafile)
        except Exception as exc:  # monitoring must never fail a step
            self._problem = f"could not start sadc on {transport.host}: {_why(exc)}"
            return
        if self.segment_s:
            self._stop.clear()
            self._rotation = threading.Thread(target=self._rotate, name="sadc-segments",
                                              daemon=True)
            self._rotation.start()

    def _sadc(self, transport: Transport, datafile: str) -> Background:
        count = int(self.max_s // self.interval_s) + 1 if self.max_s else None
        return transport.start(sadc_argv(self.sadc, self.interval_s, datafile, count),
                               log=self._log)

    def _rotate(self) -> None:
        """Every segment: the next sadc on a new file, then the last one read and removed."""
        while not self._stop.wait(self.segment_s):
            transport = self._transport
            try:
                nxt = posixpath.join(self._dir or "", SEGMENT_FILE.format(self._segments + 2))
                bg = self._sadc(transport, nxt)
            except Exception as exc:
                self._segment_problems.append(f"could not start sadc's next segment: {_why(exc)}")
                continue  # the running sadc goes on; its file grows, still read at the end
            old_bg, old_file = self._bg, self._datafile
            self._bg, self._datafile = bg, nxt  # stop() joins this thread before reading them
            # the new sadc's first sample comes an interval after it started, later on a
            # busy host: stopped at once, the old one left that second in neither file (a
            # second lost at a handover, seen in make test); both read it now, kept once
            self._stop.wait(self.interval_s + OVERLAP_MARGIN_S)
            try:
                old_bg.stop(10.0)
            except Exception as exc:
                self._segment_problems.append(f"could not stop sadc (PID {old_bg.pid}): {_why(exc)}")
            self._segment(transport, old_file)

    def _segment(self, transport: Transport, datafile: str) -> None:
        """sadf on one segment's file, its series handed on, the file removed."""
        result = MonitorResult(host=transport.host)
        problems: list[str] = []
        self._run_sadf(transport, result, problems, datafile)  # its stdout: not kept here
        # a last segment cut within a second of the one before has no sample: nothing lost
        self._segment_problems += [p for p in problems if not p.startswith("no samples")]
        self._segments += 1
        if result.series is not None and self.on_segment is not None:
            try:
                self.on_segment(result.series, result.raw_json)
            except Exception as exc:  # the fold's trouble is a problem, not a crash
                self._segment_problems.append(f"segment {self._segments}: {_why(exc)}")
        try:
            transport.run(["rm", "-f", "--", datafile], timeout=SHORT_TIMEOUT_S)
        except Exception:
            pass  # the host's scratch directory goes with the step

    def stop(self, grace_s: float = 10.0) -> MonitorResult:
        """Stop sadc by its PID, run sadf there and parse it; problems come back as one
        line in the result, never as an exception. A segmented monitor hands its last
        segment to on_segment too; its result then carries no series of its own."""
        if self._rotation is not None:
            self._stop.set()
            self._rotation.join()
            self._rotation = None
        transport, bg = self._transport, self._bg
        self._bg = None
        host = transport.host if transport is not None else "?"
        result = MonitorResult(host=host, datafile=self._datafile)
        if transport is None or bg is None or self._datafile is None:
            result.problem = self._problem or "monitor was not started"
            return result
        result.sadc_pid = bg.pid
        problems: list[str] = []
        try:
            died = not bg.alive()
            status = bg.stop(grace_s)
        except Exception as exc:
            died, status = False, None
            problems.append(f"could not stop sadc (PID {bg.pid}) on {host}: {_why(exc)}")
        if died:
            result.sadc_log = self._read_log(transport, result)
            why = first_line(result.sadc_log) or "no message (its log is empty or missing)"
            code = f" (exit status {status})" if status is not None else ""
            problems.append(f"sadc ended before the step did{code}: {why}")
        if self.segment_s:
            self._segment(transport, self._datafile)
            result.segments = self._segments
            problems += list(dict.fromkeys(self._segment_problems))
        else:
            self._run_sadf(transport, result, problems, self._datafile)
        result.problem = "; ".join(problems) or None
        return result

    def _read_log(self, transport: Transport, result: MonitorResult) -> str:
        try:
            res = transport.run(["cat", "--", self._log or ""], timeout=SHORT_TIMEOUT_S)
        except Exception:
            return ""
        result.commands.append(res)
        return res.stdout

    def _run_sadf(self, transport: Transport, result: MonitorResult, problems: list[str],
                  datafile: str) -> None:
        try:
            res = transport.run(sadf_argv(self.sadf, datafile), env={"LC_ALL": "C"},
                                timeout=SADF_TIMEOUT_S)
        except Exception as exc:
            problems.append(f"could not run sadf on {transport.host}: {_why(exc)}")
            return
        result.commands.append(res)
        result.raw_json, result.sadf_stderr = res.stdout, res.stderr
        if res.returncode is None or res.timed_out or res.interrupted:
            state = "timed out" if res.timed_out else "interrupted" if res.interrupted else "did not start"
            why = first_line(res.stderr)
            problems.append(f"sadf {state}" + (f": {why}" if why else ""))
            return
        try:
            series = parse_sadf_json(res.stdout)
        except ValueError as exc:
            why = first_line(res.stderr)
            problems.append(f"sadf exit status {res.returncode}: {why}" if res.returncode and why
                            else str(exc))
            return
        if series.interval_s is None:
            series = series.model_copy(update={"interval_s": float(self.interval_s)})
        result.series = series
        if res.returncode != 0:
            problems.append(f"sadf exit status {res.returncode}: {first_line(res.stderr)}")
        elif not series.samples:
            problems.append("no samples: the step ended before sadc's second reading "
                            f"({self.interval_s} s after its first)")
