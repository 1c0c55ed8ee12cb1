"""Shared pieces of the fuzz tests (tests/test_fuzz_*.py): settings, mutations, the corpus.

Why a module of its own: both fuzz files need the same fixed hypothesis settings (CI must
see the same examples on every run), the same mutations of recorded tool outputs, and one
counter of the cases fed in, printed once at the end of the session (a plugin registered
from a fixture, since tests/conftest.py belongs to everyone).

STACKPROBE_FUZZ_EXAMPLES=N runs N examples per property (STACKPROBE_FUZZ_RANDOM=1: new
ones each run) and STACKPROBE_FUZZ_SAVE=DIR writes every input that broke a property to DIR, ready to be
copied into tests/fixtures/fuzz/<target>/ as a regression case.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from conftest import FIXTURES

CORPUS = FIXTURES / "fuzz"
SHARED_PUBLIC = FIXTURES.parents[2] / "shared" / "fixtures" / "public"

# Fixed examples, no example database: every run (and CI) checks the same inputs. To fuzz
# longer locally: STACKPROBE_FUZZ_EXAMPLES=5000 STACKPROBE_FUZZ_RANDOM=1.
FUZZ = settings(
    max_examples=int(os.environ.get("STACKPROBE_FUZZ_EXAMPLES", "150")),
    deadline=None,
    derandomize=not os.environ.get("STACKPROBE_FUZZ_RANDOM"),
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.large_base_example, HealthCheck.filter_too_much],
)

CASES: Counter[str] = Counter()  # inputs fed to a parser or loader, by fuzz file


class _Summary:
    """Prints the case count in pytest's terminal summary."""

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not CASES:
            return
        parts = ", ".join(f"{name} {n}" for name, n in sorted(CASES.items()))
        terminalreporter.write_sep("-", "fuzz cases")
        terminalreporter.write_line(f"fuzz cases run: {sum(CASES.values())} ({parts})")


def register_summary(config: pytest.Config) -> None:
    if not config.pluginmanager.has_plugin("stackprobe-fuzz-summary"):
        config.pluginmanager.register(_Summary(), "stackprobe-fuzz-summary")


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """TimeoutError if the block uses more than `seconds` of this process's CPU (a YAML
    bomb must not hang). CPU time, not wall time: make test runs this tier at nice 19
    beside the system tests, where a worker may wait seconds for a core it is not given,
    and a bomb burns CPU whatever the machine is doing."""

    def _expired(signum, frame):
        raise TimeoutError(f"used more than {seconds} s of CPU")

    previous = signal.signal(signal.SIGPROF, _expired)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def save_failure(target: str, text: str) -> None:
    """Keep a failing input when STACKPROBE_FUZZ_SAVE names a directory."""
    folder = os.environ.get("STACKPROBE_FUZZ_SAVE")
    if folder:
        path = Path(folder) / target
        path.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]
        (path / f"{digest}.txt").write_bytes(text.encode("utf-8", "surrogatepass"))


def corpus_files(target: str) -> list[Path]:
    folder = CORPUS / target
    return sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []


def read_input(path: Path) -> str:
    """A fixture or corpus file as a parser gets it: bytes decoded with errors='replace'."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        import gzip

        data = gzip.decompress(data)
    return data.decode("utf-8", errors="replace")


# ------------------------------------------------------------------ input strategies

HUGE_NUMBERS = (
    "1e308", "1e309", "-1e309", "1" + "0" * 400, "-" + "9" * 400, "-1", "0", "-0", "0.0",
    "NaN", "-NaN", "nan", "Infinity", "-Infinity", "inf", "-inf", "9" * 30, "1e-400",
    "4294967295", "18446744073709551616", "1.5e+300", "0x10", "1,5",
)
WRONG_JSON_VALUES: tuple = (
    None, "x", "", "12", True, False, [], {}, [1, 2], {"a": 1}, -1, 0, 10**400, float("nan"),
    float("inf"), -float("inf"), 1e308, "1e400", [[[]]], [{"a": None}],
)
JUNK = (
    "\x00", "\x00\x01\x02\x7f", "\ufffd\ufffd", "\x1b[2J", "\r", "\r\n", "\n\n", "\t", "{", "}",
    "[", "]", '"', ";", ":", ",", "%", "=", "\u202e", "\u00a0", "\ufeff", "^C", "{\n", "}\n",
    "[" * 3000, '{"a":' * 3000, "- " * 2000, "1" * 5000, " " * 10000,
)


def text_or_bytes() -> st.SearchStrategy[str]:
    """Arbitrary text, and arbitrary bytes decoded as a file would be (errors='replace')."""
    return st.one_of(
        st.text(max_size=400),
        st.binary(max_size=400).map(lambda b: b.decode("utf-8", errors="replace")),
    )


def line_soup(lines: list[str]) -> st.SearchStrategy[str]:
    """Lines of real outputs recombined with junk: reaches the regexes that arbitrary
    text never matches."""
    piece = st.one_of(st.sampled_from(lines), st.sampled_from(lines), st.sampled_from(JUNK),
                      st.text(max_size=30))
    return st.lists(piece, max_size=30).map("\n".join)


class Mutant:
    """A mutated seed; its repr is the recipe (seed name, operations), not 50 kB of text."""

    __slots__ = ("text", "recipe")

    def __init__(self, text: str, recipe: str) -> None:
        self.text, self.recipe = text, recipe

    def __repr__(self) -> str:
        return f"Mutant({self.recipe})"


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _json_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each top-level JSON object in `text`."""
    decoder = json.JSONDecoder()
    spans, pos = [], text.find("{")
    while pos >= 0:
        try:
            _doc, end = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError):
            pos = text.find("{", pos + 1)
            continue
        spans.append((pos, end))
        pos = text.find("{", end)
    return spans


