"""Shared by the builders of the new-corpus evaluation sets (quic_rfc, poetry_docs, vi_law,
requests_docs, owasp_cheatsheets, jest_docs, oss_licenses, eu_ai_act, fastapi_docs,
trpc_docs, git_docs, handbook_18f).

One question per row of ``labels.tsv`` (tab-separated, a header row, ours):

    kind    gold    text    source    source_ref    note

* ``kind``: ``named_number`` (names a section by its number: "section 4.2",
  "Điều 5"), ``named_title`` (names a section by its title), ``unnamed``
  (answerable, names no section), ``offtopic_neighbour`` (same domain, a
  neighbouring corpus answers it, this one does not) or ``offtopic_general``;
* ``gold``: ``doc_id#section_key`` pairs joined by ``;`` (answerable kinds
  only; empty for off-topic);
* ``source``: ``ours`` (we wrote the question) or the key of a third-party
  source; ``source_ref``: where the verbatim text comes from.

:func:`write_questions` gives each question its ``_id`` (``<prefix>-`` + the
first 10 hex digits of ``sha1(text)``) and its split: stratified by ``kind``,
the ids of each kind sorted by ``sha256(_id)``, the first ``round(0.6 n)`` in
``dev``, the rest in ``holdout`` (never tuned on). Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import json
import subprocess
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Where builders put what they build from third-party sources (ignored by git: ``.sectio-*``).
BUILT = Path(__file__).resolve().parents[2] / ".sectio-bench" / "corpora"
#: Where the workplace's ``fetch`` tool puts repository snapshots (``owner+name/repo``).
MIRRORS = Path("/work/.mirror")

#: The new-corpus sets, in report order (``benchmarks/new_corpora.py``, ``tests/test_evalsets.py``).
SETS = (
    "quic_rfc",
    "oss_licenses",
    "poetry_docs",
    "vi_law",
    "requests_docs",
    "owasp_cheatsheets",
    "jest_docs",
    "eu_ai_act",
    "fastapi_docs",
    "trpc_docs",
    "git_docs",
    "handbook_18f",
)
ANSWERABLE = ("named_number", "named_title", "unnamed")
OFFTOPIC = ("offtopic_neighbour", "offtopic_general")


def read_labels(path: Path) -> list[dict[str, str]]:
    """The rows of a ``labels.tsv`` (see the module doc), blank lines and ``#`` lines skipped."""
    lines = [
        line
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    return [dict(row) for row in csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)]


def mirror_of(repo: str, given: Path | None = None) -> Path:
    """The git dir of ``repo`` (``owner/name``): ``given``, else the workplace mirror.

    Raises:
        SystemExit: no such git dir (fetch the repository first, or pass ``--mirror``).
    """
    path = given or MIRRORS / repo.replace("/", "+") / "repo"
    if not (path / "HEAD").exists():
        raise SystemExit(f"{path}: no git mirror of {repo}; fetch github:{repo} or pass --mirror")
    return path


def git(mirror: Path, *args: str) -> bytes:
    """``git --git-dir MIRROR ARGS``'s output."""
    return subprocess.run(
        ["git", "--git-dir", str(mirror), *args], check=True, capture_output=True
    ).stdout


def write_docs(
    mirror: Path,
    commit: str,
    dest: Path,
    suffix: str | tuple[str, ...],
    *,
    recursive: bool = False,
    skip: tuple[str, ...] = (),
    source: str = "docs/",
) -> Path:
    """The ``suffix`` files (one ending, or any of several) of ``source`` at ``commit`` (and
    its subfolders with ``recursive``, but not those under ``skip``), unchanged, under
    ``dest/docs/``
    (``docs/en/docs/tutorial/body.md`` of ``source="docs/en/docs/"`` ->
    ``dest/docs/tutorial/body.md``)."""
    names = git(mirror, "ls-tree", *(["-r"] if recursive else []), "--name-only", commit, source)
    for name in sorted(n for n in names.decode().split() if n.endswith(suffix)):
        if name.startswith(skip):
            continue
        path = dest / "docs" / name.removeprefix(source)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(git(mirror, "show", f"{commit}:{name}"))
    return dest


