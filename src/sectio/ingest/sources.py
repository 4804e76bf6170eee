"""Source files read strictly: record files (JSON Lines or a JSON array, either one
gzip-compressed) and the text files of a Markdown tree.

The container is told by content, not by the file name: gzip by its magic bytes
(``1f 8b``), then a JSON array by its first character ``[``, JSON Lines by
``{``. :func:`iter_json_records` yields ``(line, value)`` pairs, the line being
where the value starts in the (decompressed) text, and refuses, naming the
file and line:

* invalid UTF-8 (with the byte and its column), a NUL byte;
* a line longer than ``max_record_bytes`` (checked before it is decoded) and a
  JSON array file larger than ``max_json_bytes`` (it is decoded whole);
* invalid JSON (with its column), nesting deep enough to exhaust the decoder;
* a value out of bounds (:class:`sectio.contract.bounds.BoundedDecoder`), naming
  its field too.

Example:
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.json"
    >>> _ = p.write_text('[\\n {"chunk_id": "a"},\\n {"chunk_id": "b"}\\n]')
    >>> [(line, v["chunk_id"]) for line, v in iter_json_records(p, InputLimits())]
    [(2, 'a'), (3, 'b')]
    >>> sniff(p).describe()
    'a JSON array (first record has chunk_id)'
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal, cast

from sectio.contract.bounds import BoundedDecoder, InputLimits
from sectio.errors import ContractError, RecordError

GZIP_MAGIC = b"\x1f\x8b"
_WS = " \t\r\n"
#: Bytes read to tell a file's container (grown up to ``max_record_bytes`` for a long record).
_SNIFF = 64 * 1024

Container = Literal["jsonl", "json-array", "text", "binary", "empty"]


def _open(path: Path) -> tuple[IO[bytes], bool]:
    """``path`` opened for binary reading, decompressed if it is gzip; and whether it was.

    Raises:
        ContractError: the file cannot be opened.
    """
    try:
        raw = path.open("rb")
    except OSError as exc:
        raise ContractError(f"{path}: cannot read: {exc.strerror}") from exc
    if raw.read(2) == GZIP_MAGIC:
        raw.seek(0)
        return cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb")), True
    raw.seek(0)
    return raw, False


def head_bytes(path: Path, size: int) -> bytes:
    """The first ``size`` bytes ``path`` holds, decompressed if it is gzip (b'' when it
    cannot be read)."""
    try:
        fh, _ = _open(path)
        with fh:
            return fh.read(size)
    except (ContractError, OSError, EOFError):
        return b""


def _read(fh: IO[bytes], path: Path, size: int = -1) -> bytes:
    try:
        return fh.read(size)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise ContractError(f"{path}: cannot read: {exc}") from exc


def _decode(raw: bytes, path: Path, line: int) -> str:
    """``raw`` as strict UTF-8 (a leading BOM dropped) without NUL bytes.

    Raises:
        RecordError: naming the line, and the byte and its column.
    """
    try:
        text = raw.decode("utf-8-sig" if line == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        at = raw.rfind(b"\n", 0, exc.start) + 1
        lineno = line + raw.count(b"\n", 0, exc.start)
        byte = raw[exc.start]
        raise RecordError(
            str(path),
            lineno,
            "<text>",
            f"not valid UTF-8 (byte 0x{byte:02x} at column {exc.start - at + 1})",
        ) from exc
    nul = text.find("\x00")
    if nul >= 0:
        lineno = line + text.count("\n", 0, nul)
        raise RecordError(str(path), lineno, "<text>", "contains a NUL byte (a binary file?)")
    return text


def _where(text: str, pos: int) -> str:
    r"""Where in the line ``text`` (its newline kept) a decode error at ``pos`` lies:
    ``column N``, or ``at the end of the line`` when the record stops short (a cut
    line's error lies past its newline, which ``JSONDecodeError`` calls line 2, column 1).

    Example:
        >>> _where('{"a": 1,\n', 9), _where('{"a" 1}\n', 5)
        ('at the end of the line', 'column 6')
    """
    if pos >= len(text.rstrip("\r\n")):
        return "at the end of the line"
    return f"column {pos + 1}"


def _value(decoder: BoundedDecoder, text: str, path: Path, line: int) -> object:
    """The one JSON value of the line ``text``, within bounds.

    Raises:
        RecordError: not valid JSON (with its column), too deep, or out of bounds.
    """
    try:
        value, end = decoder.raw_decode(text, _skip_ws(text, 0))
        if _skip_ws(text, end) != len(text):
            raise json.JSONDecodeError("Extra data", text, end)
    except json.JSONDecodeError as exc:
        where = _where(text, exc.pos)
        raise RecordError(
            str(path), line, "<json>", f"not valid JSON: {exc.msg} ({where})"
        ) from exc
    except RecursionError as exc:
        raise RecordError(str(path), line, "<json>", "nested too deep to decode") from exc
    bad = decoder.check(text, value)
    if bad is not None:
        raise RecordError(str(path), line, *bad)
    return value


def _iter_lines(fh: IO[bytes], path: Path, limits: InputLimits) -> Iterator[tuple[int, object]]:
    decoder = BoundedDecoder(limits)
    lineno = 0
    while True:
        try:
            raw = fh.readline(limits.max_record_bytes + 1)
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise ContractError(f"{path}: cannot read: {exc}") from exc
        if not raw:
            return
        lineno += 1
        if len(raw) > limits.max_record_bytes:
            raise RecordError(
                str(path),
                lineno,
                "<record>",
                f"line longer than {limits.max_record_bytes:,} bytes (SECTIO_MAX_RECORD_BYTES)",
            )
        text = _decode(raw, path, lineno)
        if text.strip():
            yield lineno, _value(decoder, text, path, lineno)


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _array_error(path: Path, text: str, i: int, message: str) -> RecordError:
    line = text.count("\n", 0, i) + 1
    column = i - (text.rfind("\n", 0, i) + 1) + 1
    return RecordError(str(path), line, "<json>", f"{message} (column {column})")


def _iter_array(text: str, path: Path, limits: InputLimits) -> Iterator[tuple[int, object]]:
    """The elements of the JSON array ``text`` with the line each starts on."""
    decoder = BoundedDecoder(limits)
    i = _skip_ws(text, 0)
    if i >= len(text) or text[i] != "[":
        raise _array_error(path, text, i, "not a JSON array")
    i = _skip_ws(text, i + 1)
    line, counted = 1, 0
    while i < len(text) and text[i] != "]":
        line += text.count("\n", counted, i)
        counted = i
        try:
            value, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            raise _array_error(path, text, exc.pos, f"not valid JSON: {exc.msg}") from exc
        except RecursionError as exc:
            raise RecordError(str(path), line, "<json>", "nested too deep to decode") from exc
        bad = decoder.check(text[i:end], value)
        if bad is not None:
            raise RecordError(str(path), line, *bad)
        yield line, value
        i = _skip_ws(text, end)
        if i < len(text) and text[i] == ",":
            i = _skip_ws(text, i + 1)
        elif i >= len(text) or text[i] != "]":
            raise _array_error(path, text, i, "expected ',' or ']' after an array element")
    if i >= len(text) or _skip_ws(text, i + 1) != len(text):
        raise _array_error(path, text, min(i + 1, len(text)), "expected the end of the array")


def iter_json_records(path: Path, limits: InputLimits) -> Iterator[tuple[int, object]]:
    """Every JSON value of ``path`` (JSON Lines or a JSON array, maybe gzip), in file
    order, with its line.

    Raises:
        ContractError: the file cannot be opened or read.
        RecordError: a bound or the JSON syntax broken, naming the line.
    """
    fh, _ = _open(path)
    with fh:
        head = _read(fh, path, _SNIFF)
        first = head.lstrip(b" \t\r\n\xef\xbb\xbf")[:1]
        if first != b"[":
            fh.seek(0)
            yield from _iter_lines(fh, path, limits)
            return
        rest = _read(fh, path, max(limits.max_json_bytes - len(head) + 1, 0))
    raw = head + rest
    if len(raw) > limits.max_json_bytes:
        raise ContractError(
            f"{path}: a JSON array over {limits.max_json_bytes:,} bytes (SECTIO_MAX_JSON_BYTES); "
            "write it as JSON Lines (one record a line) instead"
        )
    yield from _iter_array(_decode(raw, path, 1), path, limits)


def read_text(path: Path, root: Path, max_bytes: int) -> str:
    """The text of ``path``, a file of the tree ``root``: strict UTF-8 without NUL bytes
    (a binary file is refused, not read with replacement characters); a gzip file
    (``README.md.gz``, ``changelog.gz``) is decompressed, ``max_bytes`` bounding the
    text it holds.

    Raises:
        ContractError: ``path`` resolves outside ``root`` (a symlink out of the tree),
            is larger than ``max_bytes`` (``SECTIO_MAX_MARKDOWN_BYTES``) or unreadable.
        RecordError: invalid UTF-8 or a NUL byte, naming the line.
    """
    return _decode(read_bytes(path, root, max_bytes), path, 1)


def inside_tree(path: Path, root: Path) -> Path:
    """``path`` resolved, when it stays inside ``root``.

    Raises:
        ContractError: a link out of the tree.
    """
    target = path.resolve()
    if not target.is_relative_to(root.resolve()):
        raise ContractError(
            f"{path}: a link to {target}, outside {root}; only files inside the tree are read"
        )
    return target


def read_bytes(path: Path, root: Path, max_bytes: int) -> bytes:
    """The bytes of ``path``, a file of the tree ``root``, decompressed if it is gzip.

    Raises:
        ContractError: ``path`` resolves outside ``root``, holds more than ``max_bytes``
            (compressed or not) or is unreadable (a broken gzip stream).
    """
    target = inside_tree(path, root)
    try:
        size = target.stat().st_size
    except OSError as exc:
        raise ContractError(f"{path}: cannot read: {exc.strerror}") from exc
    if size > max_bytes:
        raise ContractError(
            f"{path}: {size:,} bytes, over the limit of {max_bytes:,} bytes "
            "(SECTIO_MAX_MARKDOWN_BYTES)"
        )
    fh, _ = _open(target)
    with fh:
        raw = _read(fh, path, max_bytes + 1)
    if len(raw) > max_bytes:
        raise ContractError(
            f"{path}: unzipped, more than the limit of {max_bytes:,} bytes "
            "(SECTIO_MAX_MARKDOWN_BYTES)"
        )
    return raw


@dataclass(frozen=True)
class Sniffed:
    """What a file holds, told by its first bytes: the container, whether it is gzip,
    and the keys of its first JSON record (None when there is none)."""

    container: Container
    gzip: bool
    keys: frozenset[str] | None = None
    #: False when the first JSON value could not be decoded (the reader will say why).
    decoded: bool = True
    #: The first line is a lone ``{``: one JSON object over many lines (a pretty-printed
    #: document such as an API dump), not JSON Lines.
    pretty: bool = False

    @property
    def record_kind(self) -> str | None:
        """``chunks`` (first record has ``chunk_id``), ``beir`` (``_id``), else None."""
        if self.keys is None:
            return None
        if "chunk_id" in self.keys:
            return "chunks"
        return "beir" if "_id" in self.keys else None

    def describe(self) -> str:
        """One phrase: ``gzip of JSON Lines (first record has chunk_id)``."""
        what = {
            "jsonl": "JSON Lines",
            "json-array": "a JSON array",
            "text": "text (not JSON)",
            "binary": "binary data",
            "empty": "nothing",
        }[self.container]
        if self.gzip:
            what = f"gzip of {what}"
        if self.container in ("jsonl", "json-array"):
            kind = self.record_kind
            if kind == "chunks":
                what += " (first record has chunk_id)"
            elif kind == "beir":
                what += " (first record has _id)"
            elif not self.decoded and self.pretty:
                what += " (one JSON object over many lines, not records)"
            elif not self.decoded:
                what += " (its first record does not decode)"
            elif self.keys is not None:
                shown = ", ".join(sorted(self.keys)[:6]) or "no keys"
                what += f" (first record has neither chunk_id nor _id: {shown})"
            else:
                what += " (no JSON object first)"
        return what


def _first_object_keys(text: str, container: Container) -> tuple[bool, frozenset[str] | None]:
    """Whether the first JSON value of ``text`` (a file's head) decodes, and its keys
    if it is an object."""
    decoder = json.JSONDecoder()
    i = _skip_ws(text, 0)
    if container == "json-array":
        i = _skip_ws(text, i + 1)
    try:
        value, _ = decoder.raw_decode(text, i)
    except (json.JSONDecodeError, RecursionError):
        return False, None
    return True, frozenset(value) if isinstance(value, dict) else None


def _container(stripped: str) -> Container:
    if stripped.startswith("["):
        return "json-array"
    return "jsonl" if stripped.startswith("{") else "text"


def sniff(path: Path, max_bytes: int = 32 * 2**20) -> Sniffed:
    """Tell what ``path`` holds from its first bytes (more, up to ``max_bytes``, while
    its first record is incomplete). Never raises; an unreadable file is ``binary``.
    """
    try:
        fh, gz = _open(path)
    except ContractError:
        return Sniffed("binary", False)
    want = _SNIFF
    with fh:
        try:
            head = fh.read(want)
            while True:
                text = head.decode("utf-8", errors="ignore").lstrip("\ufeff")
                stripped = text.lstrip(_WS)
                if not stripped:
                    return Sniffed("empty", gz)
                container = _container(stripped)
                if container == "text":
                    binary = "\x00" in text or len(text) < len(head) // 2
                    return Sniffed("binary" if binary else "text", gz)
                decoded, keys = _first_object_keys(stripped, container)
                whole_line = container == "jsonl" and "\n" in stripped
                if decoded or whole_line or len(head) < want or want >= max_bytes:
                    pretty = container == "jsonl" and stripped.split("\n", 1)[0].strip() == "{"
                    return Sniffed(container, gz, keys, decoded, pretty)
                head += fh.read(want)
                want *= 2
        except (OSError, EOFError, gzip.BadGzipFile):
            return Sniffed("binary", gz)


__all__ = [
    "GZIP_MAGIC",
    "Sniffed",
    "head_bytes",
    "inside_tree",
    "iter_json_records",
    "read_bytes",
    "read_text",
    "sniff",
]
