"""The thin facade: a front door's ``AskRequest`` reaches the pipeline as it is, and every
read (ask, search, lookup) goes through one wrapper that scopes, spans and traces it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sectio import Sectio, Settings
from sectio.contract.request import AskRequest
from sectio.contract.result import RetrievalResult
from tests.helpers import write_jsonl
from tests.helpers.api import label_rows


@pytest.fixture
def sx(tmp_path: Path) -> Iterator[Sectio]:
    with Sectio(Settings(home=tmp_path / "home", embedder="fake")) as s:
        s.ingest(write_jsonl(tmp_path / "l.jsonl", label_rows("default")), profile="en_drug_label")
        yield s


def _plain(result: RetrievalResult) -> dict[str, Any]:
    return result.model_dump(mode="json", exclude={"trace_id", "timings_ms"})


def test_answer_takes_the_front_doors_request_unchanged(
    sx: Sectio, monkeypatch: pytest.MonkeyPatch
) -> None:
    request = AskRequest.of("who should not take aspirin", turn_type="free_form", top_k=2)
    router = sx.router("default")
    seen: list[AskRequest] = []
    answer = router.answer

    def observed(r: AskRequest, tenant: str) -> RetrievalResult:
        seen.append(r)
        return answer(r, tenant=tenant)

    monkeypatch.setattr(router, "answer", observed)
    got = sx.answer(request, record=False)
    assert seen == [request] and seen[0] is request
    asked = sx.ask("who should not take aspirin", turn_type="free_form", top_k=2, record=False)
    assert _plain(got) == _plain(asked) and got.route == "free_form"


def test_every_read_is_traced_by_the_one_wrapper(sx: Sectio) -> None:
    ask = sx.ask("who should not take aspirin", record=True)
    found = sx.lookup("pain", record=True)
    hits = sx.search("bleeding", record=True)
    for kind, result in (("ask", ask), ("lookup", found), ("search", hits)):
        assert result.trace_id, kind
        trace = sx.ops.trace(result.trace_id, tenant="default")
        assert trace is not None and trace["tenant"] == "default", kind
    assert sx.ops.trace(str(ask.trace_id), tenant="default")["route"] == ask.route  # type: ignore[index]
    unrecorded = sx.ask("who should not take aspirin", record=False)
    assert unrecorded.trace_id is None


def test_one_name_one_thing() -> None:
    """The names that meant two things are renamed; the former names still import."""
    from sectio import ops, plan
    from sectio.retrieve import pipeline
    from sectio.retrieve.routes import base

    assert plan.DocsIntent is not base.Route and plan.Route is plan.DocsIntent
    assert ops.ConversationTurn is not base.Turn and ops.Turn is ops.ConversationTurn
    assert pipeline.Router is pipeline.Pipeline
    root = Path(__file__).resolve().parents[1] / "src" / "sectio"
    assert not (root / "plan" / "policy.py").exists() and (root / "retrieve" / "policy.py").exists()
