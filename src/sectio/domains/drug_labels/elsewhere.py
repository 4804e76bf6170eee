"""Medicines a question names that no label of the collection holds.

Read with the brand table after the resolver found (or did not find) the
document: brands whose ingredients no document holds ("Zoloft" on a corpus
without sertraline), one-word ingredients of the table no document holds
("clarithromycin", which an amoxicillin label mentions), and ingredients
written right after the named document's name that make a product of the
table with the document's ("amoxicillin and clavulanic acid"). They are
``details.doc_resolution`` keys: ``brands_not_in_collection``,
``ingredients_not_in_collection`` and ``combined_with``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from sectio.contract.diagnostics import BrandFact, CombinedWith, DocFacts
from sectio.retrieve.brands import BrandName, BrandTable
from sectio.retrieve.domain import Reading
from sectio.retrieve.text import Tokens


def annotate(reading: Reading, facts: DocFacts) -> None:
    """Set on ``facts`` the brands, ingredients and combination no document holds."""
    table = reading.brand_table
    if table is None:
        return
    elsewhere = brands_elsewhere(table, reading)
    named_key = reading.named_key
    for brand in elsewhere:  # "Augmentin" next to amoxicillin: a combination of the document
        if named_key and named_key < set(brand.ingredients):
            brand.combines = reading.doc_id
    if elsewhere:
        facts.brands_not_in_collection = elsewhere
    others = ingredients_elsewhere(table, reading)
    if others:
        facts.ingredients_not_in_collection = others
    combined = combined_ingredients(table, reading.words, reading.spans, named_key, others)
    if combined and reading.doc_id:
        facts.combined_with = CombinedWith(doc_id=reading.doc_id, ingredients=combined)


def brands_elsewhere(table: BrandTable, reading: Reading) -> list[BrandFact]:
    """Brands the question names whose ingredients no document of the tenant holds."""
    found = table.unmatched(reading.words, reading.held, reading.usable)
    return [BrandName(brand, "", ingredients).as_fact() for brand, ingredients in found]


def ingredients_elsewhere(table: BrandTable, reading: Reading) -> list[str]:
    """One-word ingredients of the brand table the question names (in question order, each
    once) that no document of the tenant holds, common and routing words left out."""
    words = reading.words
    named = (table.ingredient_at(words, i) for i in range(len(words)))
    found = [w for w in named if w and w not in reading.held_words and reading.usable((w,))]
    return list(dict.fromkeys(found))


def combined_ingredients(
    table: BrandTable,
    words: Tokens,
    spans: Sequence[tuple[int, int]],
    named_key: Collection[str],
    others: Collection[str],
) -> list[str]:
    """Ingredients no document holds that the question writes right after the named
    document's name, joined by "and", "&", a space, hyphen, slash or plus, when with the
    document's ingredients they make a product of the brand table: "amoxicillin and
    clavulanic acid" names that combination, not amoxicillin (in question order, each once).
    """
    if not named_key or not others:
        return []
    found: list[str] = []
    for _start, end in spans:
        at = end + 1 if words[end : end + 1] in (("and",), ("&",)) else end
        name = table.ingredient_at(words, at) if at < len(words) else None
        if name is None or name not in others or name in found:
            continue
        if tuple(sorted({*named_key, name})) in table.products:
            found.append(name)
    return found
