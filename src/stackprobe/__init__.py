"""stackprobe: bottom-up performance and acceptance testing for storage clusters."""

__version__ = "0.1.0"
