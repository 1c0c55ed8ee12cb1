"""Bad suite and hosts files, `--set` values and fio job files given as a suite: garbage,
binary, YAML bombs, deep nesting, wrong types.

Why: a suite or hosts file is the one input a person writes by hand, and `run`/`plan` read
it before anything else. Whatever the file holds, loading it must end in a Suite (or
HostsFile) or a SuiteError whose message is one line starting with `file:line: `, within
a second or so and without exhausting memory: PyYAML's safe loader refuses code, but
aliases expand without limit (a "billion laughs" is a few hundred bytes), recursive
aliases and deep nesting exhaust the recursion limit, and some values (2024-13-45, .inf)
load as something no field can use.

`--set KEY=VALUE` (suite/overrides.py) is text typed on a command line, read as a YAML value
and applied to the suite before it is validated: the `set` target takes each line of the
input as one `--set` on the quick suite, and must end in a Suite or one UserError line
naming the `--set` or the suite's line. A fio job file given where a suite is expected
(`run job.fio`, suite/job_file_suite.py) becomes a one-step suite whose file is read again
by the plan (its estimate) and the target guard (its paths): the `job_file` target writes
the input to a `.fio` file and loads, plans and guards it — a Suite, or one SuiteError line
naming the file.

Inputs: arbitrary text and bytes, YAML-ish token soup, the built-in suites (and the --set
and job file seeds) with a wrong value in every field in turn, the seeds mutated (text, and
structure where they are YAML), a set of YAML bombs, and the corpus under
tests/fixtures/fuzz/{suite,hosts,criteria,set,job_file}/. The CLI is checked end to end on a
handful: one line on stderr, exit 2 (ingest: 1, as documented), no traceback.
"""

from __future__ import annotations

import math
import os
import re
import sys
import tempfile
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from conftest import run_cli
from fuzz_support import (
    CASES,
    FUZZ,
    JUNK,
    TEXT_OPS,
    Mutant,
    Seed,
    corpus_files,
    one_line,
    read_input,
    register_summary,
    save_failure,
    text_or_bytes,
    time_limit,
    value_paths,
)
from stackprobe.engine.preflight import plan_guard_inputs
from stackprobe.errors import UserError
from stackprobe.plan.expand import expand
from stackprobe.spec.hosts import HostsFile
from stackprobe.suite.loader import LoadedSuite, SuiteError, load_suite, parse_model, parse_suite
from stackprobe.suite.models import Suite
from stackprobe.verdict.bind import bind_criteria

BUILTIN = Path(__file__).resolve().parents[1] / "src" / "stackprobe" / "suite" / "builtin"
FILENAME = "fuzz.yaml"
ERROR = re.compile(rf"^{re.escape(FILENAME)}:\d+: .")
HOSTS_SEED = """\
ssh:
  user: root
  identity: ~/.ssh/id_ed25519
  known_hosts: none
  connect_timeout: 5
hosts:
  - name: node1
    address: 192.0.2.11
    roles: [client, storage]
    nic_speed_mbps: 25000
    directories: [/srv/bench]
    devices: [/dev/nvme0n1]
    ssh: {port: 2222}
  - name: node2
    address: 192.0.2.12
"""


@pytest.fixture(scope="session", autouse=True)
def _fuzz_summary(request):
    register_summary(request.config)


def _parse_hosts(text: str, filename: str) -> HostsFile:
    return parse_model(text, filename, HostsFile, "a hosts file is a mapping with 'hosts'")


def _bind_criteria(text: str, filename: str) -> list:
    """A suite's criteria, read and bound to its plan as `run` and `plan` do."""
    suite = parse_suite(text, filename)
    return bind_criteria(LoadedSuite(suite, filename, text, None), expand(suite))


CRITERIA_SEED = """\
name: criteria
criteria:
  - no flagged link
  - every host reported
  - node spread (memory bandwidth) <= 10%
  - efficiency vs ceiling >= 70%
  - stability: no stall
  - fio:rw=randread,bs=4k,iodepth=32:read.iops >= 150k
  - fio:bs=4K@h2:p99 <= 5 ms
steps:
  - kind: memory
  - kind: fio
    rw: randread
    bs: 4k
    iodepth: 32
    criteria: [iops >= 150k, read.p99 <= 5 ms, write bw > 1 GiB/s, mean latency < 2ms]
"""

SET_SUITE = "quick"  # the built-in suite the `set` target's --set values change


def _load_with_sets(text: str, filename: str) -> Suite:
    """Each line of the input one `--set`, on the quick suite, as `run quick --set ...`."""
    return load_suite(SET_SUITE, text.splitlines()).suite


