#!/usr/bin/env python3
"""Rebuild the owasp_cheatsheets set: 32 OWASP cheat sheets (Markdown) and their questions.

Inputs
  * the 32 Markdown files of ``cheatsheets/`` named in :data:`SHEETS`, of
    github.com/OWASP/CheatSheetSeries at the pinned commit below, read from a
    git mirror (``git --git-dir=<mirror> show <commit>:cheatsheets/<file>``);
    CC BY-SA 4.0 (``LICENSE.md`` at that commit). The web-application core
    (authentication, sessions, access control, injection, XSS, browser headers,
    tokens, cryptography, logging): the others (frameworks and languages,
    containers and cloud, AI, mobile, ...) are left out, to keep a cold ingest
    at a few minutes on two cores and to give the off-topic questions
    neighbours the corpus does not answer;
  * ``labels.tsv`` (ours; columns in ``benchmarks/data/_sets.py``): gold
    ``cheatsheets/<file>.md#<section_key>``, the section keys sectio's reader
    gives: the slug of the heading path, the sheet's H1 first
    (``Password_Storage_Cheat_Sheet.md`` heading "Argon2id" under "Password
    Hashing Algorithms" ->
    ``password-storage-cheat-sheet/password-hashing-algorithms/argon2id``).

Outputs
  .sectio-bench/corpora/owasp_cheatsheets/tree/cheatsheets/*.md (not committed:
                    the cheat sheets stay in the mirror)   the 32 files unchanged;
                    a benchmark ingests ``tree`` as Markdown (``doc_id`` =
                    ``cheatsheets/Password_Storage_Cheat_Sheet.md``)
  questions.jsonl, qrels/{dev,holdout,all}.tsv   next to this file; see ``_sets.py``

The gold check reads the tree as ``sectio ingest --format markdown`` does
(``sectio.ingest.readers.read_source``, no embedder), so run it with the
project's interpreter::

    .venv/bin/python benchmarks/data/owasp_cheatsheets/build.py [--mirror GIT_DIR] [--keys]

(default mirror: ``/work/.mirror/OWASP+CheatSheetSeries/repo``). ``ensure_tree()``
writes the tree when it is missing and checks the committed gold against it
(``benchmarks/new_corpora.py`` calls it).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(ROOT / "src"))
from _sets import build_docs_set, ensure_docs_tree, git, tree_section_keys  # noqa: E402

REPO = "OWASP/CheatSheetSeries"
COMMIT = "6b8819da79e0537d072e04296ffa3adfc94ba881"
#: The cheat sheets taken (``cheatsheets/<name>_Cheat_Sheet.md``), by theme.
SHEETS = (
    # authentication and sessions
    "Authentication",
    "Password_Storage",
    "Forgot_Password",
    "Multifactor_Authentication",
    "Credential_Stuffing_Prevention",
    "Session_Management",
    # access control
    "Authorization",
    "Insecure_Direct_Object_Reference_Prevention",
    "Mass_Assignment",
    # injection and input
    "SQL_Injection_Prevention",
    "Query_Parameterization",
    "OS_Command_Injection_Defense",
    "Input_Validation",
    "File_Upload",
    "XML_External_Entity_Prevention",
    "Deserialization",
    "Server_Side_Request_Forgery_Prevention",
    "Unvalidated_Redirects_and_Forwards",
    # the browser
    "Cross_Site_Scripting_Prevention",
    "DOM_based_XSS_Prevention",
    "Cross-Site_Request_Forgery_Prevention",
    "Content_Security_Policy",
    "Clickjacking_Defense",
    "HTTP_Headers",
    "HTTP_Strict_Transport_Security",
    # APIs and tokens
    "REST_Security",
    "JSON_Web_Token",
    "OAuth2",
    # cryptography and transport
    "Cryptographic_Storage",
    "Transport_Layer_Security",
    # errors and logs
    "Error_Handling",
    "Logging",
)


def write_tree(mirror: Path, dest: Path) -> Path:
    """The :data:`SHEETS` of ``cheatsheets/`` at :data:`COMMIT`, unchanged, under
    ``dest/cheatsheets/``."""
    for sheet in SHEETS:
        name = f"cheatsheets/{sheet}_Cheat_Sheet.md"
        path = dest / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(git(mirror, "show", f"{COMMIT}:{name}"))
    return dest


def ensure_tree(mirror: Path | None = None) -> Path:
    """The built tree, its gold checked (:func:`_sets.ensure_docs_tree`)."""
    return ensure_docs_tree(HERE, REPO, write_tree, tree_section_keys, mirror, root="cheatsheets")


def main() -> None:
    build_docs_set(HERE, REPO, write_tree)


if __name__ == "__main__":
    main()
