"""Records of the HPC node benchmarks: STREAM, HPL (xhpl's HPL.out) and HPC Challenge (hpcc).

Why a module of its own: these tools check their own answer, and the records must carry
that check so no figure of a failed run is ever taken for a result. STREAM validates its
arrays after the kernels ("Solution Validates" or "Failed Validation"); HPL checks the
scaled residual of every solve against a threshold (PASSED or FAILED); hpcc sums its
checks up in the summary's `Success`. The rule, kept by validators so no parser can break
it by mistake:

- a result field (`best_bw_bytes`, `flops_per_s`, hpcc's figure dicts) holds a figure only
  when its check passed;
- the figure of a run whose check failed, or whose check the file does not show (cut
  short), is kept as printed under `untrusted_*` / `untrusted`, never as a result.

Their base (schema/record_base.py) is the one every record shares.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, model_validator

from stackprobe.schema.record_base import MODEL, RecordBase


class StreamKernel(BaseModel):
    """One line of STREAM's table: Copy, Scale, Add or Triad."""

    model_config = MODEL

    best_bw_bytes: float | None = None  # best rate, bytes/s (STREAM's MB is 10^6 B); validated runs only
    untrusted_bw_bytes: float | None = None  # the rate printed by a run that did not validate
    avg_time_s: float | None = None
    min_time_s: float | None = None
    max_time_s: float | None = None


class StreamRecord(RecordBase):
    """One STREAM run (stream.c 5.x, serial or OpenMP): its sizes and its four kernels."""

    type: Literal["stream"] = "stream"
    tool: str = "stream"
    tool_version: str | None = None  # "5.10", from "STREAM version $Revision: 5.10 $"
    source_format: str | None = "text"
    run: int | None = None  # the nth STREAM run in the file (0-based)
    array_elements: int | None = None
    offset_elements: int | None = None
    bytes_per_element: int | None = None
    ntimes: int | None = None  # times each kernel ran (the first is not counted)
    threads: int | None = None  # OpenMP threads counted (requested, when only that is printed)
    threads_requested: int | None = None
    kernels: dict[str, StreamKernel] = Field(default_factory=dict)  # copy, scale, add, triad
    validated: bool | None = None  # False: "Failed Validation"; None: the file ends before the check
    validation: str | None = None  # the check's first line, as printed
    host: str | None = None

    @model_validator(mode="after")
    def _no_unvalidated_result(self) -> StreamRecord:
        for name, kernel in self.kernels.items():
            if self.validated is not True and kernel.best_bw_bytes is not None:
                raise ValueError(f"{name}: a run that did not validate has no result rate")
            if self.validated is True and kernel.untrusted_bw_bytes is not None:
                raise ValueError(f"{name}: a validated run's rate is its result")
        return self


class HplTest(BaseModel):
    """One HPL test row (T/V, N, NB, P, Q, Time, Gflops) and its scaled residual check.

    `passed`: True when HPL printed PASSED (and the residual is under the threshold, when
    both are known), False when it printed FAILED, None when the file shows no check (cut
    short, or the threshold was set to skip it). `flops_per_s` only when passed."""

    model_config = MODEL

    tv: str  # T/V: wall time and encoded variant, e.g. WR11C2R4
    n: int
    nb: int
    p: int
    q: int
    time_s: float | None = None
    flops_per_s: float | None = None  # HPL's Gflops x 10^9, when the residual check PASSED
    untrusted_flops_per_s: float | None = None  # the rate of a test that FAILED or shows no check
    residual: float | None = None  # ||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)
    residual_threshold: float | None = None  # "tests pass if scaled residuals are less than"
    passed: bool | None = None

    @model_validator(mode="after")
    def _no_unchecked_result(self) -> HplTest:
        if self.passed is not True and self.flops_per_s is not None:
            raise ValueError(f"{self.tv}: a test whose residual check did not pass has no result rate")
        if self.passed is True and self.untrusted_flops_per_s is not None:
            raise ValueError(f"{self.tv}: a passed test's rate is its result")
        return self


