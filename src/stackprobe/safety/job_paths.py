"""Which paths a step's fio jobs would write, read from its job file (pure).

The target guard (safety/guard.py) needs, for every step, each path fio will open
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


# ------------------------------------------------------------------ a step's targets (pure)
@dataclass(frozen=True)
class Use:
    """An absolute path outside the scratch directory that a step's job opens."""

    path: str
    step: str
    use: PathUse
    remote: bool


def plan_uses_of(step: PlannedStep, jobs: Sequence[FioJob]) -> tuple[list[Use], list[str]]:
    """Absolute paths a step's fio jobs open (to be probed), and refusals of paths that
    leave the scratch directory (no probing needed)."""
    uses: list[Use] = []
    bad: dict[tuple[str, str], list[str]] = {}  # (where, outside|unknown) → paths
    for job in jobs:
        for pu in job_paths(job):
            where = place(pu.path)
            if where == "absolute":
                uses.append(Use(pu.path, step.id, pu, bool(step.hosts)))
            elif where != "inside":
                bad.setdefault((pu.where, where), []).append(pu.path)
    return uses, [_path_refusal(step.id, where, why, paths) for (where, why), paths in bad.items()]


def _path_refusal(step_id: str, where: str, why: str, paths: list[str]) -> str:
    shown = ", ".join(dict.fromkeys(paths))
    if why == "outside":
        return (f"step {step_id}: {where}: leaves the step's scratch directory ({shown}) — use "
                f"a relative path below it or {WORK}/..., or a raw device")
    return (f"step {step_id}: {where}: only {WORK} is known before the run ({shown}) — use it "
            "or a relative path")
