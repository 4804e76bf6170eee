"""Jupyter notebooks in a docs tree are pages: Markdown cells as Markdown (MyST read), code
cells as code, outputs left out; parsed for real, through detection to chunk records."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from sectio.contract.bounds import InputLimits
from sectio.errors import ContractError
from sectio.ingest.detect import detect_source
from sectio.ingest.readers import read_source


def _notebook(cells: list[dict[str, object]], language: str = "python") -> str:
    meta = {"kernelspec": {"name": "k", "language": language, "display_name": "K"}}
    return json.dumps({"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5})


def _md(*lines: str) -> dict[str, object]:
    return {"cell_type": "markdown", "metadata": {}, "source": [f"{x}\n" for x in lines]}


def _code(source: str, outputs: list[dict[str, object]] | None = None) -> dict[str, object]:
    return {"cell_type": "code", "metadata": {}, "source": source, "outputs": outputs or []}


PNG = base64.b64encode(b"\x89PNG" + b"\x00" * 3000).decode()
JOINS = [
    _md("# Spatial joins", "", "A spatial join attaches the attributes of one layer to another."),
    _md("## Joining points to polygons", "", "```{note}", "Both layers need one CRS.", "```"),
    _code(
        "joined = gpd.sjoin(points, polys, predicate='within')",
        [
            {"output_type": "stream", "name": "stdout", "text": ["Reprojecting 4 rows\n"]},
            {"output_type": "display_data", "data": {"image/png": PNG}, "metadata": {}},
        ],
    ),
    _code("   \n"),
    {"cell_type": "raw", "metadata": {}, "source": ".. autosummary:: nothing"},
]


def test_a_notebook_is_a_page_of_its_cells(tmp_path: Path) -> None:
    (tmp_path / "joins.ipynb").write_text(_notebook(JOINS), encoding="utf-8")
    (tmp_path / "index.md").write_text("# Guide\n\nSee the joins notebook.\n")
    found = detect_source(tmp_path)
    assert "1 Markdown file, 1 Jupyter notebook" in found.reason
    d0 = [r for r in read_source(tmp_path, "markdown").records if r.layer == "D0"]
    nb = [r for r in d0 if r.doc_id == "joins.ipynb"]
    assert nb[0].doc_title == "Spatial joins"
    by_section = {(r.section_title, r.block_type): r for r in nb}
    code = by_section[("Joining points to polygons", "code")]
    assert code.text == "```python\njoined = gpd.sjoin(points, polys, predicate='within')\n```"
    note = by_section[("Joining points to polygons", "prose")]
    assert note.text == "> **Note**\n> Both layers need one CRS."  # MyST in a cell, read
    text = "\n".join(r.text for r in nb)
    for left_out in ("Reprojecting", "image/png", "iVBOR", "autosummary"):
        assert left_out not in text, left_out
    assert len(nb) == 3  # the intro, the note, the code: no empty cell, no raw cell
    ref = code.source_refs[0]
    assert "line" not in ref.model_dump(exclude_none=True)
    assert ref.url == "joins.ipynb#joining-points-to-polygons"


def test_a_large_notebook_of_little_text_is_read_and_a_broken_one_listed(tmp_path: Path) -> None:
    """Images in its outputs make a notebook large: the page it renders is held to the
    text limit, not the file. A file that is no notebook is refused by name, the rest read."""
    big = [
        *JOINS,
        _code("plot()", [{"output_type": "display_data", "data": {"image/png": PNG * 40}}]),
    ]
    (tmp_path / "plots.ipynb").write_text(_notebook(big), encoding="utf-8")
    (tmp_path / "broken.ipynb").write_text('{"cells": [', encoding="utf-8")
    (tmp_path / "index.md").write_text("# Guide\n\nHello.\n")
    limits = InputLimits(max_markdown_bytes=100_000)
    assert (tmp_path / "plots.ipynb").stat().st_size > limits.max_markdown_bytes
    read = read_source(tmp_path, "markdown", limits=limits)
    docs = {r.doc_id for r in read.records}
    assert docs == {"index.md", "plots.ipynb"}
    assert [(path, why.split(":")[0]) for path, why in read.refused] == [
        ("broken.ipynb", "not a notebook")
    ]


def test_a_notebook_given_alone_is_a_document_not_json_records(tmp_path: Path) -> None:
    """A notebook is JSON: named ``.ipynb`` on its own, it is read as a notebook, not
    sniffed as records; one that holds no cells is refused in one line saying so."""
    nb = tmp_path / "joins.ipynb"
    nb.write_text(_notebook(JOINS), encoding="utf-8")
    found = detect_source(nb)
    assert (found.format, found.reason) == (
        "markdown",
        "markdown: joins.ipynb is a Jupyter notebook",
    )
    assert {r.doc_id for r in read_source(nb).records} == {"joins.ipynb"}
    records = tmp_path / "records.ipynb"
    records.write_text('[{"id": 1, "text": "x"}]', encoding="utf-8")
    with pytest.raises(ContractError, match=r"records.ipynb: not a notebook: no list of cells"):
        read_source(records)
