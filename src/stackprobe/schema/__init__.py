"""What a run leaves behind, as typed models: the records parsers produce, results.json
(schema/results.py), its version, and the host names that stand for many hosts."""
