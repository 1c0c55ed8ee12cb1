"""stress-ng, which two host kinds drive: the CPU stressors and the memory stream stressor."""

from __future__ import annotations

from stackprobe.spec.tools import Tool

STRESS_NG = Tool("stress-ng", "stress-ng", ("stress-ng", "--version"),
                 "CPU throughput, memory bandwidth (stream)")
