"""Reusable contract tests: every index backend (edge, qdrant server/local mode) passes them.

A test module subclasses :class:`tests.contract.index_suite.IndexContract` and
provides one fixture, ``backend``, returning a fresh, empty
:class:`sectio.index.port.IndexBackend`.
"""
