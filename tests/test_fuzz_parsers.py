"""Bad input for every parser: garbage, binary, truncated and mutated real outputs.

Why: parsers read whatever a tool, a terminal or a person left in a file, and `ingest` and
every runner hand them that text unchecked. The contract (docs/ARCHITECTURE.md) is text in,
typed records out, ValueError on what cannot be read. A KeyError or an OverflowError from
bad input reaches the user as a traceback; an inf bandwidth reaches results.json, the
reports and every comparison. So for each entry point, whatever the input:

- it returns records of its declared type, every float in them finite, and each record
  survives the trip through results.json (JSON without NaN, read back as a Record);
- or it raises ValueError (a subclass is fine, pydantic's ValidationError is not: its text
  is a multi-line dump) whose message is one line.

Inputs: arbitrary text and bytes; lines of the real outputs recombined with junk; the
recorded and public fixtures cut at many offsets; and the fixtures mutated (bits flipped,
numbers replaced by huge values, NaN, Infinity, -1, JSON values replaced by wrong types or
deleted, documents doubled, binary junk inserted). Every input that once broke a parser,
and a few more per parser, are kept under tests/fixtures/fuzz/<target>/ and replayed
without hypothesis.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter, ValidationError

from conftest import FIXTURES
from fuzz_support import (
    CASES,
    FUZZ,
    SHARED_PUBLIC,
    Seed,
    corpus_files,
    line_soup,
    mutants,
    one_line,
    read_input,
    register_summary,
    save_failure,
    seeds_from,
    text_or_bytes,
    truncations,
)
from stackprobe.analysis.io500_score import recompute
from stackprobe.analysis.live_ceph import RadosLive, RbdLive
from stackprobe.analysis.live_figures import FioLive, LiveFigures
from stackprobe.analysis.soak_io import SoakTotals, chunk_figures
from stackprobe.analysis.soak_series import SoakSeries
from stackprobe.ingest.detect import detect
from stackprobe.ingest.files import ingest_text
from stackprobe.ingest.into_run import plan_file
from stackprobe.parsers.ceph.bench_files import ingest_osd_bench, ingest_rados_bench, ingest_rbd_bench
from stackprobe.parsers.ceph.ceph_inventory import erasure_profiles_in_use, parse_ceph_inventory
from stackprobe.parsers.ceph.ceph_status import CephStatus, parse_ceph_status
from stackprobe.parsers.ceph.cluster_config import ClusterConfig
from stackprobe.parsers.ceph.health_detail import HealthDetail, parse_health_detail
from stackprobe.parsers.ceph.osd_bench import parse_osd_bench
from stackprobe.parsers.ceph.osd_metadata import OsdDevice, parse_osd_metadata
from stackprobe.parsers.ceph.osd_perf import OsdPerf, parse_osd_perf
from stackprobe.parsers.ceph.perf_dump import (
    OsdCounters,
    parse_osd_ids,
    parse_perf_dump,
    split_tell_all,
)
from stackprobe.parsers.ceph.pool_stats import PoolIo, parse_pool_stats
from stackprobe.parsers.ceph.rados_bench import parse_rados_bench
from stackprobe.parsers.ceph.rados_load_gen import parse_rados_load_gen, parse_times
from stackprobe.parsers.ceph.rbd_bench import parse_rbd_bench
from stackprobe.parsers.ceph.review_sources import parse_cluster_config
from stackprobe.parsers.fio.fio_hist_log import parse_hist_log
from stackprobe.parsers.fio.fio_json import JsonStream, interval_series, parse_fio_json, status_totals
from stackprobe.parsers.fio.fio_log import parse_fio_log, series_from_logs
from stackprobe.parsers.fio.fio_normal import parse_fio_normal
from stackprobe.parsers.fio.fio_terse import parse_fio_terse
from stackprobe.parsers.host.dmidecode_memory import DmiMemory, parse_dmidecode_memory
from stackprobe.parsers.host.dmidecode_system import parse_dmidecode_system
from stackprobe.parsers.host.doctor_probe import HostProbe, parse_clock, parse_doctor_probe
from stackprobe.parsers.host.edac import parse_edac
from stackprobe.parsers.host.ethtool_settings import EthtoolRing, parse_ethtool_features, parse_ethtool_ring
from stackprobe.parsers.host.filefrag import FileExtents, parse_filefrag
from stackprobe.parsers.host.health_probe import parse_health_probe
from stackprobe.parsers.host.inventory import parse_inventory
from stackprobe.parsers.host.ipmitool_mc import parse_ipmitool_chassis, parse_ipmitool_mc_info
from stackprobe.parsers.host.ipmitool_sel import parse_ipmitool_sel
from stackprobe.parsers.host.ipmitool_sensor import parse_ipmitool_sensor
from stackprobe.parsers.host.kernel_cmdline import parse_cmdline
from stackprobe.parsers.host.kmsg import KmsgLine, parse_kmsg
from stackprobe.parsers.host.memory import parse_mbw, parse_stress_ng_stream, parse_sysbench_memory
from stackprobe.parsers.host.nvme_smart_log import parse_nvme_smart_log
from stackprobe.parsers.host.sadf_json import MonitorSeries, parse_sadf_json
from stackprobe.parsers.host.settings_probe import SettingsProbe, parse_settings_probe
from stackprobe.parsers.host.smartctl_json import DiskReading, parse_smartctl_json
from stackprobe.parsers.host.stress_ng_cpu import parse_stress_ng_cpu
from stackprobe.parsers.host.stress_ng_yaml import parse_stress_ng_yaml
from stackprobe.parsers.host.sysbench_text import parse_sysbench
from stackprobe.parsers.host.time_sync import ClockSync, parse_chronyc_tracking, parse_timedatectl
from stackprobe.parsers.hpc.hpcc_out import parse_hpcc
from stackprobe.parsers.hpc.hpccinf import HpccInput, parse_hpccinf
from stackprobe.parsers.hpc.hpl_out import parse_hpl
from stackprobe.parsers.hpc.io500_result import parse_io500
from stackprobe.parsers.hpc.ior_json import parse_ior_json
from stackprobe.parsers.hpc.ior_text import parse_ior
from stackprobe.parsers.hpc.mdtest_text import parse_mdtest
from stackprobe.parsers.hpc.stream_text import parse_stream
from stackprobe.parsers.network.bonding import parse_bonding
from stackprobe.parsers.network.ethtool_text import (
    EthtoolInfo,
    EthtoolLink,
    parse_ethtool,
    parse_ethtool_info,
)
from stackprobe.parsers.network.ib_values import parse_ibstatus
from stackprobe.parsers.network.ibstat import parse_ibstat
from stackprobe.parsers.network.iperf3_intervals import parse_iperf3_intervals
from stackprobe.parsers.network.iperf3_json import parse_iperf3_json
from stackprobe.parsers.network.iperf3_text import parse_iperf3_text
from stackprobe.parsers.network.link_probe import parse_link_probe
from stackprobe.parsers.network.mpi4py_pingpong import parse_mpi4py_pingpong
from stackprobe.parsers.network.netpipe_text import parse_netpipe
from stackprobe.parsers.network.nic_counters import parse_nic_counters
from stackprobe.parsers.network.osu_text import parse_osu
from stackprobe.parsers.network.perftest_text import parse_perftest
from stackprobe.parsers.network.ping import parse_ping
from stackprobe.parsers.network.rdma_ports import RdmaPort, parse_rdma_ports
from stackprobe.parsers.peer.elbencho_csv import parse_elbencho_csv, parse_elbencho_livecsv
from stackprobe.parsers.peer.elbencho_text import parse_elbencho_table
from stackprobe.parsers.peer.vdbench_flatfile import parse_vdbench_flatfile
from stackprobe.parsers.peer.vdbench_summary import parse_vdbench_summary
from stackprobe.schema.bmc_records import BmcInfo, BmcSensor, ChassisStatus, SelEntry
from stackprobe.schema.fabric_records import (
    MpiPairRecord,
    MpiStreamRecord,
    OsuRecord,
    PerftestRecord,
)
from stackprobe.schema.health_records import HealthRecord
from stackprobe.schema.hpc_records import HpccRecord, HplRecord, StreamRecord
from stackprobe.schema.link_records import LinkRecord
from stackprobe.schema.peer_records import (
    ElbenchoLiveRecord,
    ElbenchoPhaseRecord,
    SysbenchRecord,
    VdbenchRecord,
)
from stackprobe.schema.records import (
    CephInventoryRecord,
    CpuRecord,
    InventoryRecord,
    Io500Record,
    IoRecord,
    IorRecord,
    MdtestRecord,
    MemBwRecord,
    NetRecord,
    OsdBenchRecord,
    PingRecord,
    Record,
    SeriesPoint,
)
from stackprobe.schema.storage_soak_records import StorageSoakRecord
from stackprobe.spec.host_sources import parse_file, parse_hostlist
from stackprobe.spec.host_sources.ansible_ini import parse_ansible_ini
from stackprobe.spec.host_sources.ansible_yaml import parse_ansible_yaml
from stackprobe.spec.host_sources.mpi_hostfile import parse_mpi_hostfile
from stackprobe.spec.hosts import HostsFile
from stackprobe.spec.planned import PlannedStep
from stackprobe.spec.settings_profile import Profile, parse_profile

RECORDED = FIXTURES / "recorded"
PUBLIC = FIXTURES / "public"
CEPH = RECORDED / "ceph"


@pytest.fixture(scope="session", autouse=True)
def _fuzz_summary(request):
    register_summary(request.config)


# ------------------------------------------------------------------ the entry points


def _files(*patterns: str, shared: tuple[str, ...] = ()) -> list[Path]:
    """Seed files: fixtures in the repository, plus ../shared/fixtures/public when present
    (but for the files copied from it byte for byte: the same seed twice only costs time)."""
    found = [p for pattern in patterns for p in sorted(FIXTURES.glob(pattern)) if p.is_file()]
    if SHARED_PUBLIC.is_dir():
        copied = {p.name for p in found}
        found += [p for pattern in shared for p in sorted(SHARED_PUBLIC.glob(pattern))
                  if p.name not in copied]
    return found


def _sources(folder: Path, names: dict[str, str] | None = None) -> dict[str, str]:
    """A multi-source parser's recorded inputs: {source name: text}."""
    if names is None:
        return {p.name: p.read_text() for p in sorted(folder.iterdir()) if p.name != "README.md"}
    return {key: (folder / name).read_text() for key, name in names.items()}


