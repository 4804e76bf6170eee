"""``Sectio.ask`` / ``sectio ask``: decisions, tenant isolation on every route, CLI, hooks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sectio import Sectio, Settings
from sectio.cli import main
from sectio.cli.base import cli
from sectio.cli.commands.ask import abstention_lines
from sectio.contract.diagnostics import Diagnostics
from sectio.contract.result import Evidence
from sectio.errors import ConfigError
from sectio.retrieve.decision import decide
from sectio.retrieve.pipeline import Router
from tests.helpers import chunk
from tests.helpers.route_corpora import en_rows, write

IND, CON, WARN = "indications_and_usage", "contraindications", "warnings_and_cautions"


def tenant_rows() -> list[dict[str, Any]]:
    """Tenant "a" sees the usual labels; tenant "b" has its own drug, Secretol."""
    secret = {"doc_title": "Secretol", "aliases": ["Hushol"], "tenant": "b"}
    rows = en_rows("a")
    for section in (IND, CON, WARN, "drug_interactions", "adverse_reactions"):
        row = chunk(
            "secretol", section, 0, f"Secretol {section} text: metformin hypertension.", **secret
        )
        rows.append(row)
    rows += [
        chunk("quarantol", CON, 0, "Do not use in asthma.", doc_title="Quarantol", tenant="a"),
        chunk(
            "quarantol",
            CON,
            1,
            "Table described from a scanned page.",
            doc_title="Quarantol",
            tenant="a",
            has_quarantined_content=True,
        ),
        chunk(
            "visol",
            WARN,
            0,
            "See the figure.",
            doc_title="Visol",
            tenant="a",
            requires_visual_check=True,
        ),
        chunk("noprov", CON, 0, "No source for this one.", doc_title="Noprov", tenant="a")
        | {"source_refs": []},
    ]
    return rows


@pytest.fixture(scope="module")
def sx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sectio]:
    tmp = tmp_path_factory.mktemp("ask")
    s = Sectio(Settings(home=tmp / "home", embedder="fake", traces=False))
    s.ingest(write(tmp, "t", tenant_rows()), profile="en_drug_label", collection="t")
    yield s
    s.close()


def loose(sx: Sectio) -> Router:
    """The collection's router with no similarity floor (the fake embedder scores low)."""
    base = sx.router("t")
    return Router(
        base.collection, sx.embedder, policy=base.policy.with_overrides(minimum_score=0.0)
    )


# --- decisions ---------------------------------------------------------------------
def test_quarantine_and_visual_check_give_verify_source(sx: Sectio) -> None:
    q = sx.ask("quarantol contraindications", collection="t", tenant="a")
    assert (q.route, q.decision, q.reason) == (
        "section",
        "VERIFY_SOURCE",
        "visual_verification_required",
    )
    assert len(q.evidence) == 2  # surfaced, never silently dropped
    v = sx.ask("visol warnings", collection="t", tenant="a")
    assert v.decision == "VERIFY_SOURCE"


def test_missing_provenance_abstains(sx: Sectio) -> None:
    result = sx.ask("noprov contraindications", collection="t", tenant="a")
    assert (result.decision, result.reason) == ("ABSTAIN", "missing_provenance")
    assert result.evidence  # the evidence is shown, the decision says why not to use it


def test_decide_is_the_one_policy() -> None:
    ok = Evidence(
        chunk_id="c",
        doc_id="d",
        section_key="s",
        part_index=0,
        text="t",
        score=1.0,
        source_refs=[{"source": "x"}],
    )
    assert decide([]) == ("ABSTAIN", "no_evidence")
    assert decide([ok]) == ("ANSWERABLE", "grounded_evidence_available")
    assert decide([ok, ok.model_copy(update={"source_refs": []})])[1] == "missing_provenance"
    flagged = ok.model_copy(update={"has_quarantined_content": True})
    assert decide([ok, flagged]) == ("VERIFY_SOURCE", "visual_verification_required")


def test_result_has_the_contract_fields(sx: Sectio) -> None:
    result = sx.ask("who should not take glucophage", collection="t", tenant="a")
    data = result.model_dump(mode="json")
    for key in ("decision", "reason", "route", "evidence", "omitted_evidence_ids", "trace_id"):
        assert key in data
    for key in ("chunk_id", "doc_id", "section_key", "part_index", "text", "score", "source_refs"):
        assert key in data["evidence"][0]
    assert (result.resolved_doc_id, result.resolved_section_key) == ("metformin", CON)


def test_bad_input_is_refused(sx: Sectio) -> None:
    with pytest.raises(ConfigError):
        sx.ask("   ", collection="t", tenant="a")
    with pytest.raises(ConfigError):
        sx.ask("metformin", collection="t", tenant="a", turn_type="poetry")


