"""What every stored record shares: strict fields (an unknown key or a NaN is an error, not a
figure) and one JSON form for results.json and `ingest --json`.

Its own module so that the record families (schema/records.py, hpc_records.py,
fabric_records.py) share it without importing each other: records.py joins them all into
the `Record` union.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

# Unknown fields are errors, and so is a NaN or infinite figure: no tool measures one, and
# results.json, the reports and every comparison would carry it on (parsers/bad_input.py).
MODEL = ConfigDict(extra="forbid", allow_inf_nan=False)


class RecordBase(BaseModel):
    model_config = MODEL

    repetition: int | None = None  # which run of a repeated step (1, 2, ...); None: run once

    def to_json(self) -> dict[str, Any]:
        """The record as stored in results.json and printed by `ingest --json`."""
        return self.model_dump(mode="json", exclude_none=True)
