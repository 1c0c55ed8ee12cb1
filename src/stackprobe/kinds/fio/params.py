"""fio's workload parameters as a suite writes them, shared by the fio and slo kinds and by
the suite's `defaults:`, and how a step's sweeps over them expand.

Any workload parameter given as a list is a sweep; several sweeps in one step multiply
(cartesian product, in the order the parameters are declared here, then `options` in the
order written). Step values override the suite's defaults, option by option.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator

from stackprobe.kinds.contract import CephNeeds
from stackprobe.spec.fields import (
    Counts,
    Durations,
    DurationsOrZero,
    Percents,
    RwModes,
    Scalar,
    Size,
    Sizes,
    as_list,
    written,
)
from stackprobe.spec.steps import StepSpec, StrictModel
from stackprobe.spec.target import DeviceTarget

Target = Literal["local", "rbd", "cephfs"]
TARGET_TEXT = {"rbd": "RBD", "cephfs": "CephFS"}  # ' on RBD' in titles


class FioParams(StrictModel):
    """fio workload parameters; every one may be a list (a sweep)."""

    rw: RwModes | None = None
    bs: Sizes | None = None
    iodepth: Counts | None = None
    numjobs: Counts | None = None
    rwmixread: Percents | None = None
    size: Sizes | None = None
    runtime: Durations | None = None
    ramp_time: DurationsOrZero | None = None  # 0: no ramp (fio's default)
    ioengine: str | list[str] | None = None
    direct: int | list[int] | None = None
    time_based: bool | None = None
    # Where the workload runs: the --target directory ('local'), an RBD image (fio's rbd
    # engine) or a CephFS mount; each is created for the run and removed after it.
    # (Not named 'on': YAML reads that key as the boolean true.)
    target: Target | list[Target] | None = None
    # Any other fio option, passed through as `key=value` in the job file.
    options: dict[str, Scalar | list[Scalar]] = Field(default_factory=dict)

    @field_validator("options")
    @classmethod
    def _options(cls, v):
        for key, value in v.items():
            if key in ("directory", "name"):
                raise ValueError(f"'{key}' is set by stackprobe (the target directory)")
            if key == "filename":
                for item in as_list(value):
                    text = str(item)
                    if text.startswith("/") or ".." in text.split("/"):
                        raise ValueError(
                            "filename must be a relative path inside the target directory"
                        )
        return v


WORKLOAD_FIELDS = tuple(k for k in FioParams.model_fields if k != "options")


def expand_fio(spec: StepSpec, defaults: FioParams) -> Iterator[tuple[StepSpec, dict[str, Any]]]:
    """The fio-like step's combinations: defaults applied under its own values, every
    list-valued workload parameter and option swept (the kind's own fields never are).
    Yields (concrete spec, swept values as written)."""
    merged: dict[str, Any] = {k: getattr(defaults, k) for k in WORKLOAD_FIELDS
                              if getattr(defaults, k) is not None}
    merged.update({k: getattr(spec, k) for k in WORKLOAD_FIELDS if getattr(spec, k) is not None})
    options = {**defaults.options, **spec.options}
    items = [(k, merged[k]) for k in WORKLOAD_FIELDS if k in merged]
    items += [(f"options.{k}", v) for k, v in options.items()]
    swept_keys = [k for k, v in items if isinstance(v, list)]
    choices = [v if isinstance(v, list) else [v] for _, v in items]
    for combo in itertools.product(*choices):
        update: dict[str, Any] = {"options": {}}
        for (key, _), value in zip(items, combo):
            if key.startswith("options."):
                update["options"][key[8:]] = value
            else:
                update[key] = value
        concrete = spec.model_copy(update=update)
        swept = {k: written(update["options"][k[8:]] if k.startswith("options.") else update[k])
                 for k in swept_keys}
        yield concrete, swept


def fio_params(spec: StepSpec, own: tuple[str, ...]) -> dict[str, Any]:
    """A concrete fio-like spec as results.json keeps it: the workload parameters in fio's
    order, `options` when there are any, then the kind's own fields that are set."""
    out: dict[str, Any] = {}
    for k in WORKLOAD_FIELDS:
        value = getattr(spec, k)
        if value is not None:
            out[k] = written(value)
    options = spec.options
    if options:
        out["options"] = {k: written(v) for k, v in options.items()}
    for k in own:
        value = getattr(spec, k)
        if value is not None:
            out[k] = value.model_dump(exclude_none=True) if isinstance(value, StrictModel) \
                else written(value)
    return out


def fio_layer(spec: StepSpec, default: str) -> str:
    """fio on an RBD image or the CephFS is a client of the cluster: the 'client' rung."""
    return "client" if getattr(spec, "target", None) in TARGET_TEXT else default


def fio_ceph(spec: StepSpec, data_bytes: int) -> CephNeeds | None:
    """What fio on `target` needs of the Ceph session: the image (as large as one job's
    region, `size`), or the CephFS for its files."""
    target = spec.target
    if target == "rbd":
        size = spec.size
        return CephNeeds(image_bytes=size.bytes if size is not None else 1024**3)
    if target == "cephfs":
        return CephNeeds(cephfs=True, cephfs_bytes=data_bytes)
    return None


# fio options that make a job work on files (several per job, named by pattern) rather
# than on one file or device it addresses whole
FILE_OPTIONS = ("filename", "nrfiles", "filename_format", "filesize", "file_service_type",
                "opendir", "create_on_open", "unique_filename", "openfiles")


def fio_on_device(spec: StepSpec, device: DeviceTarget) -> StepSpec | str | None:
    """A fio-like step when --target is a block device: on RBD or the CephFS it does not
    use the target (None); with file options it cannot run there (why); otherwise its job
    addresses the device, `size` bounded by the device's (no size: the whole device)."""
    if spec.target in TARGET_TEXT:
        return None
    files = [k for k in FILE_OPTIONS if k in spec.options]
    if files:
        return (f"fio option {files[0]} works on files in a directory: give --target a "
                "directory for it")
    if spec.size is not None and spec.size.bytes <= device.size_bytes:
        return spec  # its size as written
    return spec.model_copy(update={"size": Size.of(device.size_bytes)})


def target_needs(target: str | None) -> tuple[str, ...]:
    """Tools the target needs beside fio: the Ceph CLI and rbd, or ceph-fuse."""
    return {"rbd": ("ceph", "rbd"), "cephfs": ("ceph", "ceph-fuse")}.get(target or "local", ())


def job_file_path(spec: StepSpec, base_dir: Path | None) -> str:
    path = Path(spec.job_file)
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    return str(path)

