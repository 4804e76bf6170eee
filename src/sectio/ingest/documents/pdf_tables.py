"""PDF tables: pdfplumber's ruled-line finder, widened and checked.

Each table found is read whole or said to be unsure (:attr:`Found.why`), never
read in part without a word:

* **Column rules only** (the Federal Register's style: rules above and below
  the header, thin rules between the columns, none at the sides or between
  rows): pdfplumber finds only the inner columns. When a table is narrower
  than a rule along its top edge, it is read again inside that rule's span,
  the rule's ends standing for the outer sides and the breaks of the column
  rules for the rows; such a table is flagged (its rows come from the rules'
  breaks, not from ruled lines).
* **Merged cells** (a cell pdfplumber leaves empty for a span), **rows run
  together** (several cells of one row holding the same count of lines) and
  **columns without a rule** (a cell line with a gap wider than 1.5 times its
  text height between two words: two columns read as one) are flagged.
* A table of one row or one column (a framed paragraph) is not a table.

Leader dots (``Up to $3,790.........``) are cut from the cells' ends; cells whose
words come out run together (a PDF that sets its spaces as narrow gaps) are read
again with a narrower word gap.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

#: Horizontal rules (and two vertical ones) a page must draw before the finder runs
#: (it reads every character of the page again: the slowest step).
MIN_RULES = 3
#: A gap between two words of a cell line wider than this many times the words'
#: height is a column boundary the table does not rule.
COLUMN_GAP = 1.5
#: Letters of a word that is more likely words run together than one word.
RUN_TOGETHER = 16
_LEADER = re.compile(r"(\s*\.){2,}\s*$")

Rows = list[list[str | None]]


@dataclass
class Found:
    """A table of a page: its box (``x0, top, x1, bottom``), its rows, and why it
    cannot be trusted as read ('' when it can)."""

    bbox: tuple[float, float, float, float]
    rows: Rows
    why: str = ""
    #: The x of every cell side (column boundaries).
    columns: tuple[float, ...] = ()


def _columns(table: Any) -> tuple[float, ...]:
    return tuple(
        sorted({round(c[0], 1) for c in table.cells} | {round(c[2], 1) for c in table.cells})
    )


def rules(objs: Any) -> tuple[int, int]:
    """How many horizontal and vertical rules a layout draws (a box counts two of
    each; figures opened)."""
    from pdfminer.layout import LTCurve, LTFigure, LTRect

    h = v = 0
    for obj in objs:
        if isinstance(obj, LTFigure):
            dh, dv = rules(obj)
            h, v = h + dh, v + dv
        elif isinstance(obj, LTCurve):  # LTLine and LTRect are curves
            thin_h, thin_v = obj.height < 2, obj.width < 2
            boxed = isinstance(obj, LTRect) and not (thin_h or thin_v)
            h += 2 if boxed else int(thin_h or not thin_v)
            v += 2 if boxed else int(thin_v or not thin_h)
    return h, v


def is_table(rows: Rows) -> bool:
    """Two rows or more, and two columns or more."""
    return len(rows) >= 2 and max((len(r) for r in rows), default=0) >= 2


def unsure(rows: Rows) -> str:
    """Why rows read from a ruled grid cannot be trusted ('' when they can)."""
    if any(c is None for r in rows for c in r):
        return "merged cells"
    for r in rows:
        stacked = [c.count("\n") for c in r if c and c.count("\n") >= 2]
        if len(stacked) >= 2 and len(set(stacked)) == 1:
            return "rows run together"
    return ""


def _run_together(rows: Rows) -> bool:
    """Whether the cells' words look run together (a PDF that sets its spaces as narrow
    gaps: ``AIRFAREFORSENHAWLEY``): one word in 20 of sixteen letters or more."""
    words = [w for r in rows for c in r if c for w in c.split() if w.isalpha() or len(w) > 3]
    long = sum(1 for w in words if sum(ch.isalpha() for ch in w) >= RUN_TOGETHER)
    return bool(words) and long >= 0.05 * len(words)


def _extract(table: Any) -> Rows:
    """The table's rows; read again with a 1-point word gap when the default (3 points)
    runs its words together."""
    rows: Rows = table.extract()
    return table.extract(x_tolerance=1) if _run_together(rows) else rows


def _clean(rows: Rows) -> Rows:
    return [[_LEADER.sub("", c) if c else c for c in r] for r in rows]


def _wide_rule(page: Any, bbox: tuple[float, ...]) -> tuple[float, float] | None:
    """The ends of a horizontal rule along the table's top edge reaching well past
    its sides (both), or None."""
    x0, top, x1, _ = bbox
    for e in page.edges:
        along = e["orientation"] == "h" and abs(e["top"] - top) <= 2
        if along and e["x0"] < x0 - 5 and e["x1"] > x1 + 5:
            return float(e["x0"]), float(e["x1"])
    return None


def _column_rules_bottom(page: Any, bbox: tuple[float, ...]) -> float:
    """Where the chain of column rules that starts at the table's top ends."""
    x0, top, x1, bottom = bbox
    verticals = sorted(
        (e for e in page.edges if e["orientation"] == "v" and x0 - 1 <= e["x0"] <= x1 + 1),
        key=lambda e: e["top"],
    )
    for e in verticals:
        if top - 2 <= e["top"] <= bottom + 2:
            bottom = max(bottom, e["bottom"])
    return float(bottom)


