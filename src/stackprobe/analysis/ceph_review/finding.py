"""What a review rule says: findings with their evidence and source, and the rule's result.

A finding names the rule, a severity (fail: the numbers of a test on this cluster are
not to be trusted as they stand, or data is at risk; warn: worth fixing before trusting
them; info: worth knowing), the thing it is about (a pool, an OSD, a host), one line of
message, the values that made it fire with the command each came from, and the section of
the Ceph documentation the rule rests on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from stackprobe.parsers.ceph.cluster_config import ClusterConfig, command_of

SEVERITIES = ("fail", "warn", "info")


@dataclass(frozen=True)
class Doc:
    title: str
    url: str


@dataclass(frozen=True)
class Evidence:
    command: str  # 'ceph osd metadata'
    field: str  # 'osd.3 bluefs_dedicated_db'
    value: str


def ev(source: str, what: str, value: object) -> Evidence:
    """Evidence from a source name (cluster_config.COMMANDS)."""
    return Evidence(command_of(source), what, str(value))


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: str
    subject: str
    message: str
    evidence: tuple[Evidence, ...]
    doc: Doc


@dataclass
class RuleResult:
    """One rule on one cluster: what it looked at and what it found; `checked` False
    when a source it needs was not read (then nothing is said to be fine)."""

    rule: str
    title: str
    doc: Doc
    checked: bool
    looked_at: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def worst(self) -> str | None:
        found = {f.severity for f in self.findings}
        return next((s for s in SEVERITIES if s in found), None)


class Rule:
    """A rule: its id, title, documentation and the sources it needs; `check` returns
    (what it looked at, findings)."""

    id: ClassVar[str]
    title: ClassVar[str]
    doc: ClassVar[Doc]
    needs: ClassVar[tuple[str, ...]]

    def check(self, config: ClusterConfig) -> tuple[str, list[Finding]]:
        raise NotImplementedError

    def finding(self, severity: str, subject: str, message: str,
                evidence: Sequence[Evidence], doc: Doc | None = None) -> Finding:
        return Finding(self.id, severity, subject, message, tuple(evidence), doc or self.doc)

    def run(self, config: ClusterConfig) -> RuleResult:
        missing = [s for s in self.needs if not config.has(s)]
        if missing:
            why = "; ".join(f"{command_of(s)}: {config.unread.get(s, 'not run')}" for s in missing)
            return RuleResult(self.id, self.title, self.doc, False, f"not checked ({why})")
        looked_at, findings = self.check(config)
        return RuleResult(self.id, self.title, self.doc, True, looked_at, findings)
