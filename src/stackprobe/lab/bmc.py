"""`stackprobe lab bmc`: a real BMC on this machine — OpenIPMI's ipmi_sim on 127.0.0.1.

Why a simulator and not a mock: ipmi_sim speaks IPMI over LAN (RMCP and RMCP+) as a BMC
does, so the `ipmi` kind's whole path — ipmitool, login, sensors, event log, chassis — is
exercised, and a wrong password or a closed port fails as it fails on a real network.
The lab writes its lan.conf (one user, admin privilege, IPMI 1.5 and 2.0 logins), its .emu
and compiled SDRs (lab/bmc_sim.py: sensors, one over its critical threshold, one SEL
error), and a password file (mode 0600) that the hosts file names — the password itself is
in no file a run reads but that one. ipmi_sim needs no root on a high port.

`up` refuses a directory holding something else or a lab already up, and a port taken;
state.json records ipmi_sim's PID, argv and log; `down` stops it by PID only (checked to
still be that ipmi_sim) and removes the directory.
"""

from __future__ import annotations

import json
import secrets
import shutil
import socket
import subprocess
import time
from pathlib import Path

import yaml

from stackprobe.errors import UserError
from stackprobe.lab import daemons
from stackprobe.lab.bmc_sim import USER, emu, lan_conf, sdrs
from stackprobe.spec.labs import LAB_BMC_DIR
from stackprobe.store.rundir import atomic_write

STATE_FILE = "state.json"
NAME = "splab"  # ipmi_sim's instance name: its state directory is ipmi_sim/<NAME>/
HOST = "bmc1"
CIPHER_SUITE = 3  # ipmitool's default 17 is refused by ipmi_sim (docs/ipmi.md)
READY_S = 10.0


