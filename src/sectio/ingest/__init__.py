"""Ingest: readers turn sources into chunk records; the loader writes them, gated."""

from sectio.ingest.loader import IngestReport, load_records
from sectio.ingest.readers import detect_format, read_source

__all__ = ["IngestReport", "detect_format", "load_records", "read_source"]
