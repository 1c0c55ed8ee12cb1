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
into findings is a pure function. Steps on --hosts cannot be probed from here yet: they may
read devices under /dev but not write them.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from stackprobe.errors import UserError
from stackprobe.plan.steps import PlannedStep
from stackprobe.runners.disk_baseline import WRITES as BASELINE_SKIPPED_WRITES
from stackprobe.runners.fio_job import build_job
from stackprobe.suite.hosts import HostsFile
from stackprobe.transport.base import CommandResult, Transport

WORK = "${STACKPROBE_DIR}"  # the step's scratch directory, as a job file names it
# Reads are recognised, not writes: fio also writes for values such as `randwrite,read`,
# so any rw that is not plainly a read counts as a write.
READ_MODES = frozenset({"read", "randread"})
FILE_ENGINES = frozenset({"filecreate", "filedelete", "dircreate", "dirdelete"})
UNLINK_OPTIONS = ("unlink", "unlink_each_loop")
LOG_OPTIONS = ("write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log")
ALIASES = {"readwrite": "rw"}
DEFAULT_FORMAT = "$jobname.$jobnum.$filenum"
HARMLESS_CHAR_DEVICES = ("/dev/null",)
MAX_INCLUDE_DEPTH = 8
PROBE_TIMEOUT_S = 60.0


class JobFileError(ValueError):
    """A job file the guard cannot check (an include it cannot follow)."""


# ------------------------------------------------------------------ fio job files (pure)
@dataclass(frozen=True)
class Setting:
    value: str
    where: str  # "job file j.fio line 4: filename=x" or "option filename=x"


@dataclass
class FioJob:
    name: str
    options: dict[str, Setting] = field(default_factory=dict)


def job_lines(text: str, source: str | None, read: Callable[[str], str] | None = None,
              depth: int = 0) -> list[tuple[str, str]]:
    """(line, where) for each meaningful line; `include FILE` lines inlined (absolute paths
    only: fio resolves relative ones against its working directory, empty here)."""
    out: list[tuple[str, str]] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = re.split(r"[;#]", raw, maxsplit=1)[0].strip()  # fio cuts at ; and # too
        if not line:
            continue
        where = f"job file {source} line {n}" if source else "option"
        if re.match(r"include\s", line):
            target = line[len("include"):].strip()
            if read is None or not target.startswith("/") or depth >= MAX_INCLUDE_DEPTH:
                raise JobFileError(f"{where}: include {target}: only an absolute path can be "
                                   "checked (and followed by fio)")
            out += job_lines(read(target), target, read, depth + 1)
            continue
        out.append((line, where))
    return out


def split_option(line: str) -> tuple[str, str]:
    key, _, value = line.partition("=")
    key = key.strip().lower()
    return ALIASES.get(key, key), value.strip()


def parse_jobs(lines: Iterable[tuple[str, str]]) -> list[FioJob]:
    """Jobs with their effective options: each [global] adds defaults for the jobs after it."""
    defaults: dict[str, Setting] = {}
    jobs: list[FioJob] = []
    current: FioJob | None = None
    for line, where in lines:
        if line.startswith("[") and line.endswith("]"):
            name = line[1:-1].strip()
            current = None if name == "global" else FioJob(name, dict(defaults))
            if current is not None:
                jobs.append(current)
            continue
        key, value = split_option(line)
        (defaults if current is None else current.options)[key] = Setting(value, f"{where}: {line}")
    return jobs


def split_list(value: str) -> list[str]:
    """fio's ':'-separated list (filename, directory); '\\:' is a literal colon."""
    parts = re.split(r"(?<!\\):", value)
    return [p.replace("\\:", ":") for p in parts if p]


def write_reason(options: dict[str, Setting]) -> str | None:
    """Why the job writes what it opens (None: it only reads)."""
    rw = options.get("rw")  # fio's default: read
    if rw is not None and rw.value.split(":")[0].strip() not in READ_MODES:
        return f"rw={rw.value}"
    trim = options.get("trim_percentage")
    if trim is not None and trim.value.strip().rstrip("%") not in ("", "0"):
        return f"trim_percentage={trim.value}"
    engine = options.get("ioengine")
    if engine is not None and engine.value in FILE_ENGINES:
        return f"ioengine={engine.value}"
    return None


