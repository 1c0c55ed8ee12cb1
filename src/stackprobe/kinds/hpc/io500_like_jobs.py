"""fio job files for the io500-like phases (pure text building, no execution).

The phases and their order follow IO500's: write and create phases first, find, then the
reads, stats and deletes — each phase one fio run, so each has its own raw output and the
find can run between them. What each phase stands for:

- ior-easy-*: one large file per process, sequential `easy_bs` transfers;
- ior-hard-*: every process in ONE shared file, 47008-byte transfers interleaved: process
  i writes transfer k at offset (k × N + i) × 47008 (fio: offset_increment and a skip of
  (N − 1) × 47008 after each transfer) — unaligned, shared, the pattern file systems hate;
  from several clients, N counts every client's processes (`Client`);
- mdtest-easy-*: empty files, each process in its own directory (fio's file engines);
- mdtest-hard-*: 3901-byte files, every process in one shared directory; write creates
  the file and writes it in one go (create_on_open), read opens, reads and closes it.
"""

from __future__ import annotations

from dataclasses import dataclass

from stackprobe.kinds.fio.fio_job import METADATA_OPS, fio_value, metadata_names

HARD_TRANSFER = 47008  # IO500's ior-hard transfer size: bytes, deliberately unaligned
HARD_FILE = 3901  # IO500's mdtest-hard file size

# (phase, kind) in IO500 order; 'find' is not fio
PHASES: tuple[tuple[str, str], ...] = (
    ("ior-easy-write", "bw"), ("mdtest-easy-write", "md"), ("ior-hard-write", "bw"),
    ("mdtest-hard-write", "md"), ("find", "md"), ("ior-easy-read", "bw"),
    ("mdtest-easy-stat", "md"), ("ior-hard-read", "bw"), ("mdtest-hard-stat", "md"),
    ("mdtest-easy-delete", "md"), ("mdtest-hard-read", "md"), ("mdtest-hard-delete", "md"),
)
# the directory (below the step's work directory) each family of phases works in
DIRS = {"ior-easy": "ior-easy", "ior-hard": "ior-hard", "mdtest-easy": "mdtest-easy",
        "mdtest-hard": "mdtest-hard"}
_MD_OPS = {"write": "write", "stat": "stat", "read": "read", "delete": "delete"}


@dataclass(frozen=True)
class Client:
    """One client's place among all the processes of a phase run from several hosts.

    ior-hard's shared file interleaves every process of every client: process p (0 ..
    procs-1, clients in order) writes transfer k at (k × procs + p) × 47008, so a client's
    first process starts at `first` × 47008. Its file and directory names carry `owner`,
    its job names `suffix` (how fio's client mode tells the clients' results apart)."""

    owner: str  # "h1." in file and directory names
    first: int  # its first process's number among all
    procs: int  # all clients' processes
    suffix: str  # "@h1" after the job name


def family(phase: str) -> str:
    """'mdtest-hard-read' -> 'mdtest-hard'."""
    return phase.rsplit("-", 1)[0]


def phase_job(phase: str, spec, work: str, client: Client | None = None) -> str:
    """The fio job file of one fio phase of an io500-like step (`spec`: an Io500LikeStep);
    for one client of several, `client` places its processes among all of them."""
    fam, action = family(phase), phase.rsplit("-", 1)[1]
    jobs = spec.numjobs
    c = client or Client("", 0, jobs, "")
    lines = [f"# stackprobe io500-like phase {phase}", "[global]",
             f"directory={work}/{DIRS[fam]}", f"numjobs={jobs}", "group_reporting=1"]
    if client is not None:  # fio's server prefixes names with the client's address unless
        lines.append("unique_filename=0")  # told not to: the shared file must be one file
    if fam == "ior-easy":
        lines += [f"bs={fio_value(spec.easy_bs.text)}", f"size={fio_value(spec.easy_size.text)}",
                  "ioengine=psync", f"filename_format=ior_file_easy.{c.owner}$jobnum",
                  f"direct={1 if spec.direct else 0}",
                  f"rw={action}"]
        if action == "write":
            lines.append("end_fsync=1")
    elif fam == "ior-hard":
        transfers = spec.hard_transfers
        skip = (c.procs - 1) * HARD_TRANSFER
        span = transfers * c.procs * HARD_TRANSFER - skip  # each job's region, so all fit
        lines += [f"bs={HARD_TRANSFER}", "ioengine=psync", "filename=file",
                  *([f"offset={c.first * HARD_TRANSFER}"] if c.first else []),
                  f"offset_increment={HARD_TRANSFER}", f"size={span}",
                  f"io_size={transfers * HARD_TRANSFER}",
                  f"rw={action}:{skip}" if skip else f"rw={action}"]
        if action == "write":
            lines.append("end_fsync=1")
    else:
        layout = "easy" if fam == "mdtest-easy" else "hard"
        files = spec.md_easy_files if layout == "easy" else spec.md_hard_files
        size = 4096 if layout == "easy" else HARD_FILE  # easy files stay empty (create)
        op = "create" if (layout, action) == ("easy", "write") else _MD_OPS[action]
        lines += [f"nrfiles={files}", f"filesize={size}", f"bs={size}", "openfiles=1",
                  "file_service_type=sequential",
                  f"filename_format={metadata_names(layout, c.owner)}", *METADATA_OPS[op]]
    lines += ["", f"[{phase}{c.suffix}]"]
    return "\n".join(lines) + "\n"


def find_argv(work: str, jobs: int, timestamp: str) -> list[str]:
    """The find phase: one `find` per top directory, `jobs` at a time (xargs -P), looking
    for what IO500's find looks for: files newer than the timestamp, of mdtest-hard's size,
    with '01' in their name. Matches are printed, one per line."""
    return ["sh", "-c",
            'cd "$1" && ls -d ior-easy ior-hard mdtest-easy/* mdtest-hard/* 2>/dev/null | '
            'xargs -P "$2" -I{} find {} -type f -newer "$3" -size "$4"c -name "*01*"',
            "find-phase", work, str(jobs), timestamp, str(HARD_FILE)]
