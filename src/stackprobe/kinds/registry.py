"""The step kinds, found where they live, looked up by name.

Every module of a tool-family package (kinds/host, kinds/fio, ...) that defines `KIND`, an
instance of a Kind subclass, is a step kind: adding one means adding its module, nothing
here. Everything that lists kinds — the suite's Step union, `doctor`'s tools, the
packages the Makefile installs, the layer and host mode of a step — asks this module.

A name no module declares (a results.json from a kind that no longer exists) gets the
`Kind` defaults: rows from its records, no tables, nothing to compare beyond its params.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import Annotated, Union

from pydantic import Field

from stackprobe.kinds.checks import COMMON, CheckRegistry
from stackprobe.kinds.contract import Kind
from stackprobe.spec.steps import LAYERS
from stackprobe.spec.tools import Tool

FAMILIES = ("host", "fio", "network", "ceph", "hpc", "peer")


@cache
def kinds() -> tuple[Kind, ...]:
    """Every kind, by family (FAMILIES), then by module name."""
    found: list[Kind] = []
    for family in FAMILIES:
        package = importlib.import_module(f"stackprobe.kinds.{family}")
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            kind = getattr(module, "KIND", None)
            if isinstance(kind, Kind):
                if kind.family != family:
                    raise TypeError(f"{module.__name__}: kind {kind.name} says family "
                                    f"{kind.family}")
                found.append(kind)
    names = [k.name for k in found]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise TypeError(f"step kinds declared twice: {', '.join(duplicates)}")
    return tuple(found)


@cache
def _by_name() -> dict[str, Kind]:
    return {k.name: k for k in kinds()}


class _Unknown(Kind):
    """What a results.json names but no module declares any more."""

    def __init__(self, name: str) -> None:
        self.name = name  # type: ignore[misc]


def kind(name: str) -> Kind:
    """The kind called `name`; the contract's defaults for a name nobody declares."""
    return _by_name().get(name) or _Unknown(name)


def names() -> list[str]:
    return [k.name for k in kinds()]


@cache
def step_union():
    """The suite model's `steps` item: one of the kinds' models, told apart by `kind`
    (not the kinds only `ingest` makes: `in_suites` False)."""
    models = tuple(k.spec for k in kinds() if k.in_suites)
    return Annotated[Union[models], Field(discriminator="kind")]  # noqa: UP007 - dynamic


def prelude(session: str) -> Kind | None:
    """The kind recorded before the first step of a session (ceph: the cluster inventory)."""
    return next((k for k in kinds() if k.prelude_of == session), None)


def tools() -> list[Tool]:
    """Every tool a kind may drive, once each, in the kinds' order."""
    out: dict[str, Tool] = {}
    for k in kinds():
        for t in k.tools:
            out.setdefault(t.name, t)
    return list(out.values())


def layer_order(layer: str) -> int:
    return LAYERS.index(layer) if layer in LAYERS else len(LAYERS)


@cache
def checks() -> CheckRegistry:
    """The findings criteria may name: the common ones (kinds/checks.py), then each kind's."""
    own = [c for k in kinds() for c in k.checks]
    return CheckRegistry((*COMMON, *own))
