"""The hosts of a run (`--hosts FILE`): a transport each, and each host's scratch.

A Fleet is opened once per run: every host the plan names is reached (one SSH connection
per host, kept for the whole run; an `access: local` entry is this machine, reached without
SSH), its tools checked, and a scratch directory made for the run's test files —
`<first declared directory or /tmp>/stackprobe-<run id>-<host>`, so hosts sharing a
filesystem never collide. An `access: management` entry (a BMC address) gets no transport,
no scratch and no command: only kinds that reach management controllers use it. Closing the
fleet removes the scratch directories and closes the connections; interrupt / kill reach
the commands running on every host. `through`, when given, is how each host's transport is
reached instead (a recording of what it says, or a replay of one: transport/replay.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from stackprobe.errors import UserError
from stackprobe.spec.hosts import Host, HostsFile, Reach
from stackprobe.spec.tools import Tool
from stackprobe.transport.base import Transport
from stackprobe.transport.local import LocalTransport

if TYPE_CHECKING:
    from stackprobe.transport.ssh import SshPool

DEFAULT_SCRATCH_BASE = "/tmp"
SS = Tool("ss", "iproute2", ("ss", "-V"), "servers listening on a run's hosts")


@dataclass
class HostHandle:
    host: Host
    transport: Transport | None  # None: a management-only entry, reached by its BMC alone
    scratch: str  # this run's directory on the host (test files of every step go below it)

    @property
    def name(self) -> str:
        return self.host.name

    def listening(self, port: int) -> bool:
        """Whether something on the host listens on TCP `port` (a server we started)."""
        res = self.transport.run(["ss", "-Hltn", f"sport = :{port}"], timeout=15)
        return res.ok and bool(res.stdout.strip())


class Fleet:
    def __init__(self, hosts_file: HostsFile, names: Iterable[str], run_id: str,
                 pool: SshPool | None = None,
                 through: Callable[[Host, Transport], Transport] | None = None):
        from stackprobe.transport.ssh import SshPool, SshTransport  # asyncssh: with hosts only

        self.hosts_file = hosts_file
        self.pool = pool or SshPool()
        self.handles: dict[str, HostHandle] = {}
        for host in hosts_file.hosts:
            if host.name not in names:
                continue
            base = host.directories[0] if host.directories else DEFAULT_SCRATCH_BASE
            transport: Transport | None = None
            if host.access == "ssh":
                transport = SshTransport(host.name, host.address, hosts_file.ssh_for(host),
                                         self.pool)
            elif host.access == "local":
                transport = LocalTransport(host.name)
            if transport is not None and through is not None:
                transport = through(host, transport)
            self.handles[host.name] = HostHandle(
                host, transport, f"{base.rstrip('/')}/stackprobe-{run_id}-{host.name}")

    def __getitem__(self, name: str) -> HostHandle:
        return self.handles[name]

    def select(self, names: Iterable[str]) -> list[HostHandle]:
        return [self.handles[n] for n in names]

    def each(self, fn, names: Iterable[str] | None = None, *, together: bool = False,
             ready=None) -> dict[str, object]:
        """fn(handle) on every host with a shell (all of `names`, else every such host),
        in threads: the transport calls block. `ready(handle)`, when given, runs first in
        each thread (connecting, writing a job file); with `together`, no fn starts before
        every host is ready — the start a fleet's clients share (one barrier)."""
        handles = self.select(names) if names is not None else self.shells()
        if not handles:
            return {}
        barrier = threading.Barrier(len(handles)) if together else None

        def call(h: HostHandle):
            try:
                if ready is not None:
                    ready(h)
            except BaseException:
                if barrier is not None:
                    barrier.abort()  # the others stop waiting for a host that never comes
                raise
            if barrier is not None:
                barrier.wait()
            return fn(h)

        with ThreadPoolExecutor(max_workers=len(handles) if together else
                                min(32, len(handles))) as pool:
            futures = {h.name: pool.submit(call, h) for h in handles}
            errors = [f.exception() for f in futures.values()]
        first = next((e for e in errors if e is not None
                      and not isinstance(e, threading.BrokenBarrierError)), None)
        if first is not None:  # the host that failed, not the ones its abort released
            raise first
        return {name: f.result() for name, f in futures.items()}

    def shells(self) -> list[HostHandle]:
        """The hosts reached with a shell (SSH or local), not the management-only ones."""
        return [h for h in self.handles.values() if h.host.reach is Reach.SHELL]

    def open(self) -> None:
        """Reach every host and make its scratch directory; UserError naming the hosts that
        could not be reached, before any load."""
        from stackprobe.transport.open_files import ensure_open_files

        ensure_open_files(sum(h.host.access == "ssh" for h in self.handles.values()))

        def prepare(h: HostHandle) -> str | None:
            result = h.transport.run(["mkdir", "-p", "--", h.scratch], timeout=60)
            if result.ok:
                return None
            why = result.stderr.strip().splitlines()[-1:] or [f"exit {result.returncode}"]
            return f"{h.name} ({h.host.address}): {why[0]}"

        problems = [p for p in self.each(prepare).values() if p]
        if problems:
            self.close()
            raise UserError("hosts not usable: " + "; ".join(problems))

    def close(self) -> list[str]:
        """Remove each host's scratch directory, then close the connections."""
        for t in self.transports():
            t.clear_interrupt()

        def remove(h: HostHandle) -> str | None:
            result = h.transport.run(["rm", "-rf", "--", h.scratch], timeout=120)
            return None if result.ok else f"{h.name}: could not remove {h.scratch}"

        try:
            problems = [p for p in self.each(remove).values() if p]
        finally:
            self.pool.close()
        return problems

    def transports(self) -> list[Transport]:
        return [h.transport for h in self.handles.values() if h.transport is not None]

    def interrupt(self) -> None:
        for t in self.transports():
            t.interrupt()

    def clear_interrupt(self) -> None:
        for t in self.transports():
            t.clear_interrupt()

    def kill(self) -> None:
        for t in self.transports():
            t.kill()

    def describe(self) -> list[dict]:
        """What results.json says of the run's hosts."""
        return [{"name": h.name, "address": h.host.address, "roles": list(h.host.roles),
                 "nic_speed_mbps": h.host.nic_speed_mbps,
                 "scratch": h.scratch if h.transport is not None else None,
                 **({"access": h.host.access} if h.host.access != "ssh" else {})}
                for h in self.handles.values()]
