"""Bad and hostile input (issue 17 item 6): every one is a one-line error naming file,
line and field, refused before anything is written, never an internal error.

Each case is loaded over a collection that already holds a corpus (``replace``),
and the old corpus must be intact afterwards: nothing lost.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from sectio import Sectio, Settings
from sectio.cli import main
from sectio.errors import ContractError, RecordError
from tests.helpers import chunk, write_jsonl

GOOD = {"chunk_id": "a#0", "doc_id": "a", "section_key": "s", "part_index": 0, "text": "hello"}


def _line(**update: object) -> str:
    return json.dumps({**GOOD, **update})


def _raw(text: str) -> bytes:
    return text.encode("utf-8")


def _nested(depth: int) -> str:
    return '{"chunk_id": "a#0", "doc_id": "a", "section_key": "s", "part_index": 0, ' + (
        '"text": "x", "metadata": {"v": ' + "[" * depth + "]" * depth + "}}"
    )


# (case id, file bytes, the line, the field, a phrase of the reason)
BAD_RECORDS: list[tuple[str, bytes, int, str, str]] = [
    (
        "int-past-64-bits",
        _raw(_line(part_index=10**30)),
        1,
        "part_index",
        "integer out of range",
    ),
    (
        "float-part-index",
        _raw(_line().replace('"part_index": 0', '"part_index": 1e30')),
        1,
        "part_index",
        "valid integer",
    ),
    (
        "negative-int-in-metadata",
        _raw(_line(metadata={"n": -(2**64)})),
        1,
        "metadata.n",
        "integer out of range",
    ),
    (
        "nan",
        _raw(_line().replace('"text": "hello"', '"text": "x", "metadata": {"v": NaN}')),
        1,
        "metadata.v",
        "not a finite number",
    ),
    (
        "infinity",
        _raw(_line().replace('"text": "hello"', '"text": "x", "score": -Infinity')),
        1,
        "score",
        "not a finite number",
    ),
    (
        "float-overflow",
        _raw(_line().replace('"text": "hello"', '"text": "x", "w": 1e400')),
        1,
        "w",
        "not a finite number",
    ),
    ("nul-escape", _raw(_line(text="a\x00b")), 1, "text", "NUL character"),
    ("nul-byte", _line().encode().replace(b"hello", b"he\x00llo"), 1, "<text>", "NUL byte"),
    ("lone-surrogate", _raw(_line().replace("hello", "he\\ud800llo")), 1, "text", "lone surrogate"),
    (
        "surrogate-key",
        _raw(_line().replace('"text"', '"\\udfff": 1, "text"')),
        1,
        "\udfff",
        "key contains a lone surrogate",
    ),
    (
        "invalid-utf8",
        _line().encode().replace(b"hello", b"he\xffllo"),
        1,
        "<text>",
        "not valid UTF-8 (byte 0xff at column",
    ),
    ("nested-40", _raw(_nested(40)), 1, "metadata.v.0.0", "nested deeper than 32 levels"),
    ("nested-5000", _raw(_nested(5000)), 1, "<json>", "nested too deep"),
    (
        "second-line",
        _raw(_line() + "\n" + _line(chunk_id="b", tags=["ok", "x\x00"])),
        2,
        "tags.1",
        "NUL character",
    ),
    ("bad-json", _raw(_line() + "\n" + '{"chunk_id": "b",'), 2, "<json>", "not valid JSON"),
]


@pytest.fixture
def loaded(tmp_path: Path) -> Settings:
    """A home whose ``default`` collection holds a two-chunk corpus."""
    settings = Settings(home=tmp_path / "home", embedder="fake")
    corpus = write_jsonl(
        tmp_path / "good.jsonl", [chunk("d", "s", 0, "first"), chunk("d", "s", 1, "second")]
    )
    with Sectio(settings) as s:
        s.ingest(corpus)
    return settings


def assert_intact(settings: Settings) -> None:
    with Sectio(settings) as s:
        [coll] = s.info()["collections"]
        assert coll["count"] == 2 and coll["manifest"]["chunk_count"] == 2
        texts = [h.text for h in s.search("first second", tenant="default").hits]
        assert sorted(texts) == ["first", "second"]


@pytest.mark.parametrize(
    ("data", "line", "field", "reason"),
    [pytest.param(*case[1:], id=case[0]) for case in BAD_RECORDS],
)
def test_bad_record_is_refused_naming_file_line_field(
    loaded: Settings, tmp_path: Path, data: bytes, line: int, field: str, reason: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(data)
    with Sectio(loaded) as s, pytest.raises(RecordError) as caught:
        s.ingest(path, replace=True)
    err = caught.value
    assert (err.source, err.line) == (str(path), line) and err.field.startswith(field), str(err)
    assert reason in err.message
    assert "\n" not in str(err)
    assert_intact(loaded)


def test_twenty_megabyte_text_is_refused_by_field(loaded: Settings, tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "big.jsonl", [GOOD, {**GOOD, "chunk_id": "b", "text": "w " * 10**7}]
    )
    with Sectio(loaded) as s, pytest.raises(RecordError) as caught:
        s.ingest(path, replace=True)
    assert (caught.value.line, caught.value.field) == (2, "text")
    assert "20,000,000 characters, over the limit of 1,000,000" in caught.value.message
    assert_intact(loaded)


def test_limits_are_settings(tmp_path: Path) -> None:
    settings = Settings(
        home=tmp_path / "home",
        embedder="fake",
        max_record_bytes=4096,
        max_nesting=3,
        max_text_chars=1000,
    )
    long_line = write_jsonl(tmp_path / "long.jsonl", [{**GOOD, "pad": "x" * 5000}])
    deep = write_jsonl(tmp_path / "deep.jsonl", [{**GOOD, "metadata": {"a": {"b": [1]}}}])
    wide = write_jsonl(tmp_path / "wide.jsonl", [{**GOOD, "doc_title": "t" * 1001}])
    ok = write_jsonl(tmp_path / "ok.jsonl", [{**GOOD, "metadata": {"a": [1]}, "text": "t" * 1000}])
    with Sectio(settings) as s:
        with pytest.raises(RecordError, match="line longer than 4,096 bytes"):
            s.ingest(long_line)
        with pytest.raises(RecordError, match=r"field metadata.a.b: nested deeper than 3"):
            s.ingest(deep)
        with pytest.raises(RecordError, match=r"field doc_title: 1,001 characters"):
            s.ingest(wide)
        assert s.ingest(ok).collection_count == 1
        assert s.collection_names() == ["default"]


def cli(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    """The CLI in-process: exit code, stdout, stderr."""
    monkeypatch.setenv("SECTIO_HOME", str(home))
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    capsys.readouterr()
    rc = main(list(args))
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize(
    "case",
    [
        c
        for c in BAD_RECORDS
        if c[0] in ("int-past-64-bits", "invalid-utf8", "lone-surrogate", "nested-5000", "nul-byte")
    ],
    ids=lambda c: c[0],
)
def test_cli_bad_record_one_line_not_internal(
    loaded: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    case: tuple[str, bytes, int, str, str],
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(case[1])
    rc, _, err = cli(loaded.home, monkeypatch, capsys, "ingest", str(path), "--replace")
    assert rc == 1, err
    [line] = err.strip().splitlines()
    assert line.startswith(f"error: {path}:{case[2]}: field ") and "internal" not in line
    assert_intact(loaded)


BAD_NAMES = ["", "a/b", "x" * 300, "a\nb", ".hidden", "a__b", "tschüss", " a", "a b", "-a"]


@pytest.mark.parametrize("name", BAD_NAMES, ids=range(len(BAD_NAMES)))
def test_bad_collection_names(
    loaded: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
) -> None:
    corpus = write_jsonl(tmp_path / "c.jsonl", [GOOD])
    rc, _, err = cli(loaded.home, monkeypatch, capsys, "ingest", str(corpus), "-c", name)
    assert rc == 2, err
    [line] = err.strip().splitlines()
    assert "use 1-64 letters, digits" in line and len(line) < 250
    rc, _, err = cli(loaded.home, monkeypatch, capsys, "search", "x", "-c", name)
    assert rc == 2 and len(err.strip().splitlines()) == 1
    with Sectio(loaded) as s:
        for call in (
            lambda: s.ingest(corpus, collection=name),
            lambda: s.search("x", collection=name, tenant="default"),
            lambda: s.info(name),
        ):
            with pytest.raises(ContractError, match="invalid collection name"):
                call()
        assert s.collection_names() == ["default"]


def test_good_collection_names(tmp_path: Path) -> None:
    corpus = write_jsonl(tmp_path / "c.jsonl", [GOOD])
    with Sectio(Settings(home=tmp_path / "home", embedder="fake")) as s:
        for name in ("a", "Drug-Labels_2024.v1", "x" * 64, "0"):
            s.ingest(corpus, collection=name)
        assert len(s.collection_names()) == 4


def _md_tree(root: Path) -> Path:
    (root / "guide").mkdir(parents=True)
    (root / "index.md").write_text("# Home\n\nWelcome to the docs.\n")
    (root / "guide" / "start.md").write_text("# Start\n\nInstall it first.\n")
    return root


MD_CASES: list[tuple[str, Callable[[Path], None], str]] = [
    (
        "binary",
        lambda d: (d / "logo.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
        "logo.md:1: field <text>: not valid UTF-8 (byte 0x89 at column 1)",
    ),
    (
        "nul",
        lambda d: (d / "a.md").write_bytes(b"# A\n\nnul \x00 here\n"),
        "a.md:3: field <text>: contains a NUL byte",
    ),
    (
        "invalid-utf8",
        lambda d: (d / "a.md").write_bytes(b"# A\n\ncaf\xe9\n"),
        "a.md:3: field <text>: not valid UTF-8 (byte 0xe9 at column 4)",
    ),
    (
        "link-out",
        lambda d: (d / "secret.md").symlink_to(d.parent / "outside.md"),
        "secret.md: a link to",
    ),
]


@pytest.mark.parametrize(("make", "needle"), [pytest.param(*c[1:], id=c[0]) for c in MD_CASES])
def test_markdown_tree_refuses_binary_and_out_of_tree_files(
    loaded: Settings, tmp_path: Path, make: Callable[[Path], None], needle: str
) -> None:
    (tmp_path / "outside.md").write_text("# Secret\n\nroot password\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.md").write_text("# Other\n\nnot in the tree\n")
    docs = _md_tree(tmp_path / "docs")
    make(docs)
    with Sectio(loaded) as s, pytest.raises(ContractError) as caught:
        s.ingest(docs, replace=True)
    assert needle in str(caught.value) and "\n" not in str(caught.value)
    assert_intact(loaded)


def test_markdown_links_inside_the_tree_and_size_limit(tmp_path: Path) -> None:
    docs = _md_tree(tmp_path / "docs")
    (docs / "alias.md").symlink_to(docs / "index.md")
    settings = Settings(home=tmp_path / "home", embedder="fake", max_markdown_bytes=4096)
    with Sectio(settings) as s:
        report = s.ingest(docs)
        assert report.format == "markdown" and report.collection_count > 0
        (docs / "huge.md").write_text("# Huge\n\n" + "word " * 2000)
        with pytest.raises(ContractError, match=r"huge.md: 10,008 bytes, over the limit of 4,096"):
            s.ingest(docs, collection="other")


def test_markdown_folder_links_out_of_the_tree_are_not_followed(tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.md").write_text("# Other\n\nnot in the tree\n")
    docs = _md_tree(tmp_path / "docs")
    (docs / "elsewhere").symlink_to(tmp_path / "other", target_is_directory=True)
    with Sectio(Settings(home=tmp_path / "home", embedder="fake")) as s:
        assert s.ingest(docs).collection_count > 0
        texts = [c.text for c in s.chunks(tenant="default")]
        assert any("Install it first" in t for t in texts)
        assert not any("not in the tree" in t for t in texts)
