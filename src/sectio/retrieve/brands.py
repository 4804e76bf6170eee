"""Brand names of medicines, read as the name of their active ingredients.

A question names a brand ("Paxil", "Effexor XR") the collection may not
carry: openFDA gives a label the brand names of *its* product, so a generic
manufacturer's paroxetine label has no "Paxil" among its ``aliases``. The
brand table maps a brand to its ingredients (FDA Drugs@FDA ``Products.txt``,
public domain; ``data/brands.README.md`` says where it comes from and
``tools/build_brand_table.py`` rebuilds it byte for byte). A brand names a
document of the collection when its ingredients are the document's, all of
them and nothing else (the salt words of either side ignored: "paroxetine
hydrochloride" is paroxetine; a combination brand names only the
combination's document). A brand whose ingredients no document holds names
nothing: the question stays unresolved and answerability judges it.

Matching is on tokens (:func:`sectio.retrieve.text.tokens`), whole brand
names only, never by typo. A brand name that is a common word of the
language ("Clear", "Plan B") is left out by the caller's ``common`` test.

Example:
    >>> table = BrandTable.parse(["paxil\\tparoxetine", "bactrim\\tsulfamethoxazole; trimethoprim"])
    >>> table.ingredients(("paxil",))
    (('paroxetine',),)
    >>> ingredient_key("Sulfamethoxazole and trimethoprim")
    ('sulfamethoxazole', 'trimethoprim')
    >>> ingredient_key("paroxetine hydrochloride")
    ('paroxetine',)
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from importlib import resources

from sectio.contract.diagnostics import BrandFact
from sectio.errors import ProfileError
from sectio.retrieve.text import Tokens, tokens

#: Salt, ester and hydrate words dropped from the end of an ingredient
#: ("atorvastatin calcium" is atorvastatin), as the label corpora name documents.
SALT_WORDS = frozenset(
    {
        "hydrochloride", "hcl", "dihydrochloride", "sodium", "disodium", "potassium",
        "calcium", "magnesium", "sulfate", "bisulfate", "mesylate", "dimesylate",
        "maleate", "tartrate", "bitartrate", "succinate", "fumarate", "citrate",
        "acetate", "besylate", "bromide", "hydrobromide", "phosphate", "olamine",
        "meglumine", "dihydrate", "monohydrate", "anhydrous", "gluconate", "malate",
        "tosylate", "hyclate", "lactate", "nitrate", "trihydrate", "macrocrystalline",
        "macrocrystals", "monocrystalline", "hemihydrate", "sesquihydrate", "oxalate",
        "dimaleate", "ditosylate", "camsylate", "furoate", "propionate", "dipropionate",
        "valerate", "xinafoate", "hemifumarate", "tromethamine", "benzoate", "pamoate",
        "decanoate", "estolate", "ethylsuccinate", "stearate", "palmitate", "edisylate",
        "trifenatate",
    }
)  # fmt: skip
#: The file the package ships (gzip, ``brand<TAB>ingredient; ingredient`` lines).
TABLE_FILE = "brands.tsv.gz"
#: The longest brand, in words, looked for at a position of a question.
MAX_BRAND_WORDS = 6
_JOINERS = re.compile(r"\s*;\s*|\s+and\s+", re.IGNORECASE)


def strip_salt(words: Tokens) -> Tokens:
    """``words`` without trailing salt words, unless only salt words would be left.

    Example:
        >>> strip_salt(("formoterol", "fumarate", "dihydrate")), strip_salt(("sodium", "sulfate"))
        (('formoterol',), ('sodium', 'sulfate'))
    """
    out = list(words)
    while out and out[-1] in SALT_WORDS and any(w not in SALT_WORDS for w in out[:-1]):
        out.pop()
    return tuple(out)


def ingredient_key(name: str) -> tuple[str, ...]:
    """The sorted, salt-free ingredient names of ``name`` ("a and b", "A; B").

    A part that names the same ingredient twice ("nitrofurantoin; nitrofurantoin,
    macrocrystalline") counts once; a part made only of salt words is not an
    ingredient when another part is. Parenthesised text is dropped.
    """
    parts = [tokens(p) for p in _JOINERS.split(re.sub(r"\([^)]*\)", " ", name))]
    names = {" ".join(strip_salt(p)) for p in parts if p and not set(p) <= SALT_WORDS}
    if not names:  # only salts: "sodium; potassium" names those
        names = {" ".join(p) for p in parts if p}
    return tuple(sorted(names))


@dataclass(frozen=True)
class BrandName:
    """A brand that names one document of a collection (ingredients matched).

    Attributes:
        brand: the brand's tokens ("effexor", "xr").
        doc_id: the document whose ingredients the brand's are.
        ingredients: the brand's ingredients, as the table writes them.
    """

    brand: Tokens
    doc_id: str
    ingredients: tuple[str, ...]

    @property
    def display(self) -> str:
        """The brand as a reader writes it ("Effexor XR")."""
        return " ".join(w.upper() if len(w) <= 3 else w.capitalize() for w in self.brand)

    def as_fact(self, via: str | None = None) -> BrandFact:
        """The brand, its ingredients and how it was read ("Paxil -> paroxetine")."""
        fact = BrandFact(
            brand=self.display,
            ingredients=list(self.ingredients),
            read_as=f"{self.display} -> {', '.join(self.ingredients)}",
        )
        if via is not None:
            fact.via = via
        return fact


class BrandTable:
    """Brand -> ingredient sets (a brand reused for several products keeps each set)."""

    def __init__(self, entries: Mapping[Tokens, tuple[tuple[str, ...], ...]]) -> None:
        self.entries = dict(entries)

    @classmethod
    def parse(cls, lines: Iterable[str]) -> BrandTable:
        """A table from ``brand<TAB>ingredient; ingredient`` lines (blank lines skipped).

        Raises:
            ProfileError: a line without a tab or with an empty side (the table the
                profile's ``[names] brand_table`` asks for cannot be read).
        """
        entries: dict[Tokens, list[tuple[str, ...]]] = {}
        for n, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            brand, sep, ingredients = line.rstrip("\n").partition("\t")
            key, names = tokens(brand), ingredient_key(ingredients)
            if not sep or not key or not names:
                raise ProfileError(f"brand table line {n}: expected 'brand<TAB>ingredients'")
            sets = entries.setdefault(key, [])
            if names not in sets:
                sets.append(names)
        return cls({k: tuple(v) for k, v in entries.items()})

    @classmethod
    def bundled(cls) -> BrandTable:
        """The table shipped with the package (``sectio/retrieve/data/brands.tsv.gz``).

        Raises:
            ProfileError: the file is missing or malformed.
        """
        try:
            raw = resources.files("sectio.retrieve").joinpath("data", TABLE_FILE).read_bytes()
            text = gzip.decompress(raw).decode("utf-8")
        except (OSError, EOFError, UnicodeDecodeError) as exc:
            raise ProfileError(f"cannot read the bundled brand table: {exc}") from exc
        return cls.parse(text.splitlines())

    def __len__(self) -> int:
        return len(self.entries)

    @cached_property
    def ingredient_words(self) -> frozenset[str]:
        """Every one-word ingredient of the table ("ampicillin", "prednisolone").

        Each is a distinct medicine: never a typo of another name, and a
        question naming one names that medicine.
        """
        sets = (s for group in self.entries.values() for s in group)
        return frozenset(i for s in sets for i in s if " " not in i)

    @cached_property
    def products(self) -> frozenset[tuple[str, ...]]:
        """Every ingredient set of the table: the products, each as :func:`ingredient_key`."""
        return frozenset(s for group in self.entries.values() for s in group)

    def ingredient_at(self, words: Tokens, i: int) -> str | None:
        """The one-word ingredient that ``words[i]`` names, or None: the word itself, or an
        acid written as the salt the table lists ("clavulanic acid" is clavulanate).

        Example:
            >>> t = BrandTable.parse(["augmentin\\tamoxicillin; clavulanate potassium"])
            >>> t.ingredient_at(("clavulanic", "acid"), 0), t.ingredient_at(("acid",), 0)
            ('clavulanate', None)
        """
        word = words[i]
        if word in self.ingredient_words:
            return word
        if word.endswith("ic") and words[i + 1 : i + 2] == ("acid",):
            salt = word[:-2] + "ate"
            return salt if salt in self.ingredient_words else None
        return None

    def ingredients(self, brand: Tokens) -> tuple[tuple[str, ...], ...]:
        """The ingredient sets of ``brand`` (its tokens), empty when the table lacks it."""
        return self.entries.get(brand, ())

    def names_for(
        self,
        titles: Mapping[str, str],
        usable: Callable[[Tokens], bool] = lambda _brand: True,
    ) -> list[BrandName]:
        """The brands that name a document of ``titles`` (doc_id -> title), sorted.

        A brand names a document when one of its ingredient sets is the
        document's (:func:`ingredient_key` of its title); a brand whose sets
        match several documents names each (the resolver calls that ambiguous).
        ``usable`` drops brands that must not be read as names (common words).
        """
        by_key: dict[tuple[str, ...], list[str]] = {}
        for doc_id, title in sorted(titles.items()):
            key = ingredient_key(title)
            if key:
                by_key.setdefault(key, []).append(doc_id)
        out: list[BrandName] = []
        for brand, sets in sorted(self.entries.items()):
            docs = [(d, s) for s in sets for d in by_key.get(s, ())]
            if docs and usable(brand):
                out.extend(BrandName(brand, d, s) for d, s in docs)
        return out

    def unmatched(
        self,
        question: Tokens,
        held: Collection[tuple[str, ...]],
        usable: Callable[[Tokens], bool] = lambda _brand: True,
    ) -> list[tuple[Tokens, tuple[str, ...]]]:
        """Brands ``question`` names whose ingredients are none of ``held``.

        ``held``: the documents' ingredient keys (:func:`ingredient_key` of each title).

        Longest brand first at each position; each brand once, in question order;
        a brand ``usable`` refuses is not a name and is skipped.
        """
        out: list[tuple[Tokens, tuple[str, ...]]] = []
        i = 0
        while i < len(question):
            for n in range(MAX_BRAND_WORDS, 0, -1):
                brand = tuple(question[i : i + n])
                sets = self.ingredients(brand) if len(brand) == n else ()
                if sets and usable(brand):
                    if not any(s in held for s in sets) and brand not in [b for b, _ in out]:
                        out.append((brand, sets[0]))
                    i += n - 1
                    break
            i += 1
        return out
