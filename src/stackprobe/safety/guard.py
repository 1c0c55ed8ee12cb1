"""Target guard: before any load, refuse a plan that would write where it must not.

Why: fio does exactly what its job says. One wrong device name in a suite (`/dev/sdb`
where `/dev/sdc` was meant) destroys a production disk, and a job file's `directory=../..`
or `filename=../../etc/passwd` lays test files over the system. Nothing downstream can
undo that, so every path a step's fio jobs name is checked here, before the first tool runs:

- Files: a path must stay inside the step's scratch directory: relative (fio runs there)
  or under ${STACKPROBE_DIR}. `..` that climbs out, another ${VAR}, or an absolute path
  that is not a block device is refused. This covers filename (':'-separated lists),
  filename_format, directory (':'-lists too), opendir, the write_*_log prefixes and the
  job's own name (fio names its default files after the section: `[../x]` writes ../x.0.0).
- Block devices a job WRITES (any rw but read/randread: write, randwrite, rw, randrw, trim,
  randtrim, trimwrite, `randwrite,read`...; trim_percentage; a file-creating engine) are
  refused unless the user named that exact device (after resolving symlinks) with
  --destroy-data; even then a device that is mounted, used as swap, held by the kernel
  (holders, a loop device's backing) or open in a process is refused. Reads of block devices are allowed. unlink on a device
  (deletes the node) and writes to character devices other than /dev/null are refused.
- fio 3.33 puts `directory` in front of an absolute filename; other versions may not, so
  an absolute filename is also checked as itself.

The probing commands (stat, readlink, lsblk, blkid, wipefs, /proc and /sys reads) go through
the Transport, so the same checks can run on an SSH host; everything that turns their output
into findings is a pure function: which paths a job names is runners/fio_job_paths.py, the
tools' output is parsers/block_devices.py, the verdicts are here. Steps on --hosts cannot be probed from here yet: they may
read devices under /dev but not write them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from stackprobe.errors import UserError
from stackprobe.safety.device_probes import (
    Mount,
    Node,
    parse_backing,
    parse_blkid,
    parse_fd_scan,
    parse_holders,
    parse_lsblk,
    parse_mountinfo,
    parse_namespaces,
    parse_ps,
    parse_stat,
    parse_swaps,
    parse_wipefs_json,
    parse_wipefs_table,
)
from stackprobe.safety.job_paths import (
    WORK,
    FioJob,
    Use,
    job_paths,
)
from stackprobe.spec.tools import Tool
from stackprobe.transport.base import CommandResult, Transport

HARMLESS_CHAR_DEVICES = ("/dev/null",)
# what the guard probes a device with (stat, grep, cat, find come with every Debian)
PROBE_TOOLS = (
    Tool("lsblk", "util-linux", ("lsblk", "--version"), "block devices (inventory, guard)"),
    Tool("blkid", "util-linux", ("blkid", "--version"), "signatures on a device (guard)"),
    Tool("wipefs", "util-linux", ("wipefs", "--version"), "signatures on a device (guard)"),
    Tool("ps", "procps", ("ps", "--version"), "who holds a device open (guard)"),
)
PROBE_TIMEOUT_S = 60.0


# ------------------------------------------------------------------ findings (pure)
_TYPE_NAMES = {"ceph_bluestore": "Ceph OSD (BlueStore)", "LVM2_member": "LVM physical volume",
               "linux_raid_member": "Linux RAID member", "swap": "swap area",
               "crypto_LUKS": "LUKS encrypted volume", "zfs_member": "ZFS pool member"}


def describe_type(fstype: str, usage: str | None, uuid: str | None, label: str | None) -> str:
    name = _TYPE_NAMES.get(fstype) or {
        "filesystem": f"{fstype} filesystem", "raid": f"{fstype} RAID member",
        "crypto": f"{fstype} encrypted volume"}.get(usage or "", f"{fstype} signature")
    extra = ", ".join(x for x in (f"UUID {uuid}" if uuid else "",
                                  f"label {label}" if label else "") if x)
    return f"{name} ({extra})" if extra else name


def describe_blkid(tags: dict[str, str]) -> list[str]:
    out = []
    if tags.get("PTTYPE"):
        uuid = f" (PTUUID {tags['PTUUID']})" if tags.get("PTUUID") else ""
        out.append(f"{tags['PTTYPE']} partition table{uuid}")
    if tags.get("TYPE"):
        out.append(describe_type(tags["TYPE"], tags.get("USAGE"),
                                 tags.get("UUID") or tags.get("UUID_SUB"), tags.get("LABEL")))
    return out


def signatures(blkid: dict[str, str], wipefs: list[dict[str, str]], node: Node | None,
               parts: dict[str, dict[str, str]]) -> list[str]:
    """What the device holds: blkid's view, wipefs's further signatures (a second
    filesystem, a stale RAID superblock), lsblk's (udev's), and each partition's."""
    found = describe_blkid(blkid)
    known = {blkid.get("TYPE"), blkid.get("PTTYPE")}
    if "gpt" in known:
        known.add("PMBR")  # the protective MBR is part of a GPT
    for sig in wipefs:
        if sig.get("type") and sig["type"] not in known:
            known.add(sig["type"])
            found.append(f"{sig['type']} signature at offset {sig.get('offset', '?')}")
    if node is not None:
        if node.fstype and node.fstype not in known:
            found.append(describe_type(node.fstype, None, node.uuid, None))
        if node.pttype and node.pttype not in known:
            found.append(f"{node.pttype} partition table")
    for name, tags in parts.items():
        what = describe_blkid(tags)
        found.append(f"partition {name}" + (f": {', '.join(what)}" if what else ""))
    return found