INVENTORY = _sources(RECORDED / "inventory")
CEPH_INVENTORY = _sources(CEPH, {
    "status": "ceph-16.2.15_status.json",
    "osd_tree": "ceph-16.2.15_osd-tree.json",
    "df": "ceph-16.2.15_df.json",
    "pools": "ceph-16.2.15_osd-pool-ls-detail.json",
    "versions": "ceph-16.2.15_versions.json",
    "ec_profiles": "ceph-16.2.15_erasure-code-profile-ls.json",
    "ec_profile.rec-ec-profile": "ceph-16.2.15_erasure-code-profile-get_rec-ec-profile.json",
})

# the configuration review: every command it reads (lab-changed has all of them but an EC
# profile, which the recorded inventory has)
CEPH_REVIEW = {**_sources(FIXTURES / "ceph_review" / "lab-changed", {
    "osd_metadata": "osd-metadata.json", "config_dump": "config-dump.json",
    "pools": "osd-pool-ls-detail.json", "df": "df.json", "osd_df": "osd-df-tree.json",
    "versions": "versions.json", "mon_dump": "mon-dump.json", "mon_metadata": "mon-metadata.json",
    "mds_metadata": "mds-metadata.json", "time_sync": "time-sync-status.json",
    "status": "status.json", "crush_rules": "osd-crush-rule-dump.json",
    "autoscale": "osd-pool-autoscale-status.json", "osd_dump": "osd-dump.json",
    "config_show.osd.0": "config-show-osd.0.json"}),
    "ec_profile.rec-ec-profile": CEPH_INVENTORY["ec_profile.rec-ec-profile"]}