def unlinks(options: dict[str, Setting]) -> str | None:
    for key in UNLINK_OPTIONS:
        s = options.get(key)
        if s is not None and s.value.strip().lower() not in ("0", "false", "no"):
            return f"{key}={s.value or 1}"
    return None


@dataclass(frozen=True)
class PathUse:
    """A path one fio job opens, as fio will see it (${STACKPROBE_DIR} kept)."""

    path: str
    job: str
    where: str
    writes: str | None  # why the job writes it (None: read only)
    unlink: str | None = None


def _fill(template: str, job: str) -> str:
    return re.sub(r"\$(jobnum|filenum|clientuid)\b", "0", template.replace("$jobname", job))


def job_paths(job: FioJob) -> list[PathUse]:
    """Every file, directory and log prefix the job names."""
    o = job.options
    writes, unlink = write_reason(o), unlinks(o)
    directory = o.get("directory")
    dirs = split_list(directory.value) if directory else [""]
    if "filename" in o:
        names, named_by = split_list(o["filename"].value), o["filename"].where
    else:
        fmt = o.get("filename_format")
        names = [_fill(fmt.value if fmt else DEFAULT_FORMAT, job.name)]
        named_by = fmt.where if fmt else f"job [{job.name}] (fio's default file name)"
    out: list[PathUse] = []
    for d in dirs:
        for name in names:
            # the scratch directory itself is never the culprit: name only the file setting
            where = f"{directory.where} + {named_by}" if directory and d != WORK else named_by
            if d:
                out.append(PathUse(f"{d.rstrip('/')}/{name}", job.name, where, writes, unlink))
            if not d or name.startswith("/"):  # fio versions differ on absolute names
                out.append(PathUse(name, job.name, named_by, writes, unlink))
    for key in ("opendir", *LOG_OPTIONS):
        if key in o:
            out.append(PathUse(o[key].value, job.name, o[key].where, writes, unlink))
    return out


def place(path: str) -> str:
    """'inside' the step's scratch directory, 'outside' it (climbs out with ..),
    'absolute' (to be probed), or 'unknown' (an environment variable fio would expand)."""
    rest = path
    if rest == WORK or rest.startswith(WORK + "/"):
        rest = rest[len(WORK):].lstrip("/") or "."
    elif rest.startswith("/"):
        return "unknown" if "${" in rest else "absolute"
    if "${" in rest:
        return "unknown"
    norm = posixpath.normpath(rest)
    return "outside" if norm == ".." or norm.startswith("../") else "inside"


# ------------------------------------------------------------------ the plan's targets (pure)
@dataclass(frozen=True)
class Use:
    """An absolute path outside the scratch directory that a step's job opens."""

    path: str
    step: str
    use: PathUse
    remote: bool


def step_jobs(step: PlannedStep, read: Callable[[str], str]) -> list[FioJob]:
    """The fio jobs of a fio/slo step: the user's job file, or the one stackprobe builds
    (its directory is the step's scratch directory, written as ${STACKPROBE_DIR})."""
    p = step.params
    if "job_file" in p:
        return parse_jobs(job_lines(read(p["job_file"]), p["job_file"], read))
    engine = {"ioengine": "rbd"} if p.get("target") == "rbd" else None
    text = build_job(step.name, p, directory=None if engine else WORK, engine=engine)
    return parse_jobs(job_lines(text, None))


