"""`compare:` — how a step that runs on each host judges its hosts against each other.

Declared once here and mixed into the suite model of every kind whose hosts are compared
(those with `HostMode.EACH`: inventory, memory, cpu, disk_baseline):

    - kind: memory
      hosts: all
      compare: {differ_pct: 10, spread_flag_pct: 10, consistent_pct: 0.3}

`differ_pct`: two hosts of a role further apart than this, in % of the better one, are
both named with their ratio; `spread_flag_pct`: three or more whose (max - min) / median
exceeds it are flagged; `consistent_pct`: a spread below it is said consistent. Each is
optional (the defaults above, seed 004's: two MDS "more than 10% apart", eight OSS "within
0.3%"); the median judge of three or more (analysis/consistency.py) is not changed by them.
Like `criteria:`, it judges the figures and changes nothing of the load, so it is not one
of the step's parameters (`Kind.params`): runs that differ only in it measure the same
workload. The thresholds used are stored with each comparison instead.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from stackprobe.analysis.consistency import Limits

_DEFAULT = Limits()


class NodeCompare(BaseModel):
    """The limits of one step's node comparison, in %."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    differ_pct: float = Field(default=_DEFAULT.differ_pct, gt=0, le=1000)
    spread_flag_pct: float = Field(default=_DEFAULT.spread_flag_pct, gt=0, le=1000)
    consistent_pct: float = Field(default=_DEFAULT.consistent_pct, ge=0, le=1000)

    @field_validator("*", mode="before")
    @classmethod
    def _number(cls, v):
        if isinstance(v, bool):  # YAML's yes/true is no percentage
            raise ValueError(f"a percentage, not {str(v).lower()}")
        return v

    @model_validator(mode="after")
    def _ordered(self):
        if self.consistent_pct > self.spread_flag_pct:
            raise ValueError(f"consistent_pct ({self.consistent_pct:g}) is above "
                             f"spread_flag_pct ({self.spread_flag_pct:g})")
        return self

    def limits(self) -> Limits:
        return Limits(self.differ_pct, self.spread_flag_pct, self.consistent_pct)


class ComparesNodes(BaseModel):
    """Mixed into the suite model of a kind that compares its hosts."""

    model_config = ConfigDict(extra="forbid")

    compare: NodeCompare | None = Field(default=None, exclude=True)


def limits_of(spec: object) -> Limits:
    """The step's limits: its `compare:`, else the defaults."""
    compare = spec.compare if isinstance(spec, ComparesNodes) else None
    return compare.limits() if compare is not None else Limits()
