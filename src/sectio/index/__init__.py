"""Index: the ports (:mod:`.port`), the neutral filter model, manifests, BM25, and the
Qdrant adapters by backend (:mod:`.edge`, :mod:`.server`) over one shared Qdrant layer
(:mod:`.qdrant`). :mod:`.factory` is the only module that chooses a backend."""
