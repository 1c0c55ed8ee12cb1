"""Parsers of the peers' storage benchmarks that `stackprobe ingest` reads (elbencho,
vdbench): their saved outputs, not outputs of stackprobe's own steps."""
