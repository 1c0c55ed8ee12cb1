"""The `io500` kind: the real IO500, IOR or mdtest binaries under the user's MPI launcher.

None of the three is packaged for Debian: the user builds them and names the binary (or
puts it on PATH); a missing one fails the step in one line saying so, before anything runs.

tool io500: a config.ini (runners/io500_config.py) is kept in the step directory and run
as `LAUNCHER io500 config.ini`. io500 writes its data below the data directory (the
step's `directory:`, else data/ in the step's scratch directory) and its result files to
results/ in the step's scratch directory, both without a timestamp suffix. Those files
(result.txt, result_summary.txt, each phase's output) are copied into results/ of the
step directory and parsed: result.txt, the more detailed, when it parses, else
result_summary.txt, else the summary lines io500 also prints on stdout (the result files
are written by rank 0, which may run on another host than this one). The score is
recomputed from the phases and any difference from the reported one is a warning.

tool ior / mdtest: `LAUNCHER ior|mdtest ARGS` run in the data directory (relative paths in
ARGS, and IOR's and mdtest's default file names, land there); their stdout is parsed.

Striping (`stripe:`, Lustre) is set on subdirectories of the data directory before each
run (runners/lustre.py); io500's own data goes to ior-easy/, ior-hard/, mdtest-easy/ and
mdtest-hard/ there.

Cleanup removes the step's scratch directory only. A user's `directory:` is never removed
or emptied by stackprobe: io500 deletes its own data at the end of a run (and then removes
the data directory itself if that left it empty); IOR and mdtest keep what ARGS tell them
to keep (-k, or no -r), and that stays.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Literal

from pydantic import Field

from stackprobe.kinds.context import StepContext, StepOutcome, failure_message, remove_work_dir
from stackprobe.kinds.contract import Kind
from stackprobe.kinds.hpc.io500_config import (
    binary_of,
    io500_argv,
    io500_config,
    launcher_of,
    tool_argv,
    tool_name,
)
from stackprobe.kinds.hpc.rows import io500_rows
from stackprobe.kinds.lustre import Stripe, apply_stripes, found_on_path, make_dir
from stackprobe.schema.records import Io500Record, IorRecord, MdtestRecord, Record
from stackprobe.spec.fields import Duration, Scalar
from stackprobe.spec.steps import MeasuredSpec


class Io500Step(MeasuredSpec):
    """The real IO500 (or IOR, or mdtest) binaries under the user's MPI launcher.

    tool io500: a config.ini is generated (datadir, resultdir, stonewall time, and any
    `settings` per section), run as `LAUNCHER io500 config.ini`, and its result files are
    ingested with the score recomputed. tool ior / mdtest: `LAUNCHER ior ARGS...` and its
    output parsed. Not packaged for Debian: the binaries must be installed by the user."""

    kind: Literal["io500"]
    tool: Literal["io500", "ior", "mdtest"] = "io500"
    binary: str | None = None  # path of the binary; default: the tool's name on PATH
    launcher: list[str] = Field(default_factory=lambda: ["mpirun", "-np", "2"])
    directory: str | None = None  # data directory; default: the step's scratch directory
    stonewall: Duration = Duration.of("300s")  # io500 [global] stonewall time (300 s for a valid run)
    settings: dict[str, dict[str, Scalar]] = Field(default_factory=dict)  # ini section -> key -> value
    args: list[str] = Field(default_factory=list)  # ior / mdtest arguments
    stripe: dict[str, Stripe] = Field(default_factory=dict)  # data subdirectory -> striping

CONFIG_FILE = "config.ini"
RESULTS = "results"  # io500's result directory (scratch) and its copy in the step directory
DATA = "data"  # the data directory in the scratch directory, without `directory:`
RESULT_INI = "result.txt"
RESULT_SUMMARY = "result_summary.txt"
SOURCES = {"io500": "github.com/IO500/io500", "ior": "github.com/hpc/ior",
           "mdtest": "github.com/hpc/ior"}


def data_dir(ctx: StepContext) -> Path:
    """Where the tool writes its test data: the step's `directory:`, else the scratch."""
    directory = ctx.step.spec.directory
    return Path(directory) if directory else ctx.work_dir / DATA


def result_dir(ctx: StepContext) -> Path:
    """Where io500 writes its result files (the step's scratch directory)."""
    return ctx.work_dir / RESULTS


def not_found(tool: str, binary: str) -> str:
    where = f"at {binary}" if "/" in binary else "on PATH"
    return (f"{tool} not found {where}: not packaged for Debian; build it ({SOURCES[tool]}) "
            "and set `binary:`")


