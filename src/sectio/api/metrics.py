"""Prometheus metrics of one app, in a registry of its own (no process globals).

Exported: request latency histograms per endpoint and retrieval route, decisions
by type, rerank fail-opens, tenant-check drops, trace-write failures, query
embeddings computed vs cached and collection sizes (the last four read live
from the library objects at scrape).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class _Live(Collector):
    """Values owned by the library (:meth:`sectio.Sectio.stats`, the collections' sizes at
    the last readiness check), read at scrape."""

    def __init__(self, read: Callable[[], dict[str, Any]]) -> None:
        self._read = read

    def collect(self) -> Iterable[Any]:
        values = self._read()
        drops = CounterMetricFamily(
            "sectio_tenant_check_drops", "Points of another tenant dropped by the second check."
        )
        drops.add_metric([], float(values.get("tenant_drops", 0)))
        yield drops
        failures = CounterMetricFamily(
            "sectio_trace_write_failures", "Trace writes that failed (retrieval answered anyway)."
        )
        failures.add_metric([], float(values.get("trace_write_failures", 0)))
        yield failures
        queries = CounterMetricFamily(
            "sectio_query_embeddings",
            "Query vectors by source: computed by the model or served from the query LRU.",
            labels=["source"],
        )
        for source, n in sorted(values.get("query_embeddings", {}).items()):
            queries.add_metric([source], float(n))
        yield queries
        sizes = GaugeMetricFamily(
            "sectio_collection_points", "Points per collection.", labels=["collection"]
        )
        for name, count in sorted(values.get("collections", {}).items()):
            sizes.add_metric([name], float(count))
        yield sizes


class Metrics:
    """The app's metrics."""

    def __init__(self, read_live: Callable[[], dict[str, Any]]) -> None:
        self.registry = CollectorRegistry()
        self.latency = Histogram(
            "sectio_request_duration_seconds",
            "Request latency by endpoint and retrieval route.",
            ["endpoint", "route"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.requests = Counter(
            "sectio_requests",
            "Requests by endpoint and status.",
            ["endpoint", "status"],
            registry=self.registry,
        )
        self.decisions = Counter(
            "sectio_decisions", "Retrieval decisions by type.", ["decision"], registry=self.registry
        )
        self.rerank_fail_open = Counter(
            "sectio_rerank_fail_open",
            "Reranks that failed open (original order kept).",
            registry=self.registry,
        )
        self.registry.register(_Live(read_live))

    def observe(
        self, endpoint: str, route: str, started: float, decision: str | None = None
    ) -> None:
        """Count a request's latency since ``started`` (``perf_counter``) and its decision."""
        self.latency.labels(endpoint, route).observe(time.perf_counter() - started)
        if decision:
            self.decisions.labels(decision).inc()
