"""The version of results.json (docs/results-schema.md).

Bumped when a reader of an older file would misread a newer one; a new optional field does
not bump it. A reader for every older version lives beside the models (schema/results.py).
"""

from __future__ import annotations

SCHEMA_VERSION = 1
