"""MyST pages (Jupyter Book, Sphinx with myst-parser) are read as the Markdown they mean, and
an admonition is a chunk of its own; parsed for real, through the Markdown path to chunk
records."""

from __future__ import annotations

from pathlib import Path

from sectio.ingest.documents.myst import has_myst, read_myst
from sectio.ingest.readers import read_source

MYST = """\
---
title: Testing
---

(testing)=
# Testing

We run the suite with pytest on every pull request, on three platforms.

```{note}
:class: dropdown
We do not use `pytest-cov`: it misses the code {func}`make_napari_viewer` runs.
```

The fixtures live in {class}`~napari.conftest` and in {ref}`the plugin guide <plugin-test>`.

````{admonition} Got a notebook?
---
class: tip
---
Convert it with jupytext:

```bash
jupytext --to myst nb.ipynb
```
````

```{code-cell} ipython3
---
tags: [remove-input]
---
import napari
```

```{toctree}
:maxdepth: 1
installation
quick_start
```

% a comment no reader sees
:::{seealso}
The blog post on segfaults in Qt tests.
:::
"""


def _chunks(root: Path) -> list[dict[str, object]]:
    records = read_source(root, "markdown").records
    return [r.model_dump() for r in records if r.model_dump().get("layer", "D0") == "D0"]


def test_a_myst_page_is_read_as_the_markdown_it_means(tmp_path: Path) -> None:
    """Directives of prose are notes, of code are code in their language, a toctree is
    nothing; roles are their text; targets and comments are gone; no MyST syntax is left."""
    (tmp_path / "testing.md").write_text(MYST, encoding="utf-8")
    chunks = _chunks(tmp_path)
    texts = "\n".join(str(c["text"]) for c in chunks)
    for syntax in ("```{", "{func}", "{class}", "{ref}", ":class:", "(testing)=", "tags:", ":::"):
        assert syntax not in texts, syntax
    assert "installation" not in texts and "a comment no reader sees" not in texts
    assert "`napari.conftest`" in texts and "the plugin guide" in texts
    code = {str(c["text"]).split("\n")[0]: c for c in chunks if c["block_type"] == "code"}
    assert set(code) == {"```bash", "```python"}  # the cell's kernel read as its language
    assert code["```python"]["text"] == "```python\nimport napari\n```"  # options left out


def test_an_admonition_is_a_chunk_of_its_own(tmp_path: Path) -> None:
    """Each note is one chunk holding its label and text, never packed with the paragraphs
    around it, and its lines are the directive's own in the file."""
    (tmp_path / "testing.md").write_text(MYST, encoding="utf-8")
    chunks = _chunks(tmp_path)
    note = [c for c in chunks if "pytest-cov" in str(c["text"])]
    assert len(note) == 1
    text = str(note[0]["text"])
    assert text.startswith("> **Note**") and "every pull request" not in text
    assert "`make_napari_viewer`" in text
    ref = note[0]["source_refs"][0]  # type: ignore[index]
    lines = MYST.split("\n")
    assert "```{note}" in lines[ref["line"] - 1] and "pytest-cov" in lines[ref["end_line"] - 1]
    seealso = next(c for c in chunks if "segfaults" in str(c["text"]))
    assert str(seealso["text"]).startswith("> **See also**")
    tip = next(c for c in chunks if "Convert it with jupytext" in str(c["text"]))
    assert tip["text"] == "> **Got a notebook?**\n>\n> Convert it with jupytext:"  # no options
    plain = "\n".join(str(c["text"]) for c in chunks if c["block_type"] == "prose")
    assert "every pull request" in plain and "> **" not in plain.split("every pull")[0][-5:]


def test_a_mkdocs_admonition_is_a_chunk_of_its_own_too(tmp_path: Path) -> None:
    page = "# Sync\n\nSync applies it.\n\n!!! note\n    Pruning is off by default.\n\nMore text.\n"
    (tmp_path / "sync.md").write_text(page, encoding="utf-8")
    texts = [str(c["text"]) for c in _chunks(tmp_path)]
    assert texts == ["Sync applies it.", "> **Note**\n> Pruning is off by default.", "More text."]


def test_r_markdown_and_quarto_cells_are_code_not_myst() -> None:
    page = "# Fit\n\n```{r}\nfit <- lm(y ~ x)\n```\n\n```{python}\nimport x\n```\n"
    assert not has_myst(page)
    myst = "(fit)=\n" + page
    assert has_myst(myst)
    out = read_myst(myst)
    assert "```r\nfit <- lm(y ~ x)\n```" in out and "```python\nimport x\n```" in out
    assert out.count("\n") == myst.count("\n")  # line for line


def test_a_role_shown_in_code_is_left_as_written() -> None:
    out = read_myst("Write `{func}` roles like {func}`napari.run`; {octicon}`book` icons go.")
    assert out == "Write `{func}` roles like `napari.run`;  icons go."


def test_a_github_alert_is_a_note_led_by_its_kind(tmp_path: Path) -> None:
    page = "# Delete\n\nDeleting cascades.\n\n> [!WARNING]\n> It prunes.\n> Be careful.\n\nAfter.\n"
    (tmp_path / "delete.md").write_text(page, encoding="utf-8")
    chunks = _chunks(tmp_path)
    assert [str(c["text"]) for c in chunks] == [
        "Deleting cascades.",
        "> **Warning**\n> It prunes.\n> Be careful.",
        "After.",
    ]
    ref = chunks[1]["source_refs"][0]  # type: ignore[index]
    assert (ref["line"], ref["end_line"]) == (5, 7)