def plan_uses(plan: Sequence[PlannedStep], read: Callable[[str], str]
              ) -> tuple[list[Use], list[str]]:
    """Absolute paths the plan's fio jobs open, and refusals of paths that leave the
    scratch directory (no probing needed)."""
    uses: list[Use] = []
    bad: dict[tuple[str, str, str], list[str]] = {}  # (step, where, outside|unknown) → paths
    refusals: list[str] = []
    for step in plan:
        if step.kind not in ("fio", "slo"):
            continue
        try:
            jobs = step_jobs(step, read)
        except (JobFileError, OSError) as exc:
            refusals.append(f"step {step.id}: {exc}")
            continue
        for job in jobs:
            for pu in job_paths(job):
                where = place(pu.path)
                if where == "absolute":
                    uses.append(Use(pu.path, step.id, pu, bool(step.hosts)))
                elif where != "inside":
                    bad.setdefault((step.id, pu.where, where), []).append(pu.path)
    for (step_id, where, why), paths in bad.items():
        refusals.append(_path_refusal(step_id, where, why, paths))
    return uses, refusals


def _path_refusal(step_id: str, where: str, why: str, paths: list[str]) -> str:
    shown = ", ".join(dict.fromkeys(paths))
    if why == "outside":
        return (f"step {step_id}: {where}: leaves the step's scratch directory ({shown}) — use "
                f"a relative path below it or {WORK}/..., or a raw device")
    return (f"step {step_id}: {where}: only {WORK} is known before the run ({shown}) — use it "
            "or a relative path")


def baseline_refusals(plan: Sequence[PlannedStep], hosts: HostsFile | None) -> list[str]:
    """disk_baseline reads declared devices in place and skips them for write/randwrite;
    any other writing rw (only possible in a hand-made plan) would write them: refused."""
    out = []
    for step in plan:
        if step.kind != "disk_baseline" or hosts is None:
            continue
        rw = str(step.params.get("rw", "read"))
        if rw in BASELINE_SKIPPED_WRITES or rw in READ_MODES:
            continue
        devices = [d for h in hosts.hosts if h.name in step.hosts for d in h.devices]
        if devices:
            out.append(f"step {step.id}: disk_baseline rw={rw} would write {', '.join(devices)}"
                       " — baselines only read devices")
    return out


# ------------------------------------------------------------------ tool output (pure)
@dataclass(frozen=True)
class Node:
    """One lsblk row: the device, or one of its partitions or holders."""

    name: str
    path: str
    majmin: str
    type: str
    fstype: str | None
    uuid: str | None
    pttype: str | None
    mountpoints: tuple[str, ...]
    depth: int


def parse_lsblk(text: str) -> list[Node]:
    """`lsblk -J -o NAME,PATH,MAJ:MIN,TYPE,PKNAME,FSTYPE,UUID,PTTYPE,MOUNTPOINTS DEV`,
    flattened: the device first, then its children (partitions, holders) depth first."""
    out: list[Node] = []

    def walk(items: list[dict], depth: int) -> None:
        for d in items:
            mounts = tuple(m for m in (d.get("mountpoints") or [d.get("mountpoint")]) if m)
            out.append(Node(d["name"], d.get("path") or f"/dev/{d['name']}", d.get("maj:min", ""),
                            d.get("type", ""), d.get("fstype"), d.get("uuid"), d.get("pttype"),
                            mounts, depth))
            walk(d.get("children", []), depth + 1)

    walk(json.loads(text)["blockdevices"], 0)
    return out


def parse_blkid(text: str) -> dict[str, str]:
    """`blkid -p -o export DEV`: KEY=value lines (nothing when no signature: exit 2)."""
    tags = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            tags[key.strip()] = value.strip()
    return tags


def parse_wipefs_json(text: str) -> list[dict[str, str]]:
    """`wipefs -n -J DEV` (util-linux >= 2.29); empty text: no signature."""
    if not text.strip():
        return []
    return [{k: v for k, v in s.items() if v is not None}
            for s in json.loads(text).get("signatures", [])]


