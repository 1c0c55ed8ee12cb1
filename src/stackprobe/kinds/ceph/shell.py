"""One librados client, connected once per run, for the read-only commands that watch
every Ceph step (engine/ceph_watch.py); the `ceph` CLI stays the fallback.

Why: watching ran `ceph` three times every five seconds of a Ceph step and six times
around it, and each `ceph` is a Python start and a monitor connection, about 0.3 s of CPU
here: 18% of a core through a day-long soak, and on the lab's two cores a second of
every step's start and stop (ceph-quick: 31 steps). shell_helper.py runs under the
interpreter of the `ceph` CLI (python3-rados lives there) and answers each command in
milliseconds with the bytes the CLI would print. Only the commands in REQUESTS (and
`tell osd.* <cmd>`) go through it; anything else, a helper that will not start, or one
that stops answering, and the caller runs the CLI as before.
"""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path

from stackprobe.kinds.ceph.target import CephTarget
from stackprobe.transport.base import CommandResult

HELPER = Path(__file__).with_name("shell_helper.py")
CONNECT_TIMEOUT_S = 30.0
# the CLI's arguments (before `-f json`) -> the monitor command it sends
REQUESTS: dict[tuple[str, ...], dict[str, str]] = {
    ("osd", "perf"): {"prefix": "osd perf"},
    ("osd", "pool", "stats"): {"prefix": "osd pool stats"},
    ("health", "detail"): {"prefix": "health", "detail": "detail"},
    ("osd", "ls"): {"prefix": "osd ls"},
}
TELL_ALL = ("tell", "osd.*")


def cli_python(ceph: str = "ceph") -> str | None:
    """The interpreter of the `ceph` CLI (its shebang), where python3-rados is."""
    path = shutil.which(ceph)
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            first = f.readline(256).decode("utf-8", "replace")
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    words = first[2:].split()
    if not words:
        return None
    if Path(words[0]).name == "env" and len(words) > 1:
        return shutil.which(words[1])
    return words[0] if Path(words[0]).is_file() else None


def request_of(args: tuple[str, ...]) -> dict | None:
    """What the helper is asked for the CLI's `args` (with `-f json`), or None."""
    if args[:2] == TELL_ALL and len(args) > 2:
        return {"tell_osds": {"prefix": " ".join(args[2:]), "format": "json"}}
    cmd = REQUESTS.get(args)
    return {"cmd": {**cmd, "format": "json"}} if cmd is not None else None


def tell_all_text(osds: dict[str, dict]) -> tuple[int, str, str]:
    """The helper's answers per OSD as `ceph tell osd.* ...` prints them: `osd.N: <answer>`
    per OSD that answered, an Error line on stderr for each that did not."""
    out, err, rc = [], [], 0
    for osd in sorted(osds, key=int):
        a = osds[osd]
        if a["rc"] == 0:
            out.append(f"osd.{osd}: {a['out'].strip()}\n")
        else:
            rc = rc or a["rc"]
            err.append(f"Error osd.{osd}: {a['err'] or 'no answer'} (errno {a['rc']})\n")
    return rc, "".join(out), "".join(err)


class CephShell:
    """start() once, run(args) from any thread, close() at the end of the run."""

    def __init__(self, target: CephTarget, host: str = "localhost", op_timeout_s: float = 60.0):
        self.target = target
        self.host = host
        self.op_timeout_s = op_timeout_s
        self.problem: str | None = None  # why the CLI is used instead, in words
        self._proc: subprocess.Popen | None = None
        self._answers: queue.Queue = queue.Queue()
        self._lock = threading.Lock()

    def start(self) -> bool:
        python = cli_python()
        if python is None:
            self.problem = "the `ceph` CLI's Python was not found"
            return False
        t = self.target
        argv = [python, "-I", str(HELPER), str(t.conf), t.client,
                str(t.keyring) if t.keyring is not None else "", str(int(self.op_timeout_s))]
        try:  # a session of its own: Ctrl-C stops the tools, not the watching
            self._proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, text=True,
                                          start_new_session=True)
        except OSError as exc:
            self.problem = f"{python}: {exc}"
            return False
        threading.Thread(target=self._read, args=(self._proc,), name="ceph-shell",
                         daemon=True).start()
        first = self._next(CONNECT_TIMEOUT_S + 10)
        if not (first or {}).get("ready"):
            self.problem = (first or {}).get("err") or "no answer from the librados helper"
            self.close()
            return False
        return True

    def _read(self, proc: subprocess.Popen) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                self._answers.put(json.loads(line))
            except ValueError:
                self._answers.put(None)
        self._answers.put(None)  # ended

    def _next(self, timeout: float) -> dict | None:
        try:
            return self._answers.get(timeout=timeout)
        except queue.Empty:
            return None

    def run(self, args: tuple[str, ...]) -> CommandResult | None:
        """The CLI's result for `ceph <args> -f json`, or None: ask the CLI instead."""
        request = request_of(args)
        if request is None:
            return None
        argv = ["ceph", *self.target.cli(), *args, "-f", "json"]  # what it stands for
        with self._lock:  # one question at a time; another thread may have closed it
            proc = self._proc
            if proc is None or proc.stdin is None:
                return None
            started = time.time()
            try:
                proc.stdin.write(json.dumps(request) + "\n")
                proc.stdin.flush()
            except (OSError, ValueError):
                self._gone("the librados helper ended")
                return None
            answer = self._next(self.op_timeout_s + 10)  # the helper's ops time out first
            if answer is None:
                self._gone("the librados helper stopped answering")
                return None
        if "osds" in answer:
            rc, out, err = tell_all_text(answer["osds"])
        else:
            rc, out, err = answer["rc"], answer["out"], answer["err"]
        return CommandResult(argv, rc, out, err, started, time.time(), host=self.host)

    def _gone(self, why: str) -> None:
        self.problem = why
        self.close()

    def close(self) -> None:
        """End the helper (our child, by its PID): stdin closed, then killed if it lingers."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