def _widen(page: Any, table: Any) -> Found | None:
    """``table`` read again across the rule along its top (see the module docstring),
    or None when no such rule reaches past it."""
    ends = _wide_rule(page, table.bbox)
    if ends is None:
        return None
    top, bottom = table.bbox[1], _column_rules_bottom(page, table.bbox)
    region = page.crop((ends[0] - 1, top - 1, ends[1] + 1, min(bottom + 1, page.height)))
    verticals = [e for e in region.edges if e["orientation"] == "v"]
    ys = sorted(
        {round(e["top"], 1) for e in verticals} | {round(e["bottom"], 1) for e in verticals}
    )
    settings = {"explicit_vertical_lines": list(ends), "explicit_horizontal_lines": [top, *ys]}
    found = region.find_tables(settings)
    if not found:
        return None
    best = max(found, key=lambda t: (t.bbox[2] - t.bbox[0]) * (t.bbox[3] - t.bbox[1]))
    rows = [r for r in best.extract() if any((c or "").strip() for c in r)]
    why = "rows and outer sides not ruled (columns only)"
    return Found(best.bbox, rows, why, _columns(best))


def _hidden_columns(found: Found, words: list[dict[str, Any]]) -> bool:
    """Whether two cell lines or more have a column-wide gap between two words of
    one cell (no column boundary between them)."""
    x0, top, x1, bottom = found.bbox
    inside = [w for w in words if x0 <= w["x0"] and w["x1"] <= x1 and top <= w["top"] <= bottom]
    lines: dict[int, list[dict[str, Any]]] = {}
    for w in inside:
        lines.setdefault(round(w["top"]), []).append(w)
    gaps = 0
    for line in lines.values():
        line.sort(key=lambda w: w["x0"])
        for a, b in itertools.pairwise(line):
            height = max(a["bottom"] - a["top"], 1.0)
            between = b["x0"] - a["x1"]
            ruled = any(a["x1"] - 1 <= x <= b["x0"] + 1 for x in found.columns)
            if between > COLUMN_GAP * height and not ruled:
                gaps += 1
    return gaps >= 2


def find_tables(page: Any) -> list[Found]:
    """The tables of a pdfplumber ``page``, each whole or flagged (module docstring)."""
    h, v = rules(page.layout)
    if h < MIN_RULES or v < 2:  # no grid of rules, no ruled table: skip the finder
        return []
    out: list[Found] = []
    words = page.extract_words()
    for table in page.find_tables():
        found = _widen(page, table) or Found(table.bbox, _extract(table), "", _columns(table))
        if not is_table(found.rows):
            continue
        found.rows = _clean(found.rows)
        found.why = found.why or unsure(found.rows)
        if not found.why and _hidden_columns(found, words):
            found.why = "columns without a rule"
        out.append(found)
    return out


__all__ = ["Found", "find_tables", "is_table", "rules", "unsure"]
