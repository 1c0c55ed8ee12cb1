"""Suite -> list of PlannedStep: defaults applied, sweeps expanded, names made unique.

Each step's kind (kinds/registry.py) expands its sweeps — several in one step multiply, in
the order its fields are declared — and says its default name, title, layer, headline,
estimate and test data. Here the common part: the expanded step's name is the step name
plus the swept values ('lat-qd1-randread'), its title may use them as placeholders ('4k
{rw} latency'), `hosts:` selectors are resolved, and a session's prelude (the Ceph
inventory) goes before the first step that needs the session.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from stackprobe.errors import UserError
from stackprobe.kinds import registry
from stackprobe.kinds.contract import HostMode, Kind
from stackprobe.kinds.fio.params import FioParams
from stackprobe.spec.hosts import HostsFile, Reach
from stackprobe.spec.planned import PlannedStep, RepeatPlan
from stackprobe.spec.steps import StepSpec, slug
from stackprobe.spec.target import DeviceTarget
from stackprobe.suite.models import Suite


def expand(suite: Suite, base_dir: Path | None = None,
           hosts: HostsFile | None = None, device: DeviceTarget | None = None
           ) -> list[PlannedStep]:
    """Concrete steps of `suite`; relative job_file paths resolve against base_dir; `hosts:`
    selectors resolve against the hosts file (kept as written when there is none: `plan`);
    with `device` (--target DEVICE) the steps here address it or are skipped (on_device)."""
    planned: list[PlannedStep] = []
    for n, spec in enumerate(suite.steps, start=1):
        kind = registry.kind(spec.kind)
        chosen, skip = _resolve_hosts(kind, spec, hosts, n)
        for concrete, swept in kind.expand(spec, suite.defaults, base_dir):
            placed = kind.on_device(concrete, device) if device and not chosen else None
            addresses = isinstance(placed, StepSpec)  # its data bounded by the device
            why = skip or (placed if isinstance(placed, str) else None)
            step = _planned(kind, spec, placed if addresses else concrete, swept,
                            len(planned) + 1, n, chosen)
            if device is not None and not chosen:  # a device has no free space to check
                step = replace(step, space_bytes=0, device=device if addresses else None)
            planned.append(replace(step, skip=why, estimate_s=0.0) if why else step)
    planned = _with_preludes(planned)
    _make_unique(planned)
    return planned


def one_step(fields: dict[str, Any], *, index: int = 1, hosts: tuple[str, ...] = (),
             base_dir: Path | None = None) -> PlannedStep:
    """One planned step from a suite step's fields (`kind` included, no sweeps), for what
    plans a single step outside a suite: a bench, a test. Validated like a suite's."""
    kind = registry.kind(fields["kind"])
    spec = kind.spec.model_validate(fields)
    concrete, swept = next(iter(kind.expand(spec, FioParams(), base_dir)))
    return _planned(kind, spec, concrete, swept, index, index, tuple(hosts))


def _planned(kind: Kind, spec: StepSpec, concrete: StepSpec, swept: dict[str, Any], index: int,
             n: int, hosts: tuple[str, ...]) -> PlannedStep:
    """The planned step of one combination of suite step `n`'s sweeps."""
    params = kind.params(concrete)
    name = _step_name(spec.name or kind.default_name(concrete), params, swept)
    step = PlannedStep(
        index=index,
        name=name,
        kind=kind.name,
        title=_title(spec.title, kind, concrete, params, swept, name),
        layer=spec.layer or kind.layer_of(concrete),
        spec=concrete,
        params=params,
        swept=swept,
        headline=kind.headline(concrete),
        repeat=_repeat_plan(getattr(spec, "repeat", None)),
        sweep=f"{n}-{spec.name or spec.kind}" if swept else None,
        hosts=hosts,
        timeout_s=spec.timeout.seconds if spec.timeout is not None else None,
        host_mode=kind.hosts,
        ceph=kind.ceph(concrete),
        suite_step=n,
    )
    return _estimated(kind, step)


