"""perftest (ib_write_bw, ib_send_lat, ...) between host pairs that have RDMA devices.

Why: iperf3 and an MPI ping-pong over TCP measure the hosts' IP path; a storage cluster
on InfiniBand or RoCE moves its data over RDMA, where a cable trained at FDR in an EDR
fabric (seed 004) shows only in the RDMA pair it sits on.

Each host's ports are read from sysfs first (parsers/network/rdma_ports.py; `probe_root`
stands for / on each host, for recorded trees). The step's device and port, or the first
ACTIVE port, is the one a host tests with. A pair runs when both hosts have one: for each
test the server side is started in the background on the server host (stopped by PID
after the test, and by cleanup whatever happened), the client runs on the client host and
names the server's address. Pairs run one at a time.

When no pair can run because no host has an RDMA device, the step is `skipped` with one
line naming the hosts: the run is not failed by a fabric without RDMA. perftest is needed
only where a device is, so pre-flight asks for nothing (`needs`) and the runner checks the
tools on the hosts with a port; a missing one fails those pairs, naming the package.
The runner is in rdma_run.py, the commands in rdma_argv.py, the tables in rdma_report.py.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field, model_validator

from stackprobe.kinds.contract import HostMode, Kind, Tool
from stackprobe.kinds.network.pairs import PairHosts, Pairs, pair_count
from stackprobe.kinds.network.rdma_report import NoFlaggedRdmaPair, rdma_tables
from stackprobe.kinds.network.rdma_run import RdmaRunner
from stackprobe.kinds.probes import ReadsTrees
from stackprobe.schema.fabric_records import PerftestRecord
from stackprobe.spec.fields import Duration, Size
from stackprobe.spec.steps import StepSpec
from stackprobe.spec.tools import dpkg_version
from stackprobe.tables.rows import status_row

Test = Literal["write_bw", "read_bw", "send_bw", "write_lat", "read_lat", "send_lat"]
TESTS: tuple[str, ...] = get_args(Test)


class RdmaStep(StepSpec, ReadsTrees):
    """perftest between every ordered pair of the hosts (or `pairs` random ones, or the
    pairs listed) whose hosts have an RDMA port; skipped when none has."""

    kind: Literal["rdma"]
    tests: list[Test] = Field(default_factory=lambda: ["write_bw", "send_lat"], min_length=1)
    pairs: Pairs = "all"
    size: Literal["all"] | Size | None = None  # all: -a (2 B..8 MiB); None: perftest's own
    iterations: int | None = Field(default=None, ge=5, le=100_000_000)
    duration: Duration | None = None  # -D: seconds per test instead of iterations
    report_gbits: bool = False
    device: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.-]+$")  # default: found
    ib_port: int | None = Field(default=None, ge=1, le=255)
    gid_index: int | None = Field(default=None, ge=0, le=255)  # -x (RoCE)
    tcp_port: int = Field(default=18515, ge=1024, le=65535)  # the servers' exchange port
    slow_fraction: float = Field(default=0.7, gt=0, le=1)  # of the median pair's bandwidth
    latency_factor: float = Field(default=1.5, gt=1)  # × the median pair's latency

    @model_validator(mode="after")
    def _duration_or_all(self):
        if self.duration is not None and self.size == "all":
            raise ValueError("duration: perftest runs all sizes (size: all) only by iterations")
        if self.duration is not None and self.iterations is not None:
            raise ValueError("duration: give duration or iterations, not both")
        return self


PERFTEST = tuple(Tool(f"ib_{t}", "perftest", dpkg_version("perftest"),
                      f"RDMA {t.replace('_', ' ')} between host pairs") for t in TESTS)


class Rdma(PairHosts, Kind):
    name = "rdma"
    spec = RdmaStep
    layer = "network"
    family = "network"
    hosts = HostMode.PAIRS
    tools = PERFTEST
    records = (PerftestRecord,)
    duration_fields = ("iterations", "duration")
    verdict_fields = ("slow_fraction", "latency_factor", "tcp_port")
    checks = (NoFlaggedRdmaPair(),)

    def title(self, spec: RdmaStep, name):
        return f"RDMA between host pairs (perftest {', '.join(f'ib_{t}' for t in spec.tests)})"

    def headline(self, spec):
        return None

    def needs(self, spec):
        return ()  # perftest only where a device is: the runner checks (module doc)

    def workload_text(self, params):
        size = params.get("size")
        return " ".join(["perftest", ",".join(params.get("tests", [])),
                         "all sizes" if size == "all" else f"size {size}" if size else ""]).strip()

    def estimate_s(self, spec: RdmaStep, hosts: int):
        """Per pair and test: the server's start and the exchange, then the test (erring
        long: 2 s a size at perftest's 5000 bandwidth iterations, 23 sizes for `all`, more
        iterations in proportion; `duration` as said)."""
        pairs = pair_count(spec.pairs, hosts)
        scale = max(1.0, (spec.iterations or 5000) / 5000)
        per_test = (spec.duration.seconds if spec.duration is not None
                    else (23 if spec.size == "all" else 1) * 2.0 * scale)
        return pairs * len(spec.tests) * (per_test + 3.0) + 2.0

    def runner(self):
        return RdmaRunner()

    def rows(self, step):
        return [status_row(step, self.workload_text(step.params))]

    def tables(self, steps):
        return rdma_tables(steps)


KIND = Rdma()