# --- tenant isolation on every route ------------------------------------------------
ROUTE_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("Secretol contraindications", {}),  # section (if it resolved)
    ("Hushol", {}),  # overview (if it resolved)
    ("secretol metformin hypertension", {}),  # free form (if it resolved)
    ("metformin hypertension text", {}),  # fallback search
    ("x", {"doc_id": "secretol", "section_key": CON}),  # flags name the other tenant's doc
    ("x", {"doc_id": "secretol"}),
    ("x", {"doc_id": "secretol", "turn_type": "overview"}),
    ("can I take secretol with metformin", {}),
    ("metformin hypertension", {"section_key": IND}),
]


@pytest.mark.parametrize(("question", "kwargs"), ROUTE_CALLS)
def test_no_route_reads_another_tenants_chunks(
    sx: Sectio, question: str, kwargs: dict[str, Any]
) -> None:
    result = loose(sx).ask(question, tenant="a", **kwargs)
    assert all(e.tenant == "a" for e in result.evidence)
    assert "secretol" not in {e.doc_id for e in result.evidence}
    assert result.resolved_doc_id in (None, "metformin", "secretol")  # a flag is echoed, unread
    if kwargs.get("doc_id") == "secretol":  # tenant a has no such document: nothing is read
        assert (result.evidence, result.decision) == ([], "ABSTAIN")
    else:  # the same route reads tenant a's own chunks (abstained turns list them as withheld)
        answerability = result.details.get("answerability", {})
        read = [e.chunk_id for e in result.evidence] + answerability.get(
            "withheld_evidence_ids", []
        )
        assert read, result.details
        assert not [c for c in read if c.startswith("secretol#")]
        closest = {d["doc_id"] for d in answerability.get("closest_documents", [])}
        assert "secretol" not in closest
    theirs = loose(sx).ask(question, tenant="b", **kwargs)
    assert theirs.evidence, theirs.details  # tenant b reads its own Secretol on every route
    assert {e.tenant for e in theirs.evidence} == {"b"}
    assert {e.doc_id for e in theirs.evidence} == {"secretol"}


def test_the_other_tenant_does_resolve_its_own_document(sx: Sectio) -> None:
    assert sx.ask("Secretol contraindications", collection="t", tenant="a").resolved_doc_id is None
    theirs = sx.ask("Secretol contraindications", collection="t", tenant="b")
    assert (theirs.route, theirs.resolved_doc_id) == ("section", "secretol")
    assert [e.doc_id for e in theirs.evidence] == ["secretol"]
    mine = sx.lookup("hypertension", collection="t", tenant="a")
    assert "secretol" not in {e.doc_id for e in mine.evidence}
    assert [e.doc_id for e in sx.lookup("hypertension", collection="t", tenant="b").evidence] == [
        "secretol"
    ]


def test_flag_for_an_unknown_document_abstains(sx: Sectio) -> None:
    result = sx.ask("anything", collection="t", tenant="a", doc_id="secretol", section_key=CON)
    assert (result.decision, result.reason) == ("ABSTAIN", "no_evidence")
    assert result.details["doc_resolution"] == {"doc_id": "secretol", "how": "flag", "known": False}


# --- traces, the docs hook, the CLI --------------------------------------------------
def test_ask_writes_a_trace_and_a_conversation_turn(tmp_path: Path) -> None:
    with Sectio(Settings(home=tmp_path / "h", embedder="fake")) as s:
        s.ingest(write(tmp_path, "en", en_rows()), profile="en_drug_label", collection="en")
        result = s.ask(
            "metformin dose", collection="en", tenant="default", conversation_id="conv-1"
        )
        assert result.trace_id is not None
        trace = s.ops.store.get_trace(result.trace_id, tenant="default")
        assert trace is not None and trace["route"] == result.route
        turns = s.ops.store.conversation("conv-1", tenant="default")
        assert [t.role for t in turns] == ["user", "assistant"]
        assert turns[0].line == "metformin dose"
        assert {t.trace_id for t in turns} == {result.trace_id}
        assert s.ops.store.conversation("conv-1", tenant="other") == []
        assert s.lookup("gout", collection="en", tenant="default").trace_id is None  # not asked
        assert s.lookup("gout", collection="en", record=True).trace_id is not None


@pytest.mark.parametrize("profile", ["docs", "docs_argocd"])
def test_the_profile_engine_picks_the_routes(tmp_path: Path, profile: str) -> None:
    tree = tmp_path / "repo" / "docs"
    tree.mkdir(parents=True)
    (tree / "install.md").write_text("# Install\n\nInstall it with the installer.\n")
    with Sectio(Settings(home=tmp_path / "h", embedder="fake", traces=False)) as s:
        s.ingest(tree.parent, fmt="markdown", profile=profile, collection="d")
        result = s.ask("how do I install", collection="d", tenant="default")
        assert s.info("d")["collections"][0]["manifest"]["profile_name"] == profile
        with pytest.raises(ConfigError, match="docs planner"):
            s.ask("how do I install", collection="d", tenant="default", turn_type="overview")
        s.ingest(write(tmp_path, "e", en_rows()), profile="en_drug_label", collection="e")
        assert s.ask("metformin dose", collection="e", tenant="default").route == "section"
        with pytest.raises(ConfigError, match="not the docs planner"):
            s.plan("metformin dose", collection="e", tenant="default")
        route, plan = s.plan("how do I install", collection="d", tenant="default")
    assert result.route == "docs_plan"
    assert result.evidence
    assert {e.path for e in result.evidence} == {"docs/install.md"}
    assert result.details["plan"] == plan.model_dump(mode="json")
    assert result.details["route"] == route.model_dump(mode="json")


