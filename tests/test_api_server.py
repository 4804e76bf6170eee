"""The HTTP service for real: uvicorn on loopback, schemathesis, headless Chromium."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from sectio import Sectio, Settings
from sectio.api import create_app
from tests.helpers import chunk, write_jsonl
from tests.helpers.api import KEYS, label_rows


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build_home(home: Path, tmp: Path) -> None:
    corpus = write_jsonl(tmp / "labels.jsonl", label_rows("acme") + label_rows("globex"))
    with Sectio(Settings(home=home, embedder="fake")) as s:
        s.ingest(corpus, profile="en_drug_label")


ZOO_QUERY = "the of and zebra"


def build_zoo(home: Path, tmp: Path) -> None:
    """Collection ``zoo`` (tenant acme) where hybrid search has BM25-only hits: the fake
    embedder counts stopwords, so 60 stopword-heavy chunks fill the dense pool (50) and
    the zebra chunks are found by BM25 alone."""
    rows = [
        {**chunk(f"s{i}", "body", 0, "the of and " * (1 + i % 5) + f"filler{i}"), "tenant": "acme"}
        for i in range(60)
    ]
    rows.append({**chunk("zebra", "body", 0, "zebra stripes on the savanna"), "tenant": "acme"})
    with Sectio(Settings(home=home, embedder="fake")) as s:
        s.ingest(write_jsonl(tmp / "zoo.jsonl", rows), collection="zoo")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``sectio serve`` in a subprocess on a free loopback port."""
    tmp = tmp_path_factory.mktemp("srv")
    home = tmp / "home"
    build_home(home, tmp)
    build_zoo(home, tmp)
    port = free_port()
    env = {
        **os.environ,
        "SECTIO_HOME": str(home),
        "SECTIO_EMBEDDER": "fake",
        "SECTIO_API_KEYS": KEYS,
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "sectio.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None:
                raise RuntimeError(f"server exited: {proc.stderr.read() if proc.stderr else ''}")
            time.sleep(0.1)
        else:
            raise RuntimeError("server did not become ready")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_real_uvicorn_serves_search_and_logs_json(server: str) -> None:
    resp = httpx.post(
        f"{server}/v1/search",
        json={"query": "aspirin bleeding"},
        headers={"Authorization": "Bearer key-acme", "X-Request-ID": "real-1"},
    )
    assert resp.status_code == 200
    assert resp.headers["x-request-id"] == "real-1"
    assert {h["tenant"] for h in resp.json()["hits"]} == {"acme"}
    assert httpx.get(f"{server}/metrics").status_code == 200


def test_serve_refuses_public_bind_without_keys(tmp_path: Path) -> None:
    env = {**os.environ, "SECTIO_HOME": str(tmp_path / "h"), "SECTIO_EMBEDDER": "fake"}
    env.pop("SECTIO_API_KEYS", None)
    proc = subprocess.run(
        [sys.executable, "-m", "sectio.cli", "serve", "--host", "0.0.0.0", "--port", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().startswith("error: no API keys configured")
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp("fuzz")
    home = tmp / "home"
    build_home(home, tmp)
    return create_app(Settings(home=home, embedder="fake"))


def test_openapi_fuzz_no_server_errors(fuzz_app) -> None:  # type: ignore[no-untyped-def]
    """schemathesis against /openapi.json: no input, however malformed, gets a 5xx."""
    from fastapi.testclient import TestClient
    from hypothesis import given
    from schemathesis.checks import not_a_server_error

    schema = schemathesis.openapi.from_asgi("/openapi.json", fuzz_app)
    with TestClient(fuzz_app):  # runs the lifespan (readiness) around the fuzzing
        operations = [r.ok() for r in schema.get_all_operations()]
        assert len(operations) >= 10
        for operation in operations:

            @given(case=operation.as_strategy())
            @settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
            def fuzz(case) -> None:  # type: ignore[no-untyped-def]
                case.call_and_validate(checks=[not_a_server_error])

            fuzz()


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"), reason="Debian chromium not installed"
)
def test_playground_end_to_end_in_headless_chromium(server: str, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    assert CHROMIUM, "CI must install Debian's chromium (.ci/run does)"
    shot = tmp_path / "playground.png"
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        page = browser.new_page()
        page.goto(server + "/")
        page.fill("#apikey", "key-acme")
        page.dispatch_event("#apikey", "change")
        page.wait_for_function("document.querySelector('#collection').options.length > 0")
        page.fill("#query", "what are the contraindications of aspirin")
        page.click("#go")
        page.wait_for_selector("#decision")
        assert page.inner_text("#decision") == "ANSWERABLE"
        assert page.inner_text("#route") == "section"
        assert page.inner_text("#section") == "contraindications"
        page.fill("#query", "aspirin contraindications and side effects")  # two sections
        page.click("#go")
        page.wait_for_function(
            "document.querySelector('#section').textContent.includes('+')", timeout=10_000
        )
        assert page.inner_text("#section") == "contraindications + adverse_reactions"
        page.fill("#query", "what are the contraindications of aspirin")
        page.click("#go")
        page.wait_for_function(
            "document.querySelector('#section').textContent === 'contraindications'"
        )
        evidence = page.locator(".ev")
        assert evidence.count() >= 1
        assert "bleeding disorder" in evidence.first.inner_text()
        assert "label" in evidence.first.inner_text()  # provenance shown
        page.click("#helpful")
        page.wait_for_function("document.querySelector('#fbstatus').textContent.length > 0")
        assert page.inner_text("#fbstatus") == "saved: helpful"
        page.screenshot(path=str(shot), full_page=True)
        browser.close()
    assert shot.stat().st_size > 10_000


@contextlib.contextmanager
def zoo_page(server: str) -> Iterator[Any]:
    """The playground in headless Chromium, tenant acme's key set, collection ``zoo``."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM, "CI must install Debian's chromium (.ci/run does)"
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page()
        page.goto(server + "/")
        page.fill("#apikey", "key-acme")
        page.dispatch_event("#apikey", "change")
        page.wait_for_function("document.querySelector('#collection').options.length > 1")
        page.select_option("#collection", "zoo")
        try:
            yield page
        finally:
            browser.close()


@pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"), reason="Debian chromium not installed"
)
def test_playground_explains_an_abstention_as_the_cli_does(server: str) -> None:
    """An ABSTAIN in the playground names its rule and its words for what they are (an
    unknown name: not in the collection), as ``sectio ask`` writes them."""
    with zoo_page(server) as page:
        page.fill("#query", "where do Okapis live?")
        page.click("#go")
        page.wait_for_selector("#why")
        decision, why = page.inner_text("#decision"), page.inner_text("#why")
        rule, words = page.inner_text("#why-rule"), page.inner_text("#why-words")
    assert (decision, rule, words) == ("ABSTAIN", "unknown_name", "okapis")
    assert "not in the collection: okapis" in why


def _shown(place: dict[str, Any] | None, fusion: bool) -> str:
    """How the playground writes one list's place (see ``renderScores`` in index.html)."""
    if place is None:
        return "-"
    return f"{place['score']:.3f}" + ("" if fusion else f" #{place['rank']}")


@pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"), reason="Debian chromium not installed"
)
def test_playground_shows_what_ranked_each_search_hit(server: str) -> None:
    """Hybrid search in the playground: each hit shows the fusion value, its cosine and
    BM25 with their ranks ('-' where it was not a candidate), as the API answered the page."""
    with zoo_page(server) as page:
        page.select_option("#mode", "hybrid")
        page.fill("#query", ZOO_QUERY)
        with page.expect_response("**/v1/search") as response:
            page.click("#go")
        hits = response.value.json()["hits"]
        page.wait_for_selector(".ev")
        shown = page.eval_on_selector_all(
            ".ev",
            """els => els.map(e => ({
                chunk: e.dataset.chunk,
                rank: e.querySelector('.meta').textContent.trim().split(' ')[0],
                lists: Object.fromEntries([...e.querySelectorAll('.score')].map(
                    s => [s.dataset.list, s.textContent]))
            }))""",
        )
    assert [s["chunk"] for s in shown] == [h["chunk_id"] for h in hits]
    assert [s["rank"] for s in shown] == [f"#{i}" for i in range(1, len(hits) + 1)]
    titles = {"fusion": "fusion", "dense": "cosine", "bm25": "bm25"}
    for seen, hit in zip(shown, hits, strict=True):
        assert seen["lists"] == {
            name: f"{title} {_shown(hit['scores'][name], name == 'fusion')}"
            for name, title in titles.items()
        }
    zebra = next(s for s, h in zip(shown, hits, strict=True) if h["doc_id"] == "zebra")
    assert zebra["lists"]["dense"] == "cosine -"  # BM25 alone found it
    assert zebra["lists"]["bm25"].startswith("bm25 ") and zebra["lists"]["bm25"].endswith(" #1")


@pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"), reason="Debian chromium not installed"
)
def test_docs_render_offline_and_authorize_in_headless_chromium(server: str) -> None:
    """``/docs`` with every request off loopback refused: Swagger UI renders, Authorize works."""
    from playwright.sync_api import Route, sync_playwright

    assert CHROMIUM, "CI must install Debian's chromium (.ci/run does)"
    outside: list[str] = []

    def only_loopback(route: Route) -> None:
        if route.request.url.startswith(server):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page()
        page.route("**/*", only_loopback)
        page.goto(server + "/docs")
        page.wait_for_selector(".swagger-ui .info .title", timeout=30_000)
        assert "sectio" in page.inner_text(".swagger-ui .info .title")
        page.click("button.authorize")
        page.fill(".auth-container input", "key-acme")
        page.click(".auth-btn-wrapper button.authorize")
        page.click("button.btn-done")
        page.click("#operations-collections-collections_v1_collections_get .opblock-summary")
        page.click("button.try-out__btn")
        page.click("button.execute")
        page.wait_for_selector(
            ".live-responses-table tr.response .response-col_status", timeout=30_000
        )
        assert (
            page.inner_text(".live-responses-table tr.response .response-col_status").strip()
            == "200"
        )
        browser.close()
    assert outside == []
