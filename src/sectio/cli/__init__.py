"""The ``sectio`` command line: a thin layer over :class:`sectio.Sectio`."""

from __future__ import annotations

import logging
import sys

import click

from sectio.cli import commands as _commands  # noqa: F401  (registers the commands)
from sectio.cli.base import cli
from sectio.errors import SectioError


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI, turn every failure into one line on stderr."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        cli.main(args=argv, prog_name="sectio", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code or 0)
    except click.exceptions.Abort:
        click.echo("error: aborted", err=True)
        return 130
    except click.UsageError as exc:
        click.echo(f"error: {exc.format_message()}", err=True)
        return 2
    except click.ClickException as exc:
        click.echo(f"error: {exc.format_message()}", err=True)
        return exc.exit_code
    except SectioError as exc:
        click.echo(f"error: {_one_line(str(exc))}", err=True)
        return 1
    except KeyboardInterrupt:
        click.echo("error: interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: still one line, but say so
        click.echo(f"error: internal error: {type(exc).__name__}: {_one_line(str(exc))}", err=True)
        return 70
    return 0


def _one_line(text: str) -> str:
    return " ".join(text.split())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
