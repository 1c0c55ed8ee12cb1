"""The hosts of a run (`--hosts FILE`): one SSH transport each, and each host's scratch.

A Fleet is opened once per run: every host the plan names is reached (one connection per
host, kept for the whole run), its tools checked, and a scratch directory made for the
run's test files — `<first declared directory or /tmp>/stackprobe-<run id>-<host>`, so hosts
sharing a filesystem never collide. Closing the fleet removes those directories and closes
the connections; interrupt / kill reach the commands running on every host.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from stackprobe.errors import UserError
from stackprobe.spec.hosts import Host, HostsFile
from stackprobe.spec.tools import Tool
from stackprobe.transport.ssh import SshPool, SshTransport

DEFAULT_SCRATCH_BASE = "/tmp"
SS = Tool("ss", "iproute2", ("ss", "-V"), "servers listening on a run's hosts")


@dataclass
class HostHandle:
    host: Host
    transport: SshTransport
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
                 pool: SshPool | None = None):
        self.hosts_file = hosts_file
        self.pool = pool or SshPool()
        self.handles: dict[str, HostHandle] = {}
        for host in hosts_file.hosts:
            if host.name not in names:
                continue
            base = host.directories[0] if host.directories else DEFAULT_SCRATCH_BASE
            transport = SshTransport(host.name, host.address, hosts_file.ssh_for(host), self.pool)
            self.handles[host.name] = HostHandle(
                host, transport, f"{base.rstrip('/')}/stackprobe-{run_id}-{host.name}")

    def __getitem__(self, name: str) -> HostHandle:
        return self.handles[name]

    def select(self, names: Iterable[str]) -> list[HostHandle]:
        return [self.handles[n] for n in names]

    def each(self, fn, names: Iterable[str] | None = None) -> dict[str, object]:
        """fn(handle) on every host at once (threads: the transport calls block)."""
        handles = self.select(names) if names is not None else list(self.handles.values())
        if not handles:
            return {}
        with ThreadPoolExecutor(max_workers=min(32, len(handles))) as pool:
            futures = {h.name: pool.submit(fn, h) for h in handles}
            return {name: f.result() for name, f in futures.items()}

    def open(self) -> None:
        """Reach every host and make its scratch directory; UserError naming the hosts that
        could not be reached, before any load."""
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

    def transports(self) -> list[SshTransport]:
        return [h.transport for h in self.handles.values()]

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
                 "nic_speed_mbps": h.host.nic_speed_mbps, "scratch": h.scratch}
                for h in self.handles.values()]
