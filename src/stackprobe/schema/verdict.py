"""The verdict a run ends in, as results.json keeps it (docs/results-schema.md).

A checklist: each acceptance criterion the suite states, each figure a regression gate
watched against a baseline, and each finding the analysis flagged without a rule — with
its outcome, the value measured and where that value came from. It is computed once at
the end of a run (stackprobe/verdict/) and stored, so `show`, the reports, JUnit and the
exports all print the same checklist without judging again.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# pass / fail: the rule held or not; not measured: nothing the run measured answers it
# (never a pass; a failure under --strict); warn: a flagged finding no rule covers (a
# failure under --strict)
ItemStatus = Literal["pass", "fail", "not measured", "warn"]
ItemKind = Literal["criterion", "regression", "finding"]
# pass: every item passed (warnings allowed without --strict); fail: a criterion failed or
# was not measured under --strict; regression: a gated figure regressed (and no criterion
# failed); incomplete: the run itself failed or was interrupted (its code wins)
VerdictStatus = Literal["pass", "fail", "regression", "incomplete"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CheckItem(_Model):
    kind: ItemKind
    rule: str  # as written ('fio:rw=randread,bs=4k:iops >= 150k', 'no flagged link')
    origin: str = ""  # where the rule was stated: 'suite.yaml:42', '--against base'
    status: ItemStatus
    measured: str = ""  # the value as people read it: '162k IOPS', 'h1→h2 0.19 Gbit/s'
    value: float | None = None  # the value compared, in `unit`
    unit: str | None = None  # 'IOPS', 'B/s', 'ns', '%', ...
    sources: list[str] = Field(default_factory=list)  # figure keys or step ids it came from
    detail: str = ""  # why: which host, which link, the baseline's value, the noise test


class Verdict(_Model):
    status: VerdictStatus
    exit_code: int
    strict: bool = False
    items: list[CheckItem] = Field(default_factory=list)
    # the regression gate's baseline: {name, run, path, max_regression_pct, differences}
    baseline: dict | None = None

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for item in self.items:
            out[item.status] = out.get(item.status, 0) + 1
        return out
