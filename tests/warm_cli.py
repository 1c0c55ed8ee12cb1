"""`stackprobe ARGS` in its own process, without paying Python's start-up each time.

The tests run the CLI hundreds of times (conftest.run_cli), and each `python -m stackprobe`
spent most of its second importing: pydantic building every kind's and record's model,
asyncssh, rich. Here one process per pytest worker imports the CLI once (`_serve`) and
forks a child for each command: the child is a process of its own, with the command's
argv, environment, working directory, standard input /dev/null and its output in files,
that runs `stackprobe.cli.app.main()` and ends the way `python -m stackprobe` ends (its
exit status, a signal's negative one). What the tests see is what a user's shell sees;
only the imports are shared, copy-on-write, and no module of stackprobe reads the
environment when it is imported.

The process is stopped by `stop()` (end of the session) or when pytest goes away (its
requests pipe closes); a command that outlives its timeout is killed by PID, as
subprocess.run does.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_SERVER = r'''
import json, os, sys

# every module a command reaches for: imported once, shared by every child
import stackprobe.cli.app, stackprobe.suite.loader, stackprobe.schema.results
import stackprobe.engine.launch, stackprobe.report.terminal, stackprobe.ingest.files

MAIN = os.path.join(os.path.dirname(stackprobe.__file__), "__main__.py")


def child(req):
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    for fd, path in ((1, req["stdout"]), (2, req["stderr"])):
        os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
    sys.stdin = open(0, "r", closefd=False)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
    os.environ.clear()
    os.environ.update(req["env"])
    if req["cwd"]:
        os.chdir(req["cwd"])
    sys.argv = [MAIN, *req["args"]]
    stackprobe.cli.app.main()  # exits like `python -m stackprobe`: SystemExit, or returns


def serve():
    requests = os.fdopen(0, "rb")
    while True:
        line = requests.readline()
        if not line:
            return
        req = json.loads(line)
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            child(req)
            return  # the child leaves the loop and the interpreter ends as python -m would
        os.write(1, (json.dumps({"pid": pid}) + "\n").encode())
        _, status = os.waitpid(pid, 0)
        os.write(1, (json.dumps({"code": os.waitstatus_to_exitcode(status)}) + "\n").encode())


serve()
'''


class WarmCli:
    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None
        self.scratch: Path | None = None  # made at the first command: a process that imports
        self._buffer = b""  # conftest but runs no test (xdist's controller) leaves nothing

    def _start(self) -> subprocess.Popen:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen([sys.executable, "-c", _SERVER], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, env=dict(os.environ))
            self._buffer = b""
        return self.proc

    def _reply(self, timeout: float | None) -> dict | None:
        """The server's next line, or None when `timeout` passed first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                raise RuntimeError("the warm stackprobe process ended")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def run(self, args: list[str], *, cwd, env: dict[str, str], timeout: float
            ) -> subprocess.CompletedProcess:
        proc = self._start()
        if self.scratch is None:
            self.scratch = Path(tempfile.mkdtemp(prefix="stackprobe-warm-cli-"))
        out, err = self.scratch / "stdout", self.scratch / "stderr"
        req = {"args": args, "cwd": str(cwd) if cwd is not None else None, "env": env,
               "stdout": str(out), "stderr": str(err)}
        proc.stdin.write((json.dumps(req) + "\n").encode())
        proc.stdin.flush()
        pid = self._reply(30)["pid"]
        done = self._reply(timeout)
        argv = [sys.executable, "-m", "stackprobe", *args]
        if done is None:  # what subprocess.run does: kill the command, then say so
            os.kill(pid, 9)
            self._reply(None)
            raise subprocess.TimeoutExpired(argv, timeout, out.read_bytes(), err.read_bytes())
        return subprocess.CompletedProcess(argv, done["code"], out.read_text(encoding="utf-8"),
                                           err.read_text(encoding="utf-8"))

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.scratch is not None:
            for name in ("stdout", "stderr"):
                (self.scratch / name).unlink(missing_ok=True)
            self.scratch.rmdir()
            self.scratch = None
