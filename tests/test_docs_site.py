"""The documentation site: it builds with --strict, its reference pages say what the code
declares, no internal link is dead, and no page names a folder outside the repository.

The site is built once (``mkdocs build --strict``, as ``make docs-build`` does) into a
temporary folder, and the checks read the built HTML: a flag, a setting, a profile
key, a route or an error class the code has and a reference page lacks fails here.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import click
import pytest

pytest.importorskip("mkdocs", reason="the docs extra (in [dev]) builds the site")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out


def page_text(site: Path, rel: str) -> str:
    """The text of a built page, tags dropped and entities decoded."""
    raw = (site / rel).read_text(encoding="utf-8")
    return html.unescape(re.sub(r"<[^>]+>", "", raw))


def table_rows(site: Path, rel: str) -> list[str]:
    """Each table row of a built page as text, its cells joined with `` | ``."""
    raw = (site / rel).read_text(encoding="utf-8")
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", raw, re.S):
        cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)
        rows.append(" | ".join(html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in cells))
    return rows


def test_the_cli_reference_names_every_command_and_flag(site: Path) -> None:
    from sectio.cli import cli

    raw = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    sections = dict(re.findall(r'<h2 id="sectio-([a-z_-]+)">(.*?)(?=<h2 |\Z)', raw, re.S))
    ctx = click.Context(cli, info_name="sectio")
    names = cli.list_commands(ctx)
    assert set(names) <= set(sections), sorted(set(names) - set(sections))
    for name in names:
        command = cli.get_command(ctx, name)
        assert command is not None
        text = html.unescape(re.sub(r"<[^>]+>", "", sections[name]))
        for param in command.params:
            for flag in (*param.opts, *param.secondary_opts):
                if isinstance(param, click.Argument):
                    flag = param.human_readable_name
                assert flag in text, f"sectio {name}: {flag} missing from reference/cli"


def test_the_settings_reference_names_every_setting_with_its_default(site: Path) -> None:
    from sectio.settings import Settings

    rows = {r.split(" | ")[0]: r for r in table_rows(site, "reference/settings.html")}
    for name, field in Settings.model_fields.items():
        row = rows.get(f"SECTIO_{name.upper()}")
        assert row is not None, f"SECTIO_{name.upper()} missing from reference/settings"
        if isinstance(field.default, int | float) and not isinstance(field.default, bool):
            assert row.split(" | ")[2] == repr(field.default), (name, row)


def test_the_profile_reference_names_every_key(site: Path) -> None:
    from pydantic import BaseModel

    from sectio.contract import profile
    from sectio.plan.resolver import DocsLayout
    from sectio.retrieve.policy import EvidencePolicy

    text = page_text(site, "reference/profile.html")
    models = [
        obj
        for obj in vars(profile).values()
        if isinstance(obj, type)
        and issubclass(obj, BaseModel)
        and obj.__module__ == profile.__name__
    ]
    assert profile.CorpusProfile in models and profile.IntentSettings in models
    for model in models:
        for key in model.model_fields:
            assert re.search(rf"\b{key}\b", text), f"{model.__name__}.{key} missing"
    for key in EvidencePolicy.__dataclass_fields__:
        assert key in text, f"[policy] {key} missing"
    for key in DocsLayout.model_fields:
        assert key in text, f"[docs] {key} missing"
    for key in ("source_refs[].source", "source_refs[].page", "source_refs[].url"):
        assert key in page_text(site, "reference/record.html")


def test_the_http_reference_names_every_route(site: Path) -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import docs_reference
    finally:
        sys.path.remove(str(ROOT / "tools"))
    spec = docs_reference.openapi()
    text = page_text(site, "reference/http.html")
    for path, item in spec["paths"].items():
        for method in item:
            assert f"{method.upper()} {path}" in text, f"{method.upper()} {path} missing"


def test_the_errors_reference_names_every_error_with_its_status(site: Path) -> None:
    from sectio import errors

    rows = {r.split(" | ")[0].split()[-1]: r for r in table_rows(site, "reference/errors.html")}
    for cls, (status, code) in errors.HTTP_ERRORS.items():
        row = rows.get(cls.__name__)
        assert row is not None, f"{cls.__name__} missing from reference/errors"
        assert row.split(" | ")[1:3] == [str(status), code], row


def test_the_python_reference_documents_the_facade(site: Path) -> None:
    text = page_text(site, "reference/python.html")
    for name in ("Sectio", "ask", "search", "ingest", "RetrievalResult", "SectioClient"):
        assert name in text


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(str(values["id"]))
        for attr in ("href", "src"):
            if values.get(attr) and tag in ("a", "link", "script", "img"):
                self.links.append(str(values[attr]))


def test_no_internal_link_of_the_site_is_dead(site: Path) -> None:
    pages = {p: _parse(p) for p in site.rglob("*.html")}
    dead = []
    checked = 0
    for page, parser in pages.items():
        for link in parser.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "data:")):
                continue
            path = unquote(parts.path)
            base = site if path.startswith("/") else page.parent  # 404.html: from the root
            target = (base / path.lstrip("/")).resolve() if path else page
            if target.is_dir():
                target = target / "index.html"
            checked += 1
            if not target.exists():
                dead.append(f"{page.relative_to(site)} -> {link}")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    dead.append(f"{page.relative_to(site)} -> {link} (no such anchor)")
    assert checked > 500  # every page links its nav: the check saw the site
    assert not dead, "\n".join(dead)


def _parse(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def test_pages_name_no_folder_outside_the_repository() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for bad in ("../shared", "/work/", "shared/seeds", "shared/data"):
            assert bad not in text, f"{page.relative_to(ROOT)} names {bad!r}"
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if urlsplit(target).scheme:
                continue
            resolved = (page.parent / target).resolve()
            assert resolved.is_relative_to(ROOT), f"{page.relative_to(ROOT)} -> {target}"
            if page.name == "README.md":  # the site checks its own links; GitHub reads these
                assert resolved.exists(), f"README.md -> {target}"


def test_the_readme_fits_on_a_screen() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200
