"""``sectio plan QUESTION``: the docs planner's route and retrieval plan, without retrieving."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from sectio.cli.base import (
    Context,
    cli,
    collection_option,
    emit_json,
    json_option,
    pass_state,
    tenant_option,
)

if TYPE_CHECKING:
    from sectio.engine import DocsIntent, RetrievalPlan


def print_plan(route: DocsIntent, plan: RetrievalPlan) -> None:
    """Human-readable route and plan."""
    a = route.anchors
    click.echo(f"intent     {route.intent.value} / {route.subintent.value}")
    for name in (
        "target_doc_hints",
        "file_names",
        "endpoint_paths",
        "entity_names",
        "matched_aliases",
    ):
        values = getattr(a, name)
        if values:
            click.echo(f"{name:<17}{', '.join(values)}")
    if a.process_domain or a.process_subdomain:
        click.echo(f"domain           {a.process_domain or '-'} / {a.process_subdomain or '-'}")
    click.echo(f"profile    {plan.profile.value}")
    click.echo(f"layers     {', '.join(layer.value for layer in plan.layers)}   limit {plan.limit}")
    for key, value in plan.filters.items():
        if value in ([], None, ""):
            continue
        shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        click.echo(f"  {key:<22}{shown}")
    for line in route.notes:
        click.echo(f"  note: {line}")


@cli.command()
@click.argument("question")
@collection_option
@tenant_option
@json_option
@pass_state
def plan(state: Context, question: str, collection: str, tenant: str, as_json: bool) -> None:
    """Show how the docs planner routes QUESTION and the retrieval plan it builds.

    Anchors are looked up in the collection's document and entity catalogs
    (D1, D3) when the collection exists; otherwise only the question's own
    text (file names, API paths) is read.
    """
    if state.sectio.has_collection(collection):
        route, retrieval_plan = state.sectio.plan(question, collection=collection, tenant=tenant)
    else:
        route, retrieval_plan = state.sectio.plan_text(question)
    if as_json:
        emit_json(
            {
                "route": route.model_dump(mode="json"),
                "plan": retrieval_plan.model_dump(mode="json"),
            }
        )
    else:
        print_plan(route, retrieval_plan)