def parse_wipefs_table(text: str) -> list[dict[str, str]]:
    """`wipefs -n DEV`, the table older util-linux prints: DEVICE OFFSET TYPE UUID LABEL."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines or not lines[0].startswith("DEVICE"):
        return []
    out = []
    for line in lines[1:]:
        cols = line.split()
        row = dict(zip(("device", "offset", "type", "uuid", "label"), cols))
        out.append(row)
    return out


@dataclass(frozen=True)
class Mount:
    majmin: str
    mountpoint: str
    source: str


def parse_mountinfo(text: str) -> list[Mount]:
    """/proc/PID/mountinfo lines, optionally prefixed `/proc/PID/mountinfo:` (grep -H)."""
    out = []
    for line in text.splitlines():
        if line.startswith("/proc/") and "/mountinfo:" in line:
            line = line.split("/mountinfo:", 1)[1]
        fields = line.split()
        if " - " not in line or len(fields) < 10:
            continue
        after = line.split(" - ", 1)[1].split()
        out.append(Mount(fields[2], _unescape(fields[4]), _unescape(after[1]) if len(after) > 1
                         else ""))
    return out


def _unescape(text: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text)


def parse_namespaces(text: str) -> list[str]:
    """`stat -L -c '%i %n' /proc/[0-9]*/ns/mnt`: one PID per mount namespace."""
    seen: dict[str, str] = {}
    for line in text.splitlines():
        inode, _, path = line.partition(" ")
        m = re.match(r"/proc/(\d+)/ns/mnt$", path.strip())
        if m and inode not in seen:
            seen[inode] = m.group(1)
    return list(seen.values())


def parse_fd_scan(text: str) -> list[tuple[int, str]]:
    """`stat -L -c '%t:%T %n'` of the block devices in /proc/*/fd: (pid, major:minor)."""
    out = []
    for line in text.splitlines():
        m = re.match(r"([0-9a-f]+):([0-9a-f]+) /proc/(\d+)/fd/\d+$", line.strip())
        if m:
            out.append((int(m.group(3)), f"{int(m.group(1), 16)}:{int(m.group(2), 16)}"))
    return out


def parse_ps(text: str) -> dict[int, str]:
    """`ps -o pid=,comm= -p PIDS`."""
    out = {}
    for line in text.splitlines():
        pid, _, comm = line.strip().partition(" ")
        if pid.isdigit():
            out[int(pid)] = comm.strip()
    return out


def parse_swaps(text: str) -> list[str]:
    return [ln.split()[0] for ln in text.splitlines()[1:] if ln.strip()]


def parse_backing(text: str) -> list[tuple[str, str]]:
    """`grep -H '' /sys/block/loop*/loop/backing_file`: (loop device, its backing file)."""
    out = []
    for line in text.splitlines():
        m = re.match(r"/sys/block/([^/]+)/loop/backing_file:(.*)$", line)
        if m:
            out.append((m.group(1), m.group(2).strip()))
    return out


def parse_holders(text: str) -> list[tuple[str, str]]:
    """`NAME HOLDER` lines from /sys/class/block/NAME/holders/."""
    return [(a, b) for a, _, b in (ln.strip().partition(" ") for ln in text.splitlines()) if b]


def parse_stat(text: str) -> tuple[str, str]:
    """`stat -L -c '%F|%t|%T' PATH`: (kind 'block'|'char'|'file'|..., 'major:minor')."""
    kind, _, rest = text.strip().partition("|")
    major, _, minor = rest.partition("|")
    short = {"block special file": "block", "character special file": "char",
             "directory": "directory"}.get(kind, "file")
    majmin = f"{int(major, 16)}:{int(minor, 16)}" if short in ("block", "char") else ""
    return short, majmin


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
def guard_targets(plan: Sequence[PlannedStep], transport: Transport,
                  destroy_data: Sequence[str] = (), hosts: HostsFile | None = None,
                  read: Callable[[str], str] | None = None) -> list[str]:
    """Check every path the plan's fio jobs open; return warnings for the run (devices
    written with --destroy-data, --destroy-data naming no written device). UserError, one
    line naming every refused path and what was found, before anything is written."""
    reader = read or (lambda p: Path(p).read_text(encoding="utf-8"))
    uses, refusals = plan_uses(plan, reader)
    refusals += baseline_refusals(plan, hosts)
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