class BmcLabError(UserError):
    """The BMC lab cannot be brought up or down as asked."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_taken(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


class BmcLab:
    def __init__(self, lab_dir: Path = LAB_BMC_DIR):
        self.dir = Path(lab_dir).absolute()
        self.state_path = self.dir / STATE_FILE
        self.password_file = self.dir / "bmc-password"
        self.hosts_yaml = self.dir / "hosts.yaml"

    def state(self) -> dict | None:
        try:
            return json.loads(self.state_path.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise BmcLabError(f"{self.state_path}: unreadable lab state ({exc})") from None

    def _daemon(self, state: dict) -> daemons.Daemon:
        return daemons.Daemon(**state["daemon"])

    def up(self, port: int | None = None) -> dict:
        for tool in ("ipmi_sim", "sdrcomp", "ipmitool"):
            if shutil.which(tool) is None:
                raise BmcLabError(f"{tool} not found: apt-get install -y openipmi ipmitool")
        old = self.state()
        if old is not None and daemons.alive(self._daemon(old)):
            raise BmcLabError(f"a BMC lab is already up in {self.dir} (ipmi_sim pid "
                              f"{old['daemon']['pid']}): stackprobe lab bmc down --dir {self.dir}")
        if old is None and self.dir.exists() and (not self.dir.is_dir() or any(self.dir.iterdir())):
            raise BmcLabError(f"{self.dir} exists and is not a BMC lab directory: choose another --dir")
        if old is not None:
            shutil.rmtree(self.dir)  # a lab whose ipmi_sim is gone: start afresh
        port = port or free_port()
        if port_taken(port):
            raise BmcLabError(f"UDP port {port} on 127.0.0.1 is taken: choose another --port")
        self.dir.mkdir(parents=True, mode=0o700)
        password = secrets.token_hex(8)  # 16 characters: the IPMI 1.5 maximum
        self.password_file.touch(mode=0o600)
        self.password_file.write_text(password)
        (self.dir / "lan.conf").write_text(lan_conf(NAME, port, password))
        (self.dir / "lan.conf").chmod(0o600)
        (self.dir / "sim.emu").write_text(emu(int(time.time())))
        (self.dir / "sim.sdrs").write_text(sdrs())
        sim_state = self.dir / "state" / "ipmi_sim" / NAME
        sim_state.mkdir(parents=True)
        compiled = subprocess.run(["sdrcomp", "-o", str(sim_state / "sdr.20.main"),
                                   str(self.dir / "sim.sdrs")], capture_output=True, text=True)
        if compiled.returncode != 0:
            raise BmcLabError(f"sdrcomp: {compiled.stderr.strip() or compiled.returncode}")
        argv = ["ipmi_sim", "-c", str(self.dir / "lan.conf"), "-f", str(self.dir / "sim.emu"),
                "-s", str(self.dir / "state"), "-n"]
        daemon = daemons.start("ipmi_sim", argv, self.dir / "ipmi_sim.log")
        state = {"dir": str(self.dir), "port": port, "address": "127.0.0.1", "user": USER,
                 "daemon": daemon.as_dict(), "hosts_yaml": str(self.hosts_yaml),
                 "password_file": str(self.password_file)}
        atomic_write(self.state_path, json.dumps(state, indent=1))
        self._wait_ready(state)
        self._write_hosts(state)
        return state

    def ipmitool(self, state: dict, *words: str, password_file: str | None = None,
                 timeout: float = 10) -> subprocess.CompletedProcess:
        """ipmitool against the lab BMC, as the hosts file says to reach it."""
        argv = ["ipmitool", "-I", "lanplus", "-C", str(CIPHER_SUITE), "-H", state["address"],
                "-p", str(state["port"]), "-U", state["user"], "-N", "1", "-R", "1",
                "-f", password_file or state["password_file"], *words]
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)

    def _wait_ready(self, state: dict) -> None:
        deadline = time.monotonic() + READY_S
        why = ""
        while time.monotonic() < deadline:
            if not daemons.alive(self._daemon(state)):
                break
            answer = self.ipmitool(state, "mc", "info")
            if answer.returncode == 0:
                return
            why = answer.stderr.strip().splitlines()[-1:] or [""]
            why = why[0]
            time.sleep(0.2)
        log = Path(state["daemon"]["log"])
        tail = " | ".join(log.read_text(errors="replace").splitlines()[-3:]) if log.exists() else ""
        self.down()
        raise BmcLabError(f"ipmi_sim did not answer on 127.0.0.1:{state['port']} "
                          f"({why or 'exited'}; log: {tail or 'empty'})")

    def _write_hosts(self, state: dict) -> None:
        from stackprobe.suite.yaml_model import load_hosts

        data = {"hosts": [{"name": HOST, "access": "management", "address": state["address"],
                           "roles": ["bmc"],
                           "bmc": {"interface": "lanplus", "port": state["port"],
                                   "user": state["user"], "cipher_suite": CIPHER_SUITE,
                                   "password_file": state["password_file"]}}]}
        header = (f"# stackprobe lab bmc: ipmi_sim on 127.0.0.1:{state['port']}; removed by "
                  f"`stackprobe lab bmc down --dir {self.dir}`\n")
        atomic_write(self.hosts_yaml, header + yaml.safe_dump(data, sort_keys=False))
        load_hosts(self.hosts_yaml)  # what `run --hosts` will read must validate

    def findings(self, state: dict) -> list[str]:
        """What the lab BMC reports, read back with ipmitool and the ipmi kind's parsers:
        proof that what was planted is what a run will find."""
        from stackprobe.parsers.host.ipmitool_mc import parse_ipmitool_mc_info
        from stackprobe.parsers.host.ipmitool_sel import parse_ipmitool_sel
        from stackprobe.parsers.host.ipmitool_sensor import parse_ipmitool_sensor

        info = parse_ipmitool_mc_info(self.ipmitool(state, "mc", "info").stdout)
        sensors = parse_ipmitool_sensor(self.ipmitool(state, "sensor").stdout)
        sel = parse_ipmitool_sel(self.ipmitool(state, "sel", "elist").stdout)
        lines = [f"BMC answers: firmware {info.firmware} ({info.manufacturer}), "
                 f"{len(sensors)} sensors, {len(sel)} SEL entries"]
        lines += [f"sensor out of range: {s.name}: {s.out_of_range}" for s in sensors
                  if s.out_of_range]
        lines += [f"SEL error {e.id}: {e.sensor}: {e.event} ({e.direction})" for e in sel
                  if e.error]
        return lines

    def down(self) -> list[str]:
        """Stop ipmi_sim by PID, remove the directory; what had to be killed."""
        state = self.state()
        if state is None:
            if self.dir.exists() and (not self.dir.is_dir() or any(self.dir.iterdir())):
                raise BmcLabError(f"{self.dir}: no BMC lab state here; nothing stopped")
            return []
        killed = daemons.stop([self._daemon(state)], grace_s=5.0)
        if daemons.alive(self._daemon(state)):
            raise BmcLabError(f"ipmi_sim (pid {state['daemon']['pid']}) still runs; state kept "
                              f"in {self.dir}")
        shutil.rmtree(self.dir)
        return [f"killed {name} (SIGTERM was not enough)" for name in killed]

    def status(self) -> dict:
        state = self.state()
        if state is None:
            return {"dir": str(self.dir), "up": False, "pid": None}
        running = daemons.alive(self._daemon(state))
        answers = running and self.ipmitool(state, "mc", "info").returncode == 0
        return {"dir": str(self.dir), "up": bool(answers), "running": running,
                "pid": state["daemon"]["pid"], "address": state["address"],
                "port": state["port"], "hosts_yaml": state["hosts_yaml"]}
