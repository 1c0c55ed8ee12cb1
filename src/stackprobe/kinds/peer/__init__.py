"""Kinds of results other benchmarks made (elbencho, vdbench, sysbench): steps of runs that
`stackprobe ingest --new/--into` builds from their files, never planned by a suite."""
