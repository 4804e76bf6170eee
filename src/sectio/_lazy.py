"""Package attributes imported on first access (PEP 562), so importing a package is cheap.

``sectio --version`` imports ``sectio.cli``, which runs ``sectio/__init__.py``;
were that to import the engine, every command would pay for numpy, Qdrant
Edge and pydantic before printing a line. A package lists its public names and
the modules that define them; :func:`exports` returns the module-level
``__getattr__`` and ``__dir__`` that import each name when it is first read
(and keep it in the package namespace). Type checkers see the names through
``if TYPE_CHECKING:`` imports next to the table.

Example:
    >>> getattr_, dir_ = exports("json", {"dumps": "json"})
    >>> getattr_("dumps")({"a": 1})
    '{"a": 1}'
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def exports(
    package: str, names: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, importing ``names[name]`` on first access.

    Raises (from the returned ``__getattr__``):
        AttributeError: ``name`` is not in ``names`` (Python then tries a submodule).
    """

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *names})

    return __getattr__, __dir__
