"""Criteria: rules read and refused at load time, judged against recorded real runs, and
the exit status that wins (verdict/)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz_support import CASES, FUZZ
from stackprobe.kinds.registry import checks
from stackprobe.plan.expand import expand
from stackprobe.store.rundir import load_results
from stackprobe.suite.loader import LoadedSuite, SuiteError, parse_suite
from stackprobe.verdict import codes
from stackprobe.verdict.bind import bind_criteria
from stackprobe.verdict.checklist import build_verdict
from stackprobe.verdict.quantity import QuantityError, parse_quantity
from stackprobe.verdict.registry import all_checks
from stackprobe.verdict.rules import RuleError, parse_rule

sys.path.insert(0, str(Path(__file__).parent))
from test_multi_host import STEPS as MULTI_HOST_SUITE  # noqa: E402 - the recorded run's suite

RECORDED = Path(__file__).parent / "fixtures" / "recorded" / "runs-after-kind-contract"
MULTI_HOST = RECORDED / "20261124T053020Z-multi-host-test"


@pytest.mark.parametrize(("text", "dimension", "value"), [
    ("150k", "count", 150_000), ("150k IOPS", "count", 150_000), ("2.5M ops/s", "count", 2.5e6),
    ("2 GB/s", "rate", 2e9), ("2GiB/s", "rate", 2 * 1024**3), ("20 Gbit/s", "rate", 2.5e9),
    ("500 MB/s", "rate", 5e8), ("5 ms", "time", 5e6), ("250 us", "time", 250e3),
    ("1.5 s", "time", 1.5e9), ("70%", "percent", 70),
])
def test_thresholds_are_read_in_the_figures_unit(text, dimension, value):
    assert parse_quantity(text, dimension).value == pytest.approx(value)


@pytest.mark.parametrize(("text", "dimension"), [
    ("5", "time"), ("2 GB/s", "time"), ("10", "percent"), ("2 MB", "rate"), ("fast", "count"),
    ("5 ms", "count"), ("2 GiB", "rate"), ("9" * 400, "count"),
])
def test_units_that_do_not_fit_are_refused(text, dimension):
    with pytest.raises(QuantityError):
        parse_quantity(text, dimension)


@pytest.mark.parametrize(("text", "in_step", "message"), [
    ("iops >= 150k", False, "name the figure by its key"),
    ("p99 <= 2 GB/s", True, "a time needs a unit"),
    ("no flagged links", False, "unknown rule"),
    ("iops >= -1", True, "not a number"),
    ("iops = 5", True, "never exactly equal"),
    ("p99 < 0 ms", True, "can never hold"),
    ("iops >= 0", True, "cannot fail"),
    ("no flagged link <= 5%", False, "yes or no"),
    ("node spread", False, "needs a threshold"),
    ("no flagged link (h1)", False, "unknown rule"),
    ("fio:rw=randread:bogus >= 1", False, "unknown figure 'bogus'"),
    ("speed >= 1", True, "unknown figure 'speed'"),
])
def test_impossible_or_unknown_rules_are_refused(text, in_step, message):
    with pytest.raises(RuleError, match=message):
        parse_rule(text, checks(), in_step=in_step)


def _loaded(text: str, name: str = "acc.yaml") -> tuple[LoadedSuite, list]:
    suite = parse_suite(text, name)
    loaded = LoadedSuite(suite, name, text, None)
    return loaded, expand(suite, None, None)


def _multi_host_suite(criteria: list[str], step_criteria: str = "") -> str:
    text = MULTI_HOST_SUITE.format(shared="/srv/shared")
    lines = "".join(f"  - {c}\n" for c in criteria)
    if lines:
        text = text.replace("steps:\n", f"criteria:\n{lines}steps:\n", 1)
    if step_criteria:
        text = text.replace("    name: fleet\n", f"    name: fleet\n    criteria: [{step_criteria}]\n")
    return text


@pytest.mark.parametrize(("rule", "message"), [
    ("rados_bench:threads=16:write.bw >= 1 GB/s", "no rados_bench step in this suite"),
    ("fio:rw=randwrite:iops >= 1k", "no fio step has rw=randwrite ("),
    ("fio:bs=8k,rw=randread:iops >= 1k", "no fio step has"),
])
def test_keys_no_planned_step_answers_are_refused_with_file_and_line(rule, message):
    loaded, plan = _loaded(_multi_host_suite(["no flagged link", rule]))
    with pytest.raises(SuiteError) as err:
        bind_criteria(loaded, plan)
    text = str(err.value)
    assert text.startswith("acc.yaml:4: criteria[1]: ") and message in text, text


def test_a_bad_step_rule_names_its_step_line():
    loaded, plan = _loaded(_multi_host_suite([], "iops >= 10 ms"))
    with pytest.raises(SuiteError, match=r"^acc.yaml:\d+: steps\[2\].criteria\[0\]: .*a rate of operations"):
        bind_criteria(loaded, plan)


def _judged(criteria, step_criteria="", strict=False):
    loaded, plan = _loaded(_multi_host_suite(criteria, step_criteria))
    results = load_results(MULTI_HOST)
    return build_verdict(results, bind_criteria(loaded, plan), strict=strict)


def test_a_flagged_link_fails_its_criterion_and_names_the_slow_host():
    v = _judged(["no flagged link", "every host reported"])
    link, hosts = v.items[0], v.items[1]
    assert (link.status, hosts.status) == ("fail", "pass")
    assert "h1→h2 0.19 Gbit/s" in link.measured and "h3→h2 0.19 Gbit/s" in link.measured
    assert link.origin == "acc.yaml:3" and link.sources == ["02-network"]
    assert v.status == "fail" and v.exit_code == codes.EXIT_CRITERIA_FAILED


def test_figure_rules_judge_the_all_clients_figure_and_show_the_worst():
    v = _judged(["fio:rw=randread,bs=4k:iops >= 50k", "fio:rw=randread,bs=4k@h2:iops >= 50k",
                 "node spread (cpu) <= 10%", "node spread (memory) <= 10%"])
    whole, h2, cpu, memory = v.items[:4]
    assert whole.status == "pass" and whole.value == pytest.approx(66077.19, rel=1e-6)
    assert h2.status == "fail" and h2.value == pytest.approx(40523.24, rel=1e-6)
    assert cpu.status == "fail" and cpu.value == pytest.approx(80.33)
    assert memory.status == "not measured"  # the run measured no memory: never a pass


def test_step_rules_judge_their_own_step():
    v = _judged([], "iops >= 60k, read.p99 <= 400 us")
    iops, p99 = v.items[:2]
    assert iops.status == "pass" and iops.sources == [
        "fio:bs=4k,direct=1,hosts=3,iodepth=8,ioengine=libaio,rw=randread,size=32M:read.iops"]
    assert p99.status == "fail" and p99.value == 423936.0


def test_flagged_findings_without_a_rule_warn_and_fail_under_strict():
    v = _judged(["every host reported"])
    warned = {(i.rule, i.status) for i in v.items if i.kind == "finding"}
    assert ("no flagged link", "warn") in warned and ("no flagged node", "warn") in warned
    assert v.exit_code == codes.EXIT_OK and v.status == "pass"
    strict = _judged(["every host reported"], strict=True)
    assert strict.exit_code == codes.EXIT_CRITERIA_FAILED


def test_a_rule_covers_its_finding_so_it_is_not_said_twice():
    v = _judged(["no flagged link"])
    assert [i.rule for i in v.items].count("no flagged link") == 1


def test_not_measured_fails_only_under_strict():
    assert _judged(["node spread (memory) <= 10%"]).exit_code == codes.EXIT_OK
    assert _judged(["node spread (memory) <= 10%"], strict=True).exit_code == codes.EXIT_CRITERIA_FAILED


def test_which_exit_code_wins():
    assert codes.winning({codes.EXIT_REGRESSION, codes.EXIT_CRITERIA_FAILED}) == 3
    assert codes.winning({codes.EXIT_STEP_FAILED, codes.EXIT_CRITERIA_FAILED}) == 1
    assert codes.winning({codes.EXIT_INTERRUPTED, codes.EXIT_STEP_FAILED}) == 130
    assert codes.winning(set()) == 0
    results = load_results(MULTI_HOST).model_copy(deep=True)
    results.run.status = "failed"
    loaded, plan = _loaded(_multi_host_suite(["no flagged link"]))
    v = build_verdict(results, bind_criteria(loaded, plan))
    assert (v.status, v.exit_code) == ("incomplete", codes.EXIT_STEP_FAILED)


def test_every_check_is_named_and_described():
    for check in all_checks().checks:
        assert check.phrase and check.describes, type(check).__name__
        assert all_checks().find(check.phrase.upper()) is check


RULE_TOKENS = ("iops", "read.", "p99", "latency", "bw", "fio:", "rw=randread", ",", "bs=4k",
               "@h1", "#osd.0", ":", ">=", "<=", "<", ">", "=", "150k", "5 ms", "2 GB/s", "10%",
               "-1", "0", "no flagged link", "node spread", "(", ")", "memory", "efficiency vs ceiling",
               " ", "1e999", "nan", "\u00b5s", "Gbit/s", "GiB/s", "%")


@FUZZ
@given(text=st.one_of(st.text(max_size=80),
                      st.lists(st.sampled_from(RULE_TOKENS), max_size=12).map("".join)),
       in_step=st.booleans())
def test_any_text_is_a_rule_or_one_line_refusal(text, in_step):
    """The rule reader's property: a Rule, or a RuleError of one line — nothing else."""
    CASES["criteria"] += 1
    try:
        rule = parse_rule(text, all_checks(), in_step=in_step)
    except RuleError as exc:
        assert "\n" not in str(exc)
        return
    if rule.threshold is not None:
        assert rule.threshold.value >= 0 and rule.threshold.value != float("inf")


def test_a_step_with_nothing_to_measure_is_not_a_failed_step():
    from stackprobe.kinds.checks import NoFailedStep
    from stackprobe.schema.results import StepResult

    def step(i, status, error=None):
        return StepResult(id=f"0{i}-x", index=i, name="x", kind="rdma", title="x", layer="network",
                          params={}, status=status, error=error)

    steps = [step(1, "skipped", "no RDMA device on h1, h2"), step(2, "skipped", "not run: the "
             "cluster went HEALTH_ERR during the run"), step(3, "skipped"), step(4, "ok")]
    assert [o.ok for o in NoFailedStep().outcomes(None, steps)] == [True, False, False, True]
