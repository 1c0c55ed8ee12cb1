"""Suite -> list of PlannedStep: defaults applied, sweeps expanded, names made unique.

A list-valued workload parameter is a sweep; several sweeps in one step multiply
(cartesian product, in the order the parameters appear in the YAML). The expanded step's
name is the step name plus the swept values ('lat-qd1-randread'), and its title may use
them as placeholders ('4k {rw} latency').
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path
from typing import Any

from stackprobe.plan.estimate import estimate_seconds, estimate_space
from stackprobe.errors import UserError
from stackprobe.spec.planned import DEFAULT_LAYER, HOST_KINDS, PlannedStep, RepeatPlan
from stackprobe.spec.hosts import HostsFile
from stackprobe.suite.models import FioParams, FioStep, SloStep, Suite
from stackprobe.units import parse_duration_s, parse_size

# Lists that are sweeps for kinds whose other list fields are lists by nature
# (memory 'operations', metadata 'operations', rados bench 'modes').
_SWEEPABLE = {
    "metadata": ("files", "numjobs", "layout", "target"),
    "rados_bench": ("block_size", "threads"),
    "rbd_bench": ("io_type", "io_pattern", "io_size", "io_threads"),
}
_TARGET_TEXT = {"rbd": "RBD", "cephfs": "CephFS"}
# fio-like steps' own fields, beside the workload parameters (never sweeps)
_STEP_ONLY = ("steady_state", "advice", "percentile", "limit", "latency", "vary", "min", "max",
              "tolerance")


def expand(suite: Suite, base_dir: Path | None = None,
           hosts: HostsFile | None = None) -> list[PlannedStep]:
    """Concrete steps of `suite`; relative job_file paths resolve against base_dir; `hosts:`
    selectors resolve against the hosts file (kept as written when there is none: `plan`)."""
    planned: list[PlannedStep] = []
    defaults = suite.defaults.model_dump(exclude_none=True)
    for n, spec in enumerate(suite.steps, start=1):
        for params, swept in _combinations(spec, defaults, base_dir):
            name = _step_name(spec, params, swept)
            headline = _headline(spec, params)
            index = len(planned) + 1
            step = PlannedStep(
                index=index,
                name=name,
                kind=spec.kind,
                title=_title(spec.title, spec.kind, params, swept, name),
                layer=spec.layer or _layer(spec.kind, params),
                params=params,
                swept=swept,
                headline=headline,
                repeat=_repeat_plan(getattr(spec, "repeat", None)),
                sweep=f"{n}-{spec.name or spec.kind}" if swept else None,
                hosts=_resolve_hosts(spec, hosts, n),
                timeout_s=parse_duration_s(spec.timeout) if spec.timeout is not None else None,
            )
            runs = step.repeat.max if step.repeat else 1
            planned.append(replace(step, estimate_s=runs * estimate_seconds(step),
                                   space_bytes=estimate_space(step)))
    planned = _with_ceph_inventory(planned)
    _make_unique(planned)
    return planned


def _resolve_hosts(spec, hosts: HostsFile | None, n: int) -> tuple[str, ...]:
    if spec.hosts is None:
        return ()
    if spec.kind not in HOST_KINDS:
        raise UserError(f"step {n} ({spec.kind}): this kind does not run on hosts "
                        f"(those that do: {', '.join(HOST_KINDS)})")
    selector = spec.hosts if isinstance(spec.hosts, list) else [spec.hosts]
    if hosts is None:
        return tuple(selector)
    try:
        return tuple(h.name for h in hosts.select(spec.hosts))
    except ValueError as exc:
        raise UserError(f"step {n} ({spec.kind}): hosts: {exc}") from None


def _repeat_plan(spec) -> RepeatPlan | None:
    if spec is None or spec == 1:
        return None
    if isinstance(spec, int):
        return RepeatPlan(spec, spec, 0.0)
    return RepeatPlan(spec.min, spec.max, spec.cov)


def _with_ceph_inventory(steps: list[PlannedStep]) -> list[PlannedStep]:
    """A plan that loads a Ceph cluster records it first: a ceph_inventory step goes
    before the first Ceph step unless the suite has one."""
    if any(s.kind == "ceph_inventory" for s in steps):
        return steps
    first = next((i for i, s in enumerate(steps) if s.on_ceph), None)
    if first is None:
        return steps
    inv = PlannedStep(index=0, name="ceph-inventory", kind="ceph_inventory",
                      title="Ceph cluster inventory", layer="cluster", params={})
    inv = replace(inv, estimate_s=estimate_seconds(inv))
    out = steps[:first] + [inv] + steps[first:]
    return [replace(s, index=i + 1) for i, s in enumerate(out)]


def _combinations(spec, defaults: dict, base_dir: Path | None):
    """(params, swept) for every combination of the step's list-valued parameters."""
    raw = spec.model_dump(
        exclude_none=True, exclude={"kind", "name", "title", "layer", "headline", "repeat", "hosts",
                 "timeout"}
    )
    if isinstance(spec, FioStep) and spec.job_file is not None:
        path = Path(spec.job_file)
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        yield {"job_file": str(path)}, {}
        return
    if isinstance(spec, (FioStep, SloStep)):
        # step values override the suite defaults, option by option
        options = {**defaults.get("options", {}), **raw.pop("options", {})}
        merged = {**{k: v for k, v in defaults.items() if k != "options"}, **raw}
        items = [(k, merged[k]) for k in FioParams.model_fields if k in merged and k != "options"]
        items += [(f"options.{k}", v) for k, v in options.items()]
        items += [(k, raw[k]) for k in _STEP_ONLY if k in raw]
    else:
        items = list(raw.items())
    swept_keys = [k for k, v in items if isinstance(v, list) and _is_sweep(spec, k)]
    choices = [v if k in swept_keys else [v] for k, v in items]
    for combo in itertools.product(*choices):
        params: dict[str, Any] = {}
        for (key, _), value in zip(items, combo):
            if key.startswith("options."):
                params.setdefault("options", {})[key[8:]] = value
            else:
                params[key] = value
        yield params, {k: params_get(params, k) for k in swept_keys}


