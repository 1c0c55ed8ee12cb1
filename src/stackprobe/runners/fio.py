"""The fio runner: a job file from the step's parameters, or the user's own file unchanged.

fio runs in the step's work directory with `--output-format=json+` (the full latency
histogram, for exact merged percentiles), and its JSON on stdout is kept as fio.stdout.
A user's job file may refer to ${STACKPROBE_DIR}, the step's scratch directory on the
target (fio expands environment variables in job files); relative paths land there too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from stackprobe.parsers.fio_json import FioJsonError, parse_fio_json
from stackprobe.parsers.records import IoRecord
from stackprobe.runners.base import (
    StepContext,
    StepOutcome,
    failure_message,
    remove_work_dir,
)
from stackprobe.runners.fio_job import build_job

JOB_FILE = "job.fio"
# Files fio writes itself (per-IO and histogram logs) that belong beside its output.
OWN_OUTPUT_GLOBS = ("*.log", "*.log.gz")


def run_fio_job(ctx: StepContext, job: Path) -> StepOutcome:
    """Run fio on a job file in the step's work directory and read its json+ output.

    The step failed when fio exited non-zero, printed no result, or reported a job error;
    its message is fio's own line. Records measured before a stop or failure are kept.
    """
    result = ctx.execute(
        "fio",
        ["fio", "--output-format=json+", str(job)],
        cwd=ctx.work_dir,
        env={"STACKPROBE_DIR": str(ctx.work_dir)},
    )
    try:
        records: list[IoRecord] = parse_fio_json(result.stdout)
    except FioJsonError:
        records = []
    for rec in records:
        rec.host = rec.host or ctx.transport.host
    if result.interrupted:
        return StepOutcome("interrupted", list(records), "stopped by the user")
    failed = [r for r in records if r.error]
    if result.ok and records and not failed:
        return StepOutcome("ok", list(records))
    if not result.ok:
        message = failure_message(result, "fio")
    elif failed:
        message = f"fio: job {failed[0].job} failed with err={failed[0].error}"
    else:
        message = "fio printed no JSON result"
    for rec in failed:
        rec.error_message = message
    return StepOutcome("failed", list(records), message)


class FioRunner:
    kind = "fio"

    def prepare(self, ctx: StepContext) -> None:
        ctx.work_dir.mkdir(parents=True, exist_ok=True)
        p = ctx.step.params
        if "job_file" in p:
            src = Path(p["job_file"])
            shutil.copyfile(src, ctx.step_dir / src.name)
        else:
            job = build_job(ctx.step.name, str(ctx.work_dir), p, direct_io=ctx.target.direct_io)
            (ctx.step_dir / JOB_FILE).write_text(job, encoding="utf-8")

    def run(self, ctx: StepContext) -> StepOutcome:
        p = ctx.step.params
        job = Path(p["job_file"]) if "job_file" in p else ctx.step_dir / JOB_FILE
        outcome = run_fio_job(ctx, job)
        self._collect_own_outputs(ctx)
        if not ctx.target.direct_io and "job_file" not in p and p.get("direct"):
            outcome.warnings.append("direct=1 requested but the target does not support "
                                    "O_DIRECT: ran buffered (page cache in play)")
        return outcome

    def cleanup(self, ctx: StepContext) -> None:
        remove_work_dir(ctx)

    @staticmethod
    def _collect_own_outputs(ctx: StepContext) -> None:
        if not ctx.work_dir.is_dir():
            return
        for pattern in OWN_OUTPUT_GLOBS:
            for f in ctx.work_dir.glob(pattern):
                shutil.move(str(f), ctx.step_dir / f.name)
