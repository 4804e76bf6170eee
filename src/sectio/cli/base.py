"""The click group, shared options and output helpers for every command.

Errors are one line on stderr, no traceback, non-zero exit: 1 for a refused
operation (any :class:`SectioError`), 2 for a usage error.

Start-up imports click and light modules only: settings (pydantic) and the
engine (numpy, Qdrant Edge, the model) load when a command first reads
:attr:`Context.settings` or :attr:`Context.sectio`, so ``--version``, ``--help``
and a usage error cost a few dozen milliseconds (tests/test_cli_startup.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from sectio._version import __version__
from sectio.contract.names import DEFAULT_COLLECTION, name_problem

if TYPE_CHECKING:
    from sectio.engine import Sectio
    from sectio.settings import Settings

F = TypeVar("F", bound=Callable[..., Any])


class Context:
    """Per-invocation state: settings and a lazily built :class:`Sectio`."""

    def __init__(self) -> None:
        self._settings: Settings | None = None
        self._sectio: Sectio | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from sectio.settings import load_settings

            self._settings = load_settings()
        return self._settings

    @property
    def sectio(self) -> Sectio:
        if self._sectio is None:
            from sectio.engine import Sectio

            self._sectio = Sectio(self.settings, write_traces=True)  # the CLI traces by default
        return self._sectio

    def close(self) -> None:
        if self._sectio is not None:
            self._sectio.close()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sectio")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """sectio: exact, sectioned retrieval for grounded RAG.

    Everything embedded lives under $SECTIO_HOME (default ./.sectio).
    """
    state = Context()
    ctx.obj = state
    ctx.call_on_close(state.close)


pass_state = click.make_pass_decorator(Context)


def json_option(f: F) -> F:
    """``--json``: machine-readable output on stdout."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(f)


def _collection_name(_: click.Context, __: click.Parameter, value: str) -> str:
    problem = name_problem(value)
    if problem is not None:
        raise click.BadParameter(problem.removeprefix("invalid collection name "))
    return value


def collection_option(f: F) -> F:
    """``--collection NAME`` (default ``default``); an invalid name is a usage error (rc 2)."""
    return click.option(
        "--collection",
        "-c",
        default=DEFAULT_COLLECTION,
        show_default=True,
        callback=_collection_name,
        help="Collection name (1-64 letters, digits, '_', '-', '.').",
    )(f)


def tenant_option(f: F) -> F:
    """``--tenant T`` (default ``default``)."""
    return click.option(
        "--tenant", default="default", show_default=True, help="Tenant to read as."
    )(f)


def emit_json(data: Any) -> None:
    """Print ``data`` as JSON (pydantic models and dataclasses welcome)."""
    if hasattr(data, "model_dump"):
        data = data.model_dump(mode="json")
    elif hasattr(data, "as_dict"):
        data = data.as_dict()
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def note(message: str) -> None:
    """A human-readable line on stderr."""
    click.echo(message, err=True)


def bounded_query(state: Context, text: str) -> str:
    """``text`` if it passes the HTTP API's bounds (:func:`sectio.contract.bounds.check_query`:
    ``SECTIO_MAX_QUERY_CHARS``, not blank, no NUL), else one line naming why.

    Raises:
        ConfigError: the question cannot be asked.
    """
    from sectio.contract.bounds import check_query
    from sectio.errors import ConfigError

    problem = check_query(text, state.settings.max_query_chars)
    if problem is not None and text.strip():  # an empty one: the engine's own message
        raise ConfigError(problem)
    return text
