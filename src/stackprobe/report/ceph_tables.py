"""The Ceph tables of the seeds, built from a run's results:

- per-OSD bench (seed 002's per-OSD dd): every OSD, its class median, the slow ones named;
- rados bench matrix (seed 001): block size x concurrency rows, write / seq / rand columns;
- RBD vs CephFS (seed 003): the same fio workload through librbd and on CephFS, side by side.

Each is a TextTable (report/text_table.py) that every renderer prints.
"""

from __future__ import annotations

from stackprobe.analysis.osd_outliers import judge_osds
from stackprobe.schema.records import IoRecord, OsdBenchRecord
from stackprobe.tables.text_table import TextTable
from stackprobe.schema.results import RunResults, StepResult
from stackprobe.units import fmt_bw, fmt_iops, fmt_ns, parse_size


def ceph_tables(results: RunResults) -> list[TextTable]:
    tables = [osd_table(results), rados_matrix(results), rbd_vs_cephfs(results)]
    return [t for t in tables if t.rows]


def osd_table(results: RunResults) -> TextTable:
    table = TextTable("Per-OSD bench (ceph tell osd.N bench)",
                      ["OSD", "Host", "Class", "Bandwidth", "IOPS", "vs class median", "Verdict"])
    for step in _steps(results, "osd_bench"):
        recs = [r for r in step.records if isinstance(r, OsdBenchRecord)]
        threshold = float(step.params.get("threshold_pct", 20))
        by_osd = {r.osd: r for r in recs}
        for v in judge_osds(recs, threshold):
            r = by_osd[v.osd]
            dev = f"{v.deviation_pct:+.0f}%" if v.deviation_pct is not None else "n/a"
            verdict = f"SLOW (> {threshold:.0f}% below)" if v.slow else "ok"
            table.rows.append([f"osd.{r.osd}", r.host or "", r.device_class or "",
                               fmt_bw(r.bw_bytes), fmt_iops(r.iops), dev, verdict])
        if recs and len(recs) < 3:
            table.notes.append("fewer than 3 OSDs in a class: no median to compare with")
    return table


def rados_matrix(results: RunResults) -> TextTable:
    modes = ("write", "seq", "rand")
    headers = ["Block size", "Threads"]
    for m in modes:
        headers += [f"{m} bandwidth", f"{m} IOPS", f"{m} mean lat"]
    table = TextTable("rados bench: block size x concurrency", headers)
    for step in _steps(results, "rados_bench"):
        by_mode = {}
        for r in step.records:
            if isinstance(r, IoRecord):
                mode = r.workload.get("mode") or r.job.split()[0]
                by_mode[mode] = r.write if mode == "write" else r.read
        row = [str(step.params.get("block_size")), str(step.params.get("threads"))]
        for m in modes:
            s = by_mode.get(m)
            row += ([fmt_bw(s.bw_bytes), fmt_iops(s.iops), fmt_ns(s.lat_ns.get("mean"))]
                    if s is not None else ["-", "-", "-"])
        table.rows.append(row)
    table.rows.sort(key=lambda r: (parse_size(r[0]), int(r[1])))
    return table


def rbd_vs_cephfs(results: RunResults) -> TextTable:
    """Pairs of fio steps identical but for target rbd / cephfs."""
    table = TextTable("RBD vs CephFS (same fio workload)",
                      ["Test", "Figure", "RBD", "CephFS", "CephFS / RBD"])
    by_key: dict[tuple, dict[str, StepResult]] = {}
    for step in _steps(results, "fio"):
        target = step.params.get("target")
        if target in ("rbd", "cephfs"):
            key = tuple(sorted((k, str(v)) for k, v in step.params.items() if k != "target"))
            by_key.setdefault(key, {})[target] = step
    for pair in by_key.values():
        if set(pair) != {"rbd", "cephfs"}:
            continue
        rbd, fs = pair["rbd"], pair["cephfs"]
        a, b = _headline(rbd), _headline(fs)
        if a is None or b is None:
            continue
        (value_a, unit), (value_b, _) = a, b
        title = rbd.title.removesuffix(" on RBD")
        fmt = {"IOPS": fmt_iops, "B/s": fmt_bw, "ns": fmt_ns}.get(unit, str)
        label = {"IOPS": "IOPS", "B/s": "bandwidth", "ns": "mean latency"}.get(unit, unit)
        ratio = f"{value_b / value_a:.2f}" if value_a else "-"
        table.rows.append([title, label, fmt(value_a), fmt(value_b), ratio])
    return table


def _headline(step: StepResult) -> tuple[float, str] | None:
    s = step.summary
    if s is None or s.headline_value is None or step.status != "ok":
        return None
    return s.headline_value, s.headline_unit or ""


def _steps(results: RunResults, kind: str) -> list[StepResult]:
    return [s for s in results.steps if s.kind == kind and s.records]