@dataclass
class SystemView:
    """Machine-wide facts, read once: mounts (all mount namespaces), swaps, the block
    devices processes hold open, loop devices' backing files; what could not be read."""

    mounts: list[Mount] = field(default_factory=list)
    swaps: list[str] = field(default_factory=list)
    open_fds: list[tuple[int, str]] = field(default_factory=list)
    comms: dict[int, str] = field(default_factory=dict)
    backing: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def usage(nodes: Sequence[Node], view: SystemView, holders: Sequence[tuple[str, str]]
          ) -> list[str]:
    """Why the device (or one of its partitions/holders) is in use: mounted, swap, open in a
    process, held by the kernel (holders, a loop device on top). Empty: not in use."""
    paths = {n.path: n for n in nodes}
    majmins = {n.majmin: n for n in nodes if n.majmin}
    dev = nodes[0] if nodes else None
    out: list[str] = []

    def who(n: Node) -> str:
        return "" if n is dev else f"{n.name} "

    for n in nodes:
        for mp in n.mountpoints:
            out.append(f"{who(n)}in use as swap" if mp == "[SWAP]" else f"{who(n)}mounted at {mp}")
        if n.depth > 0 and n.type != "part":
            out.append(f"held by {n.name} ({n.type})")
    for m in view.mounts:
        n = majmins.get(m.majmin) or paths.get(m.source)
        if n is not None:
            out.append(f"{who(n)}mounted at {m.mountpoint}")
    for s in view.swaps:
        if s in paths:
            out.append(f"{who(paths[s])}in use as swap")
    for pid, mm in view.open_fds:
        if mm in majmins:
            comm = view.comms.get(pid)
            out.append(f"{who(majmins[mm])}open in PID {pid}" + (f" ({comm})" if comm else ""))
    for name, holder in holders:
        out.append(f"held by {holder}" if dev is not None and name == dev.name
                   else f"{name} held by {holder}")
    for loop, backing in view.backing:
        if backing in paths:
            out.append(f"{who(paths[backing])}backing /dev/{loop}")
    return list(dict.fromkeys(out))


@dataclass
class DeviceState:
    named: str  # as the job (or --destroy-data) wrote it
    path: str  # resolved
    majmin: str
    signatures: list[str] = field(default_factory=list)
    in_use: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)  # probes that failed

    @property
    def label(self) -> str:
        return self.path if self.named == self.path else f"{self.named} ({self.path})"


def _uses_text(uses: Sequence[Use]) -> str:
    steps = list(dict.fromkeys(f"{u.step}: {u.use.writes}" for u in uses))
    return ("step " if len(steps) == 1 else "steps ") + ", ".join(steps)


