"""The remote PID, told apart from what the host's login shell prints before it.

sshd runs every command through the user's shell, which reads its start-up files first:
on a real host these print what they like on stderr (an `eval "$(pyenv init -)"` that
cannot rehash, a banner, a module system's notes), and under many parallel sessions
they print it more. Our command line starts by echoing a tag with the shell's PID to
stderr, then execs the tool, so the stream is: the shell's start-up text, the tag line,
then the tool's own stderr. `TaggedStderr` finds the tag line wherever it is — not only
on the first line — keeps the PID (so interrupts and timeouts can stop the command by
it) and passes on only the tool's stderr, so a parser or a start stamp that reads the
first line of stderr reads the tool's. The start-up text is kept apart (`startup`)
rather than mixed into the tool's output.
"""

from __future__ import annotations

import re

PID_TAG = "__stackprobe_pid__"
_TAG_LINE = re.compile(rf"(?m)^{PID_TAG}(\d+)\r?\n")
LOOKAHEAD = 1 << 16  # start-up text longer than this without a tag: no tag is coming


class TaggedStderr:
    """Fed the remote stderr in chunks as they arrive; returns the tool's part of each."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self.startup = ""  # what the login shell printed before the tag
        self.settled = False  # the tag was found, or given up on
        self._buffer = ""

    def feed(self, chunk: str) -> str:
        """The part of `chunk` that is the tool's stderr ('' while the tag is still awaited)."""
        if self.settled:
            return chunk
        self._buffer += chunk
        m = _TAG_LINE.search(self._buffer)
        if m is not None:
            self.pid = int(m.group(1))
            self.startup, rest = self._buffer[:m.start()], self._buffer[m.end():]
            self._settle()
            return rest
        if len(self._buffer) > LOOKAHEAD:
            return self.finish()
        return ""

    def finish(self) -> str:
        """At the end of the stream: what is left over. Without a tag line (the shell did
        not get as far as our command) all of it is stderr, so no message is lost."""
        if self.settled:
            return ""
        rest = self._buffer
        self._settle()
        return rest

    def _settle(self) -> None:
        self.settled = True
        self._buffer = ""


def split_pid(stderr: str) -> tuple[int | None, str]:
    """A whole stderr at once: (the PID, the tool's stderr)."""
    t = TaggedStderr()
    rest = t.feed(stderr)
    return t.pid, rest + t.finish()
