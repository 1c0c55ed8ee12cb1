"""The commands of the `rdma` step, built from its typed spec: the port listing each host is
asked for, the port a host tests with, and perftest's two sides.

Why apart from the runner: these are the facts of perftest's command line (its README and
src/perftest_parameters.c in linux-rdma/perftest), testable without a device:

- the server is the same program with the same test options and no address; it waits for
  one client on its TCP port (`-p`, 18515 by default) to exchange the RDMA connection's
  details, runs the test and exits; the client names the server's address last;
- `-d` the device, `-i` its port (from 1), `-x` the GID index (RoCE needs one);
- `-a` every size from 2 B to 8 MiB (2^1..2^23), `-s` one size; `-n` iterations, `-D`
  seconds instead (perftest refuses `-D` with `-a`); `--report_gbits` prints Gb/s;
- `-F` goes on without the CPU-frequency check, which fails a test when the governor is
  not `performance` (perftest's own warning says to add `-F`).
"""

from __future__ import annotations

from dataclasses import dataclass

from stackprobe.parsers.network.rdma_ports import RdmaPort

CLASS_DIR = "/sys/class/infiniband"
ATTRIBUTES = ("state", "phys_state", "rate", "link_layer")
# inside the class directory the device entries are symlinks; the globs follow them
_LISTING = ('cd "$1" 2>/dev/null || exit 0; grep -s -H . '
            + " ".join(f"*/ports/*/{a}" for a in ATTRIBUTES) + "; exit 0")


def listing_argv(probe_root: str | None) -> list[str]:
    """The command printing every RDMA port's attributes (parsers/network/rdma_ports.py);
    `probe_root` stands for / (a recorded tree), on the host the command runs on."""
    root = (probe_root or "").rstrip("/")
    return ["sh", "-c", _LISTING, "sh", f"{root}{CLASS_DIR}"]


@dataclass(frozen=True)
class Chosen:
    """The port a host tests with, or why it has none."""

    port: RdmaPort | None
    why: str | None = None  # when port is None: 'no RDMA device', 'no ACTIVE port (...)'


NO_DEVICE = "no RDMA device"


def choose_port(ports: list[RdmaPort], device: str | None, ib_port: int | None) -> Chosen:
    """The step's device and port when it names them, else the first ACTIVE port."""
    if not ports:
        return Chosen(None, NO_DEVICE)
    wanted = [p for p in ports if (device is None or p.device == device)
              and (ib_port is None or p.port == ib_port)]
    if not wanted:
        named = " ".join(x for x in (device, None if ib_port is None else f"port {ib_port}") if x)
        have = ", ".join(p.name for p in ports)
        return Chosen(None, f"no {named} (it has {have})")
    active = [p for p in wanted if p.active]
    if not active:
        states = ", ".join(f"{p.name} {p.state or 'state unknown'}" for p in wanted)
        return Chosen(None, f"no ACTIVE RDMA port ({states})")
    return Chosen(active[0])


@dataclass(frozen=True)
class TestOptions:
    """What both sides of one perftest test are given (the spec's fields, typed)."""

    tcp_port: int
    all_sizes: bool
    size_bytes: int | None
    iterations: int | None
    duration_s: int | None
    report_gbits: bool
    gid_index: int | None


def perftest_argv(tool: str, port: RdmaPort, options: TestOptions,
                  server_address: str | None) -> list[str]:
    """One side of a test: the server when `server_address` is None, else the client."""
    argv = [tool, "-d", port.device, "-i", str(port.port), "-p", str(options.tcp_port), "-F"]
    if options.gid_index is not None:
        argv += ["-x", str(options.gid_index)]
    if options.all_sizes:
        argv.append("-a")
    elif options.size_bytes is not None:
        argv += ["-s", str(options.size_bytes)]
    if options.duration_s is not None:
        argv += ["-D", str(options.duration_s)]
    elif options.iterations is not None:
        argv += ["-n", str(options.iterations)]
    if options.report_gbits:
        argv.append("--report_gbits")
    if server_address is not None:
        argv.append(server_address)
    return argv