def device_verdict(state: DeviceState, uses: Sequence[Use], allowed: bool
                   ) -> tuple[str | None, str | None]:
    """(refusal, warning) for writing this device; exactly one of them is set."""
    head = f"{state.label}: refusing to write ({_uses_text(uses)})"
    found = state.signatures + state.in_use
    if state.in_use:
        return (f"{head}: {', '.join(found)} — a device in use is never written, not even with "
                "--destroy-data: unmount it or stop what holds it first"), None
    if state.unchecked:
        what = ", ".join(found + [f"could not check: {p}" for p in state.unchecked])
        return (f"{head}: {what} — a device that cannot be checked is never written, not even "
                "with --destroy-data"), None
    if not allowed:
        what = ", ".join(found) if found else (
            "it looks empty (no filesystem, partition table or other signature; not mounted, "
            "not open), but writing a raw device destroys whatever is on it")
        return f"{head}: {what} — name it with --destroy-data {state.path} to allow", None
    held = ", ".join(found) if found else "no recognisable signature"
    return None, (f"{state.label}: written by {_uses_text(uses)} as allowed by --destroy-data "
                  f"(it held: {held})")


def other_refusal(u: Use, kind: str, resolved: str) -> str | None:
    """For an absolute path that is not a block device to be written (or is one on a remote
    host): the refusal, or None when the use is harmless."""
    where = f"step {u.step}: {u.use.where}"
    subject = "" if u.path in u.use.where else f"{u.path}: "  # named once
    if u.remote:
        if u.path.startswith("/dev/") and not (u.use.writes or u.use.unlink):
            return None  # a device read on a host
        return (f"{where}: {subject}on a --hosts step the target guard cannot check paths on "
                "other hosts yet — write under the scratch directory, or run on the host itself")
    if kind in ("block", "char") and u.use.unlink:
        return f"{where}: {u.use.unlink} would delete the device node {u.path}"
    if kind == "block":
        return None  # reads here; writes go through device_verdict
    if kind == "char":
        if not u.use.writes or resolved in HARMLESS_CHAR_DEVICES:
            return None
        return (f"{where}: {subject}a character device ({u.use.writes}): stackprobe does not "
                "write to those (sg, NVMe generic)")
    if kind == "missing":
        return (f"{where}: {subject}no such device or file; fio would create it outside the "
                "step's scratch directory")
    return (f"{where}: {subject}a {kind} outside the step's scratch directory — use a relative "
            f"path or {WORK}/..., or a raw block device")


# ------------------------------------------------------------------ probing (transport)
def _run(transport: Transport, argv: list[str]) -> CommandResult:
    return transport.run(argv, timeout=PROBE_TIMEOUT_S)


def _failed(result: CommandResult, ok_codes: tuple[int, ...] = (0,)) -> str | None:
    if result.returncode in ok_codes and not result.timed_out:
        return None
    why = "timed out" if result.timed_out else (
        (result.stderr.strip().splitlines() or [f"exit {result.returncode}"])[-1])
    tool = result.argv[0]
    return why if why.startswith(f"{tool}:") else f"{tool}: {why}"  # tools name themselves


def resolve(transport: Transport, path: str) -> tuple[str, str, str]:
    """(kind 'block'|'char'|'file'|'directory'|'missing', resolved path, major:minor)."""
    st = _run(transport, ["stat", "-L", "-c", "%F|%t|%T", "--", path])
    if st.returncode != 0:
        return "missing", path, ""
    link = _run(transport, ["readlink", "-e", "--", path])
    kind, majmin = parse_stat(st.stdout)
    return kind, (link.stdout.strip() if link.returncode == 0 else path), majmin


