"""The docs site's reference pages, generated from the code at build time.

Each function returns one Markdown page, read from what the code declares, so a
new flag, setting, profile key, route or error class appears on the site with
nothing to re-edit:

- :func:`cli_page`: every ``sectio`` command's ``--help`` (click);
- :func:`settings_page`: every field of :class:`sectio.settings.Settings`
  (the ``SECTIO_*`` variable, type, default, and the comment above the field);
- :func:`profile_page`: every key of a corpus profile, table by table, from
  :class:`sectio.contract.profile.CorpusProfile` and its sub-models;
- :func:`record_page`: every field of a chunk record and of its ``source_refs``;
- :func:`http_page`: every route of the HTTP API, from the app's OpenAPI;
- :func:`errors_page`: the tree of :class:`sectio.errors.SectioError` with the
  HTTP status and code of each class.

:data:`PAGES` maps each page's path under ``docs/`` to its function; the MkDocs
hook (``tools/mkdocs_hooks.py``) adds them to the build, and
``python tools/docs_reference.py OUT`` writes them to a folder.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
import sys
import tempfile
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "src") not in sys.path:  # document this checkout's code, not an installed one
    sys.path.insert(0, str(ROOT / "src"))

import click  # noqa: E402
from pydantic import BaseModel  # noqa: E402
from pydantic.fields import FieldInfo  # noqa: E402
from pydantic_core import PydanticUndefined  # noqa: E402

GENERATED = "<!-- generated from the code by tools/docs_reference.py: do not edit -->\n\n"


def _cell(text: str) -> str:
    """``text`` fit for one Markdown table cell (one line, pipes escaped)."""
    return " ".join(text.split()).replace("|", "\\|")


def _type_name(annotation: Any) -> str:
    """A short, readable name of a type annotation (``int | None``, ``list[str]``)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return " \\| ".join(repr(a) for a in typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return " \\| ".join(_type_name(a) for a in typing.get_args(annotation))
    if origin is not None:
        args = ", ".join(_type_name(a) for a in typing.get_args(annotation) if a is not Ellipsis)
        return f"{getattr(origin, '__name__', str(origin))}[{args}]"
    if annotation is type(None):
        return "None"
    return getattr(annotation, "__name__", str(annotation).replace("typing.", ""))


def _default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        value = field.default_factory()  # type: ignore[call-arg]
    elif field.default is PydanticUndefined:
        return "required"
    else:
        value = field.default
    if isinstance(value, BaseModel):
        return "(table below)"
    if isinstance(value, Path):
        return f"`{value}`"
    return f"`{value!r}`" if value not in ("", None) else ("`None`" if value is None else '`""`')


# --- CLI -------------------------------------------------------------------------------


def cli_commands() -> dict[str, click.Command]:
    """Every command of the ``sectio`` group, by name (sorted)."""
    from sectio.cli import cli

    ctx = click.Context(cli, info_name="sectio")
    return {name: cli.get_command(ctx, name) for name in cli.list_commands(ctx)}  # type: ignore[misc]


def cli_page() -> str:
    """``sectio --help`` and each command's ``--help``, as the terminal prints them."""
    from sectio.cli import cli

    out = [
        "# CLI reference\n\n",
        GENERATED,
        "Every command's `--help`, as `sectio` prints it. Errors are one line on stderr: "
        "exit 1 for a refused operation, 2 for a usage error.\n\n",
        "## sectio\n\n```text\n",
        _help(cli, "sectio", None),
        "```\n\n",
    ]
    parent = click.Context(cli, info_name="sectio")
    for name, command in cli_commands().items():
        out += [f"## sectio {name}\n\n```text\n", _help(command, name, parent), "```\n\n"]
    return "".join(out)


def _help(command: click.Command, name: str, parent: click.Context | None) -> str:
    ctx = click.Context(command, info_name=name, parent=parent, terminal_width=88)
    ctx.max_content_width = 88
    return command.get_help(ctx).rstrip() + "\n"


# --- Settings --------------------------------------------------------------------------


def _comments_above(source: str, cls_name: str) -> dict[str, tuple[str, str]]:
    """``{field: (group, comment)}``: the ``#:`` lines right above each field of class
    ``cls_name`` and the ``# --- group ---`` heading it sits under."""
    lines = source.splitlines()
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls_name)
    found: dict[str, tuple[str, str]] = {}
    for node in cls.body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        comment: list[str] = []
        i = node.lineno - 2
        while i >= 0 and lines[i].strip().startswith("#:"):
            comment.insert(0, lines[i].strip()[2:].strip())
            i -= 1
        group = ""
        for j in range(node.lineno - 2, -1, -1):
            heading = re.match(r"\s*# --- (.+?) -*$", lines[j])
            if heading:
                group = heading.group(1).strip()
                break
        found[node.target.id] = (group, " ".join(comment))
    return found


