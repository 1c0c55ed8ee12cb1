"""A run's verdict as JUnit XML, the test report format every CI server reads.

Why: CI shows JUnit reports as tests that passed, failed or were skipped, with history per
test; a checklist of criteria and gates maps onto that directly, so a failed gate shows up
in the pipeline's own test view, named by its rule. One <testsuite> per kind of item
(criteria, regression gates, findings), one <testcase> per item, in the layout of the
Jenkins xUnit plugin's junit-10.xsd (the test validates against it).

The XML is built from results.json's stored verdict only: it judges nothing again.
Characters XML 1.0 cannot carry (control characters, lone surrogates) are written as
\\xNN escapes, so a rule or an error message with them still gives a valid file.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from datetime import datetime

from stackprobe.schema.results import RunResults
from stackprobe.schema.verdict import CheckItem

SUITES = (("criterion", "criteria"), ("regression", "regression gates"), ("finding", "findings"))
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def clean(text: str) -> str:
    """`text` with what XML 1.0 cannot hold escaped as \\xNN / \\uNNNN."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100
                        else f"\\u{ord(m[0]):04x}", text)


def junit_xml(results: RunResults) -> str:
    """The verdict's items as <testsuites>; a run without a verdict gives one with no suite."""
    verdict = results.verdict
    items = verdict.items if verdict else []
    strict = bool(verdict and verdict.strict)
    root = ET.Element("testsuites", name=clean(f"stackprobe {results.run.id}"))
    totals: Counter[str] = Counter()
    for number, (kind, title) in enumerate((k, t) for k, t in SUITES
                                           if any(i.kind == k for i in items)):
        suite, counts = _suite(results, title, number, [i for i in items if i.kind == kind], strict)
        root.append(suite)
        totals.update(counts)
    root.set("tests", str(totals["tests"]))
    root.set("failures", str(totals["failures"]))
    root.set("errors", "0")
    root.set("time", _seconds(results))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _suite(results: RunResults, title: str, number: int, items: list[CheckItem],
           strict: bool) -> tuple[ET.Element, Counter[str]]:
    run = results.run
    suite = ET.Element("testsuite", name=title, id=str(number), package="stackprobe",
                       hostname=clean(run.host or "localhost"), timestamp=_timestamp(run.started))
    props = ET.SubElement(suite, "properties")
    for name, value in (("run", run.id), ("suite", run.suite), ("target", run.target),
                        ("strict", str(strict).lower())):
        ET.SubElement(props, "property", name=name, value=clean(value))
    counts: Counter[str] = Counter(tests=len(items))
    seen: Counter[str] = Counter()
    for item in items:
        seen[item.rule] += 1
        name = item.rule if seen[item.rule] == 1 else f"{item.rule} ({seen[item.rule]})"
        case = ET.SubElement(suite, "testcase", name=clean(name),
                             classname=f"stackprobe.{item.kind}", time="0")
        outcome = _outcome(item, strict)
        if outcome == "failure":
            counts["failures"] += 1
            failure = ET.SubElement(case, "failure", type=item.status,
                                    message=clean(item.measured or item.status))
            failure.text = clean(_description(item))
        elif outcome == "skipped":
            counts["skipped"] += 1
            ET.SubElement(case, "skipped", message=clean(item.detail or item.status))
        else:
            out = ET.SubElement(case, "system-out")
            out.text = clean(("warning: " if item.status == "warn" else "") + _description(item))
    for attr in ("tests", "failures", "skipped"):
        suite.set(attr, str(counts[attr]))
    suite.set("errors", "0")
    suite.set("time", "0")
    return suite, counts


def _outcome(item: CheckItem, strict: bool) -> str:
    """failure / skipped / passed: 'not measured' is never a pass; under --strict neither
    it nor a warning is one either."""
    if item.status == "fail":
        return "failure"
    if item.status == "not measured":
        return "failure" if strict else "skipped"
    if item.status == "warn" and strict:
        return "failure"
    return "passed"


def _description(item: CheckItem) -> str:
    lines = [f"{item.status}: {item.rule}"]
    lines += [text for text in (item.measured, item.detail) if text]
    if item.origin:
        lines.append(f"stated in: {item.origin}")
    if item.sources:
        lines.append("from: " + ", ".join(item.sources))
    return "\n".join(lines)


def _timestamp(started: str) -> str:
    """ISO 8601 without a zone, as JUnit's timestamp is written (the epoch when unreadable)."""
    try:
        return datetime.fromisoformat(started.replace("Z", "+00:00")).strftime("%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return "1970-01-01T00:00:00"


def _seconds(results: RunResults) -> str:
    """How long the run took, in seconds ('0' while it has no end)."""
    try:
        start = datetime.fromisoformat(results.run.started.replace("Z", "+00:00"))
        end = datetime.fromisoformat((results.run.ended or "").replace("Z", "+00:00"))
        seconds = (end - start).total_seconds()
    except (ValueError, TypeError):  # no end yet, or one time without a zone
        return "0"
    return f"{max(0.0, seconds):.3f}"
