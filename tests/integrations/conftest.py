"""Fixtures of the integration tests: a label corpus home, the CLI's answers, a real server."""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sectio import Sectio, Settings
from sectio.cli import main
from tests.helpers.servers import QUESTIONS, build_label_home, free_port, running, server_env

# haystack-ai sends usage telemetry (PostHog) unless told not to: never from the tests
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")

CliAnswers = dict[tuple[str, str], dict[str, Any]]


@pytest.fixture(scope="module")
def label_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with tenants acme and globex (built once per module, opened per test)."""
    return build_label_home(tmp_path_factory.mktemp("labels") / "home")


@pytest.fixture
def local(label_home: Path) -> Iterator[Sectio]:
    """A Sectio over ``label_home`` (closed after the test: one process owns the shard)."""
    s = Sectio(Settings(home=label_home, embedder="fake"), write_traces=True)
    yield s
    s.close()


def answers_of(home: Path) -> CliAnswers:
    """``sectio ask|search QUESTION --tenant acme --json`` over ``home`` for every question
    of :data:`QUESTIONS`: ``{(command, question): parsed stdout}`` (nothing else may hold
    the home open)."""
    answers: CliAnswers = {}
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SECTIO_HOME", str(home))
        env.setenv("SECTIO_EMBEDDER", "fake")
        for command in ("ask", "search"):
            for question in QUESTIONS.values():
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    assert main([command, question, "--tenant", "acme", "--json"]) == 0
                answers[command, question] = json.loads(out.getvalue())
    return answers


@pytest.fixture(scope="module")
def cli_answers(label_home: Path) -> CliAnswers:
    """The CLI's answers over ``label_home`` (:func:`answers_of`)."""
    return answers_of(label_home)


def chunk_ids(answer: dict[str, Any]) -> list[str]:
    """The chunk ids of a CLI answer (``evidence`` of ask, ``hits`` of search), in order."""
    return [e["chunk_id"] for e in answer.get("evidence", answer.get("hits", []))]


@dataclass(frozen=True)
class Remote:
    """A running ``sectio serve`` and the CLI's answers over its home, taken before it started
    (two ingests of one corpus may order equal-scoring hybrid hits differently)."""

    url: str
    answers: CliAnswers


@pytest.fixture(scope="session")
def remote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Remote]:
    """``sectio serve`` (keys: acme, globex) over its own copy of the label corpus."""
    home = build_label_home(tmp_path_factory.mktemp("served") / "home")
    answers = answers_of(home)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with running(["serve", "--port", str(port)], server_env(home), f"{url}/healthz"):
        yield Remote(url, answers)
