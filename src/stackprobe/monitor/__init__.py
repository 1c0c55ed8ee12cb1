"""Per-step resource monitoring: sysstat's sadc on every host of a step, one sample a second.

`HostMonitor` runs the collector on one host through its transport (sampler.py); the pure
functions in summary.py turn the parsed series (parsers/sadf_json.py) into the figures
reports and bottleneck hints need, and into the per-second file stored beside the step's
raw output (docs/results-schema.md, "Monitoring files").
"""

from stackprobe.monitor.sampler import HostMonitor, MonitorResult, sadc_argv, sadf_argv
from stackprobe.monitor.summary import sample_json, summarise, write_samples_json

__all__ = ["HostMonitor", "MonitorResult", "sadc_argv", "sadf_argv", "sample_json", "summarise",
           "write_samples_json"]
