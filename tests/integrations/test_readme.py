"""Every Python block of the README's "Integrations" section runs, in order, and prints
what it says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from opentelemetry import trace
from opentelemetry.util._once import Once

from tests.integrations.conftest import Remote

README = Path(__file__).resolve().parents[2] / "README.md"


def integration_blocks() -> list[tuple[str, str]]:
    """``(subsection title, code)`` of each ```python block under ``## Integrations``."""
    text = README.read_text(encoding="utf-8").split("\n## Integrations\n", 1)[1]
    text = text.split("\n## ", 1)[0]
    blocks: list[tuple[str, str]] = []
    for part in re.split(r"\n### ", text)[1:]:
        title = part.splitlines()[0]
        blocks += [(title, code) for code in re.findall(r"```python\n(.*?)```", part, re.S)]
    return blocks


#: What each block's output must show (its first words: the title of its subsection).
EXPECTED = {
    "LlamaIndex": "aspirin contraindications 0 ANSWERABLE\nABSTAIN no_evidence",
    "Haystack": "ANSWERABLE ['contraindications']",
    "LangChain": "[('aspirin', ",
    "MCP server": "ANSWERABLE ['acme:aspirin#contraindications#0']",
    "Python client": "ticket-42\nrefused: ",
    "OpenTelemetry": "'sectio.resolve', 'sectio.stage.answerability', 'sectio.stage.decide'",
}


def test_every_integration_has_a_block_that_runs(
    remote: Remote, label_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = integration_blocks()
    assert {title.split(" (")[0] for title, _ in blocks} == set(EXPECTED)
    (tmp_path / ".sectio").symlink_to(label_home)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    monkeypatch.setenv("SECTIO_URL", remote.url)
    monkeypatch.setenv("SECTIO_API_KEY", "key-acme")
    monkeypatch.delenv("SECTIO_HOME", raising=False)
    try:
        for title, code in blocks:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"README: {title}", "exec"), {"__name__": "__readme__"})
            expected = EXPECTED[title.split(" (")[0]]
            assert expected in out.getvalue(), f"{title}: {out.getvalue()!r}"
    finally:  # the OpenTelemetry block installs a global provider
        trace._TRACER_PROVIDER_SET_ONCE = Once()  # type: ignore[attr-defined]
        trace._TRACER_PROVIDER = None  # type: ignore[attr-defined]
