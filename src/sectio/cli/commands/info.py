"""``sectio info``."""

from __future__ import annotations

from typing import Any

import click

from sectio.cli.base import Context, cli, emit_json, json_option, pass_state

#: The pages ``info -c NAME`` lists with their learned headings (``--json`` has them all).
PAGES_SHOWN = 20


@cli.command()
@click.option(
    "--collection", "-c", default=None, help="Only this collection (and what its sections taught)."
)
@json_option
@pass_state
def info(state: Context, collection: str | None, as_json: bool) -> None:
    """Show collections, their counts and manifests (and a count the manifest disagrees with)."""
    data = state.sectio.info(collection)
    if collection is not None and data["collections"] and data["collections"][0]["manifest"]:
        data["collections"][0]["learned"] = state.sectio.learned(collection, tenant="default")
        data["collections"][0]["answerability"] = state.sectio.thresholds(collection)
    if as_json:
        emit_json(data)
        return
    click.echo(f"home: {data['home']} ({data['backend']})")
    if not data["collections"]:
        click.echo("no collections; run `sectio ingest PATH`")
    for c in data["collections"]:
        m = c["manifest"] or {}
        window = m.get("dense_window_tokens") or 0
        click.echo(
            f"{c['name']}: {c['count']} points; model {m.get('model_id', '?')} "
            f"({m.get('dimensions', '?')}-d"
            f"{f', windows of {window} tokens' if window else ''}); "
            f"profile {m.get('profile_name', '?')}; "
            f"corpus {str(m.get('corpus_sha256', '?'))[:12]}; created {m.get('created_at', '?')}"
        )
        if c.get("matches_manifest") is False:
            click.echo(
                f"  warning: its manifest says {m.get('chunk_count')} points, its index holds "
                f"{c['count']}: ingest its source again (--replace rebuilds it)"
            )
        elif c["manifest"] is None:
            click.echo("  warning: no manifest: every query refuses it")
        _learned_lines(c.get("learned"))
        _threshold_lines(c.get("answerability"))


def _threshold_lines(summary: dict[str, Any] | None) -> None:
    """The answerability thresholds per tenant (``-c NAME`` only): the calibrated dense
    floor, the floor with the ranked routes' margin, the strong floor that lets an unknown
    word pass, and the docs catalog floor."""
    if not summary:
        return
    cfg = summary["settings"]
    click.echo(
        f"  answerability: min coverage {cfg['min_coverage']}, floor = the "
        f"{cfg['calibration_percentile']:g}th percentile of unrelated questions' best cosines, "
        f"margin {cfg['planner_margin']}, strong margin {cfg['strong_margin']}"
        + (
            f", one passage's words together: surprise {cfg['joint_surprise']}"
            if cfg.get("joint_surprise") is not None
            else ""
        )
    )
    for tenant, t in summary["tenants"].items():
        words = f"; term statistics {t['term_statistics']}" if t.get("term_statistics") else ""
        if "dense_floor" not in t:
            click.echo(f"    {tenant}: {t['source']}{words}")
            continue
        floors = ", ".join(
            f"{name} {t[key]:.4f}"
            for name, key in (
                ("dense floor", "dense_floor"),
                ("with margin", "margin_floor"),
                ("strong", "strong_floor"),
                ("catalog", "catalog_floor"),
            )
            if t.get(key) is not None
        )
        langs = f"; language {'+'.join(t['languages'])}, bank {'+'.join(t['banks'])}"
        if t.get("margin_scale") is not None and t["margin_scale"] < 1:
            langs += f"; margins x{t['margin_scale']:.3f}, the model's units"
        click.echo(f"    {tenant}: {floors} ({t['source']}{langs}{words})")
        if t.get("model_mismatch"):
            click.echo(f"    warning: {t['model_mismatch']}")


def _learned_lines(learned: dict[str, object] | None) -> None:
    """What the collection's sections taught the router (``-c NAME`` only)."""
    if not learned:
        return
    if not learned.get("enabled"):
        click.echo("  learned routing: off ([learning] enabled = false)")
        return
    if learned.get("engine") == "docs_planner":
        _docs_learned_lines(learned)
        return
    click.echo(
        f"  learned routing ({learned['tenant']}): {learned['documents']} documents, "
        f"{learned['sections']} sections, {learned['numbered_sections']} numbered"
        f"{_units(learned)}, "
        f"{learned.get('releases', 0)} releases, {learned['title_phrases']} title phrases"
    )
    shared = learned.get("shared_sections") or []
    assert isinstance(shared, list)
    for s in shared:
        click.echo(f"  shared section {s['section_key']}: {len(s['phrases'])} phrases")


def _units(learned: dict[str, object]) -> str:
    """The units the titles taught ("play", "rfc" of "Play 7 - ...", "RFC 004 - ..."), to
    follow the count of numbered sections; '' when none."""
    units = learned.get("numbered_units") or []
    assert isinstance(units, list)
    return f" (units the titles number: {', '.join(units)})" if units else ""


def _docs_learned_lines(learned: dict[str, object]) -> None:
    """What a docs tree's headings taught the docs planner: totals, the product's words,
    then headings and phrases per page."""
    products = learned.get("product_words") or []
    assert isinstance(products, list)
    click.echo(
        f"  learned headings ({learned['tenant']}, docs planner): {learned['documents']} "
        f"pages, {learned['sections']} headings, {learned['numbered_sections']} numbered"
        f"{_units(learned)}, "
        f"{learned.get('releases', 0)} releases, {learned['title_phrases']} phrases; "
        f"product words: {', '.join(products) or '-'}"
    )
    pages = learned.get("per_document") or {}
    assert isinstance(pages, dict)
    for doc_id, n in list(pages.items())[:PAGES_SHOWN]:
        click.echo(f"    {doc_id}: {n['headings']} headings, {n['phrases']} phrases")
    if len(pages) > PAGES_SHOWN:
        click.echo(f"    ... {len(pages) - PAGES_SHOWN} more pages (--json lists every page)")
