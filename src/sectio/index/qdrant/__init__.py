"""The Qdrant layer both adapters share: data layout, filter translation, query plans,
point conversion, the search skeletons and version naming.

Nothing here imports a Qdrant client library: each adapter supplies the native
constructors (:class:`.filters.ConditionBuilder`) and runs the neutral plans
(:class:`.requests.Search`) with its own client.
"""
