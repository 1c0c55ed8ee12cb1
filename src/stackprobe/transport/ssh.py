"""SshTransport: the Transport interface over SSH (asyncssh), for the hosts of a hosts.yaml.

One asyncio loop in a background thread serves every host; each host has one connection,
opened on first use and reused; sessions per host and commands overall are bounded.
Runners call the same blocking `run()` as locally, from as many threads as they like.

The remote command line is built from the argv with every argument shell-quoted, so a
path or a name containing `;`, `$(...)` or spaces is passed as one literal argument and
runs nothing extra. The remote shell first reports its PID on stderr, then execs the
command: interrupts (SIGINT, so fio still reports), timeouts (SIGTERM, then SIGKILL) and
background processes are all stopped with `kill` on that PID — never by name.
"""

from __future__ import annotations

import asyncio
import shlex
import threading
import time
from collections.abc import Callable
from pathlib import Path

import asyncssh

from stackprobe.spec.hosts import SshSettings
from stackprobe.transport.base import CommandResult
from stackprobe.transport.pid_tag import PID_TAG, TaggedStderr

KILL_GRACE_S = 5.0
SESSIONS_PER_HOST = 8  # below OpenSSH's default MaxSessions (10)
COMMANDS_IN_FLIGHT = 64


def remote_command(argv: list[str], cwd: str | None = None,
                   env: dict[str, str] | None = None) -> str:
    """The shell line run on the host: PID report, then exec of the quoted argv."""
    line = shlex.join(argv)
    if env:
        line = "env " + " ".join(shlex.quote(f"{k}={v}") for k, v in env.items()) + " " + line
    prefix = f"echo {PID_TAG}$$ >&2; "
    if cwd:
        prefix += f"cd {shlex.quote(cwd)} && "
    return prefix + "exec " + line


def connect_options(s: SshSettings) -> dict:
    """asyncssh.connect's options from a host's settings: only what they state, so
    everything else is what OpenSSH would do — the ssh config (User, Port, IdentityFile,
    HostName, ProxyJump, UserKnownHostsFile), then the user running stackprobe, port 22,
    ~/.ssh/known_hosts, the default keys and the ssh-agent (SSH_AUTH_SOCK). The settings
    already hold the command line's over the hosts file's (spec/host_sources/ssh_options.py)."""
    opts: dict = {}
    if s.user:
        opts["username"] = s.user
    if s.port:
        opts["port"] = s.port
    if s.identity:
        opts["client_keys"] = [str(Path(s.identity).expanduser())]
    if s.known_hosts:
        opts["known_hosts"] = None if s.known_hosts.lower() == "none" else \
            str(Path(s.known_hosts).expanduser())
    opts["config"] = ()  # asyncssh's "unset": ~/.ssh/config when there (as connect() does)
    if s.config:  # "none": no ssh config at all (as `ssh -F none`)
        opts["config"] = [] if s.config.lower() == "none" else [str(Path(s.config).expanduser())]
    return opts


def config_hostname(name: str, s: SshSettings) -> str:
    """The address OpenSSH would reach `name` at: the ssh config's HostName for it (the
    config of `s`, else ~/.ssh/config), else the name itself. Read by asyncssh's own config
    reader; no key, agent or known_hosts is read. ValueError: the config cannot be read."""
    given = {k: v for k, v in connect_options(s).items() if k in ("username", "port", "config")}
    try:
        options = asyncssh.SSHClientConnectionOptions(
            host=name, client_keys=None, known_hosts=None, agent_path=None, **given)
    except (OSError, ValueError, asyncssh.Error) as exc:
        raise ValueError(f"ssh config: {' '.join(str(exc).split())}") from None
    return str(options.host or name)