def _is_sweep(spec, key: str) -> bool:
    """Lists that are sweeps (not lists by nature, like memory 'operations')."""
    if isinstance(spec, (FioStep, SloStep)):
        return key not in _STEP_ONLY
    return key in _SWEEPABLE.get(spec.kind, ())


def params_get(params: dict[str, Any], key: str) -> Any:
    if key.startswith("options."):
        return params.get("options", {}).get(key[8:])
    return params[key]


def _layer(kind: str, params: dict) -> str:
    if kind in ("fio", "slo", "metadata", "io500_like") and params.get("target") in _TARGET_TEXT:
        return "client"
    return DEFAULT_LAYER[kind]


def _step_name(spec, params: dict, swept: dict) -> str:
    base = spec.name or _default_name(spec.kind, params)
    if "{" in base:
        return _format(base, params, swept)
    suffix = "-".join(_slug(v) for v in swept.values())
    return f"{base}-{suffix}" if suffix else base


def _default_name(kind: str, params: dict) -> str:
    if kind == "fio" and "job_file" in params:
        return Path(params["job_file"]).stem
    if kind == "fio":
        return "-".join(_slug(params[k]) for k in ("rw", "bs") if k in params) or "fio"
    return kind.replace("_", "-")


def _title(title: str | None, kind: str, params: dict, swept: dict, name: str) -> str:
    if title:
        text = _format(title, params, swept)
        shown = {k: v for k, v in swept.items() if k != "target"}  # ' on RBD' says it
        if shown and text == title and "{" not in title:
            text += " (" + ", ".join(f"{k}={v}" for k, v in shown.items()) + ")"
    else:
        text = _default_title(kind, params, name)
    where = _TARGET_TEXT.get(params.get("target", ""))
    if where and "{target" not in (title or ""):
        text += f" on {where}"
    return text