def _each_source(parse: Callable[[dict[str, str]], Any], base: dict[str, str]) -> tuple:
    """One call per source: the text in its place, the other sources as recorded."""
    return tuple(functools.partial(_with_source, parse, base, source) for source in base)


def _with_source(parse, base: dict[str, str], source: str, text: str):
    return parse({**base, source: text})


def _fio_status_stream(text: str) -> list[SeriesPoint]:
    """What the steady-state runner does with fio's --status-interval output."""
    stream = JsonStream()
    docs = []
    for at in range(0, len(text), 4096):
        docs += stream.feed(text[at : at + 4096])
    return interval_series([status_totals(d) for d in docs])


def _live_streams(text: str) -> list:
    """What the live display reads from fio, rados bench and rbd bench while they run."""
    out = []
    for feeder in (FioLive("h"), RadosLive("h", "write", 4096), RbdLive("h")):
        for at in range(0, len(text), 4096):
            out += feeder.feed(text[at : at + 4096])
    return out


def _fio_logs(text: str) -> list:
    return [parse_fio_log(text), series_from_logs([text, text], [text])]


def _soak_series(text: str) -> StorageSoakRecord:
    """What a soak does with its chunks' fio logs: their seconds, one chunk after another,
    folded into its bounded series, periods and totals (kinds/storage_soak.py)."""
    points = series_from_logs([text], [text])
    series = SoakSeries(keep_s=2, period_s=3)
    for chunk in range(3):
        for p in points:
            series.add(p.model_copy(update={"t_s": p.t_s + chunk * 1000.0}))
    return StorageSoakRecord(tool="fio", job="fuzz", **series.figures())


