"""A run's commands recorded on real hosts, and replayed to as many hosts as wanted.

What one controller can drive is found by giving it more hosts than the lab can make (the
lab stops at 64 namespaces; a cluster has hundreds to thousands of clients). The product's
whole path still runs — planner, executor, runners, parsers, analysis, report — but each
host's transport is a `ReplayTransport`: it answers a command with what the same command
printed on a real lab host, after as long as it took there. Its answers come from a
`Recording` made by `RecordingTransport`, which wraps real transports during a real run.

A command is matched by its argv with what differs between hosts and runs written out:
lab addresses (10.99.0.x) and replay addresses (127.x.y.z) as `{addr}`, host names
(`h12`) as `{host}`, the run id as `{run}`, the directory the run was made in as `{root}`.
Several recordings of one command are handed out host by host (replayed host i answers
as recorded host i modulo their number), and a command one host asked several times (is
the port free yet, is the server listening yet) is answered in the order the recorded host
got its answers, the last one repeated once they run out. The replayed output gets the
replaying host's own address where the recorded host's stood (`ip addr` says which NIC
holds it). A command no recording answers fails with exit status 127 and says so: the
replay never invents an output. Commands whose argv grows with the number of hosts (fio's
`--client` list) are answered by a `Responder` the caller gives, which builds the answer
from the recorded one.

Which transport a run's hosts use is chosen by whoever opens the fleet (`Fleet(through=)`,
`launch(host_transport=)`); the product itself always reaches hosts over SSH.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from stackprobe.transport.base import CommandResult, Transport

ADDRESS_RE = re.compile(r"\b(?:10\.99\.0\.\d{1,3}|127\.\d{1,3}\.\d{1,3}\.\d{1,3})\b")
HOST_RE = re.compile(r"\bh\d+\b")
RUN_ID_RE = re.compile(r"\b\d{8}T\d{6}Z-[A-Za-z0-9_.-]+?(?=-h\d+\b|/|$|\s|\")")
NOT_RECORDED = 127


@dataclass
class Exchange:
    """One command as it went on a real host: what was asked, answered, and how long."""

    host: str  # the recording host's name
    address: str  # its address (replaced by the replaying host's in the output)
    key: str  # the argv (and working directory) with host, address, run id and root written out
    returncode: int | None
    stdout: str
    stderr: str
    duration_s: float
    kind: str = "run"  # run | start (a background command) | stop (stopping one)


def normalise(text: str, root: str | None = None) -> str:
    """`text` with what differs between hosts and runs written out as placeholders."""
    if root:
        text = text.replace(root, "{root}")
    text = RUN_ID_RE.sub("{run}", text)
    text = ADDRESS_RE.sub("{addr}", text)
    return HOST_RE.sub("{host}", text)


def command_key(argv: Iterable[str], cwd: str | None = None, root: str | None = None) -> str:
    key = " ".join(normalise(a, root) for a in argv)
    return key if cwd is None else f"{key} @ {normalise(cwd, root)}"


class Recording:
    """Exchanges by key, in the order they were recorded; saved as JSON lines."""

    def __init__(self, root: str | None = None, exchanges: Iterable[Exchange] = ()):
        self.root = root  # the directory the recorded run was made in
        self._lock = threading.Lock()
        self.exchanges: list[Exchange] = []
        self._by_key: dict[tuple[str, str], list[Exchange]] = {}
        # per command: each recorded host's answers, hosts in the order they first asked
        self._by_host: dict[tuple[str, str], list[list[Exchange]]] = {}
        for e in exchanges:
            self.add(e)

    def add(self, e: Exchange) -> None:
        with self._lock:
            self.exchanges.append(e)
            self._by_key.setdefault((e.kind, e.key), []).append(e)
            self._by_host.pop((e.kind, e.key), None)

    def answers_of(self, kind: str, key: str, index: int) -> list[Exchange]:
        """The recordings of one command as the `index`-th of the hosts that ran it got them
        (hosts in the order they first ran it), in order."""
        with self._lock:
            per_host = self._by_host.get((kind, key))
            if per_host is None:
                grouped: dict[str, list[Exchange]] = {}
                for e in self._by_key.get((kind, key), []):
                    grouped.setdefault(e.host, []).append(e)
                per_host = self._by_host[(kind, key)] = list(grouped.values())
        return per_host[index % len(per_host)] if per_host else []

    def save(self, path: Path) -> None:
        with self._lock, open(path, "w", encoding="utf-8") as f:
            for e in self.exchanges:
                f.write(json.dumps(asdict(e), ensure_ascii=False) + "\n")

    @classmethod
    def load(cls, path: Path) -> Recording:
        """ValueError naming the file and line of a line that is not an exchange."""
        rec = cls()
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    rec.add(Exchange(**json.loads(line)))
                except (ValueError, TypeError) as exc:
                    raise ValueError(f"{path}:{n}: not a recorded exchange ({exc})") from None
        return rec


# ---------------------------------------------------------------------- recording
class RecordingTransport:
    """A real transport whose every command is also written to a Recording."""

    def __init__(self, inner: Transport, address: str, recording: Recording):
        self.inner = inner
        self.host = inner.host
        self.address = address
        self.recording = recording

    def _keep(self, kind: str, argv, cwd, res_or_none, duration: float,
              returncode=None, stdout: str = "", stderr: str = "") -> None:
        if res_or_none is not None:
            returncode, stdout, stderr = res_or_none.returncode, res_or_none.stdout, res_or_none.stderr
        self.recording.add(Exchange(
            self.host, self.address, command_key(argv, cwd, self.recording.root), returncode,
            stdout, stderr, round(duration, 4), kind))

    def run(self, argv, *, cwd=None, env=None, timeout=None, on_stdout=None) -> CommandResult:
        t0 = time.monotonic()
        res = self.inner.run(argv, cwd=cwd, env=env, timeout=timeout, on_stdout=on_stdout)
        self._keep("run", argv, cwd, res, time.monotonic() - t0)
        return res

    def start(self, argv, *, log, cwd=None, env=None):
        t0 = time.monotonic()
        bg = self.inner.start(argv, log=log, cwd=cwd, env=env)
        self._keep("start", argv, cwd, None, time.monotonic() - t0, returncode=0)
        return _RecordedBackground(self, bg, argv, cwd)

    def interrupt(self) -> None:
        self.inner.interrupt()

    def clear_interrupt(self) -> None:
        self.inner.clear_interrupt()

    def kill(self) -> None:
        self.inner.kill()


class _RecordedBackground:
    def __init__(self, t: RecordingTransport, bg, argv, cwd):
        self._t, self._bg, self._cwd = t, bg, cwd
        self.pid, self.argv = bg.pid, list(argv)

    def alive(self) -> bool:
        return self._bg.alive()

    def stop(self, grace_s: float = 10.0) -> int | None:
        t0 = time.monotonic()
        status = self._bg.stop(grace_s)
        self._t._keep("stop", self.argv, self._cwd, None, time.monotonic() - t0, returncode=status)
        return status


# ---------------------------------------------------------------------- replay
# (argv, cwd, recording, host address) -> (returncode, stdout, stderr, delay_s), or None
Responder = Callable[[list[str], str | None, Recording, str], tuple[int, str, str, float] | None]


class ReplayTransport:
    """Answers each command with a recorded real one after its recorded duration."""

    def __init__(self, host: str, address: str, recording: Recording, *, index: int = 0,
                 root: str | None = None, responders: Iterable[Responder] = (),
                 time_scale: float = 1.0, slots: threading.Semaphore | None = None):
        self.host = host
        self.address = address
        self.recording = recording
        self.index = index  # which of several recordings of a command this host gets
        self.root = root  # the directory this run is made in ({root} in the recording)
        self.responders = list(responders)
        self.time_scale = time_scale
        # the commands in flight the SSH transport allows over all hosts (ssh.py's
        # COMMANDS_IN_FLIGHT), shared by every replayed host: a wait for a slot is replayed too
        self.slots = slots
        self.unanswered: list[str] = []  # keys no recording had
        self._asked: dict[tuple[str, str], int] = {}  # times each command was answered
        self._asked_lock = threading.Lock()
        self._stop = threading.Event()
        self._pids = iter(range(10_000 + index * 100, 10_000 + index * 100 + 100_000))

    def _answer(self, kind: str, argv, cwd) -> tuple[int | None, str, str, float]:
        for respond in self.responders:
            found = respond(list(argv), cwd, self.recording, self.address)
            if found is not None:
                return found
        key = command_key(argv, cwd, self.root)
        answers = self.recording.answers_of(kind, key, self.index)
        if not answers:
            self.unanswered.append(key)
            return NOT_RECORDED, "", f"replay {self.host}: no recording of: {key}\n", 0.0
        with self._asked_lock:
            n = self._asked.get((kind, key), 0)
            self._asked[(kind, key)] = n + 1
        e = answers[min(n, len(answers) - 1)]
        fill = (lambda s: s.replace(e.address, self.address)) if e.address else (lambda s: s)
        return e.returncode, fill(e.stdout), fill(e.stderr), e.duration_s

    def _wait(self, delay: float) -> bool:
        """Sleep as long as the real command took; True when interrupted meanwhile."""
        return self._stop.wait(delay * self.time_scale)

    def run(self, argv, *, cwd=None, env=None, timeout=None, on_stdout=None) -> CommandResult:
        started = time.time()
        rc, out, err, delay = self._answer("run", argv, cwd)
        timed_out = timeout is not None and delay > timeout
        if self.slots is not None:
            with self.slots:
                interrupted = self._wait(min(delay, timeout) if timeout is not None else delay)
        else:
            interrupted = self._wait(min(delay, timeout) if timeout is not None else delay)
        if on_stdout is not None and out:
            on_stdout(out)
        return CommandResult(list(argv), rc, out, err, started, time.time(), host=self.host,
                             timed_out=timed_out, interrupted=interrupted, cwd=cwd,
                             env=dict(env or {}))

    def start(self, argv, *, log, cwd=None, env=None) -> ReplayBackground:
        rc, out, err, delay = self._answer("start", argv, cwd)
        self._wait(delay)
        if rc != 0:
            raise OSError(f"replay {self.host}: could not start {argv[0]}: {err.strip()}")
        stop = self.recording.answers_of("stop", command_key(argv, cwd, self.root), self.index)
        stop_s = stop[0].duration_s if stop else 0.0
        return ReplayBackground(self, next(self._pids), list(argv), stop_s)

    def interrupt(self) -> None:
        self._stop.set()

    def clear_interrupt(self) -> None:
        self._stop.clear()

    def kill(self) -> None:
        self._stop.set()


class ReplayBackground:
    """A background command of a replayed host: alive until stopped."""

    def __init__(self, t: ReplayTransport, pid: int, argv: list[str], stop_s: float):
        self._t, self.pid, self.argv, self._stop_s = t, pid, argv, stop_s
        self._alive = True

    def alive(self) -> bool:
        return self._alive

    def stop(self, grace_s: float = 10.0) -> int | None:
        time.sleep(min(self._stop_s, grace_s) * self._t.time_scale)
        self._alive = False
        return None
