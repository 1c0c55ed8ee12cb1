"""JUnit XML of a run's verdict (verdict/junit.py), validated by a real XML Schema
validator (the `xmlschema` package) against the JUnit schema Jenkins' xUnit plugin checks
reports with: junit-10.xsd from github.com/jenkinsci/xunit-plugin,
src/main/resources/org/jenkinsci/plugins/xunit/types/model/xsd/junit-10.xsd, commit
8c515de2804b3fd591a3b0f1ff8908a1b1a41887 (tests/fixtures/schemas/SOURCE).

What must hold: one <testsuite> per kind of item, one <testcase> per item named by its
rule; fail -> <failure> with the measured value and why; not measured -> <skipped>, or a
failure under --strict; warn -> a passing case with the warning in <system-out> (a failure
under --strict); the counts in the attributes add up; any character in a rule or a detail
still gives a valid document that reads back to the same text.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema

from conftest import FIXTURES
from stackprobe.schema.verdict import CheckItem, Verdict
from stackprobe.store.rundir import load_results
from stackprobe.verdict.junit import junit_xml

SCHEMA = xmlschema.XMLSchema(FIXTURES / "schemas" / "junit-10.xsd")
QUICK = FIXTURES / "recorded" / "runs-after-kind-contract" / "20261124T053239Z-quick"
NASTY = 'fio:rw=read,bs=1M:read.bw >= 1 GiB/s <&> "quoted" \'single\' \x00\x07\x1b ]]> \ud800 ✓'


def _items() -> list[CheckItem]:
    return [
        CheckItem(kind="criterion", rule="fio:rw=randread,bs=4k:read.iops >= 100k",
                  origin="suite.yaml:12", status="pass", measured="147k IOPS", value=147e3,
                  unit="IOPS", sources=["fio:bs=4k,rw=randread:read.iops"]),
        CheckItem(kind="criterion", rule="fio:rw=read,bs=1M:read.bw >= 2 GiB/s",
                  origin="suite.yaml:14", status="fail", measured="861 MiB/s",
                  detail="below by 58%"),
        CheckItem(kind="criterion", rule="rados_bench:mode=write:bw >= 1 GiB/s",
                  origin="suite.yaml:16", status="not measured",
                  detail="no step measured rados_bench write"),
        CheckItem(kind="regression", rule="fio:bs=1M,rw=read:read.bw", origin="--against nightly",
                  status="fail", measured="B: 20.4 MiB/s vs A: 81.2 MiB/s (-74.8%)",
                  detail="worse by 74.8% (gate 10%); beyond noise (Welch's t-test, 5%)"),
        CheckItem(kind="regression", rule="fio:bs=1M,rw=read@h1:read.bw",
                  origin="--against nightly", status="pass",
                  measured="B: 80 MiB/s vs A: 81.2 MiB/s (-1.5%)", detail="within the 10% gate"),
        CheckItem(kind="finding", rule="no flagged link", status="warn",
                  measured="h1→h2 0.19 Gbit/s", detail="asymmetric link h1→h2"),
    ]


def _document(items, strict=False, status="fail", code=3):
    run = load_results(QUICK)
    verdict = Verdict(status=status, exit_code=code, strict=strict, items=items)
    text = junit_xml(run.model_copy(update={"verdict": verdict}))
    SCHEMA.validate(text)  # raises with the schema's reason when invalid
    return ET.fromstring(text)


def _cases(root) -> dict[str, ET.Element]:
    return {c.get("name"): c for c in root.iter("testcase")}


def test_one_suite_per_kind_one_case_per_item():
    root = _document(_items())
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["criteria", "regression gates", "findings"]
    assert [len(s.findall("testcase")) for s in suites] == [3, 2, 1]
    assert [(s.get("tests"), s.get("failures"), s.get("skipped"), s.get("errors")) for s in suites] == \
        [("3", "1", "1", "0"), ("2", "1", "0", "0"), ("1", "0", "0", "0")]
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("6", "2", "0")
    assert float(root.get("time")) == 91.0  # the run's start to its end
    assert all(s.get("timestamp") == "2026-11-24T05:32:39" and s.get("hostname") == "vm"
               for s in suites)
    props = {p.get("name"): p.get("value") for p in suites[0].iter("property")}
    assert props["run"] == "20261124T053239Z-quick" and props["strict"] == "false"
    classes = {c.get("name"): c.get("classname") for c in root.iter("testcase")}
    assert classes["no flagged link"] == "stackprobe.finding"
    assert classes["fio:bs=1M,rw=read:read.bw"] == "stackprobe.regression"


def test_outcomes():
    cases = _cases(_document(_items()))
    failure = cases["fio:rw=read,bs=1M:read.bw >= 2 GiB/s"].find("failure")
    assert failure.get("message") == "861 MiB/s" and failure.get("type") == "fail"
    assert "below by 58%" in failure.text and "suite.yaml:14" in failure.text
    gate = cases["fio:bs=1M,rw=read:read.bw"].find("failure")
    assert gate.get("message") == "B: 20.4 MiB/s vs A: 81.2 MiB/s (-74.8%)"
    assert "beyond noise" in gate.text and "--against nightly" in gate.text
    skipped = cases["rados_bench:mode=write:bw >= 1 GiB/s"]
    assert skipped.find("failure") is None
    assert skipped.find("skipped").get("message") == "no step measured rados_bench write"
    passed = cases["fio:rw=randread,bs=4k:read.iops >= 100k"]
    assert passed.find("failure") is None and passed.find("skipped") is None
    assert "147k IOPS" in passed.find("system-out").text
    warned = cases["no flagged link"]
    assert warned.find("failure") is None and warned.find("skipped") is None
    assert warned.find("system-out").text.startswith("warning: ")
    assert "asymmetric link h1→h2" in warned.find("system-out").text


def test_under_strict_not_measured_and_warnings_fail():
    root = _document(_items(), strict=True)
    cases = _cases(root)
    assert cases["rados_bench:mode=write:bw >= 1 GiB/s"].find("failure").get("type") == "not measured"
    assert cases["no flagged link"].find("failure").get("type") == "warn"
    assert root.get("failures") == "4"
    assert [s.get("skipped") for s in root.findall("testsuite")] == ["0", "0", "0"]


def test_nasty_characters_in_rules_and_details_stay_valid():
    item = CheckItem(kind="criterion", rule=NASTY, status="fail", measured=NASTY, detail=NASTY,
                     origin="suite.yaml:1")
    (case,) = _document([item]).iter("testcase")
    shown = case.get("name")
    assert shown.startswith('fio:rw=read,bs=1M:read.bw >= 1 GiB/s <&> "quoted" \'single\' ')
    assert "\\x00\\x07\\x1b ]]> \\ud800 ✓" in shown
    assert case.find("failure").get("message") == shown
    assert shown in case.find("failure").text


def test_the_same_rule_twice_gets_two_names():
    item = _items()[4]
    names = [c.get("name") for c in _document([item, item], status="pass", code=0).iter("testcase")]
    assert names == [item.rule, f"{item.rule} (2)"]


def test_a_run_without_a_verdict_is_an_empty_valid_report():
    text = junit_xml(load_results(QUICK))
    SCHEMA.validate(text)
    root = ET.fromstring(text)
    assert root.findall("testsuite") == [] and root.get("tests") == "0"


def test_the_schema_rejects_what_is_not_junit():
    """The validator is real: a case without a name is refused."""
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        SCHEMA.validate('<testsuites><testsuite tests="1"><testcase classname="x"/></testsuite>'
                        "</testsuites>")


def test_written_by_compare_against(tmp_path):
    """The file `compare --against --junit` writes is the same document (end to end in
    tests/test_baseline_cli.py); here: it is valid as written to disk."""
    out: Path = tmp_path / "gates.xml"
    run = load_results(QUICK)
    out.write_text(junit_xml(run.model_copy(update={"verdict": Verdict(
        status="regression", exit_code=4, items=_items()[3:5])})))
    SCHEMA.validate(str(out))