class SshPool:
    """The event loop, the connections and the concurrency limits shared by all hosts."""

    def __init__(self, commands_in_flight: int = COMMANDS_IN_FLIGHT):
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="ssh", daemon=True)
        self._thread.start()
        self._conns: dict[str, asyncssh.SSHClientConnection] = {}
        self._conn_locks: dict[str, asyncio.Lock] = {}
        self._limit = commands_in_flight
        self._slots: asyncio.Semaphore | None = None

    def call(self, coro, timeout: float | None = None):
        """Run a coroutine on the pool's loop from any thread and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def slots(self) -> asyncio.Semaphore:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self._limit)
        return self._slots

    async def connection(self, host: str, address: str, s: SshSettings):
        lock = self._conn_locks.setdefault(host, asyncio.Lock())
        async with lock:
            conn = self._conns.get(host)
            if conn is None or conn.is_closed():
                conn = await asyncio.wait_for(asyncssh.connect(
                    s.destination or address, **connect_options(s)),
                    timeout=s.connect_timeout or 10)
                self._conns[host] = conn
            return conn

    def close(self) -> None:
        async def _close():
            for conn in self._conns.values():
                conn.close()
            for conn in self._conns.values():
                await conn.wait_closed()
        try:
            self.call(_close(), timeout=15)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=5)


class SshTransport:
    def __init__(self, host: str, address: str, settings: SshSettings, pool: SshPool):
        self.host = host
        self.address = address
        self.settings = settings
        self.pool = pool
        self._sessions: asyncio.Semaphore | None = None
        self._running: set[int] = set()
        self._lock = threading.Lock()
        self._interrupted = False

    # ------------------------------------------------------------------ Transport
    def run(self, argv: list[str], *, cwd: str | None = None, env: dict[str, str] | None = None,
            timeout: float | None = None, on_stdout: Callable[[str], bool] | None = None,
            ) -> CommandResult:
        started = time.time()
        try:
            rc, out, err, timed_out, stopped, pid = self.pool.call(
                self._run(remote_command(argv, cwd, env), timeout, on_stdout))
        except (TimeoutError, OSError, ValueError, asyncssh.Error) as exc:
            # ValueError: what asyncssh says of an ssh config line it cannot read
            return CommandResult(argv, None, "", f"ssh {self.host}: {_why(exc)}", started,
                                 time.time(), host=self.host, cwd=cwd, env=dict(env or {}))
        return CommandResult(argv, rc, out, err, started, time.time(), host=self.host,
                             timed_out=timed_out, interrupted=self._interrupted,
                             stopped_early=stopped, pid=pid, cwd=cwd, env=dict(env or {}))

    def start(self, argv: list[str], *, log: str, cwd: str | None = None,
              env: dict[str, str] | None = None) -> SshBackground:
        """Start argv detached on the host (nohup, output to `log` there); its PID is kept."""
        inner = shlex.join(["sh", "-c", 'exec "$@" > "$0" 2>&1 < /dev/null', log, *argv])
        if env:
            inner = "env " + " ".join(shlex.quote(f"{k}={v}") for k, v in env.items()) + " " + inner
        line = (f"cd {shlex.quote(cwd)} && " if cwd else "") + f"nohup {inner} > /dev/null 2>&1 & echo $!"
        out, err = self.pool.call(self._plain(line, 60))
        try:  # the last line of stdout: a login shell may print before it, on either stream
            pid = int(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise OSError(f"ssh {self.host}: could not start {argv[0]}: "
                          f"{(out + err).strip()!r}") from None
        return SshBackground(self, pid, list(argv))

    def interrupt(self) -> None:
        with self._lock:
            self._interrupted = True
            pids = list(self._running)
        for pid in pids:
            asyncio.run_coroutine_threadsafe(self._kill(pid, "INT"), self.pool.loop)

    def clear_interrupt(self) -> None:
        with self._lock:
            self._interrupted = False

    def kill(self) -> None:
        with self._lock:
            pids = list(self._running)
        for pid in pids:
            asyncio.run_coroutine_threadsafe(self._kill(pid, "KILL"), self.pool.loop)

    # ------------------------------------------------------------------ async core
    async def _sessions_sem(self) -> asyncio.Semaphore:
        if self._sessions is None:
            self._sessions = asyncio.Semaphore(SESSIONS_PER_HOST)
        return self._sessions

    async def _conn(self):
        return await self.pool.connection(self.host, self.address, self.settings)

    async def _run(self, line: str, timeout: float | None, on_stdout):
        conn = await self._conn()
        async with await self.pool.slots(), await self._sessions_sem():
            proc = await conn.create_process(line, encoding="utf-8", errors="replace")
            out: list[str] = []
            err: list[str] = []
            state = {"pid": None, "stopped": False}
            pid_seen = asyncio.Event()

            async def read_err():
                tagged = TaggedStderr()
                while chunk := await proc.stderr.read(65536):
                    err.append(tagged.feed(chunk))
                    if tagged.settled and not pid_seen.is_set():
                        self._seen_pid(tagged.pid, state, pid_seen)
                        if self._interrupted and tagged.pid:
                            await self._kill(tagged.pid, "INT")
                err.append(tagged.finish())
                if not pid_seen.is_set():
                    self._seen_pid(tagged.pid, state, pid_seen)

            async def read_out():
                while chunk := await proc.stdout.read(65536):
                    out.append(chunk)
                    if on_stdout is not None and not state["stopped"] and on_stdout(chunk):
                        state["stopped"] = True
                        await pid_seen.wait()
                        if state["pid"]:
                            await self._kill(state["pid"], "INT")

            timed_out = False
            readers = asyncio.gather(read_err(), read_out())
            try:
                await asyncio.wait_for(asyncio.shield(readers), timeout)
            except TimeoutError:
                timed_out = True
                await self._stop(state["pid"])
                try:
                    await asyncio.wait_for(readers, KILL_GRACE_S * 2)
                except TimeoutError:
                    proc.close()
            result = await proc.wait()
            self._track(state["pid"], False)
            rc = result.exit_status
            if rc is None and result.exit_signal:
                rc = 128 + _signal_number(result.exit_signal[0])
            return rc, "".join(out), "".join(err), timed_out, state["stopped"], state["pid"]

    async def _plain(self, line: str, timeout: float) -> tuple[str, str]:
        conn = await self._conn()
        async with await self._sessions_sem():
            res = await asyncio.wait_for(conn.run(line, check=False), timeout)
        return str(res.stdout or ""), str(res.stderr or "")

    async def _kill(self, pid: int | None, sig: str) -> None:
        if pid:
            conn = await self._conn()
            await conn.run(f"kill -{sig} {int(pid)} 2>/dev/null", check=False)

    async def _alive(self, pid: int) -> bool:
        conn = await self._conn()
        # a zombie (exited, not yet reaped by its new parent) answers kill -0: not alive
        res = await conn.run(f"kill -0 {int(pid)} 2>/dev/null && ! grep -qs "
                             f"'^State:[[:space:]]*Z' /proc/{int(pid)}/status", check=False)
        return res.exit_status == 0

    async def _stop(self, pid: int | None, grace: float = KILL_GRACE_S) -> None:
        if not pid:
            return
        await self._kill(pid, "TERM")
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if not await self._alive(pid):
                return
            await asyncio.sleep(0.2)
        await self._kill(pid, "KILL")

    def _seen_pid(self, pid: int | None, state: dict, pid_seen: asyncio.Event) -> None:
        state["pid"] = pid
        self._track(pid, True)
        pid_seen.set()

    def _track(self, pid: int | None, running: bool) -> None:
        if pid is None:
            return
        with self._lock:
            (self._running.add if running else self._running.discard)(pid)


class SshBackground:
    """A detached command on a host, known by its PID there."""

    def __init__(self, transport: SshTransport, pid: int, argv: list[str]):
        self._t = transport
        self.pid = pid
        self.argv = argv

    def alive(self) -> bool:
        return self._t.pool.call(self._t._alive(self.pid), timeout=30)

    def stop(self, grace_s: float = 10.0) -> int | None:
        self._t.pool.call(self._t._stop(self.pid, grace_s), timeout=grace_s + 30)
        return None


def _why(exc: BaseException) -> str:
    if isinstance(exc, asyncio.TimeoutError):
        return "connection timed out"
    return str(exc) or type(exc).__name__


def _signal_number(name: str) -> int:
    import signal

    try:
        return int(getattr(signal, f"SIG{name}"))
    except (AttributeError, TypeError):
        return 0
