"""A sick operational store slows no one: reads off the engine thread, under the back-off.

The server reads a conversation's previous subject on a store lane of its own,
before the engine call; a store that is hung (a listener that never answers),
locked or down costs the conversation's own request one bounded wait, and
nobody else anything. Feedback and trace reads use the same lane. Errors name
no connection detail; a NUL in feedback is a 422, not a 500.

Real app (TestClient), real Qdrant Edge on tmp_path, the fake embedder, real
SQLite and PostgreSQL.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from sectio import Sectio, Settings
from sectio.api.app import create_app
from sectio.ops import OpsStore
from sectio.testing import closed_port, silent_server, throwaway_database
from tests.helpers import write_jsonl
from tests.helpers.api import ACME, GLOBEX, KEYS, label_rows

CONNECT_BOUND_S = 2.0  # libpq's floor for connect_timeout


@pytest.fixture(scope="module")
def labels_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("store-iso")
    rows = label_rows("acme") + label_rows("globex")
    with Sectio(Settings(home=root / "home", embedder="fake", traces=False)) as s:
        s.ingest(write_jsonl(root / "labels.jsonl", rows), profile="en_drug_label")
    return root / "home"


def _client(home: Path, **extra: Any) -> TestClient:
    settings = Settings(home=home, embedder="fake", api_keys=KEYS, **extra)
    return TestClient(create_app(settings))


def _timed_post(client: TestClient, path: str, body: dict[str, Any], headers: Any) -> Any:
    started = time.perf_counter()
    response = client.post(path, json=body, headers=headers)
    return time.perf_counter() - started, response


def _ask(conversation: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"query": "what are the contraindications of aspirin"}
    if conversation is not None:
        body["conversation_id"] = conversation
    return body


def _hung_conversation_leaves_others_alone(client: TestClient) -> None:
    """A conversation request waits on the store; the other tenant's request does not."""
    with ThreadPoolExecutor(2) as pool:
        slow = pool.submit(_timed_post, client, "/v1/retrieve", _ask("c-1"), ACME)
        time.sleep(0.3)  # the conversation's read is now waiting on the store
        other_s, other = _timed_post(client, "/v1/retrieve", _ask(), GLOBEX)
        slow_s, answered = slow.result()
    assert other.status_code == 200 and answered.status_code == 200
    assert other_s < 1.0, f"the other tenant waited {other_s:.2f}s on a store it does not use"
    assert slow_s < CONNECT_BOUND_S + 1.5
    body = answered.json()
    assert body["decision"] == "ANSWERABLE"
    assert body["details"]["conversation"] == {
        "previous_subject": "unavailable",
        "doc_id": None,
        "answered_as": "first_turn",
    }
    # marked down: the next conversation turn does not wait at all
    again_s, again = _timed_post(client, "/v1/retrieve", _ask("c-1"), ACME)
    assert again.status_code == 200 and again_s < 0.5
    assert again.json()["details"]["conversation"]["previous_subject"] == "unavailable"


def test_a_hung_store_stalls_only_the_conversation_that_reads_it(labels_home: Path) -> None:
    with silent_server() as port:
        url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/sectio"
        # traces off: only the conversation's read touches the store
        with _client(labels_home, database_url=url, traces=False) as client:
            _hung_conversation_leaves_others_alone(client)


def test_feedback_under_back_off_is_a_fast_503_that_names_no_connection(
    labels_home: Path,
) -> None:
    port = closed_port()
    url = f"postgresql+psycopg://sectio_user@127.0.0.1:{port}/secret_db"
    with _client(labels_home, database_url=url) as client:
        answer = client.post("/v1/retrieve", json=_ask("c-2"), headers=ACME)
        assert answer.status_code == 200 and answer.json()["trace_id"] is None
        elapsed, fb = _timed_post(
            client,
            "/v1/feedback",
            {"trace_id": "00000000-0000-0000-0000-000000000000", "rating": "helpful"},
            ACME,
        )
        trace = client.get("/v1/traces/00000000-0000-0000-0000-000000000000", headers=ACME)
    assert fb.status_code == 503 and elapsed < 0.5
    assert fb.headers["retry-after"] == "5"
    for response in (fb, trace):
        text = response.text
        assert response.status_code == 503
        for secret in ("sectio_user", "secret_db", str(port), "127.0.0.1", "postgresql"):
            assert secret not in text, text


