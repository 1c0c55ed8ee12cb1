"""The kind contract holds: every step kind is declared in its own module and everything
that lists kinds comes from the registry — the suite's Step union, the tools and packages,
the rows — and no other source file branches on kind names."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import get_args

import pytest

from stackprobe.engine.preflight import required_tools
from stackprobe.engine.tools import PLATFORM_TOOLS, all_tools, by_name
from stackprobe.errors import UserError
from stackprobe.kinds import registry
from stackprobe.kinds.contract import HostMode, Kind, Reach
from stackprobe.kinds.fio.params import FioParams
from stackprobe.kinds.hpc.hpcc_run import LIBRARIES
from stackprobe.plan.expand import expand
from stackprobe.schema.fabric_records import OsuRecord
from stackprobe.schema.hpc_records import HplRecord, StreamRecord
from stackprobe.schema.records import Record
from stackprobe.schema.results import RunResults
from stackprobe.spec.steps import LAYERS, StepSpec
from stackprobe.spec.tools import AnyOf
from stackprobe.suite.loader import builtin_names, load_hosts, load_suite
from stackprobe.suite.models import Suite

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "stackprobe"
KINDS = registry.kinds()

# Outside the kinds' own modules, only these may name kinds in a branch or a table key.
ALLOWED = {"kinds/registry.py"}
# Packages the Makefile installs for what is not a step kind's tool: the lab's daemons
# (lab/ceph_lab.py: Ceph's mon, mgr, OSD, MDS; lab/hosts_lab.py: sshd, ssh-keygen, ip, tc,
# unshare) and what only tests use (Chromium for the HTML report, parted and mkfs.ext4
# for the target guard's loop devices, strace for the block size of fio's file layout, tmux
# for the terminal a run's live lines are watched in).
LAB_PACKAGES = {"ceph-mon", "ceph-mgr", "ceph-osd", "ceph-mds", "openssh-server",
                "openssh-client", "iproute2", "util-linux", "openipmi"}
TEST_PACKAGES = {"chromium", "parted", "e2fsprogs", "strace", "tmux",
                 "libblas3"}  # the reference BLAS, to show hpcc runs with OpenBLAS


def test_every_kind_is_complete():
    assert len(KINDS) == len(set(registry.names()))
    for kind in KINDS:
        assert isinstance(kind, Kind)
        assert issubclass(kind.spec, StepSpec)
        assert kind.spec.model_fields["kind"].annotation.__args__ == (kind.name,)
        assert kind.layer in LAYERS and kind.family in registry.FAMILIES
        assert isinstance(kind.hosts, HostMode)
        runner = kind.runner()
        assert all(callable(getattr(runner, m)) for m in ("prepare", "run", "cleanup"))
        assert set(kind.sweeps) <= set(kind.spec.model_fields), kind.name
        assert set(kind.concurrency) <= set(kind.spec.model_fields), kind.name
        for field in (*kind.duration_fields, *kind.verdict_fields):
            assert field in kind.spec.model_fields, (kind.name, field)
        module = type(kind).__module__
        assert module.startswith(f"stackprobe.kinds.{kind.family}."), module


MINIMAL = {"slo": {"limit": "1ms"}}  # what a kind's model requires beside `kind`


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_every_kind_plans_a_minimal_step(kind):
    spec = kind.spec.model_validate({"kind": kind.name, **MINIMAL.get(kind.name, {})})
    [(concrete, swept)] = list(kind.expand(spec, FioParams(), None))
    assert swept == {}
    params = kind.params(concrete)
    assert isinstance(params, dict) and "kind" not in params
    assert kind.title(concrete, "n") and kind.default_name(concrete)
    assert kind.layer_of(concrete) in LAYERS
    assert kind.estimate_s(concrete, 1) > 0
    assert isinstance(kind.workload_text(params), str)
    declared = {t.name for t in kind.tools}
    for need in (*kind.needs(concrete), *kind.controller_needs(concrete)):
        assert set(need.names if isinstance(need, AnyOf) else (need,)) <= declared, need


# Records only `stackprobe ingest` makes today (outputs engineers already have); a kind
# that starts producing one must take it off this list.
INGEST_ONLY = {StreamRecord, HplRecord, OsuRecord}


def test_the_kinds_produce_every_record_type_and_only_those():
    produced = {r for k in KINDS for r in k.records}
    union = set(get_args(get_args(Record)[0]))
    assert not produced & INGEST_ONLY
    assert produced | INGEST_ONLY == union


def test_recorded_runs_hold_only_their_kinds_records():
    runs = ROOT / "tests" / "fixtures" / "recorded"
    for results in sorted(runs.glob("runs-*-kind-contract/*/results.json")):
        for step in RunResults.model_validate_json(results.read_text()).steps:
            kinds_records = registry.kind(step.kind).records
            assert all(isinstance(r, kinds_records) for r in step.records), (results, step.id)


def test_the_suite_union_is_the_registry():
    union = Suite.model_fields["steps"].annotation.__args__[0]
    members = union.__origin__.__args__ if hasattr(union, "__origin__") else union.__args__
    assert {m for m in _flatten(members)} == {k.spec for k in KINDS if k.in_suites}
    assert [k.name for k in KINDS if not k.in_suites] == ["peer_result"]  # only ingest makes it


def _flatten(members):
    for m in members:
        if hasattr(m, "__args__") and not isinstance(m, type):
            yield from _flatten(m.__args__)
        elif isinstance(m, type):
            yield m


def test_unknown_names_get_the_contracts_defaults():
    k = registry.kind("no_such_kind")
    assert k.name == "no_such_kind" and "no_such_kind" not in registry.names()
    assert k.tables([]) == [] and k.cluster_io(None) is None


def test_every_need_of_every_builtin_suite_is_a_declared_tool():
    tools = by_name()
    hosts = load_hosts(ROOT / "tests" / "golden" / "plans" / "hosts.yaml")
    for suite in builtin_names():
        plan = expand(load_suite(suite).suite, None, hosts)
        for controller in (False, True):
            for need in required_tools(plan, controller=controller):
                for name in need.names if isinstance(need, AnyOf) else (need,):
                    assert name in tools, (suite, name)


def _makefile_list(name: str) -> set[str]:
    text = (ROOT / "Makefile").read_text()
    block = re.search(rf"^{name}\s*:=\s*((?:.*\\\n)*.*)$", text, re.MULTILINE).group(1)
    return set(block.replace("\\\n", " ").split())


def test_makefile_installs_exactly_the_declared_packages():
    listed = _makefile_list("APT_QUICK") | _makefile_list("APT_MORE")
    assert _makefile_list("APT_PACKAGES") == {"$(APT_QUICK)", "$(APT_MORE)"}
    declared = {t.package for t in all_tools()} | set(LIBRARIES) | LAB_PACKAGES | TEST_PACKAGES
    assert listed == declared, (sorted(listed - declared), sorted(declared - listed))
    assert {t.package for t in PLATFORM_TOOLS} <= listed


def test_make_run_installs_what_the_quick_suite_needs_and_no_more_than_it_uses():
    """`make run` installs APT_QUICK alone: the quick suite's tools (one of each any-of), the
    platform's (monitor, guard, fleet) and dmidecode (the inventory's DIMMs)."""
    quick = _makefile_list("APT_QUICK")
    tools = by_name()
    needed = {t.package for t in PLATFORM_TOOLS} | {"dmidecode"}
    plan = expand(load_suite("quick").suite)
    for need in required_tools(plan) + required_tools(plan, controller=True):
        names = need.names if isinstance(need, AnyOf) else (need,)
        packages = {tools[n].package for n in names}
        assert packages & quick, (names, packages)
        needed |= packages & quick
    assert quick == needed, sorted(quick - needed)


def kind_name_uses(path: Path, names: set[str]) -> set[str]:
    """Kind names a file compares a `kind` with, or keys a literal table by (two or more)."""
    tree = ast.parse(path.read_text())

    def kindish(node) -> bool:
        return any((isinstance(n, ast.Name) and n.id == "kind") or
                   (isinstance(n, ast.Attribute) and n.attr == "kind") for n in ast.walk(node))

    def named(node) -> set[str]:
        if isinstance(node, ast.Constant) and node.value in names:
            return {node.value}
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return set().union(*(named(e) for e in node.elts)) if node.elts else set()
        return set()

    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(kindish(s) for s in (node.left, *node.comparators)):
            for side in (node.left, *node.comparators):
                found |= named(side)
        elif isinstance(node, ast.Dict):
            keys = set().union(*(named(k) for k in node.keys if k is not None)) if node.keys else set()
            if len(keys) >= 2:
                found |= keys
        elif isinstance(node, ast.Call) and any(named(a) for a in node.args) and \
                any(kindish(a) for a in node.args + [node.func]):
            found |= set().union(*(named(a) for a in node.args))
    return found


def test_kind_names_only_in_their_own_modules():
    names = set(registry.names())
    own = {Path(type(k).__module__.replace(".", "/") + ".py").relative_to("stackprobe"): k.name
           for k in KINDS}
    offenders = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        allowed = {own[rel]} if rel in own else set()
        used = kind_name_uses(path, names) - allowed
        if used and str(rel) not in ALLOWED:
            offenders[str(rel)] = sorted(used)
    assert offenders == {}


def test_the_scan_finds_a_branch_on_a_kind_name(tmp_path):
    """The check above can fail: a file with the branches this contract forbids is named."""
    bad = tmp_path / "bad.py"
    bad.write_text('def f(step):\n    if step.kind == "fio":\n        return 1\n'
                   '    return {"fio": 1, "slo": 2}.get(step.kind)\n'
                   'def g(kind):\n    return kind in ("rados_bench", "rbd_bench")\n')
    assert kind_name_uses(bad, set(registry.names())) == {"fio", "slo", "rados_bench", "rbd_bench"}


def test_host_modes_decide_how_a_step_meets_its_hosts():
    hosts = load_hosts(ROOT / "tests" / "golden" / "plans" / "hosts.yaml")
    for kind in [k for k in KINDS if k.in_suites]:
        fields = {"kind": kind.name, "hosts": "all"}
        if kind.name == "slo":
            fields["limit"] = "1ms"
        if kind.name == "io500_like":  # from hosts: only on a file system they all see
            fields["directory"] = "/mnt/shared"
        suite = Suite.model_validate({"name": "t", "steps": [fields]})
        if kind.hosts is HostMode.CONTROLLER:
            with pytest.raises(UserError, match="does not run on hosts"):
                expand(suite, None, hosts)
            continue
        if kind.reach is Reach.MANAGEMENT:  # the golden hosts have shells, no BMC entry
            [step] = expand(suite, None, hosts)
            assert step.skip == "no management controller in the hosts file"
            continue
        [step] = [s for s in expand(suite, None, hosts) if s.kind == kind.name]
        assert step.hosts == ("h1", "h2", "h3") and step.host_mode is kind.hosts
        assert step.per_node == (kind.hosts is HostMode.EACH)