def _default_title(kind: str, params: dict, name: str) -> str:
    if kind == "fio" and "job_file" not in params:
        parts = [str(params.get("bs", "")), str(params.get("rw", ""))]
        parts += [f"QD{params['iodepth']}"] if "iodepth" in params else []
        parts += [f"{params['numjobs']} jobs"] if params.get("numjobs", 1) > 1 else []
        return " ".join(p for p in parts if p)
    if kind == "rados_bench":
        return f"rados bench {params['block_size']}, {params['threads']} threads"
    if kind == "rbd_bench":
        return (f"rbd bench {params['io_type']} {params['io_pattern']} {params['io_size']}, "
                f"{params['io_threads']} threads")
    if kind == "slo":
        return (f"{params.get('bs', '')} {params.get('rw', '')}: max IOPS with "
                f"p{params['percentile']:g} {params.get('latency', 'total')} latency "
                f"<= {params['limit']}").strip()
    if kind == "cpu":
        return f"CPU throughput (stress-ng {params['stressor']})"
    if kind == "disk_baseline":
        return f"Disk baseline: {params['bs']} {params['rw']}, each alone then all together"
    if kind == "metadata":
        where = ("a directory per process" if params.get("layout", "easy") == "easy"
                 else "one shared directory")
        return f"File metadata operations ({params.get('layout', 'easy')}: {where})"
    if kind == "io500":
        return f"IO500 ({params['tool']}, real binaries)"
    if kind == "io500_like":
        return "io500-like phases (not an official IO500 score)"
    if kind == "network":
        return f"Network matrix (iperf3, {params['streams']} stream(s), {params['seconds']} s)"
    return {"inventory": "Inventory", "memory": "Memory bandwidth",
            "metadata": "File metadata operations", "ceph_inventory": "Ceph cluster inventory",
            "osd_bench": "OSD bench (ceph tell osd.N bench)"}.get(kind, name)


RW_TEXT = {
    "read": "sequential read",
    "write": "sequential write",
    "randread": "random read",
    "randwrite": "random write",
    "rw": "sequential read/write",
    "readwrite": "sequential read/write",
    "randrw": "random read/write",
    "trim": "sequential trim",
    "randtrim": "random trim",
    "trimwrite": "trim+write",
}


def _format(template: str, params: dict, swept: dict) -> str:
    """Fill '{rw}', '{bs}', ... and '{rw_text}' ('random read') from the step's params."""
    flat = {**{k: v for k, v in params.items() if k != "options"}, **params.get("options", {})}
    if "rw" in flat:
        flat["rw_text"] = RW_TEXT.get(str(flat["rw"]), str(flat["rw"]))
    try:
        return template.format(**flat)
    except (KeyError, IndexError, ValueError):
        return template


def _slug(value: Any) -> str:
    text = str(value).lower()
    return "".join(c if c.isalnum() or c in "._" else "-" for c in text).strip("-")


def _headline(spec, params: dict) -> str | None:
    """The figure a step is about: IOPS, bandwidth, latency, ops/s or memory bandwidth."""
    if spec.kind == "rbd_bench":
        return "bw" if parse_size(params["io_size"]) >= 256 * 1024 else "iops"
    if spec.kind == "slo":
        return "iops"
    if spec.kind != "fio":
        return {"memory": "membw", "metadata": "ops", "rados_bench": "bw", "osd_bench": "bw",
                "cpu": "ops", "disk_baseline": "bw", "network": "bw"}.get(spec.kind)
    if spec.headline != "auto":
        return spec.headline
    if "job_file" in params:
        return "iops"
    if int(params.get("iodepth", 1)) * int(params.get("numjobs", 1)) == 1:
        return "lat"
    if parse_size(params.get("bs", "4k")) >= 256 * 1024:
        return "bw"
    return "iops"


def _make_unique(steps: list[PlannedStep]) -> None:
    seen: dict[str, int] = {}
    for i, step in enumerate(steps):
        count = seen.get(step.name, 0)
        seen[step.name] = count + 1
        if count:
            steps[i] = replace(step, name=f"{step.name}-{count + 1}")
