"""Checks made before any load: tools present, target writable (a directory) or readable
(a raw block device), enough free space, and no write to a device or outside the run's
directory unless allowed (the target guard).

Each failure is a UserError saying what is wrong and what to do, so a run never dies
ten minutes in for a reason that was knowable at the start. What each step needs comes
from its kind (tools, the paths its jobs open); the checks themselves are here.
"""

from __future__ import annotations

import errno
import mmap
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from stackprobe.engine.tools import apt_line, unmet
from stackprobe.errors import UserError
from stackprobe.kinds import registry
from stackprobe.safety.guard import check_targets
from stackprobe.safety.job_paths import JobFileError, Use
from stackprobe.spec.hosts import HostsFile
from stackprobe.spec.planned import PlannedStep
from stackprobe.spec.target import DeviceTarget, DirTarget, Target
from stackprobe.spec.tools import AnyOf, Need
from stackprobe.transport.base import Transport
from stackprobe.transport.tools import has_tool
from stackprobe.units import fmt_bytes

SPACE_MARGIN_BYTES = 64 * 1024**2
SPACE_MARGIN_FRACTION = 0.05


def required_tools(plan: Sequence[PlannedStep], controller: bool = False) -> list[Need]:
    """What the steps need where they run, in plan order, once each; `controller`: what
    this machine needs to drive the steps that run on hosts (a fleet's `fio --client`)."""
    needed: list[Need] = []
    for step in plan:
        kind = registry.kind(step.kind)
        names = kind.controller_needs(step.spec) if controller else kind.needs(step.spec)
        needed += [n for n in names if n not in needed]
    return needed


def check_tools(transport: Transport, needs: Sequence[Need]) -> list[str]:
    """The tools to record versions of (every one needed, and every one of an AnyOf);
    UserError naming the apt-get line when some are missing."""
    names: list[str] = []
    for need in needs:
        names += [n for n in (need.names if isinstance(need, AnyOf) else (need,))
                  if n not in names]
    missing = unmet(needs, lambda name: has_tool(transport, name))
    if missing:
        raise UserError(f"{', '.join(missing)} not installed: run `{apt_line(missing)}`")
    return names


def guard_targets(plan: Sequence[PlannedStep], transport: Transport,
                  destroy_data: Sequence[str] = (), hosts: HostsFile | None = None,
                  read: Callable[[str], str] | None = None) -> list[str]:
    """The target guard (safety/guard.py) over the paths every step's jobs open, as its
    kind reads them; warnings for the run, UserError naming every refusal."""
    reader = read or (lambda p: Path(p).read_text(encoding="utf-8"))
    uses, refusals = plan_guard_inputs(plan, reader, hosts)
    return check_targets(uses, refusals, transport, destroy_data)


def plan_guard_inputs(plan: Sequence[PlannedStep], read: Callable[[str], str],
                      hosts: HostsFile | None = None) -> tuple[list[Use], list[str]]:
    """Every step's paths to probe and its refusals known without probing (pure)."""
    uses: list[Use] = []
    refusals: list[str] = []
    for step in plan:
        try:
            found, refused = registry.kind(step.kind).guard_inputs(step, read, hosts)
        except (JobFileError, OSError) as exc:
            refusals.append(f"step {step.id}: {exc}")
            continue
        uses += found
        refusals += refused
    return uses, refusals


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


def check_target_of(target: Target, plan: Sequence[PlannedStep]) -> Path:
    """The target's checks before any load; returns where the run's scratch directory goes:
    in the target directory, or — a device holding no files — in the system's temporary
    directory (job files and fio's logs only; the device itself is the target guard's)."""
    if isinstance(target, DirTarget):
        check_target(target.path)
        check_space(target.path, plan)
    else:
        check_device(target, plan)
    return scratch_base(target)


def scratch_base(target: Target) -> Path:
    """Where a run's scratch directory goes: in the target directory, or for a device (it
    holds no files) in the system's temporary directory."""
    return target.path if isinstance(target, DirTarget) else Path(tempfile.gettempdir())


def check_device(device: DeviceTarget, plan: Sequence[PlannedStep]) -> None:
    """The device can be read here, and the plan was made for it (every step that would use
    the target addresses the device or is skipped: plan/expand.py's `device`)."""
    if not os.access(device.path, os.R_OK):
        raise UserError(f"target {device.path}: permission denied (a raw device is opened by "
                        "root or the disk group)")
    for step in plan:
        if step.skip is None and not step.hosts and step.device != device \
                and registry.kind(step.kind).on_device(step.spec, device) is not None:
            raise UserError(f"target {device.path}: step {step.id} was planned for a directory, "
                            "not this device")


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
