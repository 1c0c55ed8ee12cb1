"""Checks made before any load: tools present, target writable, enough free space.

Each failure is a UserError saying what is wrong and what to do, so a run never dies
ten minutes in for a reason that was knowable at the start.
"""

from __future__ import annotations

import errno
import mmap
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from stackprobe.errors import UserError
from stackprobe.spec.planned import PlannedStep
from stackprobe.engine.tools import (
    MEMORY_TOOLS,
    NEEDED_BY_FIO_ON,
    NEEDED_BY_KIND,
    apt_line,
    has_tool,
)
from stackprobe.transport.base import Transport
from stackprobe.units import fmt_bytes

SPACE_MARGIN_BYTES = 64 * 1024**2
SPACE_MARGIN_FRACTION = 0.05


def required_tools(plan: Sequence[PlannedStep]) -> list[str]:
    needed: list[str] = []
    for step in plan:
        names = NEEDED_BY_KIND.get(step.kind, ())
        if step.kind in ("fio", "slo", "metadata", "io500_like"):
            names = names + NEEDED_BY_FIO_ON.get(step.params.get("target", "local"), ())
        for name in names:
            if name not in needed:
                needed.append(name)
        if step.kind == "memory" and step.params.get("tool", "auto") != "auto":
            if step.params["tool"] not in needed:
                needed.append(step.params["tool"])
    return needed


def check_tools(transport: Transport, plan: Sequence[PlannedStep]) -> list[str]:
    """The tools the plan needs; UserError naming the apt-get line when some are missing."""
    needed = required_tools(plan)
    missing = [t for t in needed if not has_tool(transport, t)]
    wants_any_memory = any(
        s.kind == "memory" and s.params.get("tool", "auto") == "auto" for s in plan
    )
    if wants_any_memory and not any(has_tool(transport, t) for t in MEMORY_TOOLS):
        missing.append(MEMORY_TOOLS[0])
    if missing:
        raise UserError(f"{', '.join(missing)} not installed: run `{apt_line(missing)}`")
    return needed


def space_needed(plan: Sequence[PlannedStep]) -> tuple[int, PlannedStep | None]:
    """Bytes the largest step lays out (each step's files are removed after it)."""
    biggest = max(plan, key=lambda s: s.space_bytes, default=None)
    if biggest is None or biggest.space_bytes == 0:
        return 0, None
    return biggest.space_bytes, biggest


def check_space(base: Path, plan: Sequence[PlannedStep]) -> None:
    need, step = space_needed(plan)
    if not need:
        return
    need_total = int(need * (1 + SPACE_MARGIN_FRACTION)) + SPACE_MARGIN_BYTES
    free = shutil.disk_usage(base).free
    if need_total > free:
        raise UserError(
            f"target {base}: needs {fmt_bytes(need_total)} free for the planned test files "
            f"(largest step {step.id}: {fmt_bytes(need)}), has {fmt_bytes(free)} free"
        )


def check_target(base: Path) -> None:
    """The target is an existing directory we may write to (root included: access(2)
    reports a read-only filesystem to root too)."""
    if not base.exists():
        raise UserError(f"target {base}: no such directory")
    if not base.is_dir():
        raise UserError(f"target {base}: not a directory")
    if not os.access(base, os.W_OK | os.X_OK):
        reason = "read-only filesystem" if _read_only_mount(base) else "permission denied"
        raise UserError(f"target {base}: not writable ({reason})")


def _read_only_mount(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def make_scratch(base: Path, run_id: str) -> Path:
    """Create the run's scratch directory under `base`; refuse clearly when impossible."""
    check_target(base)
    root = base / f"stackprobe-{run_id}"
    try:
        root.mkdir()
        probe = root / ".write-probe"
        probe.write_bytes(b"stackprobe")
        probe.unlink()
    except OSError as exc:
        if root.exists():
            shutil.rmtree(root, ignore_errors=True)
        raise UserError(f"target {base}: not writable ({exc.strerror or exc})") from None
    return root


def supports_direct_io(directory: Path) -> bool:
    """Whether O_DIRECT writes work here (tmpfs on old kernels, some FUSE mounts refuse)."""
    path = directory / ".direct-probe"
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_DIRECT", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        if exc.errno == errno.EINVAL:
            return False
        raise
    try:
        buf = mmap.mmap(-1, 4096)  # page-aligned, as O_DIRECT requires
        buf.write(b"\0" * 4096)
        os.write(fd, buf)
        return True
    except OSError as exc:
        if exc.errno == errno.EINVAL:
            return False
        raise
    finally:
        os.close(fd)
        path.unlink(missing_ok=True)
