"""The configuration review as stored and shown: findings as records, the rules' results
as the step's findings (what the 'no configuration finding' criterion reads), the summary
row and the review's table. Shared by the `ceph_review` step and `stackprobe ceph review`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from stackprobe.analysis.ceph_review.finding import Finding, RuleResult
from stackprobe.parsers.ceph.cluster_config import ClusterConfig, command_of
from stackprobe.schema.records import CephReviewRecord
from stackprobe.tables.text_table import TextTable

KEY = "ceph_review"  # StepResult.findings[KEY]


def to_record(f: Finding) -> CephReviewRecord:
    return CephReviewRecord(
        rule=f.rule, severity=f.severity, subject=f.subject, message=f.message,
        evidence=[{"command": e.command, "field": e.field, "value": e.value}
                  for e in f.evidence],
        doc_title=f.doc.title, doc_url=f.doc.url)


def summary(results: Sequence[RuleResult], config: ClusterConfig) -> dict[str, Any]:
    """What the step keeps of the review besides its records: each rule's result."""
    return {
        "rules": [{"rule": r.rule, "title": r.title, "checked": r.checked,
                   "looked_at": r.looked_at, "worst": r.worst, "findings": len(r.findings),
                   "doc_title": r.doc.title, "doc_url": r.doc.url} for r in results],
        "unread": {command_of(s): why for s, why in config.unread.items()},
    }


def counts_text(records: Sequence[CephReviewRecord], rules: int) -> str:
    """'13 rules: 1 fail, 5 warn, 3 info' (or 'nothing found')."""
    n = Counter(r.severity for r in records)
    found = ", ".join(f"{n[s]} {s}" for s in ("fail", "warn", "info") if n[s])
    return f"{rules} rules: {found or 'nothing found'}"


def review_table(records: Sequence[CephReviewRecord], rules: Sequence[dict]) -> TextTable:
    """Findings worst first, then the rules that found nothing or could not check."""
    table = TextTable("Ceph configuration review",
                      ["Severity", "Rule", "Finding", "Evidence", "Source"],
                      left=(0, 1, 2, 3, 4), wide_only=(3, 4), layer="cluster")
    order = {"fail": 0, "warn": 1, "info": 2}
    for r in sorted(records, key=lambda r: order[r.severity]):
        first = r.evidence[0] if r.evidence else {}
        evidence = (f"{first.get('command')}: {first.get('field')} = {first.get('value')}"
                    if first else "")
        table.rows.append([r.severity.upper(), r.rule, r.message, evidence, r.doc_url])
    for rule in rules:
        if not rule.get("findings"):
            state = "ok" if rule.get("checked") else "not checked"
            table.rows.append([state, str(rule.get("rule")), str(rule.get("looked_at")), "",
                               str(rule.get("doc_url"))])
    return table