def settings_page() -> str:
    """Every setting: its environment variable, type, default and meaning, by group."""
    from sectio import settings as module
    from sectio.settings import Settings

    notes = _comments_above(inspect.getsource(module), "Settings")
    out = [
        "# Settings reference\n\n",
        GENERATED,
        "Every setting is an environment variable (`SECTIO_` + the field name in capitals; "
        "a `.env` file in the working folder is read too) or a keyword of "
        "`sectio.Settings(...)` in Python. A value that does not validate is refused in "
        "one line naming the variable.\n",
    ]
    group = None
    for name, field in Settings.model_fields.items():
        where, comment = notes.get(name, ("", ""))
        if where != group:
            group = where
            out += [f"\n## {where or 'general'}\n\n", "| variable | type | default | meaning |\n"]
            out.append("|---|---|---|---|\n")
        meaning = _md(field.description or comment)
        bounds = _bounds(field)
        out.append(
            f"| `SECTIO_{name.upper()}` | {_type_name(field.annotation)} | "
            f"{_default(field)} | {_cell(meaning)}{bounds} |\n"
        )
    return "".join(out)


def _bounds(field: FieldInfo) -> str:
    parts = []
    for meta in field.metadata:
        for attr, sign in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
            value = getattr(meta, attr, None)
            if value is not None:
                parts.append(f"{sign} {value}")
    return f" ({', '.join(parts)})" if parts else ""


# --- profiles and records --------------------------------------------------------------


def _model_tables(
    model: type[BaseModel], table: str, seen: set[type[BaseModel]]
) -> Iterator[tuple[str, type[BaseModel]]]:
    """``(TOML table name, model)`` for ``model`` and every sub-model it holds."""
    if model in seen:
        return
    seen.add(model)
    yield table, model
    for name, field in model.model_fields.items():
        for sub, suffix in _sub_models(field.annotation):
            key = f"[{name}]" if not table else f"{table.strip('[]')}.{name}"
            yield from _model_tables(sub, _table_name(key, suffix), seen)


def _table_name(key: str, suffix: str) -> str:
    key = key.strip("[]")
    if suffix == "[]":
        return f"[[{key}]]"
    if suffix == ".NAME":
        return f"[{key}.NAME]"
    return f"[{key}]"


