"""Lustre striping of a step's data subdirectories (`lfs setstripe`).

A new file or subdirectory takes its layout from the directory it is made in, so each
subdirectory is created first and its default layout set before the tool writes. Without
`lfs` on the host (not a Lustre client) the directories are still made and the step says,
per directory, that its striping was not applied; a setstripe that fails (a directory not
on Lustre) is a warning too, never a failed step.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from pydantic import Field, ValidationError

from stackprobe.errors import UserError
from stackprobe.kinds.context import StepContext, failure_message
from stackprobe.spec.fields import Size
from stackprobe.spec.steps import StrictModel
from stackprobe.transport.tools import has_tool


class Stripe(StrictModel):
    """Lustre striping for a directory (`lfs setstripe -c COUNT -S SIZE [-p POOL]`), applied
    when `lfs` exists on the host; elsewhere the step says it was not applied."""

    count: int = Field(default=1, ge=-1)  # -1: every OST
    size: Size | None = None  # stripe size, e.g. 1M
    pool: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.-]+$")

# a subdirectory below the step's data directory: plain names, no '..', not absolute
_SUBDIR_RE = re.compile(r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$")
_LFS_SIZE_RE = re.compile(r"^[0-9]+[KMGkmg]?$")  # what lfs reads as is: 65536, 1M, 4m


def as_stripe(value: Stripe | dict) -> Stripe:
    """A Stripe from the model or from a planned step's parameters (a plain dict)."""
    return value if isinstance(value, Stripe) else Stripe.model_validate(value)


def lfs_size(size: Size) -> str:
    """A stripe size lfs reads: '1M' as written, anything else ('1MiB') in bytes."""
    text = str(size.text).strip()
    if _LFS_SIZE_RE.match(text):
        return text
    return str(size.bytes)


def setstripe_argv(directory: str, stripe: Stripe | dict) -> list[str]:
    """`lfs setstripe -c COUNT [-S SIZE] [-p POOL] DIRECTORY` (count -1: every OST)."""
    s = as_stripe(stripe)
    argv = ["lfs", "setstripe", "-c", str(s.count)]
    if s.size is not None:
        argv += ["-S", lfs_size(s.size)]
    if s.pool:
        argv += ["-p", s.pool]
    return argv + [str(directory)]


def found_on_path(ctx: StepContext, name: str) -> bool:
    """Whether `name` (a command or a path) can be run where the step runs: looked up
    here for the local transport, asked through the transport on a remote host."""
    if ctx.target.remote:
        return has_tool(ctx.transport, name)
    return shutil.which(name) is not None


def make_dir(ctx: StepContext, directory: Path, label: str) -> None:
    """mkdir -p, here or on the step's host."""
    if ctx.target.remote:
        result = ctx.execute(label, ["mkdir", "-p", "--", str(directory)])
        if not result.ok:
            raise OSError(failure_message(result, "mkdir"))
    else:
        directory.mkdir(parents=True, exist_ok=True)


def check_subdir(name: str) -> str:
    if not _SUBDIR_RE.match(name) or ".." in name.split("/"):
        raise UserError(f"stripe: {name!r} is not a subdirectory of the data directory "
                        "(plain names, no '..', not absolute)")
    return name


def apply_stripes(ctx: StepContext, base_dir: str | Path, stripes: dict) -> list[str]:
    """Create each striped subdirectory of `base_dir` and set its layout when `lfs` is
    there; returns warnings (striping not applied, or lfs's own failure), one per problem."""
    if not stripes:
        return []
    base = Path(base_dir)
    have_lfs = found_on_path(ctx, "lfs")
    warnings: list[str] = []
    for name, value in stripes.items():
        sub = check_subdir(str(name))
        try:
            stripe = as_stripe(value)
        except ValidationError as exc:
            raise UserError(f"stripe for {sub}: {exc.errors()[0]['msg']}") from None
        label = "lfs-setstripe-" + sub.replace("/", "-")
        directory = base / sub
        make_dir(ctx, directory, "mkdir-" + sub.replace("/", "-"))
        if not have_lfs:
            warnings.append(f"lfs not found: striping for {sub} not applied")
            continue
        result = ctx.execute(label, setstripe_argv(str(directory), stripe))
        if not result.ok:
            warnings.append(f"striping for {sub} not applied: {failure_message(result, 'lfs')}")
    return warnings
