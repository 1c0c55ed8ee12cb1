"""Judging a run: acceptance criteria, regression gates against a baseline, and the
findings no rule covers, into one checklist and one exit status (schema/verdict.py)."""