JOB_FILE = "fuzz.fio"


def _load_job_file(text: str, filename: str) -> Suite:
    """The input as the fio job file of `run fuzz.fio`: the one-step suite, its plan (which
    reads the file for its estimate) and the target guard's reading of the file's paths.
    Includes are followed inside the scratch directory alone: the fuzz reads no other file."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / JOB_FILE
        path.write_bytes(text.encode("utf-8", "surrogatepass"))

        def read_inside(name: str) -> str:
            if Path(tmp).resolve() not in Path(name).resolve().parents:
                raise FileNotFoundError(f"{name}: not read by the fuzz test")
            return Path(name).read_text(encoding="utf-8")

        loaded = load_suite(str(path))
        _uses, refusals = plan_guard_inputs(expand(loaded.suite, loaded.base_dir), read_inside)
        assert all(one_line(r) for r in refusals), refusals  # each printed as one line
        return loaded.suite


LOADERS: dict[str, tuple[Callable[[str, str], object], type]] = {
    "suite": (parse_suite, Suite),
    "hosts": (_parse_hosts, HostsFile),
    "criteria": (_bind_criteria, list),
    "set": (_load_with_sets, Suite),
    "job_file": (_load_job_file, Suite),
}
# What each loader may refuse with, and how its one line starts (default: SuiteError, ERROR).
ERRORS: dict[str, tuple[type[Exception], re.Pattern]] = {
    "set": (UserError, re.compile(rf"^(?:{SET_SUITE}\.yaml(?::\d+)?: |--set )")),
    "job_file": (SuiteError, re.compile(rf"^\S*/{re.escape(JOB_FILE)}(?::\d+)?: ")),
}
STRUCTURED = ("suite", "hosts", "criteria")  # YAML files: their values mutated as data too
SET_SEED = """\
runtime=60
size=4G
randread-iops.iodepth=[1, 32]
metadata.files=20000
defaults.options.numa_cpu_nodes=0
lat-qd1.rw=read
randread-iops.title=4k: a note
inventory.kind=fio
"""
JOB_FILE_SEED = """\
; a job file as engineers write them
[global]
ioengine=psync
directory=${STACKPROBE_DIR}
size=16m
runtime=5
ramp_time=1s
time_based

[randread]
rw=randread
bs=4k
filename=data.0:data.1

