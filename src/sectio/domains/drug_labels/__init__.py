"""The drug-label domain pack: brands, ingredients and combination products.

On when a profile's ``[names] brand_table`` is on (``en_drug_label``). The
resolver reads brands as their ingredients' documents with the bundled FDA
brand table (:mod:`sectio.retrieve.brands`); this pack adds what a question
names that no label holds (:mod:`~sectio.domains.drug_labels.elsewhere`) and
the rules on combination products (:mod:`~sectio.domains.drug_labels.rules`).

Example:
    >>> [r.name for r in DrugLabels().rules()]
    ['combination_brand', 'combination_ingredients']
"""

from __future__ import annotations

from collections.abc import Sequence

from sectio.contract.diagnostics import DocFacts
from sectio.domains.drug_labels import elsewhere
from sectio.domains.drug_labels.rules import CombinationBrand, CombinationIngredients
from sectio.retrieve.answerability.context import Rule
from sectio.retrieve.domain import Reading


class DrugLabels:
    """The drug-label pack (:class:`sectio.retrieve.domain.DomainPack`)."""

    name = "drug_labels"

    def annotate(self, reading: Reading, facts: DocFacts) -> None:
        """Brands, ingredients and a combination the question names that no label holds."""
        elsewhere.annotate(reading, facts)

    def rules(self) -> Sequence[Rule]:
        """``combination_brand``, then ``combination_ingredients``."""
        return (CombinationBrand(), CombinationIngredients())


__all__ = ["DrugLabels"]
