"""Build sectio's brand table (src/sectio/retrieve/data/brands.tsv.gz) from Drugs@FDA.

Run once (the output is committed; two runs give byte-identical files):

    git --git-dir=<SteveHQiu/BeersCriteria>.git show \\
        6e3939edb494e6229588c83522047cee8101ca56:data/Products.txt > /tmp/Products.txt
    python tools/build_brand_table.py /tmp/Products.txt

``Products.txt`` (FDA Drugs@FDA data files, tab-separated) has one row per
approved product: ``DrugName`` (the trade name) and ``ActiveIngredient``
(``;``-separated). A row is kept as ``brand<TAB>ingredient; ingredient`` when
its trade name is a brand, not a generic name: it is not itself an
ingredient, shares no word with any ingredient ("HEPARIN LOCK FLUSH"), and
has at least four letters. Trailing release-form, device and pack words and
strengths are also cut off, so "Effexor XR" gives both "effexor xr" and
"effexor", "ProAir HFA" both "proair hfa" and "proair".
Ingredients are written salt-free and sorted (:func:`sectio.retrieve.brands.ingredient_key`).
"""

from __future__ import annotations

import csv
import gzip
import io
import sys
from pathlib import Path

from sectio.retrieve.brands import SALT_WORDS, TABLE_FILE, ingredient_key, strip_salt
from sectio.retrieve.resolve_doc import RELEASE_FORM_WORDS
from sectio.retrieve.text import Tokens, tokens

OUT = Path(__file__).resolve().parents[1] / "src" / "sectio" / "retrieve" / "data" / TABLE_FILE
#: Trade names that are not brands.
NOT_BRANDS = frozenset({"unknown"})
#: Trailing words of a trade name that say its device or pack, not the product
#: ("ProAir HFA", "Advair Diskus", "Breo Ellipta"): the most frequent last words of
#: the file's multiword trade names whose head is not a trade name of its own.
DEVICE_WORDS = frozenset(
    {
        "hfa", "diskus", "ellipta", "digihaler", "respiclick", "respimat", "handihaler",
        "aerosphere", "inhaler", "pen", "pfs", "pf", "kwikpen", "flexpen", "solostar",
        "tab", "tabs", "pack", "pak", "sprinkle", "copackaged", "kit",
    }
)  # fmt: skip
MIN_LETTERS = 4


def brand_forms(drug_name: str) -> list[Tokens]:
    """The brand's token forms: whole (salt words cut), and without its release form or device."""
    whole = strip_salt(tokens(drug_name))
    cut = list(whole)
    cuttable = RELEASE_FORM_WORDS | DEVICE_WORDS
    while len(cut) > 1 and (cut[-1] in cuttable or cut[-1].isdigit()):
        cut.pop()
    forms = [whole, tuple(cut)]
    return [f for f in dict.fromkeys(forms) if not any(w.isdigit() for w in f)]


def read_rows(path: Path) -> list[tuple[str, str]]:
    """(DrugName, ActiveIngredient) of every row."""
    with path.open(encoding="utf-8", errors="replace", newline="") as fh:
        reader = csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [(r["DrugName"], r["ActiveIngredient"]) for r in reader]


def build(rows: list[tuple[str, str]]) -> list[str]:
    """The table's sorted, unique lines."""
    names = {n for _drug, ing in rows for n in ingredient_key(ing)}
    words = {w for n in names for w in n.split()} | SALT_WORDS
    lines = set()
    for drug, ing in rows:
        key = ingredient_key(ing)
        if not key:
            continue
        for form in brand_forms(drug):
            compact = "".join(form)
            if (
                not form
                or " ".join(form) in names
                or " ".join(form) in NOT_BRANDS
                or any(w in words for w in form)
                or sum(c.isalpha() for c in compact) < MIN_LETTERS
            ):
                continue
            lines.add(f"{' '.join(form)}\t{'; '.join(key)}")
    return sorted(lines)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    lines = build(read_rows(Path(argv[1])))
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        gz.write(("\n".join(lines) + "\n").encode("utf-8"))
    OUT.write_bytes(buf.getvalue())
    brands = len({line.split("\t")[0] for line in lines})
    print(f"{OUT}: {len(lines)} lines, {brands} brands, {len(buf.getvalue())} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