def _soak_totals(text: str) -> list:
    """A soak's whole-run record and chunk figures from its chunks' fio JSON (the same
    chunk three times over)."""
    totals = SoakTotals()
    records = parse_fio_json(text)[:1] * 3
    for rec in records:
        totals.add(rec)
        chunk_figures(rec)
    whole = totals.record()
    return [whole] if whole is not None else []


def _tell_all(text: str) -> list:
    """What the Ceph view does with one `tell osd.* perf dump`: each OSD's part read as
    that OSD's perf dump (engine/ceph_watch.py)."""
    return [parse_perf_dump(part) for part in split_tell_all(text).values()]


def _io500_recomputed(text: str) -> list:
    """What ingest and the io500 runner do: parse, then recompute the score."""
    return [recompute(r) for r in parse_io500(text)]


def _load_gen_timed(text: str):
    """rados load-gen as its runner reads it: a time for every line."""
    return parse_rados_load_gen(text, [0.01 * n for n in range(len(text.splitlines()) + 1)])


def _ingest(text: str) -> list:
    """`stackprobe ingest`: detection, then the parser it picked."""
    return detect(text).parse(text)


def _ingest_step(text: str):
    """`stackprobe ingest --new/--into`: the step a file becomes (its kind, parameters)."""
    return plan_file(ingest_text(text, Path("fuzz")))


@dataclass(frozen=True)
class Target:
    calls: Callable[[str], Any] | tuple[Callable[[str], Any], ...]  # each is checked on its own
    returns: Any  # the declared type of one returned record
    seeds: list[Path]

    def each(self) -> tuple[Callable[[str], Any], ...]:
        return self.calls if isinstance(self.calls, tuple) else (self.calls,)


CEPH_BENCH_SEEDS = ("recorded/ceph/rados-bench*", "recorded/ceph/rbd-bench*",
                    "recorded/ceph/ceph-*osd-bench*", "recorded/ceph/ceph-*tell-osd-star-bench*")