def test_a_conversation_inherits_its_subject_through_the_store_lane(labels_home: Path) -> None:
    with _client(labels_home) as client:
        first = client.post("/v1/retrieve", json=_ask("c-3"), headers=ACME).json()
        assert first["trace_id"] is not None
        assert first["details"]["conversation"]["previous_subject"] == "none"
        follow = {"query": "what are the adverse reactions", "conversation_id": "c-3"}
        second = client.post("/v1/retrieve", json=follow, headers=ACME).json()
        # another tenant's conversation of the same id learns nothing of it
        foreign = client.post("/v1/retrieve", json=follow, headers=GLOBEX).json()
    assert second["details"]["conversation"] == {"previous_subject": "found", "doc_id": "aspirin"}
    assert second["resolved_doc_id"] == "aspirin"
    assert foreign["details"]["conversation"]["previous_subject"] == "none"


def test_background_probe_lifts_the_back_off_without_a_request_waiting(tmp_path: Path) -> None:
    store = OpsStore(f"sqlite:///{tmp_path / 'ops.sqlite3'}", auto_migrate=True, retry_after_s=0)
    store.background_probe = True
    store.mark_down()
    assert store.may_try() is False  # the back-off is over: a probe starts, the call skips
    deadline = time.monotonic() + 5
    while store.is_down() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert store.may_try() is True
    store.close()


def test_background_probe_keeps_a_dead_store_down(tmp_path: Path) -> None:
    url = f"postgresql+psycopg://postgres@127.0.0.1:{closed_port()}/x"
    store = OpsStore(url, retry_after_s=0.2)
    store.background_probe = True
    store.mark_down()
    time.sleep(0.25)
    assert store.may_try() is False
    assert store.probe() is False and store.is_down()


@pytest.fixture
def pg_url() -> Iterator[str]:
    with throwaway_database() as url:
        yield url


@pytest.mark.postgres
def test_a_locked_conversation_table_stalls_no_other_tenant(labels_home: Path, pg_url: str) -> None:
    OpsStore(pg_url).migrate()
    locker = sa.create_engine(pg_url, poolclass=sa.NullPool)
    with _client(labels_home, database_url=pg_url, db_statement_timeout_s=1.0) as client:
        assert client.post("/v1/retrieve", json=_ask(), headers=GLOBEX).json()["trace_id"]
        with locker.connect() as conn:
            tx = conn.begin()
            conn.exec_driver_sql("LOCK TABLE conversation_turn IN ACCESS EXCLUSIVE MODE")
            try:
                with ThreadPoolExecutor(2) as pool:
                    slow = pool.submit(_timed_post, client, "/v1/retrieve", _ask("c-4"), ACME)
                    time.sleep(0.3)
                    other_s, other = _timed_post(client, "/v1/search", {"query": "x"}, GLOBEX)
                    slow_s, answered = slow.result()
            finally:
                tx.rollback()
    locker.dispose()
    assert other.status_code == 200 and other_s < 0.8
    assert answered.status_code == 200 and slow_s < 2.5
    assert answered.json()["details"]["conversation"]["answered_as"] == "first_turn"


@pytest.mark.postgres
@pytest.mark.parametrize(
    "body",
    [
        {"rating": "helpful", "comment": "a\u0000"},
        {"rating": "helpful", "conversation_id": "c\u0000"},
    ],
)
def test_a_nul_in_feedback_is_a_422_on_postgres(
    labels_home: Path, pg_url: str, body: dict[str, Any]
) -> None:
    OpsStore(pg_url).migrate()
    with _client(labels_home, database_url=pg_url) as client:
        trace_id = client.post("/v1/retrieve", json=_ask(), headers=ACME).json()["trace_id"]
        assert trace_id
        response = client.post("/v1/feedback", json={"trace_id": trace_id, **body}, headers=ACME)
        assert response.status_code == 422, response.text
        assert "postgres" not in response.text and "127.0.0.1" not in response.text
        ok = client.post(
            "/v1/feedback", json={"trace_id": trace_id, "rating": "helpful"}, headers=ACME
        )
        assert ok.status_code == 200  # nothing lost: the trace still takes feedback


@pytest.mark.postgres
def test_the_store_refuses_a_nul_with_invalid_input(pg_url: str) -> None:
    from sectio.ops import InvalidInput

    store = OpsStore(pg_url, auto_migrate=True)
    with pytest.raises(InvalidInput, match="NUL"):
        store.submit_feedback(
            "00000000-0000-0000-0000-000000000000", "helpful", tenant="t", comment="a\x00"
        )
    with pytest.raises(InvalidInput, match="NUL"):
        store.previous_subject("c\x00", tenant="t")
    store.close()
