"""TaggedStderr: the remote PID found after any start-up text a login shell prints, the
tool's stderr passed on whole and once, however the stream is cut into chunks."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from stackprobe.transport.pid_tag import LOOKAHEAD, PID_TAG, TaggedStderr, split_pid

NOISE = "rm: cannot remove '/root/.pyenv/shims/tmp.X': No such file or directory\n" * 4


def _fed(text: str, cuts: list[int]) -> tuple[TaggedStderr, str]:
    t = TaggedStderr()
    bounds = [0, *sorted(c % (len(text) + 1) for c in cuts), len(text)]
    out = "".join(t.feed(text[a:b]) for a, b in zip(bounds, bounds[1:], strict=False))
    return t, out + t.finish()


@given(st.lists(st.integers(min_value=0), max_size=6), st.sampled_from(["", NOISE, "x\n"]))
def test_any_chunking_gives_the_pid_and_the_tools_stderr_once(cuts, noise):
    tool = f"1795525324.214541122\nrbd: warning\n{PID_TAG}7 is the tool's own text\n"
    t, out = _fed(f"{noise}{PID_TAG}4242\n{tool}", cuts)
    assert (t.pid, t.startup, out) == (4242, noise, tool)


def test_without_a_tag_nothing_is_lost():
    assert split_pid(NOISE) == (None, NOISE)
    assert split_pid(f"{PID_TAG}12x\nrest\n") == (None, f"{PID_TAG}12x\nrest\n")


def test_start_up_text_without_end_is_given_up_on_and_kept():
    t = TaggedStderr()
    big = "y" * (LOOKAHEAD + 1)
    assert t.feed(big) == big and t.settled and t.pid is None
    assert t.feed(f"{PID_TAG}1\n") == f"{PID_TAG}1\n"


def test_tag_on_the_first_line():
    assert split_pid(f"{PID_TAG}42\nrest") == (42, "rest")