def _sub_models(annotation: Any) -> Iterator[tuple[type[BaseModel], str]]:
    """The models inside ``annotation``: directly, in a tuple/list (``[]``) or dict value."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation, ""
        return
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (tuple, list):
        for arg in args:
            for sub, _ in _sub_models(arg):
                yield sub, "[]"
    elif origin is dict and args:
        for sub, _ in _sub_models(args[-1]):
            yield sub, ".NAME"
    elif origin in (typing.Union, types.UnionType):
        for arg in args:
            yield from _sub_models(arg)


_PLACEHOLDERS: dict[str, object] = {"str": "my_value", "int": 1, "float": 0.5, "bool": True}


def _example(name: str, field: FieldInfo) -> str:
    """One TOML line for the key: its default, else a placeholder of its type (a sub-table:
    its own table below)."""
    if any(True for _ in _sub_models(field.annotation)):
        return "(table below)"
    value = None if field.is_required() else field.get_default(call_default_factory=True)
    if value is None or value in ((), [], {}):
        base = _type_name(field.annotation).split(" | ")[0]
        inner = re.sub(r"[^\w].*$", "", base.split("[")[-1])
        one = _PLACEHOLDERS.get(inner, "my_value")
        value = [one] if base.startswith(("tuple", "list")) else one
    if isinstance(value, tuple):
        value = list(value)
    text = json.dumps(value, ensure_ascii=False)
    text = "true" if value is True else "false" if value is False else text
    return f"`{name} = {text}`".replace("|", "\\|")


def _fields_table(model: type[BaseModel], key_prefix: str = "", examples: bool = False) -> str:
    if examples:
        rows = ["| key | type | default | required | example |\n", "|---|---|---|---|---|\n"]
        for name, field in model.model_fields.items():
            required = "yes" if field.is_required() else ""
            choices = [str(c) for c in getattr(field.validation_alias, "choices", None) or ()]
            others = [c for c in choices if c != name]
            alias = f" (also read as `{'`, `'.join(others)}`)" if others else ""
            rows.append(
                f"| `{key_prefix}{name}`{alias} | {_type_name(field.annotation)} | "
                f"{_default(field) if not field.is_required() else ''} | {required} | "
                f"{_example(name, field)} |\n"
            )
        return "".join(rows)
    rows = ["| key | type | default | required |\n", "|---|---|---|---|\n"]
    for name, field in model.model_fields.items():
        alias = ""
        choices = getattr(field.validation_alias, "choices", None)
        if choices:
            others = [str(c) for c in choices if c != name]
            alias = f" (also read as `{'`, `'.join(others)}`)" if others else ""
        required = "yes" if field.is_required() else ""
        rows.append(
            f"| `{key_prefix}{name}`{alias} | {_type_name(field.annotation)} | "
            f"{_default(field) if not field.is_required() else ''} | {required} |\n"
        )
    return "".join(rows)


def _md(text: str) -> str:
    """A docstring as Markdown: reST double backticks and ``:role:`x``` become code."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", inspect.cleandoc(text))
    return text.replace("``", "`")


def _doc(model: type[BaseModel]) -> str:
    return _md(model.__doc__ or "")


def profile_page() -> str:
    """Every key of a corpus profile (TOML), table by table, with its model's docstring."""
    from sectio.contract.profile import SHIPPED_PROFILES, CorpusProfile

    out = [
        "# Profile reference\n\n",
        GENERATED,
        "A corpus profile is a TOML file (`--profile FILE`) or a shipped name (",
        ", ".join(f"`{p}`" for p in SHIPPED_PROFILES),
        "). Unknown keys are refused, naming the key. The shipped files are under "
        "`src/sectio/contract/profiles/`; copying the closest one is the quickest start "
        "(see [Writing a profile](../guides/profiles.md)).\n",
    ]
    for table, model in _model_tables(CorpusProfile, "", set()):
        title = "top level" if not table else f"`{table}`"
        out += [f"\n## {title}\n\n", f"`{model.__name__}`. {_doc(model)}\n\n"]
        out.append(_fields_table(model, examples=True))
    out.append(_policy_table())
    out.append(_docs_table())
    return "".join(out)


def _docs_table() -> str:
    """``[docs]``: the path prefixes and markers of the docs planner (``DocsLayout``)."""
    from sectio.plan.resolver import DocsLayout

    group = ""
    notes: dict[str, str] = {}
    for line in inspect.getsource(DocsLayout).splitlines():
        comment = re.match(r"\s*# (.+)", line)
        field = re.match(r"\s*(\w+): .+ = ", line)
        if comment:
            group = comment.group(1)
        elif field:
            notes[field.group(1)] = group
    rows = [f"\n## `[docs]`\n\n`DocsLayout`. {_md(DocsLayout.__doc__ or '')}\n\n"]
    rows.append("| key | type | default | used for |\n|---|---|---|---|\n")
    for name, field in DocsLayout.model_fields.items():
        rows.append(
            f"| `{name}` | {_type_name(field.annotation)} | {_default(field)} | "
            f"{_cell(notes.get(name, ''))} |\n"
        )
    return "".join(rows)