[logs]
rw=randwrite
write_bw_log=bw
filename_format=$jobname.$jobnum.$filenum
"""
RECORDED_JOBS = sorted((Path(__file__).resolve().parent / "fixtures" / "recorded").rglob("*.fio"))
SEEDS: dict[str, list[Seed]] = {
    "suite": [Seed(p.name, p.read_text(), []) for p in sorted(BUILTIN.glob("*.yaml"))],
    "hosts": [Seed("hosts.yaml", HOSTS_SEED, [])],
    "criteria": [Seed("criteria.yaml", CRITERIA_SEED, []),
                 Seed("cluster-acceptance.yaml", (BUILTIN / "cluster-acceptance.yaml").read_text(), [])],
    "set": [Seed("sets.txt", SET_SEED, []),
            Seed("sweep-sets.txt", "randwrite-iops.numjobs=[1, 4]\nmemory.seconds=5\ndirect=1\n", [])],
    "job_file": [Seed("job.fio", JOB_FILE_SEED, [])] + [Seed(p.name, p.read_text(), []) for p in RECORDED_JOBS],
}


def _check_numbers(value, where: str) -> None:
    """An accepted file's numbers are finite floats and ints a float can hold: plan and
    run turn sizes and times into floats (an .inf runtime crashed `plan`)."""
    if isinstance(value, dict):
        for key, item in value.items():
            _check_numbers(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_numbers(item, f"{where}[{i}]")
    elif isinstance(value, float):
        assert math.isfinite(value), f"{where} is {value}"
    elif isinstance(value, int):
        assert abs(value) <= sys.float_info.max, f"{where} has {len(str(value))} digits"


def check(kind: str, text: str) -> None:
    """The property: a Suite/HostsFile, or one SuiteError line `fuzz.yaml:N: ...` (a
    --set's or a job file's own line, ERRORS), soon."""
    CASES["suite"] += 1
    parse, model = LOADERS[kind]
    refused, start = ERRORS.get(kind, (SuiteError, ERROR))
    try:
        with time_limit(5):
            try:
                result = parse(text, FILENAME)
            except refused as exc:
                message = str(exc)
                assert one_line(message), f"not one line: {message[:300]!r}"
                assert start.match(message), f"not {start.pattern!r} at the start: {message[:300]!r}"
                return
        assert isinstance(result, model)
        if model is not list:
            _check_numbers(result.model_dump(), "result")
    except BaseException:
        save_failure(kind, text)
        raise


# ------------------------------------------------------------------ inputs

YAML_TOKENS = (
    "name: x", "steps:", "  - kind: fio", "  - kind: inventory", "    rw: randread", "bs: 4k",
    "iodepth: [1, 2]", "hosts:", "  - name: n1", "    address: 10.0.0.1", "defaults:", "ssh:",
    "- ", "? ", ": ", "&a ", "*a", "<<: *a", "!!binary", "!!python/object/apply:os.system ['true']",
    "!!set", "!!omap", "---", "...", "%YAML 1.1", "%TAG ! tag:x,2000:", "|", ">", "'", '"', "{",
    "}", "[", "]", ",", "#", "\t", ".inf", ".nan", "-.inf", "1e999", "0x1f", "0o17", "1_000",
    "2024-13-45", "2024-01-01 25:61:61", "~", "null", "yes", "no", "on", "1" + "0" * 400,
)
WRONG_VALUES: tuple = (
    None, "x", "", True, [], {}, [1, 2], {"a": 1}, -1, 0, 10**400, float("inf"), float("nan"),
    1e308, "1e400", "-5", "4k", [[[]]], "\u00e9\u2603", 3.5,
)


def yaml_soup() -> st.SearchStrategy[str]:
    piece = st.one_of(st.sampled_from(YAML_TOKENS), st.sampled_from(JUNK[:24]), st.text(max_size=12))
    line = st.lists(piece, max_size=5).map("".join)
    return st.lists(line, max_size=25).map("\n".join)


def _set(doc, path: tuple, value) -> None:
    node = doc
    for key in path[:-1]:
        node = node[key]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value


_DELETE = object()


def _dump(doc) -> str:
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)


@st.composite
def yaml_mutants(draw, seeds: list[Seed], structured: bool = True) -> Mutant:
    """A seed with a value replaced by a wrong type or deleted (then dumped again: YAML
    seeds alone), and/or text mutations (cut, bit flips, huge numbers, junk, lines moved)."""
    seed = draw(st.sampled_from(seeds))
    text, recipe = seed.text, [seed.name]
    if structured and draw(st.booleans()):
        doc = yaml.safe_load(seed.text)
        paths = value_paths(doc)
        path = paths[draw(st.integers(0, len(paths) - 1))]
        value = draw(st.sampled_from((_DELETE,) + WRONG_VALUES))
        _set(doc, path, value)
        text = _dump(doc)
        recipe.append(f"{'.'.join(map(str, path))} = {'<deleted>' if value is _DELETE else repr(value)[:12]}")
    for _ in range(draw(st.integers(0 if len(recipe) > 1 else 1, 3))):
        text, step = TEXT_OPS[draw(st.sampled_from(sorted(TEXT_OPS)))](draw, text)
        recipe.append(step)
    return Mutant(text, "; ".join(recipe))


def _bombs() -> dict[str, str]:
    laughs = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    laughs += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    mapping = ["m0: &m0 {a: 1, b: 2, c: 3, d: 4}"]
    mapping += [f"m{i}: &m{i} {{a: *m{i - 1}, b: *m{i - 1}, c: *m{i - 1}, d: *m{i - 1}}}"
                for i in range(1, 20)]
    return {
        "billion-laughs": "\n".join(laughs) + "\n",
        "billion-laughs-in-a-step": "name: x\nsteps:\n  - kind: fio\n    options:\n      " +
        "\n      ".join(laughs) + "\n",
        "mapping-bomb-merge": "\n".join(mapping) + "\nname: x\nsteps: [{kind: inventory, <<: *m19}]\n",
        "deep-flow-list": "name: x\nsteps: " + "[" * 100_000 + "]" * 100_000 + "\n",
        "deep-flow-map": "name: x\nsteps: " + "{a: " * 20_000 + "1" + "}" * 20_000 + "\n",
        "deep-block": "".join("  " * i + "- \n" for i in range(500)),
        "recursive-alias": "name: x\nsteps: &s [{kind: inventory, title: *s}]\n",
        "recursive-map": "a: &a {b: *a}\n",
        "collection-key": "? [a, b]\n: 1\nname: x\n",
        "many-values": "name: x\nsteps: [" + "1, " * 21_000 + "]\n",
        "huge-text": "name: x\ndescription: " + "y" * 300_000 + "\nsteps: [{kind: inventory}]\n",
        "huge-int": "name: x\nsteps: [{kind: fio, iodepth: " + "9" * 5000 + "}]\n",
        "code-tag": "name: !!python/object/apply:os.system ['touch /tmp/stackprobe-pwned']\n",
    }


# ------------------------------------------------------------------ properties


@pytest.mark.parametrize("kind", sorted(LOADERS))
@FUZZ
@given(data=st.data())
def test_arbitrary_text_and_bytes(kind, data):
    check(kind, data.draw(text_or_bytes(), label="input"))


@pytest.mark.parametrize("kind", sorted(LOADERS))
@FUZZ
@given(data=st.data())
def test_yaml_soup(kind, data):
    check(kind, data.draw(yaml_soup(), label="input"))


@pytest.mark.parametrize("kind", sorted(LOADERS))
@FUZZ
@given(data=st.data())
def test_mutated_files(kind, data):
    check(kind, data.draw(yaml_mutants(SEEDS[kind], kind in STRUCTURED), label="input").text)


# the fast tier (make test-fast) mutates every sixth field; make test every one
FIELD_STRIDE = 6 if os.environ.get("STACKPROBE_TEST_TIER") == "fast" else 1


# a --set's or a job file option's value, as text: wrong types, huge, not finite, YAML tricks
WRONG_TEXTS = (
    "", "x", "null", "true", "[]", "{}", "[1, 2]", "{a: 1}", "-1", "0", "1" + "0" * 400, ".inf",
    ".nan", "1e308", "1e400", "-5", "4k", "[[[]]]", "\u00e9\u2603", "3.5", "&a [*a]", "2024-13-45",
    "!!python/object/apply:os.system ['true']", "a: b", "${STACKPROBE_DIR}/../x", "/dev/sda",
)


def _wrong_lines(text: str) -> list[str]:
    """`text` with the value of each `KEY=VALUE` line replaced in turn by three of
    WRONG_TEXTS (rotating over them), one line changed per result."""
    lines = text.splitlines()
    out = []
    for n, line in enumerate(lines):
        key, eq, _ = line.partition("=")
        if eq and n % FIELD_STRIDE == 0:
            for offset in (0, 9, 17):
                wrong = WRONG_TEXTS[(n + offset) % len(WRONG_TEXTS)]
                out.append("\n".join(lines[:n] + [f"{key}={wrong}"] + lines[n + 1:]))
    return out


@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_wrong_value_in_every_field(kind):
    """Each value of each built-in suite (and the hosts example, the --set values, the job
    files' options) in turn: a wrong type, a huge number, NaN or infinity in its place, or
    its key deleted (rotating over those)."""
    if kind not in STRUCTURED:
        for seed in SEEDS[kind]:
            for text in _wrong_lines(seed.text):
                check(kind, text)
        return
    choices = (_DELETE,) + WRONG_VALUES
    for seed in SEEDS[kind]:
        doc = yaml.safe_load(seed.text)
        for i, path in enumerate(value_paths(doc)):
            if i % FIELD_STRIDE:
                continue
            mutated = yaml.safe_load(seed.text)
            _set(mutated, path, choices[i % len(choices)])
            check(kind, _dump(mutated))


@pytest.mark.parametrize("name", sorted(_bombs()))
def test_yaml_bombs_are_refused_quickly(name):
    """Refused within check()'s time limit, then (apart: tracing every allocation makes the
    reading several times slower, and a busy machine would turn that into a false alarm)
    within a bounded memory."""
    text = _bombs()[name]
    check("suite", text)
    check("hosts", text)
    tracemalloc.start()
    try:
        with pytest.raises(SuiteError):
            parse_suite(text, FILENAME)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 200 * 2**20, f"peak {peak / 2**20:.0f} MiB"
    assert not Path("/tmp/stackprobe-pwned").exists()


def test_the_builtin_suites_still_load():
    for seed in SEEDS["suite"]:
        check("suite", seed.text)
        assert isinstance(parse_suite(seed.text, seed.name), Suite)
    assert isinstance(_parse_hosts(HOSTS_SEED, "hosts.yaml"), HostsFile)


CORPUS_CASES = [(kind, path) for kind in sorted(LOADERS) for path in corpus_files(kind)]


@pytest.mark.parametrize(("kind", "path"), CORPUS_CASES,
                         ids=[f"{k}/{p.name}" for k, p in CORPUS_CASES])
def test_corpus(kind, path):
    """Files that once broke the loader (or are worth keeping), replayed on every run."""
    check(kind, read_input(path))


# ------------------------------------------------------------------ the CLI, end to end


def _one_line_error(proc, code: int) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stdout + proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    return lines[0]


@pytest.mark.parametrize(("command", "content", "expect"), [
    ("run", b"name: x\nsteps:\n  - kind: fio\n    iodepth: deep\n", ":4: steps[0].iodepth:"),
    ("plan", b"name: x\nsteps: [\n", ": invalid YAML:"),
    ("plan", bytes(range(256)) * 4, ":2: not a UTF-8 text file (byte 128: 0x80)"),
    ("plan", _bombs()["billion-laughs-in-a-step"].encode(), "a YAML bomb?"),
    ("plan", b"name: x\nsteps:\n  - kind: memory\n    seconds: .inf\n", ":4: steps[0].seconds: not a finite"),
    ("plan", b"name: x\nsteps:\n  - kind: fio\n    title: 2024-13-45\n", ":4: invalid YAML value"),
])
def test_cli_bad_suite_is_one_line(tmp_path, command, content, expect):
    CASES["suite"] += 1
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(content)
    args = [command, bad] + (["--out", tmp_path / "runs", "--target", tmp_path] if command == "run" else [])
    line = _one_line_error(run_cli(args, cwd=tmp_path, timeout=120), 2)
    assert line.startswith(f"stackprobe: {bad}") and expect in line, line
    assert not (tmp_path / "runs").exists()


def test_cli_bad_hosts_file_is_one_line(tmp_path):
    CASES["suite"] += 1
    hosts = tmp_path / "hosts.yaml"
    hosts.write_bytes(b"hosts:\n  - name: n1\n    address: \x00\x01\xff\n")
    line = _one_line_error(run_cli(["plan", "quick", "--hosts", hosts], cwd=tmp_path), 2)
    assert line.startswith(f"stackprobe: {hosts}:3: "), line


def test_cli_ingest_garbage_is_one_line(tmp_path):
    CASES["parsers"] += 2
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 64 + b"{" * 5000 + b"[" * 5000)
    line = _one_line_error(run_cli(["ingest", garbage], cwd=tmp_path), 1)
    assert line.startswith(f"stackprobe: {garbage}: cannot ingest:"), line
    nan = tmp_path / "nan.json"
    nan.write_text('{"fio version": "fio-3.33", "jobs": [{"jobname": "j", "groupid": 0,'
                   ' "read": {"iops": NaN, "bw_bytes": 1e999}}]}\n')
    line = _one_line_error(run_cli(["ingest", "--json", nan], cwd=tmp_path), 1)
    assert "cannot ingest" in line, line


SET_CORPUS = Path(__file__).resolve().parent / "fixtures" / "fuzz" / "set"


@pytest.mark.parametrize(("name", "words"), [
    ("bug-billion-laughs-in-a-value-hangs.txt", "anchors and aliases"),
    ("bug-recursive-alias.txt", "anchors and aliases"),
    ("deep-nesting.txt", "nested deeper than"),
    ("many-values.txt", "more than 20000 values"),
    ("bug-5000-digit-number-valueerror.txt", "steps[3].iodepth"),
])
def test_set_values_that_would_blow_up_are_refused_at_once(name, words):
    """A --set value is refused before it is built when building or walking it would take
    minutes (aliases), the recursion limit (nesting) or thousands of steps (a long sweep);
    a number YAML cannot build is the text as typed, then refused by its field."""
    sets = read_input(SET_CORPUS / name).splitlines()
    with time_limit(2), pytest.raises(UserError) as err:
        load_suite(SET_SUITE, sets)
    assert one_line(str(err.value)) and words in str(err.value), str(err.value)[:300]


def test_cli_bad_set_and_job_file_are_one_line(tmp_path):
    CASES["suite"] += 2
    laughs = read_input(SET_CORPUS / "bug-billion-laughs-in-a-value-hangs.txt").strip()
    line = _one_line_error(run_cli(["plan", "quick", "--set", laughs], cwd=tmp_path, timeout=60), 2)
    assert line.startswith("stackprobe: --set defaults.options.x=[&a0") and "aliases" in line, line
    job = tmp_path / "bad.fio"
    job.write_bytes(b"[j]\nrw=read\n" + bytes(range(256)))
    line = _one_line_error(run_cli(["plan", job], cwd=tmp_path, timeout=60), 2)
    assert line.startswith(f"stackprobe: {job}:4: not a UTF-8 text file"), line  # 0x0a before 0x80
