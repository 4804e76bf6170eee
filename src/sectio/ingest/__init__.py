"""Ingest: readers turn sources into chunk records; the loader writes them, gated.

Names are imported on first use (:mod:`sectio._lazy`): the CLI reads
:data:`sectio.ingest.detect.FORMATS` at start-up without loading the loader.
"""

from typing import TYPE_CHECKING

from sectio._lazy import exports

if TYPE_CHECKING:
    from sectio.ingest.loader import IngestReport, load_records
    from sectio.ingest.readers import detect_format, read_source

__getattr__, __dir__ = exports(
    __name__,
    {
        "IngestReport": "sectio.ingest.loader",
        "detect_format": "sectio.ingest.readers",
        "load_records": "sectio.ingest.loader",
        "read_source": "sectio.ingest.readers",
    },
)

__all__ = ["IngestReport", "detect_format", "load_records", "read_source"]
