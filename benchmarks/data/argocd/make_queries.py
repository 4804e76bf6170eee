"""Build the Argo CD docs question set (BEIR-style) from the docs' own structure.

Writes ``queries.jsonl`` and ``qrels/{dev,test}.tsv`` next to this file; the
corpus-id of a judgement is a document id (``docs/faq.md``), so the set
measures document-level retrieval. Kinds (``metadata.kind``):

* ``named_page``: a page named by its title ("What does the Sync Windows page cover?");
* ``named_file``: a file named by its file name or path ("Where is sync-waves.md?");
* ``command``: a CLI command whose reference page is the answer;
* ``crosslink``: the text of a link between pages, asked as "where is X
  documented?", answered by the link's target;
* ``faq_heading``: every heading written as a question (``docs/faq.md`` and the
  rest of the docs), answered by its page and by the pages its answer links to;
* ``faq_paraphrase``: questions written by hand like FAQ headings, each
  labelled with the page(s) that answer it (checked by reading the page).

Sampling is deterministic (sha1 of the candidate); a third of the queries
(by sha1 of the query id) form ``dev`` (for tuning), the rest ``test``.

Usage::

    .venv/bin/python benchmarks/data/argocd/make_queries.py [--docs /work/shared/data/docs_argocd]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "src"))

from sectio.ingest.markdown import resolve_link  # noqa: E402
from sectio.ingest.md_parse import parse_markdown  # noqa: E402

DEFAULT_DOCS = ROOT.parent / "shared" / "data" / "docs_argocd"

#: Hand-written FAQ-style questions -> the page(s) that answer them.
PARAPHRASES: list[tuple[str, list[str]]] = [
    ("How can I reset the admin password if I lost it?", ["docs/faq.md"]),
    (
        "How do I make Argo CD ignore differences in a specific field?",
        ["docs/user-guide/diffing.md"],
    ),
    (
        "How can I control the order in which resources are deployed?",
        ["docs/user-guide/sync-waves.md"],
    ),
    (
        "How do I keep the resources when I delete an application?",
        ["docs/user-guide/app_deletion.md"],
    ),
    ("Can I block syncs during certain hours of the day?", ["docs/user-guide/sync_windows.md"]),
    (
        "How do I run a database migration job before the sync starts?",
        ["docs/user-guide/resource_hooks.md"],
    ),
    ("How do I turn on automatic syncing when Git changes?", ["docs/user-guide/auto_sync.md"]),
    ("How do I give a group read-only access to applications?", ["docs/operator-manual/rbac.md"]),
    (
        "How do I connect a private Git repository with an SSH key?",
        ["docs/user-guide/private-repositories.md"],
    ),
    (
        "How do I expose the API server through an nginx ingress?",
        ["docs/operator-manual/ingress.md"],
    ),
    (
        "How should I run Argo CD with several replicas for high availability?",
        ["docs/operator-manual/high_availability.md"],
    ),
    (
        "How can I generate many applications from one template?",
        ["docs/operator-manual/applicationset/index.md"],
    ),
    (
        "How do I get a Slack message when a sync fails?",
        ["docs/operator-manual/notifications/services/slack.md"],
    ),
    ("How do I write a custom health check for my CRD?", ["docs/operator-manual/health.md"]),
    (
        "How do I back up and restore my Argo CD data?",
        ["docs/operator-manual/disaster_recovery.md"],
    ),
    ("Which Prometheus metrics does Argo CD expose?", ["docs/operator-manual/metrics.md"]),
    (
        "How can I manage Argo CD's own configuration as Kubernetes manifests?",
        ["docs/operator-manual/declarative-setup.md"],
    ),
    (
        "How do I verify that commits are signed with GPG before syncing?",
        ["docs/user-guide/gpg-verification.md", "docs/user-guide/source-integrity-git-gpg.md"],
    ),
    ("How do I pass my own values files to a Helm chart?", ["docs/user-guide/helm.md"]),
    ("How do I set a name prefix for a kustomize application?", ["docs/user-guide/kustomize.md"]),
    (
        "How do I register an external Kubernetes cluster?",
        [
            "docs/operator-manual/cluster-management.md",
            "docs/getting_started.md",
            "docs/user-guide/commands/argocd_cluster_add.md",
        ],
    ),
    ("How do I install the argocd command line tool on my Mac?", ["docs/cli_installation.md"]),
    (
        "How can Git pushes trigger a refresh right away instead of polling?",
        ["docs/operator-manual/webhook.md"],
    ),
    (
        "What does the repository server component do?",
        ["docs/operator-manual/architecture.md", "docs/developer-guide/architecture/components.md"],
    ),
    (
        "What changed when upgrading from 2.14 to 3.0?",
        ["docs/operator-manual/upgrading/2.14-3.0.md"],
    ),
    (
        "Can one application take its Helm values from a different Git repository?",
        ["docs/user-guide/multiple_sources.md", "docs/user-guide/helm.md"],
    ),
    (
        "How do I pause reconciliation of a single application?",
        ["docs/user-guide/skip_reconcile.md"],
    ),
    ("How do I show a sync status badge in my README?", ["docs/user-guide/status-badge.md"]),
    (
        "How can I restrict the clusters and namespaces a team may deploy to?",
        ["docs/user-guide/projects.md", "docs/operator-manual/project-specification.md"],
    ),
    (
        "How can I add a link to my Grafana dashboard on the application page?",
        ["docs/operator-manual/deep_links.md"],
    ),
    (
        "How do I plug in my own manifest generation tool?",
        [
            "docs/operator-manual/config-management-plugins.md",
            "docs/user-guide/config-management-plugins.md",
        ],
    ),
    (
        "Can I open a shell into a running pod from the UI?",
        ["docs/operator-manual/web_based_terminal.md"],
    ),
    ("How does Argo CD decide whether a resource is healthy?", ["docs/operator-manual/health.md"]),
    (
        "How do I track resources with an annotation instead of the instance label?",
        ["docs/user-guide/resource_tracking.md"],
    ),
    ("How can users sign in with Okta?", ["docs/operator-manual/user-management/okta.md"]),
    ("Can I run Argo CD headless without the UI and API server?", ["docs/operator-manual/core.md"]),
    (
        "How do I manage Application resources outside the argocd namespace?",
        ["docs/operator-manual/app-any-namespace.md"],
    ),
    (
        "How do I roll out ApplicationSet changes one group at a time?",
        ["docs/operator-manual/applicationset/Progressive-Syncs.md"],
    ),
    (
        "How do I create an application for every registered cluster automatically?",
        ["docs/operator-manual/applicationset/Generators-Cluster.md"],
    ),
    (
        "How do I run Argo CD locally to work on its code?",
        ["docs/developer-guide/running-locally.md"],
    ),
    (
        "How can I find resources in a namespace that no application manages?",
        ["docs/user-guide/orphaned-resources.md"],
    ),
    ("How do I sync only some resources of an application?", ["docs/user-guide/selective_sync.md"]),
    (
        "How do I configure my own TLS certificate for the API server?",
        ["docs/operator-manual/tls.md"],
    ),
    (
        "How do I stop Argo CD from pruning a particular resource?",
        ["docs/user-guide/sync-options.md"],
    ),
    (
        "How can I reduce how often Argo CD reconciles applications?",
        ["docs/operator-manual/reconcile.md", "docs/faq.md"],
    ),
    (
        "How should I handle secrets like passwords in GitOps with Argo CD?",
        ["docs/operator-manual/secret-management.md"],
    ),
    (
        "How do I add a custom action, like restart, to a resource in the UI?",
        ["docs/operator-manual/resource_actions.md"],
    ),
]

_GENERIC_LINK = re.compile(
    r"^(here|this|link|docs?|documentation|this page|this guide|read more|more|see|example"
    r"|examples|the docs|the documentation|official documentation)$",
    re.I,
)


def _h(text: str) -> int:
    return int(hashlib.sha1(text.encode()).hexdigest()[:8], 16)


def _pick(items: list, n: int) -> list:
    return sorted(items, key=lambda x: _h(json.dumps(x, sort_keys=True, default=str)))[:n]


def _plain(text: str) -> str:
    return " ".join(text.replace("`", "").split())


def build(docs_root: Path) -> list[dict]:
    files = sorted(p for p in docs_root.rglob("*.md") if ".git" not in p.parts)
    parsed = {
        f.relative_to(docs_root).as_posix(): parse_markdown(
            f.read_text(encoding="utf-8", errors="replace"), f.relative_to(docs_root).as_posix()
        )
        for f in files
    }
    ids = set(parsed)
    titles: dict[str, list[str]] = {}
    for path, doc in parsed.items():
        titles.setdefault(doc.title.lower(), []).append(path)
    basenames: dict[str, list[str]] = {}
    for path in parsed:
        basenames.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    queries: list[dict] = []

    def add(kind: str, text: str, rel: list[str]) -> None:
        queries.append({"kind": kind, "text": text, "rel": sorted(set(rel))})

    commands = sorted(p for p in parsed if "/commands/" in p)
    pages = sorted(p for p in parsed if "/commands/" not in p)

    # named pages: unique titles of three words or fewer read like page names
    named = [p for p in pages if len(titles[parsed[p].title.lower()]) == 1]
    templates = [
        "What does the {t} page cover?",
        "Summarize the {t} documentation.",
        "Show me the docs on {t}.",
    ]
    for i, p in enumerate(_pick(named, 40)):
        add("named_page", templates[i % 3].format(t=_plain(parsed[p].title)), [p])

    # named files
    file_templates = ["Where is {b}?", "What is in {p}?", "Open {b}"]
    unique_files = [p for p in pages if len(basenames[p.rsplit("/", 1)[-1]]) == 1]
    for i, p in enumerate(_pick(unique_files, 30)):
        b = p.rsplit("/", 1)[-1]
        add("named_file", file_templates[i % 3].format(b=b, p=p), [p])

    # CLI commands -> reference page
    cmd_templates = [
        "Which page documents `{c}`?",
        "What flags does {c} accept?",
        "How do I use the {c} command?",
    ]
    for i, p in enumerate(_pick(commands, 20)):
        cmd = p.rsplit("/", 1)[-1][: -len(".md")].replace("_", " ")
        add("command", cmd_templates[i % 3].format(c=cmd), [p])

    # cross-links: link text -> target page
    links: list[tuple[str, str]] = []
    for path, doc in parsed.items():
        for s in doc.sections:
            for b in s.blocks:
                for href, text in b.links:
                    target, _ = resolve_link(path, href, ids)
                    text = _plain(text)
                    if (
                        target
                        and target != path
                        and 2 <= len(text.split()) <= 8
                        and not _GENERIC_LINK.match(text)
                        and not text.lower().startswith(("http", "#"))
                        and "/commands/" not in target
                    ):
                        links.append((text, target))
    seen: set[str] = set()
    unique_links = []
    for text, target in sorted(set(links)):
        if text.lower() not in seen:
            seen.add(text.lower())
            unique_links.append((text, target))
    link_templates = ["Where is {x} documented?", "Which page explains {x}?"]
    for i, (text, target) in enumerate(_pick(unique_links, 40)):
        add("crosslink", link_templates[i % 2].format(x=text), [target])

    # question headings -> their page and the pages their answer links to
    for path, doc in sorted(parsed.items()):
        for s in doc.sections:
            if s.level < 2 or not s.title.rstrip().endswith("?"):
                continue
            rel = [path]
            for b in s.blocks:
                for href, _ in b.links:
                    target, _ = resolve_link(path, href, ids)
                    if target and target != path:
                        rel.append(target)
            add("faq_heading", s.title.strip(), rel)

    for text, rel in PARAPHRASES:
        missing = [r for r in rel if r not in ids]
        if missing:
            raise SystemExit(f"paraphrase {text!r}: no such page {missing}")
        add("faq_paraphrase", text, rel)
    return queries


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--docs", type=Path, default=DEFAULT_DOCS)
    args = ap.parse_args(argv)
    queries = build(args.docs)
    (HERE / "qrels").mkdir(exist_ok=True)
    prefixes = {
        "named_page": "np",
        "named_file": "nf",
        "command": "cmd",
        "crosslink": "xl",
        "faq_heading": "fh",
        "faq_paraphrase": "fp",
    }
    counters: dict[str, int] = {}
    lines, dev, test = [], [], []
    for q in queries:
        n = counters[q["kind"]] = counters.get(q["kind"], 0) + 1
        qid = f"{prefixes[q['kind']]}{n:03d}"
        lines.append(json.dumps({"_id": qid, "text": q["text"], "metadata": {"kind": q["kind"]}}))
        split = dev if _h(qid) % 3 == 0 else test
        split.extend(f"{qid}\t{doc}\t1" for doc in q["rel"])
    (HERE / "queries.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    header = "query-id\tcorpus-id\tscore\n"
    (HERE / "qrels" / "dev.tsv").write_text(header + "\n".join(dev) + "\n", encoding="utf-8")
    (HERE / "qrels" / "test.tsv").write_text(header + "\n".join(test) + "\n", encoding="utf-8")
    print(f"{len(queries)} queries: {counters}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