def _attributes(doc: str) -> dict[str, str]:
    """The ``Attributes:`` section of a Google-style docstring: ``{name: text}``."""
    found: dict[str, str] = {}
    lines = inspect.cleandoc(doc).split("Attributes:", 1)[-1].splitlines()
    name = None
    for line in lines:
        entry = re.match(r"    (\w+): (.*)", line)
        if entry:
            name = entry.group(1)
            found[name] = entry.group(2)
        elif name and line.startswith("        "):
            found[name] += " " + line.strip()
        elif line.strip():
            break
    return found


def _policy_table() -> str:
    """``[policy]``: the numbers of :class:`sectio.retrieve.policy.EvidencePolicy`."""
    import dataclasses

    from sectio.retrieve.policy import EvidencePolicy

    notes = _attributes(EvidencePolicy.__doc__ or "")
    rows = [
        "\n## `[policy]`\n\n",
        "Numbers of the routes (`EvidencePolicy`); a key the policy does not know is "
        "logged and ignored.\n\n| key | type | default | meaning |\n|---|---|---|---|\n",
    ]
    for f in dataclasses.fields(EvidencePolicy):
        rows.append(
            f"| `{f.name}` | {_type_name(f.type) if not isinstance(f.type, str) else f.type} | "
            f"`{f.default!r}` | {_cell(_md(notes.get(f.name, '')))} |\n"
        )
    return "".join(rows)


def record_page() -> str:
    """Every field of a chunk record, and of each entry of its ``source_refs``."""
    from sectio.contract.record import ChunkRecord, SourceRef

    return "".join(
        [
            "# Chunk record reference\n\n",
            GENERATED,
            "One JSON object per chunk (see [the corpus contract]"
            "(../concepts/corpus-contract.md)). Any field not listed passes through "
            "untouched.\n\n",
            f"## chunk record\n\n`ChunkRecord`. {_doc(ChunkRecord)}\n\n",
            _fields_table(ChunkRecord),
            f"\n## `source_refs[]`\n\n`SourceRef`. {_doc(SourceRef)} Each entry of "
            "`source_refs` is an object; other keys pass through.\n\n",
            _fields_table(SourceRef, "source_refs[]."),
        ]
    )


# --- HTTP ------------------------------------------------------------------------------


def openapi() -> dict[str, Any]:
    """The HTTP API's OpenAPI document, from an app over an empty temporary home."""
    from sectio.api.app import create_app
    from sectio.settings import Settings

    with tempfile.TemporaryDirectory(prefix="sectio-docs-") as home:
        app = create_app(Settings(home=Path(home), embedder="fake", traces=False))
        try:
            return app.openapi()
        finally:
            app.state.api.engine.close()


