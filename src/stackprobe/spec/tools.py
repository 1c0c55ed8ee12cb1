"""The external tools stackprobe drives, declared where they are used: each kind declares
its own (kinds/), and so do the parts of stackprobe that run tools outside any step (the
monitor's sadc, the target guard's probes, the fleet's `ss`). `doctor`, the pre-flight
check and the Makefile's package list (checked by a test) are made from these declarations.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tool:
    """An executable and where it comes from."""

    name: str  # the executable
    package: str  # the Debian package that provides it
    version_argv: tuple[str, ...]  # how to ask its version (dpkg-query for tools without one)
    purpose: str


@dataclass(frozen=True)
class AnyOf:
    """A need met by any one of these tools (the first one found is used)."""

    names: tuple[str, ...]


Need = str | AnyOf


def dpkg_version(package: str) -> tuple[str, ...]:
    """version_argv for a tool without a version flag: its package's version."""
    return ("dpkg-query", "-W", "-f=${Version}", package)
