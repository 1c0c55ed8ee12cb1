"""Which paths a step's fio jobs would write, read from its job file (pure).

The target guard (runners/target_guard.py) needs, for every step, each path fio will open
and whether it writes there: the job file's sections with their options (includes followed,
global sections applied), the files each names (filename lists, filename_format,
directory lists, opendir, log prefixes, the section's own name), placed relative to the
step's scratch directory, ${STACKPROBE_DIR}, or absolute. Nothing here touches the system.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from stackprobe.spec.planned import PlannedStep
from stackprobe.kinds.fio.disk_baseline import WRITES as BASELINE_SKIPPED_WRITES
from stackprobe.kinds.fio.fio_job import build_job
from stackprobe.spec.hosts import HostsFile

WORK = "${STACKPROBE_DIR}"  # the step's scratch directory, as a job file names it
# Reads are recognised, not writes: fio also writes for values such as `randwrite,read`,
# so any rw that is not plainly a read counts as a write.
READ_MODES = frozenset({"read", "randread"})
FILE_ENGINES = frozenset({"filecreate", "filedelete", "dircreate", "dirdelete"})
UNLINK_OPTIONS = ("unlink", "unlink_each_loop")
LOG_OPTIONS = ("write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log")
ALIASES = {"readwrite": "rw"}
DEFAULT_FORMAT = "$jobname.$jobnum.$filenum"
MAX_INCLUDE_DEPTH = 8


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
