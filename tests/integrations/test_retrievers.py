"""LlamaIndex, Haystack and LangChain retrievers against the real frameworks: embedded and
remote, each returning the chunks ``sectio ask``/``search`` return for the same question."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

import pytest
from haystack import Pipeline
from haystack.utils import Secret
from llama_index.core.schema import QueryBundle

from sectio import Sectio
from sectio.errors import ConfigError
from sectio.integrations import Answer, open_source
from sectio.integrations import haystack as hs
from sectio.integrations import langchain as lc
from sectio.integrations import llamaindex as li
from tests.helpers.servers import QUESTIONS
from tests.integrations.conftest import CliAnswers, Remote, chunk_ids

FRAMEWORKS = ("llamaindex", "haystack", "langchain")


@dataclass
class Adapted:
    """One framework's retriever seen the same way: ids (sync, async), metadata, last answer."""

    ids: Callable[[str], list[str]]
    aids: Callable[[str], Coroutine[Any, Any, list[str]]]
    metadata: Callable[[str], list[dict[str, Any]]]
    last: Callable[[], Answer | None]


def adapt(framework: str, *, local: Sectio | None, url: str | None, **opts: Any) -> Adapted:
    """The retriever of ``framework`` (embedded on ``local`` as acme, or remote with acme's key)."""
    if framework == "haystack":
        where: dict[str, Any] = (
            {"sectio": local, "tenant": "acme"}
            if local
            else {"url": url, "api_key": Secret.from_token("key-acme")}
        )
        comp = hs.SectioRetriever(**where, **opts)
        outputs: dict[str, Any] = {}

        def h_docs(q: str) -> list[Any]:
            outputs.update(comp.run(q))
            return list(outputs["documents"])

        async def h_aids(q: str) -> list[str]:
            return [d.id for d in (await comp.run_async(q))["documents"]]

        return Adapted(
            lambda q: [d.id for d in h_docs(q)],
            h_aids,
            lambda q: [d.meta for d in h_docs(q)],
            lambda: Answer(decision=outputs.get("decision"), reason=outputs.get("reason")),
        )
    source = (
        open_source(sectio=local, tenant="acme")
        if local
        else open_source(url=url, api_key="key-acme")
    )
    if framework == "llamaindex":
        r = li.SectioRetriever(source, **opts)

        async def l_aids(q: str) -> list[str]:
            return [n.node.id_ for n in await r.aretrieve(QueryBundle(q))]

        return Adapted(
            lambda q: [n.node.id_ for n in r.retrieve(q)],
            l_aids,
            lambda q: [n.node.metadata for n in r.retrieve(q)],
            lambda: r.last_answer,
        )
    c = lc.SectioRetriever(source=source, **opts)

    async def c_aids(q: str) -> list[str]:
        return [str(d.id) for d in await c.ainvoke(q)]

    return Adapted(
        lambda q: [str(d.id) for d in c.invoke(q)],
        c_aids,
        lambda q: [d.metadata for d in c.invoke(q)],
        lambda: c.last_answer,
    )


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_embedded_retriever_returns_the_cli_chunks(
    framework: str, cli_answers: CliAnswers, local: Sectio
) -> None:
    asked = adapt(framework, local=local, url=None)
    searched = adapt(framework, local=local, url=None, mode="search", top_k=10)
    for question in QUESTIONS.values():
        assert asked.ids(question) == chunk_ids(cli_answers["ask", question]), question
        assert searched.ids(question) == chunk_ids(cli_answers["search", question]), question
    assert asyncio.run(asked.aids(QUESTIONS["section"])) == asked.ids(QUESTIONS["section"])


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_remote_retriever_returns_the_cli_chunks(framework: str, remote: Remote) -> None:
    cli_answers = remote.answers
    asked = adapt(framework, local=None, url=remote.url)
    searched = adapt(framework, local=None, url=remote.url, mode="search", top_k=10)
    for question in QUESTIONS.values():
        assert asked.ids(question) == chunk_ids(cli_answers["ask", question]), question
        assert searched.ids(question) == chunk_ids(cli_answers["search", question]), question
    assert asyncio.run(asked.aids(QUESTIONS["overview"])) == asked.ids(QUESTIONS["overview"])


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_metadata_carries_place_provenance_and_decision(framework: str, local: Sectio) -> None:
    retriever = adapt(framework, local=local, url=None)
    (meta,) = retriever.metadata(QUESTIONS["section"])
    assert (meta["doc_id"], meta["section_key"], meta["part_index"]) == (
        "aspirin",
        "contraindications",
        0,
    )
    assert meta["source_refs"][0]["url"] == "https://example.org/aspirin"
    assert (meta["decision"], meta["route"]) == ("ANSWERABLE", "section")
    assert meta["trace_id"]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_an_abstained_answer_returns_nothing_and_says_why(framework: str, local: Sectio) -> None:
    retriever = adapt(framework, local=local, url=None)
    assert retriever.ids(QUESTIONS["abstain"]) == []
    last = retriever.last()
    assert last is not None and last.decision == "ABSTAIN" and last.reason


def test_haystack_component_runs_in_a_pipeline_and_round_trips(
    label_home: Any, cli_answers: CliAnswers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")  # home= reads the other settings from SECTIO_*
    comp = hs.SectioRetriever(home=str(label_home), tenant="acme", mode="ask")
    data = comp.to_dict()
    assert data["init_parameters"]["home"] == str(label_home)
    assert data["init_parameters"]["api_key"]["type"] == "env_var"  # a secret never as its value
    pipe = Pipeline()
    pipe.add_component("retriever", hs.SectioRetriever.from_dict(data))
    loaded = Pipeline.loads(pipe.dumps(), allowed_modules=["sectio.integrations.haystack"])
    out = loaded.run({"retriever": {"query": QUESTIONS["section"]}})["retriever"]
    assert [d.id for d in out["documents"]] == chunk_ids(cli_answers["ask", QUESTIONS["section"]])
    assert out["decision"] == "ANSWERABLE"


def test_sources_refuse_ambiguous_or_unsafe_arguments(local: Sectio) -> None:
    with pytest.raises(ConfigError, match="exactly one"):
        open_source()
    with pytest.raises(ConfigError, match="exactly one"):
        open_source(sectio=local, url="http://x")
    with pytest.raises(ConfigError, match="API key"):
        open_source(url="http://x", tenant="globex")
    with pytest.raises(ConfigError, match="not serialisable"):
        hs.SectioRetriever(sectio=local).to_dict()
    with pytest.raises(ConfigError, match="mode"):
        li.SectioRetriever(open_source(sectio=local), mode="guess")