FIO_JSON_SEEDS = ("recorded/fio-*.txt", "recorded/fio-hist/*/out.json", "public/fio/*.json")
TARGETS: dict[str, Target] = {
    "fio_json": Target(parse_fio_json, IoRecord,
                       _files(*FIO_JSON_SEEDS, shared=("fio/*.json", "fio/*pbench.txt"))),
    "fio_status_stream": Target(_fio_status_stream, SeriesPoint,
                                _files(*FIO_JSON_SEEDS, shared=("fio/*.json",))),
    "live_streams": Target(_live_streams, LiveFigures,
                           _files("recorded/fio-stream/*", "recorded/ceph/rados-bench*",
                                  "recorded/ceph/rbd-bench*")),
    "fio_normal": Target(parse_fio_normal, IoRecord,
                         _files("recorded/fio-*normal*.txt", "public/fio/*normal*.txt",
                                shared=("fio/*normal*.txt",))),
    "fio_terse": Target(parse_fio_terse, IoRecord, _files("recorded/fio-*terse*.txt")),
    "fio_hist_log": Target(parse_hist_log, dict, _files("recorded/fio-hist/*/*.log.gz")[:3]),
    "fio_log": Target(_fio_logs, object, _files("recorded/fio-log/*.log")),
    "soak_series": Target(_soak_series, StorageSoakRecord, _files("recorded/fio-log/*.log")),
    "soak_totals": Target(_soak_totals, IoRecord, _files(*FIO_JSON_SEEDS)),
    "iperf3_json": Target(parse_iperf3_json, NetRecord,
                          _files("recorded/iperf3/*", "public/iperf3/*", shared=("iperf3/*",))),
    "ping": Target(parse_ping, PingRecord, _files("recorded/ping/*.txt", "synthetic/ping/*.txt")),
    "stress_ng_cpu": Target(parse_stress_ng_cpu, CpuRecord, _files("recorded/stress-ng/*")),
    "stress_ng_stream": Target(parse_stress_ng_stream, MemBwRecord, _files("recorded/stress-ng/*")),
    "sysbench_memory": Target(
        (functools.partial(parse_sysbench_memory, operation="read"),
         functools.partial(parse_sysbench_memory, operation="write")),
        MemBwRecord, _files("recorded/sysbench/*")),
    "mbw": Target(parse_mbw, MemBwRecord, _files("recorded/mbw/*")),
    "inventory": Target(_each_source(parse_inventory, INVENTORY), InventoryRecord,
                        _files("recorded/inventory/*", "synthetic/inventory-2socket/*")),
    "dmidecode_memory": Target(parse_dmidecode_memory, DmiMemory,
                               _files("public/dmidecode/*", "synthetic/dmidecode/*.txt",
                                      "recorded/dmidecode/*.stdout")),
    "rados_bench": Target((parse_rados_bench, functools.partial(parse_rados_bench, mode="seq")),
                          IoRecord, _files("recorded/ceph/rados-bench*", "public/rados/*",
                                           shared=("rados/*",))),
    "rados_load_gen": Target((parse_rados_load_gen, _load_gen_timed), IoRecord,
                             _files("recorded/ceph/rados-load-gen*.stdout")),
    "rados_load_gen_times": Target(parse_times, float, _files("recorded/ceph/rados-load-gen*.times")),
    "rbd_bench": Target(parse_rbd_bench, IoRecord,
                        _files("recorded/ceph/rbd-bench*", "public/rbd/*", shared=("rbd/*",))),
    "ceph_osd_bench": Target(functools.partial(parse_osd_bench, osd=3), OsdBenchRecord,
                             _files("recorded/ceph/ceph-*osd-bench*")),
    "ceph_bench_files": Target((ingest_rados_bench, ingest_rbd_bench, ingest_osd_bench),
                               (IoRecord, OsdBenchRecord),
                               _files(*CEPH_BENCH_SEEDS, shared=("rados/*", "rbd/*"))),
    "ceph_osd_metadata": Target(parse_osd_metadata, OsdDevice,
                                _files("recorded/ceph/ceph-*osd-metadata*")),
    "filefrag": Target(parse_filefrag, FileExtents, _files("recorded/ceph/filefrag-*")),
    "ceph_status": Target(parse_ceph_status, CephStatus, _files("recorded/ceph/ceph-*status*")),
    "ceph_inventory": Target(_each_source(parse_ceph_inventory, CEPH_INVENTORY),
                             CephInventoryRecord, _files("recorded/ceph/ceph-*.json")),
    "ceph_pools_profiles": Target(erasure_profiles_in_use, str,
                                  _files("recorded/ceph/ceph-16.2.15_osd-pool-ls-detail.json")),
    "ceph_osd_perf": Target(parse_osd_perf, OsdPerf, _files("ceph_view/osd-perf-*.json")),
    "ceph_pool_stats": Target(parse_pool_stats, PoolIo, _files("ceph_view/pool-stats-*.json")),
    "ceph_perf_dump": Target(parse_perf_dump, OsdCounters,
                             _files("ceph_view/normal/*.json", "ceph_view/slow-osd1/*after*.json")),
    "ceph_osd_ids": Target(parse_osd_ids, int, _files("ceph_view/osd-ls.json")),
    "ceph_tell_all": Target(_tell_all, OsdCounters, _files("ceph_view/tell-all-*.json")),
    "ceph_health_detail": Target(parse_health_detail, HealthDetail,
                                 _files("ceph_view/health-detail-*.json")),
    "ceph_review": Target(_each_source(parse_cluster_config, CEPH_REVIEW), ClusterConfig,
                          _files("ceph_review/lab-changed/*.json",  # one call per source:
                                 "ceph_review/hotsos-*/mon-dump.json")),  # seeds kept few
    "sadf_json": Target(parse_sadf_json, MonitorSeries,
                        _files("recorded/sysstat/*.json", "recorded/sysstat/*.stdout")),
    "ior_text": Target(parse_ior, IorRecord,
                       _files("public/ior/*", shared=("ior/*",))),
    "ior_json": Target(parse_ior_json, IorRecord, _files("recorded/ior-json/*.json")),
    "mdtest_text": Target(parse_mdtest, MdtestRecord,
                          _files("public/mdtest/*", shared=("mdtest/*",))),
    "io500_result": Target((parse_io500, _io500_recomputed), Io500Record,
                           _files("public/io500/*", shared=("io500/*",))),
    "stream_text": Target(parse_stream, StreamRecord, _files("public/stream/*")),  # the shared
    "hpl_out": Target(parse_hpl, HplRecord, _files("public/hpl/*")),  # ones, copied byte for byte
    "hpcc_out": Target(parse_hpcc, HpccRecord, _files("public/hpcc/*", "synthetic/hpcc/*.txt")),
    "hpccinf": Target(parse_hpccinf, HpccInput, _files("synthetic/hpccinf/*.txt")),
    "osu_text": Target(parse_osu, OsuRecord, _files("public/osu/*", "synthetic/osu/*")),
    "perftest_text": Target(parse_perftest, PerftestRecord,
                            _files("public/perftest/*", "synthetic/perftest/*")),
    "mpi4py_pingpong": Target(parse_mpi4py_pingpong, MpiPairRecord, _files("recorded/mpi4py/*.txt")),
    "netpipe_text": Target(parse_netpipe, MpiStreamRecord, _files("recorded/netpipe/*.txt")),
    "iperf3_intervals": Target(parse_iperf3_intervals, SeriesPoint, _files("recorded/iperf3/*")),
    "nic_counters": Target(parse_nic_counters, dict,
                           _files("recorded/nic_counters/*", "synthetic/nic_counters/*.txt")),
    "rdma_ports": Target(parse_rdma_ports, RdmaPort, _files("synthetic/rdma/listing_*.txt")),
    "ipmitool_sensor": Target(parse_ipmitool_sensor, BmcSensor,
                              _files("public/ipmitool/*sensor*", "recorded/ipmitool/*sensor*")),
    "ipmitool_sel": Target(parse_ipmitool_sel, SelEntry,
                           _files("public/ipmitool/*sel*", "recorded/ipmitool/*sel*")),
    "ipmitool_mc_info": Target(parse_ipmitool_mc_info, BmcInfo,
                               _files("public/ipmitool/*mc-info*", "recorded/ipmitool/*mc-info*")),
    "ipmitool_chassis": Target(parse_ipmitool_chassis, ChassisStatus,
                               _files("recorded/ipmitool/*chassis*")),
    "ibstat": Target(parse_ibstat, LinkRecord, _files("public/ibstat/*")),
    "ibstatus": Target(parse_ibstatus, LinkRecord, _files("public/sysfs/ibstatus*")),
    "ethtool": Target((parse_ethtool, parse_ethtool_info), (EthtoolLink, EthtoolInfo),
                      _files("public/ethtool/*", "recorded/link_probe/*.txt")),
    "bonding": Target(parse_bonding, LinkRecord,
                      _files("public/bonding/*", "synthetic/link_state/*/*/proc/net/bonding/*")),
    "smartctl_json": Target(parse_smartctl_json, DiskReading, _files("public/smartctl/*.json")),
    "nvme_smart_log": Target(parse_nvme_smart_log, DiskReading,
                             _files("synthetic/nvme_smart_log/*.json")),
    "edac": Target(parse_edac, dict, _files("synthetic/edac/*.txt")),
    "kmsg": Target((parse_kmsg, functools.partial(parse_kmsg, source="dmesg")), KmsgLine,
                   _files("recorded/kmsg/*.txt")),
    "health_probe": Target((parse_health_probe, functools.partial(parse_health_probe, since=0)),
                           HealthRecord, _files("recorded/health_probe/*.txt")),
    "link_probe": Target(parse_link_probe, LinkRecord,
                         _files("recorded/link_probe/*.txt", "synthetic/link_probe/*.txt")),
    "ethtool_ring": Target(parse_ethtool_ring, EthtoolRing, _files("public/ethtool/ethtool-g_*")),
    "ethtool_features": Target(parse_ethtool_features, dict, _files("public/ethtool/ethtool-k_*")),
    "chronyc_tracking": Target(parse_chronyc_tracking, ClockSync, _files("public/chrony/*")),
    "timedatectl": Target(parse_timedatectl, ClockSync, _files("public/timedatectl/*")),
    "kernel_cmdline": Target(parse_cmdline, dict, _files("public/procfs/cmdline*")),
    "dmidecode_system": Target(parse_dmidecode_system, dict, _files("public/dmidecode/*")),
    "settings_probe": Target(parse_settings_probe, SettingsProbe,
                             _files("synthetic/settings_probe/*.txt")),
    "settings_profile": Target(functools.partial(parse_profile, filename="fuzz.yaml"), Profile,
                               _files("synthetic/settings_profile/*.yaml",
                                      "../../src/stackprobe/profiles/*.yaml")),
    "elbencho_table": Target(parse_elbencho_table, ElbenchoPhaseRecord,
                             _files("public/elbencho/*.txt")),
    "elbencho_csv": Target(parse_elbencho_csv, ElbenchoPhaseRecord,
                           _files("public/elbencho/*csvfile*")),
    "elbencho_livecsv": Target(parse_elbencho_livecsv, ElbenchoLiveRecord,
                               _files("public/elbencho/*livecsv*")),
    "vdbench_summary": Target(parse_vdbench_summary, VdbenchRecord,
                              _files("public/vdbench/*summary*", "public/vdbench/*totals*")),
    "vdbench_flatfile": Target(parse_vdbench_flatfile, VdbenchRecord,
                               _files("public/vdbench/*flatfile*")),
    "host_range": Target(parse_hostlist, HostsFile, _files("synthetic/host_ranges/*.txt")),
    "host_sources": Target(tuple(functools.partial(f, filename="fuzz") for f in (
        parse_file, parse_mpi_hostfile, parse_ansible_ini, parse_ansible_yaml)), HostsFile,
        _files("synthetic/host_sources/*.ini", "synthetic/host_sources/*.yaml",
               "synthetic/host_sources/*.hosts")),
    "doctor_probe": Target((parse_doctor_probe, parse_clock), (HostProbe, float),
                           _files("recorded/doctor_probe/*")),
    "stress_ng_yaml": Target(parse_stress_ng_yaml, CpuRecord, _files("recorded/stress-ng/*.yaml")),
    "sysbench_text": Target(parse_sysbench, SysbenchRecord, _files("recorded/sysbench/*")),
    "iperf3_text": Target(parse_iperf3_text, NetRecord, _files("recorded/iperf3/*.txt")),
    "ingest": Target(_ingest, (IoRecord, NetRecord, IorRecord, MdtestRecord, Io500Record,
                               OsdBenchRecord, StreamRecord, HplRecord, HpccRecord, OsuRecord,
                               PerftestRecord, ElbenchoPhaseRecord, ElbenchoLiveRecord,
                               VdbenchRecord, SysbenchRecord, CpuRecord, MemBwRecord),
                     _files("recorded/fio-*.txt", "public/*/*", "recorded/iperf3/*",
                            "recorded/sysbench/*", "recorded/stress-ng/*",
                            *CEPH_BENCH_SEEDS, shared=("*/*",))),
    "ingest_step": Target(_ingest_step, (PlannedStep, str),
                          _files("recorded/fio-3.33_normal+json_error_*.txt",
                                 "recorded/fio-3.33_client_normal_*",
                                 "recorded/ceph/rados-bench-*_4M_t16_3s*",
                                 "recorded/ceph/rbd-bench-*_readwrite_*",
                                 "recorded/iperf3/*_3s_2streams_reverse_*")),
}
SEEDS: dict[str, list[Seed]] = {name: seeds_from(t.seeds) for name, t in TARGETS.items()}


