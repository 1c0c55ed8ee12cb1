"""One per-node step's outcomes on each host, combined into the step's outcome.

The executor runs a per-node step (inventory, memory, cpu, disk baseline) on all of its
hosts at once; here the hosts' records are joined, their problems named by host, and every
comparable figure compared among the hosts of each role (analysis/consistency): the
missing DIMM of seed 001 is a host at 0.66x the median memory bandwidth of its twins; seed
004's two MDS at 3 : 2 are a pair that differs. The step's `compare:` (kinds/compare.py)
sets the limits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from stackprobe.analysis.consistency import judge
from stackprobe.analysis.consistency_text import subject
from stackprobe.analysis.memory_population import population_finding
from stackprobe.analysis.node_figures import node_metrics, node_triads, role_groups
from stackprobe.kinds.compare import limits_of
from stackprobe.kinds.context import StepOutcome
from stackprobe.schema.results import CommandRecord
from stackprobe.spec.planned import PlannedStep
from stackprobe.units import fmt_bw


def combine_hosts(
    step: PlannedStep, per_host: Sequence[tuple[str, StepOutcome, list[CommandRecord]]],
    roles: Mapping[str, Sequence[str]] | None = None, earlier: Sequence[object] = (),
) -> tuple[StepOutcome, list[CommandRecord]]:
    """The step's outcome from each host's; `roles`: each host's roles in hosts.yaml (the
    hosts are compared within each role); `earlier`: the records of the run's steps done
    before (an inventory's DIMMs, which a STREAM step's triads are put beside)."""
    records, warnings, notes, commands, errors = [], [], [], [], []
    findings: dict = {}
    statuses = set()
    for host, outcome, cmds in per_host:
        for rec in outcome.records:
            if hasattr(rec, "host"):
                rec.host = host
        records += outcome.records
        warnings += [f"{host}: {w}" for w in outcome.warnings]
        notes += [f"{host}: {n}" for n in outcome.notes]
        commands += cmds
        statuses.add(outcome.status)
        if outcome.error:
            errors.append(f"{host}: {outcome.error}")
        for key, value in outcome.findings.items():
            findings.setdefault(key, {})[host] = value
    failed_hosts = [host for host, outcome, _ in per_host if outcome.status == "failed"]
    if "interrupted" in statuses:
        status = "interrupted"
    elif failed_hosts and len(failed_hosts) < len(per_host):
        status = "partial"  # the hosts that worked keep their results; the suite goes on
        findings["failed_hosts"] = failed_hosts
    elif failed_hosts:
        status = "failed"
    else:
        status = "ok"
    consistency = []
    limits = limits_of(step.spec)
    for metric in node_metrics(step.kind, records):
        for role, hosts in role_groups(metric.values, roles).items():
            try:
                verdict = judge({h: metric.values[h] for h in hosts}, metric=metric.metric,
                                unit=metric.unit, higher_is_better=metric.higher_is_better,
                                fmt=_formatter(metric.unit), limits=limits, role=role)
            except ValueError as exc:  # a median or a figure of 0: no ratio to judge by
                what = subject({"metric": metric.metric, "role": role})
                notes.append(f"{what}: hosts not compared ({exc})")
                continue
            if verdict is None:
                continue
            consistency.append(verdict.as_dict())
            warnings += verdict.sentences()
            spread = verdict.spread_sentence()
            if spread:
                warnings.append(spread)
    if consistency:
        findings["consistency"] = consistency
    population = population_finding(records)  # the inventories' DIMMs, by channel
    triads = node_triads(records)
    if population is None and triads:  # seed 004: the DIMMs beside each node's triad
        population = population_finding(earlier, triads)
    if population:
        findings["memory_population"] = population
        warnings += population["warnings"]
    return StepOutcome(status, records, "; ".join(errors) or None, warnings, None, notes,
                       findings), commands


def _formatter(unit: str):
    if unit == "B/s":
        return fmt_bw
    if unit == "B":
        return lambda v: f"{v / 2**30:.1f} GiB"
    return lambda v: f"{v:,.0f} {unit}"

