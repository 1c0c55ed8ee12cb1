"""LocalTransport: run commands on this machine with the Transport interface.

Each command starts in its own session, so a Ctrl-C in the terminal reaches stackprobe
only; stackprobe then forwards SIGINT to the commands it started (by PID), which lets fio
finish its report of what it measured. A timeout ends the command by PID: SIGTERM, then
SIGKILL after a grace period.
"""

from __future__ import annotations

import codecs
import os
import selectors
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable

from stackprobe.transport.base import CommandResult

KILL_GRACE_S = 5.0


class LocalTransport:
    def __init__(self, host: str | None = None):
        self.host = host or socket.gethostname()
        self._running: dict[int, subprocess.Popen] = {}
        self._lock = threading.Lock()
        self._interrupted = False

    def run(
        self,
        argv: list[str],
        *,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        timeout: float | None = None,
        on_stdout: Callable[[str], bool] | None = None,
    ) -> CommandResult:
        started = time.time()
        full_env = {**os.environ, **(env or {})}
        try:
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env=full_env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            return CommandResult(
                argv, None, "", f"{argv[0]}: {exc.strerror or exc}", started, time.time(),
                host=self.host, cwd=cwd, env=dict(env or {}),
            )
        with self._lock:
            self._running[proc.pid] = proc
            interrupted_before = self._interrupted
        if interrupted_before:
            self._signal(proc, signal.SIGINT)
        try:
            if on_stdout is None:
                out, err, timed_out, stopped = self._wait(proc, timeout)
            else:
                out, err, timed_out, stopped = self._stream(proc, timeout, on_stdout)
        finally:
            with self._lock:
                self._running.pop(proc.pid, None)
        return CommandResult(
            argv,
            proc.returncode,
            out,
            err,
            started,
            time.time(),
            host=self.host,
            timed_out=timed_out,
            interrupted=self._interrupted,
            stopped_early=stopped,
            pid=proc.pid,
            cwd=cwd,
            env=dict(env or {}),
        )

    def _wait(self, proc: subprocess.Popen, timeout: float | None):
        try:
            out, err = proc.communicate(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            out, err = self._stop(proc)
            timed_out = True
        return _text(out), _text(err), timed_out, False

    def _stream(self, proc: subprocess.Popen, timeout: float | None,
                on_stdout: Callable[[str], bool]):
        """Read both pipes as output arrives; when on_stdout returns True, SIGINT the
        command once (fio then ends its job and reports, as on Ctrl-C). A timeout ends it
        as _wait does: SIGTERM, then SIGKILL after the grace period."""
        decoders = {"out": codecs.getincrementaldecoder("utf-8")(errors="replace"),
                    "err": codecs.getincrementaldecoder("utf-8")(errors="replace")}
        chunks: dict[str, list[str]] = {"out": [], "err": []}
        deadline = None if timeout is None else time.monotonic() + timeout
        stopped = timed_out = False
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ, "out")
            sel.register(proc.stderr, selectors.EVENT_READ, "err")
            while sel.get_map():
                wait = 1.0 if deadline is None else min(1.0, deadline - time.monotonic())
                if wait <= 0:
                    self._signal(proc, signal.SIGKILL if timed_out else signal.SIGTERM)
                    # SIGTERM sent: the pipes close when it ends, or SIGKILL after the grace
                    deadline = None if timed_out else time.monotonic() + KILL_GRACE_S
                    timed_out = True
                    continue
                for key, _ in sel.select(timeout=wait):
                    data = os.read(key.fileobj.fileno(), 65536)
                    if not data:
                        sel.unregister(key.fileobj)
                        continue
                    text = decoders[key.data].decode(data)
                    chunks[key.data].append(text)
                    if key.data == "out" and not stopped and on_stdout(text):
                        stopped = True
                        self._signal(proc, signal.SIGINT)
        proc.wait()
        return "".join(chunks["out"]), "".join(chunks["err"]), timed_out, stopped

    def start(self, argv: list[str], *, log: str, cwd: str | None = None,
              env: dict[str, str] | None = None) -> LocalBackground:
        """Start argv in its own session with output to `log`; stop it with .stop()."""
        with open(log, "ab") as out:
            proc = subprocess.Popen(
                argv, cwd=cwd, env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL,
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            )
        return LocalBackground(proc, list(argv))

    def clear_interrupt(self) -> None:
        with self._lock:
            self._interrupted = False

    def interrupt(self) -> None:
        """SIGINT to every running command; later commands are interrupted at start."""
        with self._lock:
            self._interrupted = True
            procs = list(self._running.values())
        for proc in procs:
            self._signal(proc, signal.SIGINT)

    def kill(self) -> None:
        with self._lock:
            procs = list(self._running.values())
        for proc in procs:
            self._signal(proc, signal.SIGKILL)

    @property
    def interrupted(self) -> bool:
        return self._interrupted

    def running_pids(self) -> list[int]:
        with self._lock:
            return list(self._running)

    def _stop(self, proc: subprocess.Popen) -> tuple[bytes, bytes]:
        self._signal(proc, signal.SIGTERM)
        try:
            return proc.communicate(timeout=KILL_GRACE_S)
        except subprocess.TimeoutExpired:
            self._signal(proc, signal.SIGKILL)
            return proc.communicate()

    @staticmethod
    def _signal(proc: subprocess.Popen, sig: int) -> None:
        """Signal the process we started (its own session: the group has its PID)."""
        if proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass


class LocalBackground:
    """A background command started by LocalTransport; stopped by its PID only."""

    def __init__(self, proc: subprocess.Popen, argv: list[str]):
        self._proc = proc
        self.pid = proc.pid
        self.argv = argv

    def alive(self) -> bool:
        return self._proc.poll() is None

    def wait(self, timeout: float) -> int | None:
        try:
            return self._proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self, grace_s: float = 10.0) -> int | None:
        if self.alive():
            LocalTransport._signal(self._proc, signal.SIGTERM)
            if self.wait(grace_s) is None:
                LocalTransport._signal(self._proc, signal.SIGKILL)
        return self._proc.wait()


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")
