"""``sectio migrate``, ``feedback``, ``purge``, ``traces``: output, ``--json``, one-line errors.

Run in-process through :func:`sectio.cli.main` (the same error handling as the
installed command) against SQLite and PostgreSQL; one subprocess run checks
the real entry point.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from sectio.cli import main
from sectio.contract.result import RetrievalResult
from sectio.ops import OpsStore, head_revision, utc_now
from sectio.testing import FakeClock, throwaway_database

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'cli.sqlite3'}"
        return
    with throwaway_database() as url:
        yield url


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db_url: str) -> str:
    monkeypatch.setenv("SECTIO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SECTIO_DATABASE_URL", db_url)
    for name in ("SECTIO_RETENTION_DAYS", "SECTIO_AUTO_MIGRATE", "SECTIO_TRACE_QUERY_TEXT"):
        monkeypatch.delenv(name, raising=False)
    return db_url


def sectio(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line_error(err: str, needle: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and needle in lines[0], err
    assert "Traceback" not in err


def trace(url: str, tenant: str = "default", query: str = "aspirin dose", **kw: Any) -> str:
    store = OpsStore(url, **kw)
    tid = store.record_trace(
        "ask",
        RetrievalResult(
            query=query,
            collection="default",
            tenant=tenant,
            decision="ANSWERABLE",
            reason="ok",
            route="section",
        ),
    )
    store.close()
    return tid


def test_migrate_is_idempotent(env: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = sectio(capsys, "migrate", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["from_revision"] is None and report["applied"] == [head_revision()]
    assert "password" not in out
    code, out, _ = sectio(capsys, "migrate")
    assert code == 0 and f"already at {head_revision()}" in out


def test_commands_on_an_unmigrated_store_say_so(
    env: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = sectio(capsys, "traces")
    assert code == 1
    one_line_error(err, "run `sectio migrate`")


def test_feedback_then_traces(env: str, capsys: pytest.CaptureFixture[str]) -> None:
    sectio(capsys, "migrate")
    tid = trace(env)
    code, out, err = sectio(capsys, "feedback", tid, "helpful", "--comment", "spot on", "--json")
    assert code == 0, err
    first = json.loads(out)
    assert first["rating"] == "helpful" and first["comment"] == "spot on"
    assert first["updated"] is False and first["tenant"] == "default"
    code, out, _ = sectio(capsys, "feedback", tid, "not_helpful")
    assert code == 0 and out.strip() == f"updated not_helpful for trace {tid}"
    code, out, _ = sectio(capsys, "traces", "--json", "--limit", "5")
    [row] = json.loads(out)
    assert row["trace_id"] == tid and row["decision"] == "ANSWERABLE"
    assert row["rating"] == "not_helpful"
    code, out, _ = sectio(capsys, "traces")
    assert code == 0 and tid in out and "not_helpful" in out and "aspirin dose" in out


def test_feedback_errors_are_one_line(env: str, capsys: pytest.CaptureFixture[str]) -> None:
    sectio(capsys, "migrate")
    tid = trace(env, tenant="acme")
    code, _, err = sectio(capsys, "feedback", "0" * 32, "helpful")
    assert code == 1
    one_line_error(err, "no trace")
    code, _, err = sectio(capsys, "feedback", tid, "helpful")  # tenant default: not theirs
    assert code == 1
    one_line_error(err, "no trace")
    code, _, err = sectio(capsys, "feedback", tid, "helpful", "--tenant", "acme", "-x")
    assert code == 2
    one_line_error(err, "-x")
    code, _, err = sectio(capsys, "feedback", tid, "meh", "--tenant", "acme")
    assert code == 2
    one_line_error(err, "'meh' is not one of")
    code, _, err = sectio(
        capsys, "feedback", tid, "helpful", "--tenant", "acme", "--comment", "y" * 2001
    )
    assert code == 1
    one_line_error(err, "at most 2000")
    code, out, _ = sectio(capsys, "traces", "--json")
    assert json.loads(out)[0]["rating"] is None  # nothing stored


def test_purge(
    env: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sectio(capsys, "migrate")
    old_clock = FakeClock(utc_now() - timedelta(days=40))
    old = trace(env, clock=old_clock)
    sectio(capsys, "feedback", old, "helpful")
    recent = trace(env)
    code, out, err = sectio(capsys, "purge", "--older-than", "30", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert (report["traces"], report["turns"], report["feedback"]) == (1, 0, 1)
    code, out, _ = sectio(capsys, "traces", "--json")
    assert [r["trace_id"] for r in json.loads(out)] == [recent]

    store = OpsStore(env)
    store.record_trace(
        "ask",
        RetrievalResult(
            query="q", collection="default", tenant="default", decision="ABSTAIN",
            reason="r", route="free_form",
        ),
        conversation_id="conv-7",
    )  # fmt: skip
    store.close()
    code, out, _ = sectio(capsys, "purge", "--conversation", "conv-7")
    assert code == 0
    assert out.strip() == "deleted 1 trace(s), 2 turn(s), 0 feedback (conversation conv-7)"

    code, _, err = sectio(capsys, "purge", "--auto")
    assert code == 1
    one_line_error(err, "SECTIO_RETENTION_DAYS")
    monkeypatch.setenv("SECTIO_RETENTION_DAYS", "7")
    code, out, _ = sectio(capsys, "purge", "--auto", "--json")
    assert code == 0 and json.loads(out)["scope"] == "retention"

    for args, needle in (
        ((), "exactly one"),
        (("--older-than", "3", "--auto"), "exactly one"),
        (("--older-than", "-1"), "--older-than"),
        (("--older-than", "3", "--tenant", "x"), "--tenant"),
    ):
        code, _, err = sectio(capsys, "purge", *args)
        assert code == 2, args
        one_line_error(err, needle)


def test_the_installed_command_reports_one_line(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "SECTIO_HOME": str(tmp_path / "home"),
        "SECTIO_DATABASE_URL": "postgresql+psycopg://nobody:s3cret@127.0.0.1:1/none",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "sectio.cli", "traces"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 1
    one_line_error(proc.stderr, "unavailable")
    assert "s3cret" not in proc.stderr


def test_default_store_lives_under_sectio_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SECTIO_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("SECTIO_DATABASE_URL", raising=False)
    code, out, _ = sectio(capsys, "traces")  # the SQLite default migrates itself
    assert code == 0 and out.strip() == "no traces"
    assert (tmp_path / "home" / "sectio.sqlite3").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]
