"""TOML written by hand for the drafted profiles (``sectio profile draft``): values and the
``[lexical]`` table. Only writing: the drafts are read back by the profile loader."""

from __future__ import annotations

import json

from sectio.contract.profile import LexicalSettings


def toml_value(value: object) -> str:
    """A TOML value (strings as JSON-escaped basic strings, which TOML reads the same).

    Example:
        >>> toml_value(["a", True]), toml_value('say "hi"')
        ('["a", true]', '"say \\\\"hi\\\\""')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def lexical_lines(lexical: LexicalSettings | None) -> list[str]:
    """The ``[lexical]`` table's lines: the collection's BM25 settings, kept on re-ingest
    (None: the defaults)."""
    settings = (lexical or LexicalSettings()).model_dump()
    return [f"{k} = {toml_value(v)}" for k, v in settings.items()]
