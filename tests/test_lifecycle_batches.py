"""A write the CLI forwards to ``sectio serve`` must fit one body (SECTIO_ADMIN_MAX_BODY_BYTES).

An upsert over it is sent in batches of whole documents (each document is old or new
at every moment); a sync, a one-tenant replace or a tenant's first ``ingest`` need
one request: over the cap they are refused here in one line naming the setting, and
nothing is sent. A real ``sectio serve`` subprocess with a small cap takes the batches.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from sectio.cli.commands.documents import BODY_MARGIN, record_batches
from sectio.errors import ContractError
from tests.helpers import chunk, write_jsonl
from tests.helpers.api import ACME, GLOBEX
from tests.helpers.servers import build_label_home, free_port, running, server_env
from tests.test_faults import one_line_error, run
from tests.test_lifecycle_serve import KEYS_ADMIN

CAP = 4096


def rows(n: int, parts: int = 2, tenant: str = "acme") -> list[dict[str, Any]]:
    """``n`` documents of ``parts`` chunks each (about 200 bytes a chunk)."""
    out = []
    for i in range(n):
        for p in range(parts):
            text = f"Monograph {i} part {p}: thrombocytopenia warning, " + "dose note " * 8
            row = chunk(f"acme:drug{i}", "warnings", p, text, tenant=tenant)
            out.append({**row, "doc_id": f"drug{i}"})
    return out


def test_records_over_the_cap_are_batched_by_whole_documents() -> None:
    data = rows(30)
    assert record_batches(data, 16 * 1024 * 1024, "upsert", "default", split=True) == [data]
    batches = record_batches(data, CAP, "upsert", "default", split=True)
    assert len(batches) > 1 and [r for b in batches for r in b] == data  # order kept
    docs_seen: list[set[str]] = [{r["doc_id"] for r in b} for b in batches]
    for i, one in enumerate(docs_seen):  # a document never spans two batches
        assert all(not one & other for other in docs_seen[i + 1 :])
    for batch in batches:
        body = json.dumps({"records": batch, "collection": "default"})
        assert len(body.encode()) <= CAP - BODY_MARGIN + 64


def test_records_that_cannot_be_split_are_refused_naming_the_setting() -> None:
    data = rows(30)
    for action in ("sync", "replace"):
        with pytest.raises(ContractError, match=r"SECTIO_ADMIN_MAX_BODY_BYTES \(4096\)"):
            record_batches(data, CAP, action, "default", split=False)
    big = rows(1, parts=30)
    with pytest.raises(ContractError, match="document 'drug0' takes .* over SECTIO_ADMIN_MAX"):
        record_batches(big, CAP, "upsert", "default", split=True)


def count(url: str, headers: dict[str, str]) -> int:
    resp = httpx.get(f"{url}/v1/collections/default", headers=headers, timeout=30)
    assert resp.status_code == 200, resp.text
    return int(resp.json()["count"])


def test_cli_upsert_over_the_cap_reaches_a_real_server_in_batches(tmp_path: Path) -> None:
    home = build_label_home(tmp_path / "home")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cap = {"SECTIO_ADMIN_MAX_BODY_BYTES": str(CAP), "SECTIO_API_KEYS": KEYS_ADMIN}
    data = rows(20)
    assert len(json.dumps({"records": data})) > CAP  # one request would be refused (413)
    src = write_jsonl(tmp_path / "many.jsonl", data)
    with running(["serve", "--port", str(port)], server_env(home, **cap), f"{url}/readyz"):
        before, theirs = count(url, ACME), count(url, GLOBEX)
        env = {**cap, "SECTIO_ADMIN_KEY": "key-acme-admin"}
        proc = run(home, "upsert", str(src), "--json", **env)
        assert proc.returncode == 0, proc.stderr
        report = json.loads(proc.stdout)
        assert report["added"] == sorted(f"drug{i}" for i in range(20))
        assert (report["upserted"], report["collection_count"]) == (40, before + theirs + 40)
        assert count(url, ACME) == before + 40
        assert count(url, GLOBEX) == theirs  # the other tenant untouched
        again = json.loads(run(home, "upsert", str(src), "--json", **env).stdout)
        assert again["counts"]["unchanged"] == 20 and again["upserted"] == 0
        # a sync of the same records is one request: refused here, nothing changed
        refused = run(home, "ingest", str(src), "--sync", **env)
        one_line_error(refused, "SECTIO_ADMIN_MAX_BODY_BYTES", "one request")
        assert count(url, ACME) == before + 40
        # a tenant not held yet: the first batch loads it, the next ones upsert into it
        newco = [{**r, "tenant": "newco", "chunk_id": "newco:" + r["chunk_id"]} for r in rows(12)]
        joined = run(
            home, "upsert", str(write_jsonl(tmp_path / "newco.jsonl", newco)), "--json",
            **{**cap, "SECTIO_ADMIN_KEY": "key-newco"},
        )  # fmt: skip
        assert joined.returncode == 0, joined.stderr
        assert len(json.loads(joined.stdout)["added"]) == 12
        assert count(url, {"Authorization": "Bearer key-newco"}) == 24
        body = httpx.get(f"{url}/readyz", timeout=30).json()
        assert body["ready"] and "tenants_not_ready" not in body["collections"]["default"]
