"""``sectio ask QUESTION`` and ``sectio lookup PHRASE``: routed retrieval with a decision."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from sectio.cli.base import (
    Context,
    bounded_query,
    cli,
    collection_option,
    emit_json,
    json_option,
    pass_state,
    tenant_option,
)
from sectio.contract.request import TURN_TYPES, AskRequest

if TYPE_CHECKING:
    from sectio.contract.result import RetrievalResult


def print_result(result: RetrievalResult) -> None:
    """Human-readable decision, route and evidence."""
    from sectio.contract.diagnostics import LookupDocument

    where = " / ".join(x for x in (result.resolved_doc_id, result.resolved_section_key) if x)
    sections = result.details.get("sections") or []
    if len(sections) > 1 and result.resolved_section_key:
        where += "".join(f" + {key}" for key in sections[1:])  # "article_5 + article_6"
    via = (result.details.get("section_resolution") or {}).get("via")
    if via and result.resolved_section_key:
        where += f" (section by {via})"
    click.echo(
        f"{result.decision} ({result.reason}) via {result.route}" + (f": {where}" if where else "")
    )
    for line in abstention_lines(result):
        click.echo(line)
    if result.route == "lookup":
        for doc in result.details.documents or []:
            if isinstance(doc, LookupDocument):
                click.echo(f"  {doc.doc_id} [{doc.score:.3f}] {doc.doc_title or ''}")
    for item in result.evidence:
        text = " ".join(item.text.split())
        flags = " pooled" if item.pooled else ""
        click.echo(
            f"{item.rank or 0:>2}. [{item.score:.3f}] {item.doc_id} / {item.section_key} "
            f"#{item.part_index}{flags}"
        )
        click.echo(f"    {text[:200]}{'…' if len(text) > 200 else ''}")
    for reason, ids in omitted_reasons(result):
        click.echo(f"omitted ({reason}): {', '.join(ids)}")
    if result.trace_id:
        click.echo(f"trace {result.trace_id}")


def abstention_lines(result: RetrievalResult) -> list[str]:
    """Why an ``ABSTAIN`` abstained, for a person (``details.answerability`` has it all).

    In order: the rule that decided, the measure and threshold it missed and
    what the evidence does not cover (:func:`~sectio.contract.explain.why`), the
    brands read as medicines the collection holds no label of, a combination
    product the question names by its ingredients, the closest documents (what
    the collection does cover), and, on weak evidence, an embedding model that
    does not read the collection's language. Nothing for other decisions.
    """
    ans = result.details.answerability
    if result.decision != "ABSTAIN" or ans is None:
        return []
    from sectio.contract.explain import why

    lines = [f"  {why(ans)}"]
    brands = [b.read_as for b in ans.brands_not_in_collection]
    if brands:
        lines.append(f"  no document of: {', '.join(brands)}")
    resolution = result.details.doc_resolution
    combined = resolution.combined_with if resolution is not None else None
    if combined is not None and combined.ingredients:
        product = " + ".join([combined.doc_id, *combined.ingredients])
        lines.append(f"  no document of the combination: {product}")
    closest = [d.doc_title or d.doc_id for d in ans.closest_documents]
    if closest:
        lines.append(f"  closest documents: {', '.join(closest)}")
    if ans.thresholds.model_mismatch:
        lines.append(f"  warning: {ans.thresholds.model_mismatch}")
    return lines


def omitted_reasons(result: RetrievalResult) -> list[tuple[str, list[str]]]:
    """``omitted_evidence_ids`` grouped by why they were left out, as ``details`` records it.

    The token budget's ids come last (the pipeline appends them after the route's
    own); ``details.packing.omitted`` counts them. The rest were cut by a row
    limit: the docs plan's (``details.row_limit``) or the route's top-k.
    """
    ids = list(result.omitted_evidence_ids)
    packing, limit = result.details.packing, result.details.row_limit
    budget = packing.omitted if packing is not None else 0
    cut, packed = ids[: len(ids) - budget], ids[len(ids) - budget :]
    groups: list[tuple[str, list[str]]] = []
    if cut:
        reason = (
            f"row limit {limit.limit}, {limit.per_document} per document before the rest"
            if limit is not None
            else "row limit"
        )
        groups.append((reason, cut))
    if packed:
        tokens = packing.budget if packing is not None else None
        groups.append((f"token budget of {tokens}" if tokens else "token budget", packed))
    return groups


@cli.command()
@click.argument("question")
@click.option("--doc", "doc_id", default=None, help="Document id (overrides the resolver).")
@click.option("--section", "section_key", default=None, help="Section key (overrides phrases).")
@click.option(
    "--turn-type",
    type=click.Choice(TURN_TYPES),
    default=None,
    help="Force a kind of turn (e.g. overview).",
)
@click.option("--top-k", "-k", type=int, default=None, help="Free-form evidence kept (1-50).")
@click.option("--conversation", "conversation_id", default=None, help="Append to a conversation.")
@collection_option
@tenant_option
@json_option
@pass_state
def ask(
    state: Context,
    question: str,
    doc_id: str | None,
    section_key: str | None,
    turn_type: str | None,
    top_k: int | None,
    conversation_id: str | None,
    collection: str,
    tenant: str,
    as_json: bool,
) -> None:
    """Answer a question with evidence and a decision (section, overview, free-form, fallback)."""
    request = AskRequest.of(
        bounded_query(state, question),
        doc_id=doc_id,
        section_key=section_key,
        turn_type=turn_type,
        top_k=top_k,
    )
    result = state.sectio.answer(
        request, collection=collection, tenant=tenant, conversation_id=conversation_id
    )
    if as_json:
        emit_json(result)
    else:
        print_result(result)


@cli.command()
@click.argument("phrase")
@collection_option
@tenant_option
@json_option
@pass_state
def lookup(state: Context, phrase: str, collection: str, tenant: str, as_json: bool) -> None:
    """Reverse lookup: which documents mention PHRASE in their lookup section (e.g. indications)."""
    result = state.sectio.lookup(bounded_query(state, phrase), collection=collection, tenant=tenant)
    if as_json:
        emit_json(result)
    else:
        print_result(result)