def _estimated(kind: Kind, step: PlannedStep) -> PlannedStep:
    runs = step.repeat.max if step.repeat else 1
    return replace(step, estimate_s=runs * kind.estimate_s(step.spec, len(step.hosts)),
                   space_bytes=kind.local_bytes(step.spec))


def _resolve_hosts(kind: Kind, spec: StepSpec, hosts: HostsFile | None, n: int
                   ) -> tuple[tuple[str, ...], str | None]:
    """The step's host names, and why it is skipped when it is: `hosts: all` of a kind that
    reaches what not every hosts file has (a BMC) finds none -- a suite written for every
    cluster (cluster-acceptance, check) then says so instead of refusing to run."""
    if spec.hosts is None:
        return (), None
    if kind.hosts is HostMode.CONTROLLER:
        on_hosts = [k.name for k in registry.kinds() if k.hosts is not HostMode.CONTROLLER]
        raise UserError(f"step {n} ({spec.kind}): this kind does not run on hosts "
                        f"(those that do: {', '.join(on_hosts)})")
    selector = spec.hosts if isinstance(spec.hosts, list) else [spec.hosts]
    if hosts is None:
        return tuple(selector), None
    if selector == ["all"] and kind.reach is not Reach.SHELL and \
            not any(h.reach is kind.reach for h in hosts.hosts):
        return (), f"no {kind.reach.words} in the hosts file"
    try:
        chosen = tuple(h.name for h in hosts.select(spec.hosts, kind.reach))
    except ValueError as exc:
        raise UserError(f"step {n} ({spec.kind}): hosts: {exc}") from None
    return chosen, None


def _repeat_plan(spec) -> RepeatPlan | None:
    if spec is None or spec == 1:
        return None
    if isinstance(spec, int):
        return RepeatPlan(spec, spec, 0.0)
    return RepeatPlan(spec.min, spec.max, spec.cov)


def _with_preludes(steps: list[PlannedStep]) -> list[PlannedStep]:
    """A plan that loads a Ceph cluster records it first: the session's prelude (the Ceph
    inventory) goes before the first step needing the session, unless the suite has one."""
    prelude = registry.prelude("ceph")
    if prelude is None or any(s.kind == prelude.name for s in steps):
        return steps
    first = next((i for i, s in enumerate(steps) if s.on_ceph), None)
    if first is None:
        return steps
    spec = prelude.spec(kind=prelude.name)
    name = prelude.default_name(spec)
    step = PlannedStep(index=0, name=name, kind=prelude.name, title=prelude.title(spec, name),
                       layer=prelude.layer_of(spec), spec=spec, params=prelude.params(spec),
                       headline=prelude.headline(spec), host_mode=prelude.hosts,
                       ceph=prelude.ceph(spec))
    out = steps[:first] + [_estimated(prelude, step)] + steps[first:]
    return [replace(s, index=i + 1) for i, s in enumerate(out)]


def _step_name(base: str, params: dict, swept: dict) -> str:
    if "{" in base:
        return _format(base, params, swept)
    suffix = "-".join(slug(v) for v in swept.values())
    return f"{base}-{suffix}" if suffix else base


def _title(title: str | None, kind: Kind, spec: StepSpec, params: dict, swept: dict,
           name: str) -> str:
    if title:
        text = _format(title, params, swept)
        shown = {k: v for k, v in swept.items() if k != "target"}  # ' on RBD' says it
        if shown and text == title and "{" not in title:
            text += " (" + ", ".join(f"{k}={v}" for k, v in shown.items()) + ")"
    else:
        text = kind.title(spec, name)
    where = kind.target_text(spec)
    if where and "{target" not in (title or ""):
        text += f" on {where}"
    return text


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


def _make_unique(steps: list[PlannedStep]) -> None:
    seen: dict[str, int] = {}
    for i, step in enumerate(steps):
        count = seen.get(step.name, 0)
        seen[step.name] = count + 1
        if count:
            steps[i] = replace(step, name=f"{step.name}-{count + 1}")