class HplRecord(RecordBase, HplTest):
    """One test of an HPL.out (netlib HPL 2.x, Intel MKL's, NVIDIA's)."""

    type: Literal["hpl"] = "hpl"
    tool: str = "hpl"
    tool_version: str | None = None  # HPLinpack version: "2.3", "2.1"
    variant: str | None = None  # netlib, Intel MKL, HPL-NVIDIA 1.0.0 (from the file's own lines)
    source_format: str | None = "hpl_out"
    run: int | None = None  # the nth HPLinpack banner in the file (0-based)
    test: int | None = None  # the nth test row in the file (0-based)
    host: str | None = None


class HpccRecord(RecordBase):
    """One hpcc run (hpcc appends each run to hpccoutf.txt): the summary's figures, in base
    units, each test's own check, and HPL's tests with their residuals.

    Figure dicts, keyed by what ran: `stream_bw_bytes` (star_copy ... single_triad:
    StarSTREAM is the mean over processes of each one's rate, SingleSTREAM one process
    alone), `dgemm_flops_per_s` and `fft_flops_per_s` (star, single; fft also mpi),
    `random_access_updates_per_s` (mpi, star, single, and *_lcg), `pingpong_latency_ns` and
    `pingpong_bw_bytes` (min, avg, max), `ring_latency_ns` and `ring_bw_bytes` (natural,
    random). A test that did not run is absent (hpcc's -1)."""

    type: Literal["hpcc"] = "hpcc"
    tool: str = "hpcc"
    tool_version: str | None = None  # "1.5.0"
    source_format: str | None = "hpccoutf"
    run: int | None = None  # the nth hpcc run in the file (0-based)
    host: str | None = None  # "Hostname:" of the process that wrote the file (a step: the hosts.yaml name)
    blas: str | None = None  # a step's run: the BLAS the loader resolved ("openblas-pthread 0.3.21")
    complete: bool = False  # the Summary section was read to its end
    success: bool | None = None  # the summary's Success: False when any test failed its check
    procs: int | None = None  # CommWorldProcs
    sections: list[str] = Field(default_factory=list)  # the test sections begun, in order
    checks: dict[str, bool] = Field(default_factory=dict)  # section -> its own check passed
    hpl: HplTest | None = None  # the test the summary reports (hpcc keeps its fastest)
    hpl_tests: list[HplTest] = Field(default_factory=list)  # every row of the HPL section
    parameters: dict[str, int] = Field(default_factory=dict)  # sizes: stream_array_elements, dgemm_n ...
    stream_bw_bytes: dict[str, float] = Field(default_factory=dict)
    dgemm_flops_per_s: dict[str, float] = Field(default_factory=dict)
    fft_flops_per_s: dict[str, float] = Field(default_factory=dict)
    random_access_updates_per_s: dict[str, float] = Field(default_factory=dict)
    ptrans_bw_bytes: dict[str, float] = Field(default_factory=dict)  # "wall": the slowest repetition of the best size
    pingpong_latency_ns: dict[str, float] = Field(default_factory=dict)
    pingpong_bw_bytes: dict[str, float] = Field(default_factory=dict)
    ring_latency_ns: dict[str, float] = Field(default_factory=dict)
    ring_bw_bytes: dict[str, float] = Field(default_factory=dict)
    untrusted: dict[str, float] = Field(default_factory=dict)  # "stream_bw_bytes.star_triad": failed checks
    # the test a step ran hpcc for ("hpl" | "stream"): the one its hosts are compared on
    # (hpcc runs them all); None: every test (an ingested file)
    focus: Literal["hpl", "stream"] | None = None

    def node_stream_bytes(self, kernel: str) -> float | None:
        """The node's STREAM rate of `kernel` (copy, scale, add, triad), bytes/s: hpcc's
        StarSTREAM is each process's rate with every process running at once, so the node
        moves their mean times the processes (all on one node: a per-node run)."""
        mean = self.stream_bw_bytes.get(f"star_{kernel}")
        return mean * self.procs if mean and self.procs else None