def system_view(transport: Transport) -> SystemView:
    view = SystemView()
    ns = _run(transport, ["sh", "-c", "stat -L -c '%i %n' /proc/[0-9]*/ns/mnt 2>/dev/null; exit 0"])
    pids = parse_namespaces(ns.stdout) or ["self"]
    mi = _run(transport, ["grep", "-H", "", *[f"/proc/{p}/mountinfo" for p in pids]])
    view.mounts = parse_mountinfo(mi.stdout)
    swaps = _run(transport, ["cat", "/proc/swaps"])
    view.swaps = parse_swaps(swaps.stdout)
    fds = _run(transport, ["sh", "-c", "find -L /proc/[0-9]*/fd -mindepth 1 -maxdepth 1 -type b "
                           "-exec stat -L -c '%t:%T %n' -- {} + 2>/dev/null; exit 0"])
    view.open_fds = parse_fd_scan(fds.stdout)
    backing = _run(transport, ["sh", "-c", "grep -H '' /sys/block/loop*/loop/backing_file "
                               "2>/dev/null; exit 0"])
    view.backing = parse_backing(backing.stdout)
    for r, codes in ((ns, (0,)), (mi, (0, 2)), (swaps, (0,)), (fds, (0,)), (backing, (0,))):
        if (problem := _failed(r, codes)) is not None and not (r is mi and r.stdout):
            view.problems.append(problem)
    return view


def fill_comms(transport: Transport, view: SystemView, pids: Iterable[int]) -> None:
    wanted = sorted(set(pids))
    if wanted:
        ps = _run(transport, ["ps", "-o", "pid=,comm=", "-p", ",".join(map(str, wanted))])
        view.comms.update(parse_ps(ps.stdout))


LSBLK_COLUMNS = "NAME,PATH,MAJ:MIN,TYPE,PKNAME,FSTYPE,UUID,PTTYPE,MOUNTPOINTS"


def _lsblk(transport: Transport, path: str) -> tuple[list[Node], str | None]:
    """The device and its children; util-linux < 2.37 knows only MOUNTPOINT (one per row)."""
    result = None
    for columns in (LSBLK_COLUMNS, LSBLK_COLUMNS.replace("MOUNTPOINTS", "MOUNTPOINT")):
        result = _run(transport, ["lsblk", "-J", "-o", columns, "--", path])
        if result.returncode == 0:
            try:
                return parse_lsblk(result.stdout), None
            except (ValueError, KeyError) as exc:
                return [], f"lsblk: unreadable output ({exc})"
    assert result is not None
    return [], _failed(result)


def _wipefs(transport: Transport, path: str) -> tuple[list[dict[str, str]], str | None]:
    """wipefs's signatures (its JSON, or the table of a wipefs without -J); never -a."""
    result = _run(transport, ["wipefs", "-n", "-J", "--", path])
    if result.returncode == 0:
        try:
            return parse_wipefs_json(result.stdout), None
        except ValueError:
            pass
    table = _run(transport, ["wipefs", "-n", "--", path])
    if table.returncode == 0:
        return parse_wipefs_table(table.stdout), None
    return [], _failed(table)


def probe_device(transport: Transport, named: str, path: str, majmin: str,
                 view: SystemView) -> DeviceState:
    """Everything the guard knows about one block device."""
    state = DeviceState(named, path, majmin, unchecked=list(view.problems))
    nodes, problem = _lsblk(transport, path)
    if problem:
        state.unchecked.append(problem)
    blkid = _run(transport, ["blkid", "-p", "-o", "export", "--", path])
    sigs, wipe_problem = _wipefs(transport, path)
    parts = {n.name: parse_blkid(_run(transport, ["blkid", "-p", "-o", "export", "--",
                                                  n.path]).stdout)
             for n in nodes if n.type == "part"}
    state.signatures = signatures(parse_blkid(blkid.stdout), sigs,
                                  nodes[0] if nodes else None, parts)
    for problem in (_failed(blkid, (0, 2)), wipe_problem):
        if problem is not None:
            state.signatures.append(f"signature check failed ({problem})")
    holders = _run(transport, ["sh", "-c", 'for n; do for h in /sys/class/block/"$n"/holders/*; '
                               'do [ -e "$h" ] && echo "$n ${h##*/}"; done; done; exit 0', "sh",
                               *[n.name for n in nodes if n.depth == 0 or n.type == "part"]])
    fill_comms(transport, view, [pid for pid, mm in view.open_fds
                                 if mm in {n.majmin for n in nodes} | {majmin}])
    state.in_use = usage(nodes or [Node(Path(path).name, path, majmin, "", None, None, None, (), 0)],
                         view, parse_holders(holders.stdout))
    return state