def ensure_docs_tree(
    folder: Path, repo: str, write: Callable[[Path, Path], Path],
    keys: Callable[[Path], set[str]], mirror: Path | None = None, root: str = "docs",
) -> Path:  # fmt: skip
    """``folder``'s set's built tree (``write(mirror, tree)`` when its ``root`` folder is
    missing), its gold checked against the section keys sectio's reader gives it today
    (``keys``).

    Raises:
        SystemExit: no mirror, or a gold pair not in the tree.
    """
    tree = BUILT / folder.name / "tree"
    if not (tree / root).exists():
        write(mirror_of(repo, mirror), tree)
    check_gold(folder, keys(tree))
    return tree


def write_records(folder: Path, records: list[dict[str, Any]]) -> tuple[Path, set[str]]:
    """``records`` as ``folder``'s set's built chunk corpus (``corpus.jsonl.gz`` under
    :data:`BUILT`); its path and ``doc_id#section_key`` ids."""
    out = BUILT / folder.name / "corpus.jsonl.gz"
    out.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl_gz(out, records)
    return out, {f"{r['doc_id']}#{r['section_key']}" for r in records}


def ensure_records(folder: Path, write: Callable[[], tuple[Path, set[str]]]) -> Path:
    """``folder``'s set's built chunk corpus (``write()`` when it is missing), its gold
    checked, as :func:`ensure_docs_tree` does for a tree.

    Raises:
        SystemExit: a gold pair not in the corpus (or ``write``'s: no mirror).
    """
    out = BUILT / folder.name / "corpus.jsonl.gz"
    keys = write()[1] if not out.exists() else corpus_keys(out)
    check_gold(folder, keys)
    return out


def tree_section_keys(tree: Path) -> set[str]:
    """``doc_id#section_key`` of every page chunk (D0) of a docs tree, as ``sectio ingest
    --format markdown`` reads it (``read_source``, no embedder: the project's interpreter)."""
    from sectio.ingest.readers import read_source

    return {
        f"{r.doc_id}#{r.section_key}"
        for r in read_source(tree, "markdown").records
        if r.model_dump().get("layer", "D0") == "D0"
    }


def build_docs_set(folder: Path, repo: str, write: Callable[[Path, Path], Path]) -> None:
    """A docs-tree builder's command line: write ``folder``'s tree from the mirror of
    ``repo`` (``--mirror GIT_DIR``, else the workplace mirror) with ``write``, then print
    its section keys (``--keys``) or write the question files from ``labels.tsv``."""
    ap = argparse.ArgumentParser(description=f"build {folder.name} from {repo}")
    ap.add_argument("--mirror", type=Path, default=None, help=f"git dir of {repo}")
    ap.add_argument("--keys", action="store_true", help="print the tree's doc#section keys")
    args = ap.parse_args()
    tree = write(mirror_of(repo, args.mirror), BUILT / folder.name / "tree")
    keys = tree_section_keys(tree)
    if args.keys:
        print("\n".join(sorted(keys)))
        return
    n = write_questions(folder, keys)
    print(f"{tree}: {len(keys)} sections; {n} questions")


@dataclass(frozen=True)
class DocsTree:
    """A docs-tree set's source: the pages of ``source`` at ``commit`` of ``repo`` ending in
    ``suffix``, written under ``tree/docs/`` (a builder names one and exports its methods,
    ``ensure_tree`` for ``benchmarks/new_corpora.py``)."""

    folder: Path
    repo: str
    commit: str
    suffix: str | tuple[str, ...]
    source: str = "docs/"
    recursive: bool = True
    skip: tuple[str, ...] = ()

    def write_tree(self, mirror: Path, dest: Path) -> Path:
        """Every page, unchanged, under ``dest/docs/`` (:func:`write_docs`)."""
        return write_docs(
            mirror,
            self.commit,
            dest,
            self.suffix,
            recursive=self.recursive,
            skip=self.skip,
            source=self.source,
        )

    def ensure_tree(self, mirror: Path | None = None) -> Path:
        """The built tree, its gold checked (:func:`ensure_docs_tree`)."""
        return ensure_docs_tree(self.folder, self.repo, self.write_tree, tree_section_keys, mirror)

    def main(self) -> None:
        """The builder's command line (:func:`build_docs_set`)."""
        build_docs_set(self.folder, self.repo, self.write_tree)


