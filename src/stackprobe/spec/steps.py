"""What every step of a suite may say, whatever its kind; each kind's own model extends these.

A step is told apart by `kind`; the fields here place it (name, title, layer), say where it
runs (`hosts:`) and bound it in time. Unknown keys are errors: a typo must not silently
fall back to a default.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from stackprobe.spec.fields import Duration

# The ladder, bottom-up: every step belongs to one of these layers.
LAYERS = ("hardware", "disk", "network", "daemon", "cluster", "client")
Layer = Literal["hardware", "disk", "network", "daemon", "cluster", "client"]


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StepSpec(StrictModel):
    """The fields every step has. `kind` is each kind's own Literal."""

    kind: str
    name: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.{}-]*$")
    title: str | None = None
    layer: Layer | None = None
    # Run on the hosts of --hosts FILE: 'all', a role, a host name, or a list of them.
    # How a kind meets them (each on its own, all together, in pairs) is the kind's.
    hosts: str | list[str] | None = None
    # How long the step may take before its tool is stopped (by PID) and the suite goes on;
    # default: twice the estimate plus two minutes (a hung tool still ends).
    timeout: Duration | None = None
    # Acceptance rules on this step's figures and findings ('iops >= 150k', 'p99 <= 5 ms',
    # 'no flagged link'); read by stackprobe/verdict/ (docs/verdicts.md), never part of the load.
    criteria: list[str] = Field(default_factory=list)


class Repeat(StrictModel):
    """Run a step several times: `repeat: 5`, or adaptively `repeat: {min: 3, max: 10,
    cov: 0.05}` — repeat while the headline figure's coefficient of variation exceeds cov."""

    min: int = Field(default=3, ge=1, le=100)
    max: int = Field(default=10, ge=1, le=100)
    cov: float = Field(default=0.05, gt=0, lt=1)

    @model_validator(mode="after")
    def _ordered(self):
        if self.max < self.min:
            raise ValueError(f"max ({self.max}) is below min ({self.min})")
        return self


class MeasuredSpec(StepSpec):
    """A step that measures (not an inventory): it may repeat."""

    repeat: Annotated[int, Field(ge=1, le=100)] | Repeat | None = None


# The fields above, which place and schedule a step: never part of its parameters.
PLACEMENT_FIELDS = frozenset({"kind", "name", "title", "layer", "hosts", "timeout", "repeat",
                              "criteria"})


def slug(value: Any) -> str:
    """A value as a piece of a step name: '4K' -> '4k', '/srv/a b' -> 'srv-a-b'."""
    text = str(value).lower()
    return "".join(c if c.isalnum() or c in "._" else "-" for c in text).strip("-")