def test_cli_ask_json_and_human(sx: Sectio, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECTIO_HOME", str(sx.settings.home))
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    monkeypatch.setenv("SECTIO_TRACES", "false")
    sx.release("t")  # one process owns a shard: let the CLI open it
    runner = CliRunner()
    out = runner.invoke(
        cli, ["ask", "who should not take glucophage", "-c", "t", "--tenant", "a", "--json"]
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert (data["decision"], data["route"], data["resolved_section_key"]) == (
        "ANSWERABLE",
        "section",
        CON,
    )
    flags = runner.invoke(
        cli,
        ["ask", "anything", "-c", "t", "--tenant", "a", "--doc", "metformin", "--section", IND],
    )
    assert flags.exit_code == 0 and "via section: metformin / indications_and_usage" in flags.output
    assert "ask" in runner.invoke(cli, ["--help"]).output


def test_an_abstention_says_why_in_the_human_output(sx: Sectio) -> None:
    answered = sx.ask("who should not take glucophage", collection="t", tenant="a")
    assert abstention_lines(answered) == []  # only an ABSTAIN explains itself
    verdict = {"answerable": False, "reason": "subject_not_in_corpus"}
    signals = {"route": "fallback_search", "document_named": None}
    thresholds = {"min_coverage": 0.5}
    zoloft = {"brand": "Zoloft", "ingredients": ["sertraline"], "read_as": "Zoloft -> sertraline"}
    why = Diagnostics.model_validate(
        {
            "answerability": {
                **verdict,
                "signals": {**signals, "rule": "subject"},
                "thresholds": thresholds,
                "uncovered": ["zoloft"],
                "brands_not_in_collection": [zoloft],
                "closest_documents": [
                    {"doc_id": "metformin", "doc_title": "Metformin", "score": 0.4},
                    {"doc_id": "x", "doc_title": None, "score": 0.3},
                ],
            }
        }
    )
    abstained = answered.model_copy(update={"decision": "ABSTAIN", "details": why})
    assert abstention_lines(abstained) == [
        "  rule subject: decided by: zoloft",
        "  no document of: Zoloft -> sertraline",
        "  closest documents: Metformin, x",
    ]
    combo = Diagnostics.model_validate(
        {
            "answerability": {
                **verdict,
                "signals": {**signals, "rule": "combination_ingredients"},
                "thresholds": thresholds,
                "uncovered": ["x"],
            },
            "doc_resolution": {
                "doc_id": "metformin",
                "how": "exact",
                "combined_with": {"doc_id": "metformin", "ingredients": ["x"]},
            },
        }
    )
    named = answered.model_copy(update={"decision": "ABSTAIN", "details": combo})
    assert abstention_lines(named) == [
        "  rule combination_ingredients: decided by: x",
        "  no document of the combination: metformin + x",
    ]


def test_cli_errors_are_one_line(
    sx: Sectio, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SECTIO_HOME", str(sx.settings.home))
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    monkeypatch.setenv("SECTIO_TRACES", "false")
    sx.release("t")
    assert main(["ask", "  ", "-c", "t"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "question is empty" in err
    assert main(["ask", "metformin", "-c", "no-such-collection"]) == 1


def test_a_follow_up_inherits_the_conversations_document(tmp_path: Path) -> None:
    with Sectio(Settings(home=tmp_path / "h", embedder="fake")) as s:
        s.ingest(write(tmp_path, "en", en_rows()), profile="en_drug_label", collection="en")
        first = s.ask("metformin dose", collection="en", conversation_id="c1")
        follow = s.ask("and its side effects?", collection="en", conversation_id="c1")
        alone = s.ask("and its side effects?", collection="en")
        switch = s.ask("warfarin side effects", collection="en", conversation_id="c1")
        other = s.ask("and its side effects?", collection="en", conversation_id="c2")
    assert first.resolved_doc_id == "metformin"
    assert (follow.resolved_doc_id, follow.resolved_section_key) == (
        "metformin",
        "adverse_reactions",
    )
    assert follow.details["doc_resolution"] == {"doc_id": "metformin", "how": "conversation"}
    assert {e.doc_id for e in follow.evidence} == {"metformin"} and follow.decision != "ABSTAIN"
    assert alone.resolved_doc_id is None  # no conversation: nothing to inherit
    assert switch.resolved_doc_id == "warfarin"  # naming a document switches
    assert other.resolved_doc_id is None  # another conversation inherits nothing
