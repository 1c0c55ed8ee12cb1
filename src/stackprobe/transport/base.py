"""The transport interface: run a command on a host, get its output and exit status back.

Runners never call subprocess themselves: they hand an argv (a list, never a shell string
built from user input) to a Transport, so the same runner drives the local machine today
and SSH hosts later. Implementations must stop what they started by PID only.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from stackprobe.redact import redact_env


@dataclass
class CommandResult:
    argv: list[str]
    returncode: int | None  # None when the command never started
    stdout: str
    stderr: str
    started: float  # epoch seconds
    ended: float
    host: str = "localhost"
    timed_out: bool = False
    interrupted: bool = False  # stopped because the user asked the run to stop
    stopped_early: bool = False  # stopped because its output said it was done (steady state)
    pid: int | None = None
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)  # variables added for this command

    @property
    def duration_s(self) -> float:
        return self.ended - self.started

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.interrupted

    def command_line(self) -> str:
        """The command as a person would paste it into a shell; the values of variables
        whose name says they are secret (CEPH_KEY, AWS_SECRET_ACCESS_KEY) are hidden."""
        prefix = "".join(f"{k}={shlex.quote(v)} " for k, v in redact_env(self.env).items())
        return prefix + shlex.join(self.argv)


class Background(Protocol):
    """A long-running command (a FUSE mount, a server) started by a transport."""

    pid: int
    argv: list[str]

    def alive(self) -> bool: ...

    def stop(self, grace_s: float = 10.0) -> int | None:
        """SIGTERM, then SIGKILL after grace_s; returns the exit status."""
        ...


class Transport(Protocol):
    host: str

    def run(
        self,
        argv: list[str],
        *,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        timeout: float | None = None,
        on_stdout: Callable[[str], bool] | None = None,
    ) -> CommandResult:
        """Run argv to completion (or timeout/interrupt) and return what happened.

        on_stdout, when given, sees stdout as it arrives; returning True asks the command
        to finish now (SIGINT: fio ends its jobs and still reports)."""
        ...

    def start(self, argv: list[str], *, log: str, cwd: str | None = None,
              env: dict[str, str] | None = None) -> Background:
        """Start argv in the background, output to the file `log`."""
        ...

    def interrupt(self) -> None:
        """Ask every running command to stop gracefully (fio then still reports)."""
        ...

    def clear_interrupt(self) -> None:
        """Let commands run again after an interrupt (cleanup must still happen)."""
        ...

    def kill(self) -> None:
        """Stop every running command now."""
        ...
