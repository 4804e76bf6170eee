"""AsciiDoc ``include::`` directives followed inside the tree, as Asciidoctor follows them.

A manual keeps shared text in files it includes: Git's ``git-diff.adoc`` reads its
options from ``include::diff-options.adoc[]``, ``git-merge.adoc`` and
``git-pull.adoc`` theirs from ``merge-options.adoc``. Dropping the directive leaves
an OPTIONS heading with no options under it. :func:`splice_includes` puts each
included file's lines where its directive stands, relative to the including file,
its own includes followed too (:data:`MAX_DEPTH` deep, a file never inside itself),
a ``leveloffset=+N`` moving its ``=`` headings down ``N`` levels.

What is not followed stays a directive, which the AsciiDoc reader drops: a target
naming an attribute (``{build_dir}/cmds.adoc``: the value is the build's), a URL, a
file that does not exist, one outside the tree (a link out of it), one over the size
limit or not UTF-8 text.

Each line of the result knows the line of the including file it stands for: its
own, or its directive's for an included line (:class:`Spliced`), so a chunk's
``line`` still points into the file the user gave. The result is bounded as one file
is (``max_bytes``, ``SECTIO_MAX_MARKDOWN_BYTES``): a page whose includes make more is
refused with a one-line error (a folder lists it and reads on), never cut.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "opts.adoc").write_text("--all::\\n\\tEverything.\\n")
    >>> _ = (d / "zed.adoc").write_text("== OPTIONS\\ninclude::opts.adoc[]\\n\\n== SEE ALSO\\n")
    >>> s = splice_includes((d / "zed.adoc").read_text(), d / "zed.adoc", d, 10_000)
    >>> s.text.splitlines()[1:3], s.lines[1:6]
    (['--all::', '\\tEverything.'], [1, 2, 2, 2, 3])
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sectio.errors import ContractError, SectioError

#: ``include::target[attributes]`` on a line of its own.
_INCLUDE = re.compile(r"^include::([^\[\s]+)\[([^\]]*)\]\s*$")
_LEVEL_OFFSET = re.compile(r"\bleveloffset=([+-]?\d+)")
_HEADING = re.compile(r"^(=+)(\s+\S.*)$")
#: How many includes deep are followed (an include inside an include inside ...).
MAX_DEPTH = 4


@dataclass(frozen=True)
class Spliced:
    """The text with its includes in place; ``lines[n]`` is the line of the including
    file that line ``n`` of ``text`` stands for (1-based, ``lines[0]`` unused);
    ``included``: how many directives were followed (0: ``text`` is the file's own)."""

    text: str
    lines: list[int]
    included: int


def splice_includes(text: str, path: Path, tree: Path, max_bytes: int) -> Spliced:
    """``text`` (the AsciiDoc file ``path`` of ``tree``) with its includes in place (see
    the module doc); an included file is read as :func:`~sectio.ingest.sources.read_text`
    reads one of the tree, under ``max_bytes``.

    Raises:
        ContractError: the page and the files it includes hold more than ``max_bytes``.
    """
    out: list[str] = []
    lines: list[int] = [0]
    count = 0
    budget = _Budget(path, max_bytes)
    for n, line in enumerate(text.split("\n"), start=1):
        body = _followed(line, path, tree, budget, (path.resolve(),), 1)
        if body is None:
            body = [budget.take(line)]
        else:
            count += 1
        out.extend(body)
        lines.extend([n] * len(body))
    return Spliced("\n".join(out), lines, count)


class _Budget:
    """The bytes a page and its includes may still hold (raises past the limit)."""

    def __init__(self, path: Path, max_bytes: int) -> None:
        self.path, self.max_bytes, self.left = path, max_bytes, max_bytes

    def take(self, line: str) -> str:
        self.left -= len(line.encode("utf-8")) + 1
        if self.left < 0:
            raise ContractError(
                f"{self.path}: with the files it includes, more than the limit of "
                f"{self.max_bytes:,} bytes (SECTIO_MAX_MARKDOWN_BYTES)"
            )
        return line


def _followed(
    line: str, into: Path, tree: Path, budget: _Budget, chain: tuple[Path, ...], depth: int
) -> list[str] | None:
    """The lines ``line`` includes (its target's, includes followed), or None: ``line``
    is no include, or one not followed (see the module doc)."""
    m = _INCLUDE.match(line)
    if m is None or depth > MAX_DEPTH or "{" in m.group(1) or "://" in m.group(1):
        return None
    target = into.parent / m.group(1)
    resolved = target.resolve()
    if resolved in chain or not target.is_file():
        return None
    from sectio.ingest.sources import read_text

    try:
        body = read_text(target, tree, budget.max_bytes)
    except SectioError:  # out of the tree, too large, not UTF-8 text
        return None
    offset = _LEVEL_OFFSET.search(m.group(2))
    shift = int(offset.group(1)) if offset else 0
    out: list[str] = []
    for inner in body.split("\n"):
        nested = _followed(inner, target, tree, budget, (*chain, resolved), depth + 1)
        out.extend(nested if nested is not None else [budget.take(_shifted(inner, shift))])
    return out


def _shifted(line: str, shift: int) -> str:
    """``line`` with its ``=`` heading marker moved ``shift`` levels (1 to 6 kept)."""
    m = _HEADING.match(line) if shift else None
    if m is None:
        return line
    level = min(max(len(m.group(1)) + shift, 1), 6)
    return "=" * level + m.group(2)


__all__ = ["MAX_DEPTH", "Spliced", "splice_includes"]