# ------------------------------------------------------------------ the property

_RECORD = TypeAdapter(Record)


def _check_floats(value: Any, where: str) -> None:
    """Every float reachable from a result is finite (NaN and inf are never a figure)."""
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            _check_floats(getattr(value, name), f"{where}.{name}")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _check_floats(getattr(value, f.name), f"{where}.{f.name}")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_floats(key, f"{where} key")
            _check_floats(item, f"{where}[{key!r}]")
    elif isinstance(value, (list, tuple, set)):
        for i, item in enumerate(value):
            _check_floats(item, f"{where}[{i}]")
    elif isinstance(value, float):
        assert math.isfinite(value), f"{where} is {value}"


def _leaves(value: Any):
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def _check_types(result: Any, declared: Any) -> None:
    """Each record is what the parser declares, and every field holds its declared type
    (parsers set some fields after construction, where pydantic does not look)."""
    for value in _leaves(result):
        if declared is not object:
            assert isinstance(value, declared), f"returned a {type(value).__name__}, not {declared}"
        if isinstance(value, BaseModel):
            type(value).model_validate(value.model_dump(), strict=True)
            if hasattr(value, "to_json"):  # a Record: what results.json stores and reads back
                _RECORD.validate_json(json.dumps(value.to_json(), allow_nan=False))
        elif dataclasses.is_dataclass(value):
            hints = typing.get_type_hints(type(value))
            for f in dataclasses.fields(value):
                TypeAdapter(hints[f.name]).validate_python(getattr(value, f.name), strict=True)


