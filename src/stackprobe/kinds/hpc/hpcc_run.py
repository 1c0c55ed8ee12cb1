"""One hpcc run on one host under Open MPI, for the `hpl` and `stream` steps.

Why these steps: hpcc has no switch to run some of its tests (its io.c sets every Run*
flag), so a run is always the whole HPC Challenge — RandomAccess, PTRANS, DGEMM, STREAM,
FFT, b_eff, and HPL last — with every test sized from HPL's largest N. The steps differ in
the figure they stand for and the check that decides them.

What a run does, every command kept in the step directory:

1. `host-size`: the host's CPUs (`nproc`: the processes, unless set), its memory, whether
   it runs as root, and where OpenBLAS is. Debian's hpcc links `libblas.so.3`, which the
   alternatives system points at whichever BLAS was installed with the highest priority;
   stackprobe never changes that, it puts OpenBLAS's own directory
   (`/usr/lib/<triplet>/openblas-{pthread,openmp,serial}`) first on LD_LIBRARY_PATH of the
   hpcc processes, and asks the loader (`ldd` under the same LD_LIBRARY_PATH) which
   libblas.so.3 it resolved: that file names the BLAS in the record ("openblas-pthread
   0.3.21", "reference 3.11.0").
2. hpccinf.txt written (or the suite's, unchanged) in the step's work directory and kept
   in the step directory.
3. `mpirun -np N hpcc` there, one OpenBLAS thread per process (OPENBLAS_NUM_THREADS=1,
   OMP_NUM_THREADS=1: every core already has its process); `--allow-run-as-root` only
   when the host's user is root (Open MPI refuses root otherwise).
4. `hpccoutf.txt` read back and kept; only a run that reached hpcc's summary gives a
   record. A run killed or cut short gives none: the step fails naming where the file
   ends, and the file stays in the step directory (`stackprobe ingest` reads it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackprobe.kinds.context import StepContext, failure_message
from stackprobe.kinds.hpc.hpcc_inf import HpccSizes, check_given, render, sizes
from stackprobe.parsers.hpc.hpcc_out import parse_hpcc
from stackprobe.schema.hpc_records import HpccRecord
from stackprobe.spec.tools import Tool, dpkg_version
from stackprobe.transport.base import CommandResult, Transport

HPCC = Tool("hpcc", "hpcc", dpkg_version("hpcc"), "HPL, STREAM and the HPC Challenge tests")
MPIRUN = Tool("mpirun", "openmpi-bin", ("mpirun", "--version"), "starts hpcc's MPI processes")
# not a tool (no executable): the library hpcc is run with when a host has it
LIBRARIES = ("libopenblas0-pthread",)
MISSING = "install hpcc openmpi-bin (apt-get install -y hpcc openmpi-bin libopenblas0-pthread)"

INF = "hpccinf.txt"
OUT = "hpccoutf.txt"
_PROBE = r"""
command -v hpcc >/dev/null && command -v mpirun >/dev/null || { echo missing; exit 0; }
echo "cpus $(nproc)"
echo "uid $(id -u)"
awk '/^MemTotal:/ {print "mem_kib", $2}' /proc/meminfo
for d in /usr/lib/*/openblas-pthread /usr/lib/*/openblas-openmp /usr/lib/*/openblas-serial; do
  if [ -e "$d/libblas.so.3" ]; then echo "openblas $d"; break; fi
done
"""
# the files the loader resolves for hpcc's BLAS: Debian's OpenBLAS libblas.so.3 is a small
# library of its own that loads libopenblas.so.0, whose file name carries flavour and version
_RESOLVE = ('ldd "$(command -v hpcc)" | awk \'$1 == "libblas.so.3" || $1 == "libopenblas.so.0" '
            '{print $3}\' | xargs -r readlink -f')
_OPENBLAS_FILE = re.compile(r"libopenblas([po]?)-r(\d[\w.]*)\.so")
_REFERENCE_FILE = re.compile(r"/blas/libblas\.so\.(\d[\w.]*)$")


@dataclass
class HostFacts:
    cpus: int
    memory_bytes: int
    root: bool
    openblas_dir: str | None


class HpccFailed(Exception):
    """Why this run gives no record, in one line."""


class HpccAbsent(HpccFailed):
    """hpcc or mpirun is not on the host (the `hpl`/`stream` fallback's cue)."""


def blas_name(resolved: str) -> str:
    """The BLAS the loader's files are: 'openblas-pthread 0.3.21', 'reference 3.11.0'."""
    if m := _OPENBLAS_FILE.search(resolved):
        flavour = {"p": "pthread", "o": "openmp", "": "serial"}[m.group(1)]
        return f"openblas-{flavour} {m.group(2)}"
    first = resolved.strip().splitlines()[0] if resolved.strip() else ""
    if m := _REFERENCE_FILE.search(first):
        return f"reference {m.group(1)}"
    return first.rsplit("/", 1)[-1] or "unknown"


def host_facts(ctx: StepContext, on: Transport | None = None) -> HostFacts:
    where = (on or ctx.transport).host
    res = ctx.execute("host-size" if on is None else f"host-size-{where}", ["sh", "-c", _PROBE], on=on)
    if not res.ok:
        raise HpccFailed(failure_message(res, "sh"))
    if res.stdout.strip() == "missing":
        raise HpccAbsent(f"hpcc or mpirun not found on {where}: {MISSING}")
    facts = dict(line.split(" ", 1) for line in res.stdout.splitlines() if " " in line)
    try:
        return HostFacts(cpus=int(facts["cpus"]), memory_bytes=int(facts["mem_kib"]) * 1024,
                         root=facts["uid"].strip() == "0", openblas_dir=facts.get("openblas"))
    except (KeyError, ValueError) as exc:
        raise HpccFailed(f"{where}: could not read the host's CPUs and memory: {exc}") from exc


def run_sizes(spec, facts: HostFacts, given: str | None) -> tuple[HpccSizes, str]:
    """The sizes and the hpccinf.txt text of the run."""
    if given is not None:
        try:
            read = check_given(given)
        except ValueError as exc:
            raise HpccFailed(f"{spec.hpccinf}: {exc}") from exc
        p, q = read.grids[0]
        return HpccSizes(read.largest_n, read.nbs[0], p, q, read.threshold), given
    procs = processes(spec, facts)
    try:
        chosen = sizes(procs, facts.memory_bytes, n=spec.n, nb=spec.nb, p=spec.p, q=spec.q,
                       memory_fraction=spec.memory_fraction)
    except ValueError as exc:
        raise HpccFailed(str(exc)) from exc
    return chosen, render(chosen)


def processes(spec, facts: HostFacts) -> int:
    if spec.processes != "auto":
        return int(spec.processes)
    if spec.p is not None and spec.q is not None:
        return spec.p * spec.q
    return facts.cpus


def mpirun_argv(procs: int, root: bool, bind: str = "core") -> list[str]:
    """`bind`: Open MPI's --bind-to. Its default pins each process to a core, counted from
    the first: right on a server, wrong on hosts that share cores (lab namespace hosts, VMs
    on one hypervisor core set), whose processes would all be pinned to the same core."""
    argv = ["mpirun", "-np", str(procs), "--bind-to", bind]
    if root:
        argv.append("--allow-run-as-root")
    for name in ("LD_LIBRARY_PATH", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        argv += ["-x", name]
    return [*argv, "hpcc"]


def blas_env(ctx: StepContext, facts: HostFacts, on: Transport | None = None) -> tuple[dict[str, str], str]:
    """The hpcc processes' environment (OpenBLAS first, one thread each) and the BLAS it
    makes the loader take, by name."""
    env = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "LD_LIBRARY_PATH": ""}
    if facts.openblas_dir is not None and ctx.step.spec.blas == "openblas":
        env["LD_LIBRARY_PATH"] = facts.openblas_dir
    blas = ctx.execute("blas", ["env", f"LD_LIBRARY_PATH={env['LD_LIBRARY_PATH']}",
                                "sh", "-c", _RESOLVE], on=on)
    return env, blas_name(blas.stdout) if blas.ok else "unknown"


def write_inf(ctx: StepContext, work: str, text: str, on: Transport | None = None) -> None:
    """hpccinf.txt in `work` (made), any hpccoutf.txt of an earlier run there removed."""
    write = ctx.execute("hpccinf", ["sh", "-c", f'mkdir -p "$1" && cd "$1" && rm -f {OUT} && '
                                    f'printf %s "$2" > {INF}', "sh", work, text], on=on)
    if not write.ok:
        raise HpccFailed(failure_message(write, "sh"))


def read_record(ctx: StepContext, result: CommandResult, work: str,
                on: Transport | None = None) -> HpccRecord:
    """hpccoutf.txt read back and kept; the run's record, or HpccFailed saying why none."""
    out = ctx.execute("hpccoutf", ["cat", f"{work}/{OUT}"], on=on)
    text = out.stdout if out.ok else ""
    if text:
        ctx.run_dir.write_text(ctx.step_dir / OUT, text)
    kept = f"{ctx.step_dir.name}/{OUT}"
    if result.interrupted:
        raise HpccFailed("stopped by the user")
    if not result.ok:
        raise HpccFailed(f"{failure_message(result, 'mpirun')}; {_where(text)} "
                         f"(kept as {kept}, no figure taken)")
    try:
        records = parse_hpcc(text)
    except ValueError as exc:
        raise HpccFailed(f"{exc} (kept as {kept})") from exc
    record = records[-1]
    if not record.complete:
        raise HpccFailed(f"hpcc exited 0 but {_where(text)} (kept as {kept}, no figure taken)")
    return record


def run_hpcc(ctx: StepContext, given: str | None) -> tuple[HpccRecord, HpccSizes]:
    """Run hpcc once on the context's host; its record (host, BLAS set) and sizes."""
    spec = ctx.step.spec
    facts = host_facts(ctx)
    chosen, inf_text = run_sizes(spec, facts, given)
    ctx.run_dir.write_text(ctx.step_dir / INF, inf_text)
    env, blas_used = blas_env(ctx, facts)
    work = str(ctx.work_dir)
    write_inf(ctx, work, inf_text)
    procs = processes(spec, facts) if given is None else chosen.p * chosen.q
    result = ctx.execute("hpcc", mpirun_argv(procs, facts.root, spec.bind), cwd=ctx.work_dir,
                         env=env)
    record = read_record(ctx, result, work)
    record.host = ctx.transport.host
    record.blas = blas_used
    return record, chosen


def _where(text: str) -> str:
    """Where an hpccoutf.txt stops: 'hpccoutf.txt ends in the HPL section (no summary)'."""
    sections = re.findall(r"^\s*Begin of (\w+) section\.", text, re.MULTILINE)
    if not text.strip():
        return f"no {OUT} written"
    if not sections:
        return f"{OUT} ends before the first test"
    return f"{OUT} ends in the {sections[-1]} section (no summary)"
