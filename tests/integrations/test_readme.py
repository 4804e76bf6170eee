"""Every Python block of the integration guides (docs/guides/integrations/) runs, in
order, and prints what it says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from opentelemetry import trace
from opentelemetry.util._once import Once

from tests.integrations.conftest import Remote

GUIDES = Path(__file__).resolve().parents[2] / "docs" / "guides" / "integrations"
#: The pages in the order their blocks run (the site's order).
PAGES = ("llamaindex", "haystack", "langchain", "mcp", "client", "otel")


def integration_blocks() -> list[tuple[str, str]]:
    """``(page title, code)`` of each ```python block of the integration pages, in order."""
    assert {p.stem for p in GUIDES.glob("*.md")} == {"index", *PAGES}
    blocks: list[tuple[str, str]] = []
    for page in PAGES:
        text = (GUIDES / f"{page}.md").read_text(encoding="utf-8")
        title = text.splitlines()[0].removeprefix("# ")
        blocks += [(title, code) for code in re.findall(r"```python\n(.*?)```", text, re.S)]
    return blocks


#: What each block's output must show (its first words: the title of its page).
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
                exec(compile(code, f"docs: {title}", "exec"), {"__name__": "__readme__"})
            expected = EXPECTED[title.split(" (")[0]]
            assert expected in out.getvalue(), f"{title}: {out.getvalue()!r}"
    finally:  # the OpenTelemetry block installs a global provider
        trace._TRACER_PROVIDER_SET_ONCE = Once()  # type: ignore[attr-defined]
        trace._TRACER_PROVIDER = None  # type: ignore[attr-defined]