def check_gold(folder: Path, keys: set[str]) -> None:
    """Every gold pair of ``folder/questions.jsonl`` is in ``keys``.

    Raises:
        SystemExit: naming the first missing pairs (the corpus changed: rebuild the labels).
    """
    lines = (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    missing = [
        (q["_id"], g)
        for q in map(json.loads, filter(str.strip, lines))
        for g in q["metadata"]["gold"]
        if g not in keys
    ]
    if missing:
        raise SystemExit(f"{folder.name}: gold not in the corpus: {missing[:5]}")


def split_of(ids_by_kind: dict[str, list[str]]) -> dict[str, str]:
    """``dev`` / ``holdout`` per id: per kind, sorted by sha256, the first 60% dev."""
    out = {}
    for ids in ids_by_kind.values():
        ranked = sorted(ids, key=lambda i: hashlib.sha256(i.encode()).hexdigest())
        cut = round(0.6 * len(ranked))
        for n, qid in enumerate(ranked):
            out[qid] = "dev" if n < cut else "holdout"
    return out


def write_questions(
    folder: Path, keys: set[str], rows: list[dict[str, Any]] | None = None, prefix: str = ""
) -> int:
    """Write ``questions.jsonl`` and ``qrels/{dev,holdout,all}.tsv`` in ``folder``.

    ``rows`` default to ``folder/labels.tsv``; every gold pair must be in ``keys``
    (the corpus's ``doc_id#section_key`` set). Returns the number of questions.

    Raises:
        SystemExit: an unknown kind, a gold pair not in the corpus, an answerable
            question without gold or an off-topic one with it, a duplicate text.
    """
    rows = rows if rows is not None else read_labels(folder / "labels.tsv")
    prefix = prefix or folder.name
    seen: dict[str, str] = {}
    by_kind: dict[str, list[str]] = defaultdict(list)
    out = []
    for row in rows:
        kind, text = row["kind"], row["text"].strip()
        gold = [g for g in (row.get("gold") or "").split(";") if g]
        if kind not in ANSWERABLE + OFFTOPIC:
            raise SystemExit(f"unknown kind {kind!r}: {text}")
        if (kind in ANSWERABLE) != bool(gold):
            raise SystemExit(f"gold/kind mismatch ({kind}, {gold}): {text}")
        missing = [g for g in gold if g not in keys]
        if missing:
            raise SystemExit(f"gold not in corpus {missing}: {text}")
        qid = f"{prefix}-{hashlib.sha1(text.encode()).hexdigest()[:10]}"
        if qid in seen:
            raise SystemExit(f"duplicate question: {text}")
        seen[qid] = text
        by_kind[kind].append(qid)
        meta = {
            "expect": "answer" if kind in ANSWERABLE else "abstain",
            "kind": kind,
            "named": kind in ("named_number", "named_title"),
            "gold": gold,
            "source": row.get("source") or "ours",
        }
        for extra in ("source_ref", "licence", "note"):
            if row.get(extra):
                meta[extra] = row[extra]
        out.append({"_id": qid, "text": text, "metadata": meta})
    split = split_of(by_kind)
    (folder / "qrels").mkdir(exist_ok=True)
    qrels: dict[str, list[str]] = {"dev": [], "holdout": [], "all": []}
    with (folder / "questions.jsonl").open("w", encoding="utf-8") as fh:
        for q in out:
            q["metadata"]["split"] = split[q["_id"]]
            fh.write(json.dumps(q, ensure_ascii=False) + "\n")
            for g in q["metadata"]["gold"]:
                line = f"{q['_id']}\t{g}\t1"
                qrels[split[q["_id"]]].append(line)
                qrels["all"].append(line)
    for name, lines in qrels.items():
        body = "\n".join(["query-id\tcorpus-id\tscore", *lines]) + "\n"
        (folder / "qrels" / f"{name}.tsv").write_text(body, encoding="utf-8")
    return len(out)


def write_jsonl_gz(path: Path, records: list[dict[str, Any]]) -> None:
    """``records`` as gzipped JSON Lines, byte-identical on every rebuild (no mtime stored)."""
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    with (
        path.open("wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as gz,
    ):
        gz.write(body.encode("utf-8"))


def corpus_keys(path: Path) -> set[str]:
    """The ``doc_id#section_key`` ids of a gzipped chunk JSONL file."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return {f"{r['doc_id']}#{r['section_key']}" for r in map(json.loads, fh)}