def check(name: str, text: str) -> None:
    """The property, for each call of the target: typed records with finite figures, or a
    one-line ValueError."""
    CASES["parsers"] += 1
    target = TARGETS[name]
    try:
        for call in target.each():
            try:
                result = call(text)
            except ValidationError as exc:
                raise AssertionError(f"pydantic ValidationError leaked: {exc}") from exc
            except ValueError as exc:
                assert one_line(str(exc)), f"error message is not one line: {str(exc)[:500]!r}"
                continue
            _check_types(result, target.returns)
            _check_floats(result, "result")
    except BaseException:
        save_failure(name, text)
        raise


# ------------------------------------------------------------------ the tests

NAMES = sorted(TARGETS)


@pytest.mark.parametrize("name", NAMES)
def test_seeds_are_there(name):
    """Each entry point is fuzzed from real outputs, not only from random text."""
    assert SEEDS[name], f"{name}: no seed fixture found"


@pytest.mark.parametrize("name", NAMES)
@FUZZ
@given(data=st.data())
def test_arbitrary_text_and_bytes(name, data):
    check(name, data.draw(text_or_bytes(), label="input"))


@pytest.mark.parametrize("name", NAMES)
@FUZZ
@given(data=st.data())
def test_real_lines_recombined(name, data):
    lines = sorted({ln for s in SEEDS[name] for ln in s.text.splitlines()[:400]})
    check(name, data.draw(line_soup(lines or [""]), label="input"))


@pytest.mark.parametrize("name", NAMES)
@FUZZ
@given(data=st.data())
def test_mutated_fixtures(name, data):
    mutant = data.draw(mutants(SEEDS[name]), label="input")
    check(name, mutant.text)


@pytest.mark.parametrize("name", NAMES)
def test_truncated_fixtures(name):
    for seed in SEEDS[name]:
        for cut in truncations(seed.text):
            check(name, cut)


CORPUS_CASES = [(name, path) for name in NAMES for path in corpus_files(name)]


@pytest.mark.parametrize(("name", "path"), CORPUS_CASES,
                         ids=[f"{n}/{p.name}" for n, p in CORPUS_CASES])
def test_corpus(name, path):
    """Inputs that once broke a parser (or are worth keeping), replayed on every run."""
    check(name, read_input(path))


def test_corpus_covers_every_parser():
    assert {name for name, _ in CORPUS_CASES} == set(NAMES)