def http_page() -> str:
    """Every route: method, path, summary, description, parameters, body and responses."""
    spec = openapi()
    schemas = spec.get("components", {}).get("schemas", {})
    out = [
        "# HTTP reference\n\n",
        GENERATED,
        f"{spec['info'].get('description', '').strip()}\n\n",
        "A running server also serves this as `/openapi.json`, `/docs` and `/redoc`.\n\n",
        "| method | path | summary |\n|---|---|---|\n",
    ]
    routes = [
        (path, method, op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if method in ("get", "post", "put", "delete", "patch")
    ]
    for path, method, op in routes:
        out.append(f"| {method.upper()} | `{path}` | {_cell(op.get('summary', ''))} |\n")
    for path, method, op in routes:
        out += [f"\n## {method.upper()} `{path}`\n\n", _operation(op, schemas)]
    return "".join(out)


def _operation(op: dict[str, Any], schemas: dict[str, Any]) -> str:
    out = [f"{_md(op.get('description', op.get('summary', '')))}\n\n"]
    params = op.get("parameters", [])
    if params:
        out.append("| parameter | in | type | required | meaning |\n|---|---|---|---|---|\n")
        for p in params:
            out.append(
                f"| `{p['name']}` | {p['in']} | {_schema_type(p.get('schema', {}))} | "
                f"{'yes' if p.get('required') else ''} | {_cell(p.get('description', ''))} |\n"
            )
        out.append("\n")
    body = op.get("requestBody", {}).get("content", {}).get("application/json", {})
    if body:
        out.append("Request body:\n\n" + _schema_table(body.get("schema", {}), schemas) + "\n")
    out.append("| status | meaning | body |\n|---|---|---|\n")
    for status, response in op.get("responses", {}).items():
        content = response.get("content", {}).get("application/json", {})
        out.append(
            f"| {status} | {_cell(response.get('description', ''))} | "
            f"{_schema_type(content.get('schema', {}))} |\n"
        )
    return "".join(out)


def _schema_type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return f"`{schema['$ref'].rsplit('/', 1)[-1]}`"
    if "anyOf" in schema:
        return " \\| ".join(_schema_type(s) for s in schema["anyOf"])
    if schema.get("type") == "array":
        return f"array of {_schema_type(schema.get('items', {}))}"
    return str(schema.get("type", "object" if schema else ""))


def _schema_table(schema: dict[str, Any], schemas: dict[str, Any]) -> str:
    name = _schema_type(schema)
    if "$ref" in schema:
        schema = schemas.get(schema["$ref"].rsplit("/", 1)[-1], {})
    props = schema.get("properties", {})
    if not props:
        return f"{name}\n"
    required = set(schema.get("required", []))
    rows = [
        f"{name}\n\n| field | type | required | default | meaning |\n",
        "|---|---|---|---|---|\n",
    ]
    for key, prop in props.items():
        default = f"`{prop['default']!r}`" if "default" in prop else ""
        rows.append(
            f"| `{key}` | {_schema_type(prop)} | {'yes' if key in required else ''} | "
            f"{default} | {_cell(prop.get('description', ''))} |\n"
        )
    return "".join(rows)


# --- errors ----------------------------------------------------------------------------


def errors_page() -> str:
    """The error tree, each class with its HTTP status, code and docstring."""
    from sectio import errors

    out = [
        "# Errors reference\n\n",
        GENERATED,
        "Everything sectio raises on purpose derives from `sectio.SectioError` "
        "(`sectio.errors`). The CLI prints any of them as one line on stderr and exits 1; "
        'the HTTP API answers each with one status and `{"error": {"code", "message"}}`.\n\n',
        "| class | HTTP status | code | meaning |\n|---|---|---|---|\n",
    ]
    for depth, cls in _tree(errors.SectioError, 0):
        status, code = errors.HTTP_ERRORS.get(cls, errors.http_error(cls.__new__(cls)))
        indent = "&nbsp;" * 4 * depth + ("└ " if depth else "")
        doc = _md(cls.__doc__ or "").split("\n\n", 1)[0]  # the first paragraph
        out.append(f"| {indent}`{cls.__name__}` | {status} | `{code}` | {_cell(doc)} |\n")
    return "".join(out)


def _tree(cls: type, depth: int) -> Iterator[tuple[int, type]]:
    yield depth, cls
    for sub in cls.__subclasses__():
        if sub.__module__.startswith("sectio."):
            yield from _tree(sub, depth + 1)


#: Each generated page: its path under docs/ and the function that writes it.
PAGES: dict[str, Callable[[], str]] = {
    "reference/cli.md": cli_page,
    "reference/settings.md": settings_page,
    "reference/profile.md": profile_page,
    "reference/record.md": record_page,
    "reference/http.md": http_page,
    "reference/errors.md": errors_page,
}


def main(argv: list[str]) -> int:
    """Write every generated page under the folder ``argv[0]`` (for a look without MkDocs)."""
    out = Path(argv[0] if argv else "site-reference")
    for rel, page in PAGES.items():
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page(), encoding="utf-8")
        print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