# ------------------------------------------------------------------ the guard
def check_targets(uses: Sequence[Use], refusals: Sequence[str], transport: Transport,
                  destroy_data: Sequence[str] = ()) -> list[str]:
    """Check every path the plan's jobs open (`uses`, gathered from the steps' kinds with
    the refusals they could make without probing); return warnings for the run (devices
    written with --destroy-data, --destroy-data naming no written device). UserError, one
    line naming every refused path and what was found, before anything is written."""
    refusals = list(refusals)
    for name in destroy_data:
        if not name.startswith("/"):
            refusals.append(f"--destroy-data {name}: give the device's path (/dev/...)")
    writes: dict[str, list[Use]] = {}  # major:minor → the uses writing it
    states: dict[str, tuple[str, str]] = {}  # major:minor → (named, resolved)
    seen: dict[str, tuple[str, str, str]] = {}  # path → resolve()'s answer
    for u in uses:
        if u.remote:
            kind, resolved, majmin = "remote", u.path, ""
        else:
            if u.path not in seen:
                seen[u.path] = resolve(transport, u.path)
            kind, resolved, majmin = seen[u.path]
        if kind == "block" and u.use.writes and not u.use.unlink and not u.remote:
            writes.setdefault(majmin, []).append(u)
            states.setdefault(majmin, (u.path, resolved))
        elif (problem := other_refusal(u, kind, resolved)) is not None:
            refusals.append(problem)
    allowed, warnings = _destroy_data(transport, destroy_data, writes)
    if writes:
        view = system_view(transport)
        for majmin, found in writes.items():
            named, resolved = states[majmin]
            state = probe_device(transport, named, resolved, majmin, view)
            refusal, warning = device_verdict(state, found, majmin in allowed)
            if refusal:
                refusals.append(refusal)
            if warning:
                warnings.append(warning)
    if refusals:
        raise UserError("; ".join(dict.fromkeys(refusals)))
    return warnings


def _destroy_data(transport: Transport, names: Sequence[str], writes: dict[str, list[Use]]
                  ) -> tuple[set[str], list[str]]:
    """The major:minor of each --destroy-data device, and warnings for those no step writes."""
    allowed: set[str] = set()
    warnings: list[str] = []
    for name in names:
        if not name.startswith("/"):
            continue
        kind, resolved, majmin = resolve(transport, name)
        if kind != "block":
            warnings.append(f"--destroy-data {name}: not a block device ({kind}); ignored")
        elif majmin not in writes:
            warnings.append(f"--destroy-data {name}: no step writes this device; nothing "
                            "was destroyed on it")
        else:
            allowed.add(majmin)
    return allowed, warnings


# ------------------------------------------------------------------ reads found at run time
READ_IN_PLACE = ("block", "file")  # what a read-only job may open outside the scratch dir


def check_reads(jobs: Sequence[FioJob], transport: Transport) -> None:
    """A job built during the run to read what no plan can name (an OSD's device or block
    file, found from the cluster; docs/ceph-osd-read.md): allowed only when fio itself
    refuses any write (`readonly`), the job only reads (no writing rw, trim or unlink), and
    each path it opens is an existing block device or regular file on the host — probed
    through `transport`, there. UserError, one line, for anything else."""
    refusals: list[str] = []
    for job in jobs:
        if "readonly" not in job.options:
            refusals.append(f"job {job.name}: reads in place only with readonly set")
        for pu in job_paths(job):
            if pu.writes or pu.unlink:
                refusals.append(f"job {job.name}: {pu.path}: refusing to write "
                                f"({pu.writes or pu.unlink}): this read opens it in place")
                continue
            kind, _resolved, _majmin = resolve(transport, pu.path)
            if kind not in READ_IN_PLACE:
                refusals.append(f"job {job.name}: {pu.path}: a {kind}, not a block device "
                                "or regular file to read in place")
    if refusals:
        raise UserError("; ".join(dict.fromkeys(refusals)))
