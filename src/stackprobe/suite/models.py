"""The suite model: what a suite YAML may say, validated before anything runs.

A suite is a name, optional `defaults` (fio workload parameters shared by the fio and slo
steps), an optional `ceph:` section, and an ordered list of steps told apart by `kind` —
each kind's own model (kinds/<family>/<kind>.py), gathered by the kind registry. Any
workload parameter given as a list is a sweep: the plan expands it into one step per
combination. Unknown keys are errors (a typo must not silently fall back to a default).
"""

from __future__ import annotations

from pydantic import Field

from stackprobe.kinds.fio.params import FioParams
from stackprobe.kinds.registry import step_union
from stackprobe.spec.ceph import CephSettings
from stackprobe.spec.steps import LAYERS, StrictModel

Step = step_union()

__all__ = ["LAYERS", "CephSettings", "FioParams", "Step", "Suite"]


class Suite(StrictModel):
    """A named, ordered list of steps."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    description: str | None = None
    defaults: FioParams = Field(default_factory=FioParams)
    ceph: CephSettings | None = None
    steps: list[Step] = Field(min_length=1)
    # Acceptance rules on the whole run: figures named by their keys, findings by name
    # ('fio:rw=randread,bs=4k:iops >= 150k', 'no flagged link'); see docs/verdicts.md.
    criteria: list[str] = Field(default_factory=list)
