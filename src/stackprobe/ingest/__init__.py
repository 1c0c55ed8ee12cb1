"""`stackprobe ingest`: outputs people already have, read into records — the format told
from the content (detect.py), each format's own parser from parsers/."""
