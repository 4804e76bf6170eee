"""Writes from another process while a real ``sectio serve`` holds the edge collection.

The CLI sends them to the server (its admin endpoints, with ``SECTIO_ADMIN_KEY``):
upsert, delete, ``--sync``, a tenant addition and a one-tenant ``--replace`` all
work while it serves, and the server answers the change at once (no restart, no
503). A server started over an interrupted write settles it first.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import httpx

from tests.helpers import write_jsonl
from tests.helpers.api import ACME, GLOBEX, KEYS, label_rows
from tests.helpers.servers import build_label_home, free_port, running, server_env
from tests.test_faults import one_line_error, run

KEYS_ADMIN = KEYS + ",key-acme-admin:acme:admin,key-newco:newco:admin"
HEPARIN = {
    "chunk_id": "acme:heparin#contraindications#0",
    "doc_id": "heparin",
    "doc_title": "Heparin",
    "section_key": "contraindications",
    "part_index": 0,
    "text": "Do not use heparin in patients with severe thrombocytopenia.",
    "tenant": "acme",
    "source_refs": [{"source": "label"}],
}


def write(home: Path, key: str, *args: str) -> dict[str, Any]:
    proc = run(home, *args, "--json", SECTIO_API_KEYS=KEYS_ADMIN, SECTIO_ADMIN_KEY=key)
    assert proc.returncode == 0, proc.stderr
    return dict(json.loads(proc.stdout))


def found(url: str, headers: dict[str, str], query: str) -> list[str]:
    body = {"query": query, "top_k": 20, "mode": "lexical"}
    resp = httpx.post(f"{url}/v1/search", json=body, headers=headers, timeout=30)
    assert resp.status_code == 200, resp.text
    return [h["doc_id"] for h in resp.json()["hits"]]


def ready(url: str) -> dict[str, Any]:
    resp = httpx.get(f"{url}/readyz", timeout=30)
    assert resp.status_code == 200, resp.text
    return dict(resp.json())


def test_cli_writes_go_through_the_running_server(tmp_path: Path) -> None:
    home = build_label_home(tmp_path / "home")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = server_env(home, SECTIO_API_KEYS=KEYS_ADMIN)
    src = write_jsonl(tmp_path / "heparin.jsonl", [HEPARIN])
    with running(["serve", "--port", str(port)], env, f"{url}/readyz"):
        report = write(home, "key-acme-admin", "upsert", str(src))
        assert report["added"] == ["heparin"] and report["tenant"] == "acme"
        assert found(url, ACME, "thrombocytopenia") == ["heparin"]
        assert found(url, GLOBEX, "thrombocytopenia") == []
        assert write(home, "key-acme-admin", "delete", "--doc", "aspirin")["deleted"] == ["aspirin"]
        assert "aspirin" not in found(url, ACME, "aspirin")
        assert "aspirin" in found(url, GLOBEX, "aspirin")
        acme = write_jsonl(tmp_path / "acme.jsonl", label_rows("acme"))
        synced = write(home, "key-acme-admin", "ingest", str(acme), "--sync")
        assert synced["added"] == ["aspirin"] and synced["deleted"] == ["heparin"]
        # a read key may not write: one line, nothing changed
        refused = run(
            home, "upsert", str(src), SECTIO_API_KEYS=KEYS_ADMIN, SECTIO_ADMIN_KEY="key-acme"
        )
        one_line_error(refused, "admin key")
        assert found(url, ACME, "thrombocytopenia") == []
        assert ready(url)["ready"]


def test_tenant_addition_and_one_tenant_replace_while_serving(tmp_path: Path) -> None:
    home = build_label_home(tmp_path / "home")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = server_env(home, SECTIO_API_KEYS=KEYS_ADMIN)
    newco = [{**r, "tenant": "newco", "chunk_id": "newco:" + r["chunk_id"]} for r in [HEPARIN]]
    with running(["serve", "--port", str(port)], env, f"{url}/readyz"):
        added = write(home, "key-newco", "ingest", str(write_jsonl(tmp_path / "n.jsonl", newco)))
        assert added["added"] == ["heparin"] and added["tenant"] == "newco"
        assert found(url, {"Authorization": "Bearer key-newco"}, "thrombocytopenia") == ["heparin"]
        one = write_jsonl(tmp_path / "one.jsonl", label_rows("acme")[:1])
        replaced = write(home, "key-acme-admin", "ingest", str(one), "--replace")
        assert replaced["action"] == "replace"
        detail = httpx.get(f"{url}/v1/collections/default", headers=ACME, timeout=30).json()
        assert detail["count"] == 1
        globex = httpx.get(f"{url}/v1/collections/default", headers=GLOBEX, timeout=30).json()
        assert globex["count"] == len(label_rows("globex"))
        assert ready(url)["ready"]


def test_serve_settles_an_interrupted_write_at_start_up(tmp_path: Path) -> None:
    home = build_label_home(tmp_path / "home")
    src = write_jsonl(tmp_path / "heparin.jsonl", [HEPARIN])
    killed = run(home, "upsert", str(src), SECTIO_FAULT_POINT="lifecycle.points.upserted")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert list(home.glob("collections/default/*/JOURNAL.json"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with running(["serve", "--port", str(port)], server_env(home), f"{url}/readyz"):
        body = ready(url)
        assert body["ready"] and "tenants_not_ready" not in body["collections"]["default"]
        assert found(url, ACME, "thrombocytopenia") == ["heparin"]
    assert not list(home.glob("collections/default/*/JOURNAL.json"))
