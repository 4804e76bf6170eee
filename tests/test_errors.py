"""The error tree: one root, one docstring drawing it, one table of HTTP answers."""

from __future__ import annotations

import sectio.errors as errors
import sectio.ops.errors as ops_errors
from sectio.errors import (
    HTTP_ERRORS,
    ConfigError,
    ContractError,
    EmbeddingError,
    ProfileError,
    SectioError,
    SnapshotError,
    StoreError,
    http_error,
)


def every_subclass(cls: type[SectioError]) -> list[type[SectioError]]:
    """``cls`` and every subclass sectio defines (not those a test defines)."""
    found = [cls]
    for sub in cls.__subclasses__():
        if sub.__module__.startswith("sectio."):
            found += every_subclass(sub)
    return found


def test_every_error_class_is_drawn_and_has_its_http_row() -> None:
    tree = errors.__doc__ or ""
    classes = every_subclass(SectioError)
    assert len(classes) >= 21  # the tree as drawn, store errors included
    for cls in classes:
        assert cls in HTTP_ERRORS, f"{cls.__name__} has no row in HTTP_ERRORS"
        status, code = HTTP_ERRORS[cls]
        assert f"{cls.__name__} " in tree and f"{status} {code}" in tree, cls.__name__
    assert set(HTTP_ERRORS) == set(classes)


def test_the_tree_as_drawn() -> None:
    assert not issubclass(ProfileError, ContractError | ConfigError)  # the operator's config
    assert http_error(ProfileError("bad profile"))[0] == 500
    assert http_error(EmbeddingError("model gone")) == (500, "embedding_error")
    assert http_error(SnapshotError("bad file"))[0] == 422
    # the store's errors are the same classes under the one root
    assert ops_errors.StoreError is StoreError and issubclass(StoreError, SectioError)
    assert ops_errors.TraceNotFound is errors.TraceNotFound


def test_a_subclass_outside_the_table_answers_as_its_parent() -> None:
    class Custom(ConfigError):
        pass

    assert http_error(Custom("x")) == (400, "bad_request")
