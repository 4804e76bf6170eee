"""The CLI of the foundation: ingest, info, search, snapshot, restore, demo; one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from tests.helpers import chunk, write_jsonl


def run(home: Path, *args: str, embedder: str = "fake") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SECTIO_HOME": str(home), "SECTIO_EMBEDDER": embedder}
    return subprocess.run(
        [sys.executable, "-m", "sectio.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def assert_one_line_error(proc: subprocess.CompletedProcess[str], needle: str) -> None:
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ") and needle in lines[0]
    assert "Traceback" not in proc.stderr


def test_ingest_info_search_json(tmp_path: Path, small_corpus: Path) -> None:
    home = tmp_path / "home"
    proc = run(home, "ingest", str(small_corpus), "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    for key in (
        "chunks_read",
        "upserted",
        "collection_count",
        "embeddings_computed",
        "embeddings_cached",
        "seconds",
    ):
        assert key in report
    assert report["chunks_read"] == report["collection_count"] == 5
    info = json.loads(run(home, "info", "--json").stdout)
    [coll] = info["collections"]
    assert coll["name"] == "default" and coll["count"] == 5
    assert coll["manifest"]["model_id"] == "fake-hash-bow"
    assert not (tmp_path / ".sectio").exists()  # nothing written outside SECTIO_HOME
    hits = json.loads(run(home, "search", "stomach bleeding", "--json", "--top-k", "2").stdout)
    assert hits["top_k"] == 2 and len(hits["hits"]) == 2
    first = hits["hits"][0]
    for key in ("chunk_id", "doc_id", "section_key", "part_index", "text", "score", "source_refs"):
        assert key in first


def test_refused_load_is_one_line_and_non_zero(tmp_path: Path, small_corpus: Path) -> None:
    home = tmp_path / "home"
    assert run(home, "ingest", str(small_corpus)).returncode == 0
    changed = write_jsonl(tmp_path / "changed.jsonl", [chunk("x", "s", 0, "other")])
    assert_one_line_error(run(home, "ingest", str(changed)), "corpus_sha256")
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"chunk_id": "a", "doc_id": "d"}])
    assert_one_line_error(
        run(home, "ingest", str(bad), "-c", "x"), "bad.jsonl:1: field section_key"
    )
    assert_one_line_error(
        run(home, "search", "q", "-c", "missing"), "no collection named 'missing'"
    )
    usage = run(home, "ingest")
    assert usage.returncode == 2 and len(usage.stderr.strip().splitlines()) == 1


def test_snapshot_restore_cli(tmp_path: Path, small_corpus: Path) -> None:
    home = tmp_path / "home"
    run(home, "ingest", str(small_corpus))
    snap = tmp_path / "s.tar"
    proc = run(home, "snapshot", str(snap), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["chunk_count"] == 5
    other = tmp_path / "other"
    proc = run(other, "restore", str(snap), "--collection", "copy", "--json")
    assert proc.returncode == 0, proc.stderr
    a = json.loads(run(home, "search", "diabetes", "--json").stdout)["hits"]
    b = json.loads(run(other, "search", "diabetes", "-c", "copy", "--json").stdout)["hits"]
    assert a and [h["chunk_id"] for h in a] == [h["chunk_id"] for h in b]
    assert_one_line_error(run(other, "restore", str(tmp_path / "none.tar")), "does not exist")


def test_every_command_has_help() -> None:
    from sectio.cli.base import cli

    for name, command in cli.commands.items():
        assert command.help, f"sectio {name} has no help text"


def test_json_and_collection_options_are_where_the_readme_says() -> None:
    """README: every command but the servers takes --json; all but those and the store
    commands --collection."""
    from sectio.cli.base import cli

    def takes(command: click.Command, option: str) -> bool:
        if isinstance(command, click.Group):  # a group: every one of its commands takes it
            return all(takes(sub, option) for sub in command.commands.values())
        return any(option in getattr(p, "opts", []) for p in command.params)

    def has(option: str) -> set[str]:
        return {name for name, command in cli.commands.items() if takes(command, option)}

    assert set(cli.commands) - has("--json") == {"serve", "mcp"}
    assert set(cli.commands) - has("--collection") == {
        "serve",
        "mcp",
        "migrate",
        "traces",
        "feedback",
        "purge",
    }


@pytest.mark.slow
def test_demo_runs_offline_with_the_real_model(tmp_path: Path) -> None:
    env_home = tmp_path / "home"
    env = {**os.environ, "SECTIO_HOME": str(env_home), "HF_HUB_OFFLINE": "0"}
    env.pop("SECTIO_EMBEDDER", None)
    proc = subprocess.run(
        [sys.executable, "-m", "sectio.cli", "demo", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["ingest"]["collection_count"] == data["ingest"]["chunks_read"] > 200
    first = data["searches"][0]
    assert first["hits"][0]["doc_id"] == "metformin"
    # the routed answer names the document and the section, whole and in order
    answer = data["answers"][0]
    assert (answer["resolved_doc_id"], answer["resolved_section_key"]) == (
        "metformin",
        "indications_and_usage",
    )
    assert answer["decision"] == "ANSWERABLE" and answer["route"] == "section"
    parts = [e["part_index"] for e in answer["evidence"]]
    assert parts == sorted(parts) and parts[0] == 0


def test_demo_prints_commands_that_run_as_printed(tmp_path: Path) -> None:
    """As ``make demo`` runs it: the venv's script off PATH, a one-command SECTIO_HOME."""
    script = Path(sys.executable).parent / "sectio"
    venv_bin = str(script.parent)
    path = os.pathsep.join(
        p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != venv_bin
    )
    shell = {k: v for k, v in os.environ.items() if not k.startswith("SECTIO_")}
    shell.update(PATH=path, SECTIO_EMBEDDER="fake")
    proc = subprocess.run(
        [str(script), "demo"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**shell, "SECTIO_HOME": ".sectio-demo"},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    printed = [line[2:] for line in lines if line.startswith("$ ")]
    steps = next(i for i, line in enumerate(lines) if line.startswith("Next steps"))
    printed += [line.strip() for line in lines[steps + 1 :]]
    assert len(printed) >= 10 and all(c.startswith("SECTIO_HOME=.sectio-demo ") for c in printed)
    for command in printed:
        ran = subprocess.run(
            ["bash", "-c", command],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=shell,
            timeout=120,
        )
        assert ran.returncode == 0, (command, ran.stderr)
        assert ran.stdout.strip() and not ran.stderr.strip(), (command, ran.stderr)
