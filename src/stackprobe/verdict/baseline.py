"""Which run a regression gate compares with: `--against NAME|RUN`.

A name set with `stackprobe baseline set` is looked up first (store/baselines.py), then a
run directory, then a run id under the runs directory — the way `show` finds a run. A
name whose run directory is gone is an error, never a silent fall back to something else:
a gate against the wrong run would pass or fail for nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stackprobe.errors import UserError
from stackprobe.schema.results import RunResults
from stackprobe.store.baselines import read_baselines
from stackprobe.store.rundir import RESULTS_FILE, load_results


@dataclass(frozen=True)
class BaselineRef:
    path: Path  # the run directory
    label: str  # how the gate names it: the baseline's name, or the run id
    name: str = ""  # the baseline's name when `ref` was one


def find_baseline(ref: str, out_dir: Path) -> BaselineRef:
    """The run directory `ref` means: a baseline name, a run directory, or a run id."""
    named = read_baselines(out_dir).get(ref)
    if named is not None:
        if not named.exists:
            raise UserError(f"baseline '{ref}': its run {named.run} is gone ({named.path} has no "
                            f"{RESULTS_FILE}); set it again or `stackprobe baseline rm {ref}`")
        return BaselineRef(Path(named.path), ref, ref)
    for path in (Path(ref), out_dir / ref):
        if path.is_dir():
            return BaselineRef(path, path.name)
    raise UserError(f"--against {ref}: no baseline of that name and no such run directory "
                    f"(looked in ., {out_dir} and {out_dir / 'baselines.json'})")


def load_baseline(ref: str, out_dir: Path) -> tuple[RunResults, str]:
    """The baseline's results and the label its gates carry (`--against <label>`)."""
    found = find_baseline(ref, out_dir)
    return load_results(found.path), found.label
