"""The `ceph_review` kind: the cluster's configuration reviewed before its numbers are
trusted (seed 003 advises on BlueStore DB/WAL placement and size; the rules are in
analysis/ceph_review/, each with the Ceph documentation section it rests on).

Read-only: it runs `ceph ... -f json` queries (kinds/ceph/ceph_review_sources.py), keeps
every output as a command of the step, and asks the session for nothing it would create
(no image, no CephFS mount, no pool of its own). A rule whose command failed or printed
what it cannot read is 'not checked', named in the step's warnings.
"""

from __future__ import annotations

from typing import Literal

from stackprobe.analysis.ceph_review.registry import RULES, review
from stackprobe.kinds.ceph.ceph_review_sources import REVIEW_SOURCES, collect
from stackprobe.kinds.ceph.ceph_review_view import KEY, counts_text, review_table, summary, to_record
from stackprobe.kinds.ceph.common import CEPH, CEPH_CLI_S
from stackprobe.kinds.checks import Check, Outcome
from stackprobe.kinds.context import StepContext, StepOutcome
from stackprobe.kinds.contract import CephNeeds, Kind
from stackprobe.parsers.ceph.cluster_config import command_of
from stackprobe.parsers.ceph.review_sources import parse_cluster_config
from stackprobe.schema.records import CephReviewRecord
from stackprobe.spec.steps import StepSpec
from stackprobe.tables.rows import Row, base


class CephReviewStep(StepSpec):
    """Review the cluster's configuration (read-only): DB/WAL, PGs, replication, placement
    of daemons, memory, full ratios, versions, clocks, scrubbing, device classes."""

    kind: Literal["ceph_review"]


class CephReviewRunner:
    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        assert ctx.ceph is not None, "the configuration review needs the run's Ceph session"
        outputs, failed, interrupted = collect(ctx.execute_reads, ctx.ceph.target.cli())
        if interrupted:
            return StepOutcome.stopped()
        config = parse_cluster_config(outputs, strict=False)
        config.unread.update(failed)
        results = review(config)
        records = [to_record(f) for r in results for f in r.findings]
        warnings = [f"ceph review: {command_of(s)}: {why}" for s, why in config.unread.items()]
        return StepOutcome("ok", records, None, warnings,
                           findings={KEY: summary(results, config)})

    def cleanup(self, ctx: StepContext) -> None:
        pass


class NoConfigurationFinding(Check):
    phrase = "no configuration finding"
    aliases = ("no ceph configuration finding",)
    looks_at = "configuration rules"
    describes = "no Ceph configuration review rule found anything at warn or fail severity"

    def outcomes(self, results, steps, argument=""):
        out = []
        for step in steps:
            rules = (step.findings.get(KEY) or {}).get("rules") or []
            for rule in rules:
                if not rule.get("checked"):
                    continue
                messages = [r.message for r in step.records if isinstance(r, CephReviewRecord)
                            and r.rule == rule.get("rule") and r.severity in ("fail", "warn")]
                text = f"{rule.get('rule')}: " + ("; ".join(messages) or str(rule.get("looked_at")))
                out.append(Outcome(not messages, text, (step.id,),
                                   detail=str(rule.get("doc_url") or "")))
        return out


class CephReview(Kind):
    name = "ceph_review"
    spec = CephReviewStep
    layer = "cluster"
    family = "ceph"
    tools = (CEPH,)
    records = (CephReviewRecord,)
    checks = (NoConfigurationFinding(),)

    def title(self, spec, name):
        return "Ceph configuration review"

    def estimate_s(self, spec, hosts):
        return (len(REVIEW_SOURCES) + 2) * CEPH_CLI_S

    def ceph(self, spec):
        return CephNeeds()  # the cluster only: no image, no CephFS, no pool of its own

    def runner(self):
        return CephReviewRunner()

    def rows(self, step):
        found = [r for r in step.records if isinstance(r, CephReviewRecord)]
        rules = (step.findings.get(KEY) or {}).get("rules") or []
        note = counts_text(found, len(rules) or len(RULES)) if step.status == "ok" else (
            step.error or "")
        return [Row(test=step.title, direction="", status=step.status, note=note,
                    **base(step, "configuration"))]

    def tables(self, steps):
        out = []
        for step in steps:
            found = [r for r in step.records if isinstance(r, CephReviewRecord)]
            rules = (step.findings.get(KEY) or {}).get("rules") or []
            if found or rules:
                out.append(review_table(found, rules))
        return out


KIND = CephReview()