def value_paths(doc, limit: int = 4000) -> list[tuple]:
    """Paths to every value in a JSON document (breadth first, at most `limit`)."""
    out: list[tuple] = []
    queue: list[tuple] = [()]
    while queue and len(out) < limit:
        path = queue.pop(0)
        node = doc
        for key in path:
            node = node[key]
        keys = node.keys() if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else ()
        for key in keys:
            out.append(path + (key,))
            queue.append(path + (key,))
    return out


@dataclass
class Seed:
    name: str
    text: str
    spans: list[tuple[int, int]]


def seeds_from(paths: list[Path]) -> list[Seed]:
    seeds = []
    for path in paths:
        text = read_input(path)
        seeds.append(Seed(path.name, text, _json_spans(text)))
    return seeds


def _op_truncate(draw, text: str) -> tuple[str, str]:
    at = draw(st.integers(0, len(text)))
    return text[:at], f"truncate({at})"


def _op_flip(draw, text: str) -> tuple[str, str]:
    data = bytearray(text.encode("utf-8", "surrogatepass"))
    if not data:
        return text, "flip(empty)"
    at, bit = draw(st.integers(0, len(data) - 1)), draw(st.integers(0, 7))
    data[at] ^= 1 << bit
    return data.decode("utf-8", errors="replace"), f"flip(byte {at}, bit {bit})"


def _op_number(draw, text: str) -> tuple[str, str]:
    found = list(_NUMBER.finditer(text))
    if not found:
        return text, "number(none)"
    m = found[draw(st.integers(0, len(found) - 1))]
    new = draw(st.sampled_from(HUGE_NUMBERS))
    return text[: m.start()] + new + text[m.end():], f"number({m.start()}: {m[0]!r} -> {new[:12]!r})"


def _op_junk(draw, text: str) -> tuple[str, str]:
    at = draw(st.integers(0, len(text)))
    junk = draw(st.one_of(st.sampled_from(JUNK), st.binary(min_size=1, max_size=20).map(
        lambda b: b.decode("utf-8", errors="replace"))))
    return text[:at] + junk + text[at:], f"junk({at}, {junk[:12]!r})"


def _op_line(draw, text: str) -> tuple[str, str]:
    lines = text.splitlines(keepends=True)
    if not lines:
        return text, "line(none)"
    i = draw(st.integers(0, len(lines) - 1))
    how = draw(st.sampled_from(("delete", "duplicate", "swap")))
    if how == "delete":
        del lines[i]
    elif how == "duplicate":
        lines.insert(i, lines[i])
    else:
        j = draw(st.integers(0, len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
    return "".join(lines), f"line({how} {i})"


def _op_twice(draw, text: str) -> tuple[str, str]:
    sep = draw(st.sampled_from(("", "\n", "\r\n")))
    return text + sep + text, "twice"


TEXT_OPS: dict[str, Callable] = {
    "truncate": _op_truncate, "flip": _op_flip, "number": _op_number, "junk": _op_junk,
    "line": _op_line, "twice": _op_twice,
}


def _op_json(draw, seed: Seed, text: str) -> tuple[str, str]:
    """Replace a value of one of the seed's JSON documents by a wrong type, a huge number
    or nothing (key deleted), and put the document back where it was."""
    start, end = seed.spans[draw(st.integers(0, len(seed.spans) - 1))]
    doc = json.loads(seed.text[start:end])
    paths = value_paths(doc)
    if not paths:
        return text, "json(empty)"
    path = paths[draw(st.integers(0, len(paths) - 1))]
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    how = draw(st.sampled_from(("delete", "value", "value")))
    if how == "delete":
        del parent[path[-1]]
        what = "delete"
    else:
        value = draw(st.sampled_from(WRONG_JSON_VALUES))
        parent[path[-1]] = value
        what = f"= {json.dumps(value)[:12]}"
    layout = draw(st.sampled_from((2, None)))
    new = json.dumps(doc, indent=layout)
    return seed.text[:start] + new + seed.text[end:], f"json({'/'.join(map(str, path))} {what})"


@st.composite
def mutants(draw, seeds: list[Seed]) -> Mutant:
    """A seed with one to three mutations: structural JSON ones first (they re-read the
    seed's documents), then text ones."""
    seed = draw(st.sampled_from(seeds))
    text, recipe = seed.text, [seed.name]
    if seed.spans and draw(st.booleans()):
        text, step = _op_json(draw, seed, text)
        recipe.append(step)
    for _ in range(draw(st.integers(0 if len(recipe) > 1 else 1, 3))):
        text, step = TEXT_OPS[draw(st.sampled_from(sorted(TEXT_OPS)))](draw, text)
        recipe.append(step)
    return Mutant(text, "; ".join(recipe))


# the fast tier (make test-fast) cuts each fixture at fewer places, and its last line at a
# few of them; make test at 40 and at every offset of the last line
FAST = os.environ.get("STACKPROBE_TEST_TIER") == "fast"
CUTS = 8 if FAST else 40
TAIL_CUTS = 8 if FAST else None  # None: every offset


def truncations(text: str, count: int = CUTS) -> Iterator[str]:
    """`text` cut at `count` evenly spread offsets, and at every offset of its last line
    (TAIL_CUTS of them in the fast tier)."""
    step = max(1, len(text) // count)
    cuts = set(range(0, len(text), step))
    tail = text.rstrip().rfind("\n") + 1
    if len(text) - tail < 200:
        tail_step = 1 if TAIL_CUTS is None else max(1, (len(text) - tail) // TAIL_CUTS)
        cuts.update(range(tail, len(text), tail_step))
    for at in sorted(cuts):
        yield text[:at]


def one_line(message: str) -> bool:
    return bool(message.strip()) and "\n" not in message and "\r" not in message
