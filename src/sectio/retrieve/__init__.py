"""Retrieval routes over an open collection."""
