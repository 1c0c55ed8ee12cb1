"""The simulated side of bench/fleet_scale.py: many hosts answered from a real recording.

- `sim_hosts(n, lab_dir)`: a hosts.yaml of n hosts laid out as the lab lays out its own (the
  same names h1..hN, directories and roles), at addresses in 127.0.0.0/8 that nothing is
  ever sent to: every one of their commands is answered by a ReplayTransport.
- `fio_clients`: the answer to the controller's `fio --client=… job … --client=… job …`,
  whose argv and output grow with the hosts. It is the recorded real output of that command
  with one client section per host given: the recorded clients' sections in turn, each
  renamed to the job and address of the host it stands for (fio's own "All clients"
  section is kept as recorded).
- `chromium_load`: how long headless Chromium takes to open a report.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import yaml

from stackprobe.suite.loader import load_hosts
from stackprobe.transport.replay import Recording

SIM_PREFIX = "127.1"  # 127.1.x.y: loopback space, never reached (replayed hosts)
FIO_CLIENT_KEY = "fio --output-format=json+ --client="


def sim_address(i: int) -> str:
    return f"{SIM_PREFIX}.{i // 250}.{i % 250 + 1}"


def sim_hosts(n: int, lab_dir: Path):
    """hosts.yaml for n replayed hosts, shaped like the lab's (lab/hosts_file.py)."""
    lab_dir.mkdir(parents=True, exist_ok=True)
    hosts = [{"name": f"h{i}", "address": sim_address(i), "roles": ["client"],
              "nic_speed_mbps": 10_000, "directories": [str(lab_dir / f"h{i}" / "data")]}
             for i in range(1, n + 1)]
    data = {"ssh": {"user": "root", "connect_timeout": 10}, "hosts": hosts}
    path = lab_dir / "hosts.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return load_hosts(path)


def _document(text: str) -> tuple[str, dict]:
    """fio's client output: the lines before its JSON document, and the document."""
    start = text.index("\n{") + 1 if not text.startswith("{") else 0
    return text[:start], json.loads(text[start:])


def fio_clients(argv: list[str], cwd, recording: Recording, address: str):
    """The controller's fio client run over the hosts of argv, from the recorded one."""
    if not argv or argv[0] != "fio" or not any(a.startswith("--client=") for a in argv):
        return None
    recorded = [e for e in recording.exchanges if e.kind == "run" and e.key.startswith(
        FIO_CLIENT_KEY.replace("--output-format=json+", argv[1])) and e.returncode == 0]
    if not recorded:
        return None
    e = recorded[-1]
    head, doc = _document(e.stdout)
    stats = doc["client_stats"]
    own = [s for s in stats if s.get("jobname") != "All clients"]
    rest = [s for s in stats if s.get("jobname") == "All clients"]
    step = own[0]["jobname"].rpartition("@")[0]
    clients = []
    for i in range(1, len(argv) - 1):
        if argv[i].startswith("--client=ip:"):
            addr = argv[i].split(":", 1)[1].split(",")[0]
            host = Path(argv[i + 1]).stem.removeprefix("job-")
            section = copy.deepcopy(own[len(clients) % len(own)])
            section["jobname"], section["hostname"] = f"{step}@{host}", addr
            clients.append(section)
    doc["client_stats"] = clients + rest
    return e.returncode, json.dumps(doc, indent=1), e.stderr, e.duration_s


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-dev-shm-usage", "--window-size=1280,3000"]
# appended to a copy of the report: the browser's own load time, written into the DOM
TIMING = ("<script>addEventListener('load',()=>setTimeout(()=>{const t=performance.timing;"
          "document.body.setAttribute('data-load-ms',t.loadEventEnd-t.navigationStart)},0))"
          "</script>")


def chromium_load(report: Path) -> tuple[float, float] | None:
    """(load_ms, dump_s): the page's load time as the browser measures it (navigation start
    to the end of the load event, from a copy of the report with a timing script appended),
    and the wall time of `chromium --headless --dump-dom` on the report less the same on an
    empty page (start-up excluded). None without Chromium."""
    browser = chromium()
    if browser is None:
        return None
    with tempfile.TemporaryDirectory(prefix="stackprobe-report-load-") as tmp:
        work = Path(tmp)
        timed = work / "timed.html"
        timed.write_text(report.read_text(encoding="utf-8") + TIMING, encoding="utf-8")
        empty = work / "empty.html"
        empty.write_text("<!doctype html><title>empty</title><body></body>", encoding="utf-8")

        def dump(page: Path, budget: bool = False) -> tuple[float, str]:
            t0 = time.monotonic()
            proc = subprocess.run(
                [browser, *FLAGS, f"--user-data-dir={work / 'profile'}",
                 *(["--virtual-time-budget=60000"] if budget else []), "--dump-dom",
                 page.resolve().as_uri()], capture_output=True, text=True, timeout=300)
            return time.monotonic() - t0, proc.stdout

        dump(empty)  # the profile made once, outside the timings
        base, _ = dump(empty)
        wall, _ = dump(report)
        _, dom = dump(timed, budget=True)
    found = dom.split('data-load-ms="', 1)
    load_ms = float(found[1].split('"', 1)[0]) if len(found) == 2 else float("nan")
    return load_ms, max(0.0, wall - base)