class Io500Runner:
    def __init__(self) -> None:
        # striping warnings from prepare, by context, for run's outcome
        self._pending: dict[int, list[str]] = {}

    def prepare(self, ctx: StepContext) -> None:
        spec: Io500Step = ctx.step.spec
        tool = tool_name(spec)
        data = data_dir(ctx)
        make_dir(ctx, data, "mkdir-data")
        self._pending[id(ctx)] = apply_stripes(ctx, data, spec.stripe)
        if tool != "io500":
            return
        results = result_dir(ctx)
        shutil.rmtree(results, ignore_errors=True)  # ours: no earlier repetition's files
        results.mkdir(parents=True)
        text = io500_config(spec, str(data), str(results))
        if ctx.run_dir.write_text(ctx.step_dir / CONFIG_FILE, text):  # kept redacted
            (ctx.work_dir / CONFIG_FILE).write_text(text, encoding="utf-8")  # io500 reads this

    def run(self, ctx: StepContext) -> StepOutcome:
        spec: Io500Step = ctx.step.spec
        warnings = self._pending.pop(id(ctx), [])
        tool = tool_name(spec)
        binary = binary_of(spec)
        if not found_on_path(ctx, binary):
            return StepOutcome("failed", error=not_found(tool, binary), warnings=warnings)
        launcher = launcher_of(spec)
        if launcher and not found_on_path(ctx, launcher[0]):
            return StepOutcome("failed", error=f"{launcher[0]} not found on PATH: install an "
                               "MPI (apt-get install -y openmpi-bin) or set `launcher:`",
                               warnings=warnings)
        if tool == "io500":
            config = ctx.work_dir / CONFIG_FILE
            if not config.is_file():
                config = ctx.step_dir / CONFIG_FILE
            result = ctx.execute("io500", io500_argv(spec, str(config)), cwd=ctx.step_dir)
            records, problem = self._io500_records(ctx, result.stdout, warnings)
        else:
            result = ctx.execute(tool, tool_argv(spec), cwd=data_dir(ctx))
            records, problem = _tool_records(tool, result.stdout)
        if result.interrupted:
            return StepOutcome.stopped(records, warnings)
        if not result.ok:
            return StepOutcome("failed", records, failure_message(result, tool),
                               warnings)
        if problem is not None:
            return StepOutcome("failed", records, problem, warnings)
        return StepOutcome("ok", records, None, warnings)

    def cleanup(self, ctx: StepContext) -> None:
        """The step's scratch directory (its data without `directory:`, io500's result
        files); a user's `directory:` is left as it is."""
        self._pending.pop(id(ctx), None)
        remove_work_dir(ctx)

    @staticmethod
    def _io500_records(ctx: StepContext, stdout: str,
                       warnings: list[str]) -> tuple[list[Record], str | None]:
        """io500's result files copied into the step directory and parsed, the score
        recomputed; (records, why there are none)."""
        from stackprobe.analysis.io500_score import recompute
        from stackprobe.parsers.hpc.io500_result import parse_io500

        results = result_dir(ctx)
        kept = ctx.step_dir / RESULTS
        texts: dict[str, str] = {}
        if results.is_dir():
            for src in sorted(f for f in results.rglob("*") if f.is_file()):
                dest = kept / src.relative_to(results)
                dest.parent.mkdir(parents=True, exist_ok=True)
                ctx.run_dir.copy_in(src, dest)
                if src.parent == results and src.name in (RESULT_INI, RESULT_SUMMARY):
                    texts[src.name] = src.read_text(encoding="utf-8", errors="replace")
        sources = [(f"{RESULTS}/{name}", texts[name]) for name in (RESULT_INI, RESULT_SUMMARY)
                   if name in texts]
        sources.append(("io500's stdout", stdout))
        problems = []
        for where, text in sources:
            try:
                records = parse_io500(text)
            except ValueError as exc:
                problems.append(f"{where}: {exc}")
                continue
            if not records:
                continue
            if problems:
                warnings.append(f"{'; '.join(problems)}: {where} read instead")
            if where == "io500's stdout" and not texts:
                warnings.append(f"io500 wrote no result files in {results} (rank 0 runs on "
                                "another host?): the summary on its stdout was read")
            out: list[Record] = []
            for parsed in records:
                rec = recompute(parsed)
                rec.host = rec.host or ctx.transport.host
                warnings.extend(f"io500 score: {m}" for m in rec.mismatches)
                out.append(rec)
            return out, None
        return [], "io500 printed no result" + (f" ({'; '.join(problems)})" if problems else "")


def _tool_records(tool: str, stdout: str) -> tuple[list[Record], str | None]:
    """IOR's or mdtest's stdout parsed; (records, why there are none)."""
    if tool == "ior":
        from stackprobe.parsers.hpc.ior_text import parse_ior as parse
    else:
        from stackprobe.parsers.hpc.mdtest_text import parse_mdtest as parse
    if not stdout.strip():
        return [], f"{tool} printed no result"
    try:
        records: list[Record] = list(parse(stdout))
    except ValueError as exc:
        text = str(exc)
        return [], text if text.lower().startswith(tool) else f"{tool} output: {text}"
    if not records:
        return [], f"{tool} printed no result"
    return records, None


class Io500(Kind):
    name = "io500"
    spec = Io500Step
    layer = "client"
    family = "hpc"
    files_on_target = True
    tools = ()  # the user's own IO500/IOR/mdtest build: the runner checks for it
    records = (Io500Record, IorRecord, MdtestRecord)
    place_fields = ("directory",)

    def title(self, spec: Io500Step, name):
        return f"IO500 ({spec.tool}, real binaries)"

    def estimate_s(self, spec: Io500Step, hosts):
        # 4 stonewalled writes, reads and deletes of what they made: a standard run takes
        # about 12 stonewall times; ior/mdtest: give `timeout:`
        return 12 * spec.stonewall.seconds + 60.0 if spec.tool == "io500" else 3600.0

    def runner(self):
        return Io500Runner()

    def rows(self, step):
        return io500_rows(step, self.workload_text(step.params))


KIND = Io500()
