"""Docs trees of static sites: Hugo shortcodes and Jekyll's Liquid tags are read, not left as
noise; parsed for real, through the Markdown path to chunk records."""

from __future__ import annotations

from pathlib import Path

from sectio.ingest.documents.sitetags import strip_site_tags
from sectio.ingest.readers import read_source

HUGO = """\
---
title: "Bundles"
---

A bundle is a collection of files.

## The Bundle File Structure

{{< highlight text >}}
wordpress/
  Bundle.yaml
{{< /highlight >}}

{{% notice note %}}
The templates folder is reserved. See [the template guide]({{< relref "templates.md" >}}).
{{% /notice %}}

{{< tabs >}}
{{< tab "v2" >}}
Set `{{ .Values.image }}` to pick the image; the page renders {{ .Release.Name }}.
{{< /tab >}}
{{< /tabs >}}
"""

JEKYLL = """\
# Installing

{% include warning.html %}
Download from [the releases]({{ site.baseurl }}/releases/).

{% highlight shell %}
widget install --all
{% endhighlight %}

{% raw %}Templates read {{ name }}.{% endraw %} Write {% if user %} to test for a user.
"""


def _chunks(root: Path) -> list[dict[str, object]]:
    records = read_source(root, "markdown").records
    return [r.model_dump() for r in records if r.model_dump().get("layer", "D0") == "D0"]


def test_hugo_shortcodes_are_read(tmp_path: Path) -> None:
    (tmp_path / "bundles.md").write_text(HUGO, encoding="utf-8")
    chunks = _chunks(tmp_path)
    texts = "\n".join(str(c["text"]) for c in chunks)
    assert "{{<" not in texts and "{{%" not in texts  # no tag left as text
    code = [c for c in chunks if c["block_type"] == "code"]
    assert len(code) == 1 and "wordpress/" in str(code[0]["text"])  # a highlight is code
    assert "The templates folder is reserved." in texts  # a notice's text is kept
    assert "[the template guide](templates.md)" in texts  # a relref reads as its path
    # a Go template the page shows, in a code span or in prose, is not a site tag
    assert "`{{ .Values.image }}`" in texts and "{{ .Release.Name }}" in texts
    structure = next(c for c in chunks if c["section_key"] == "the-bundle-file-structure")
    assert structure["section_title"] == "The Bundle File Structure"


def test_jekyll_liquid_tags_are_read(tmp_path: Path) -> None:
    (tmp_path / "install.md").write_text(JEKYLL, encoding="utf-8")
    chunks = _chunks(tmp_path)
    texts = "\n".join(str(c["text"]) for c in chunks)
    assert "{% include" not in texts and "{% raw" not in texts and "site.baseurl" not in texts
    assert "Write {% if user %} to test" in texts  # a Jinja statement the page shows stays
    assert "[the releases](/releases/)" in texts
    assert any(c["block_type"] == "code" and "widget install" in str(c["text"]) for c in chunks)
    assert "Templates read {{ name }}." in texts  # raw's text kept, its tags gone


def test_fenced_code_keeps_its_tags_and_lines_are_kept() -> None:
    text = "```html\n{% include x.html %}\n{{< note >}}\n```\nafter {{< note >}}\n"
    out = strip_site_tags(text)
    assert out.split("\n")[:4] == text.split("\n")[:4]  # inside the fence: as written
    assert out.count("\n") == text.count("\n") and "after " in out


ELEVENTY = """\
---
title: Leave types
---

{% alert %}
  Current employees can use the leave comparison chart.
{% endalert %}

Before you take leave, check [out of office expectations]({% page "travel/out-of-office/" %}).

## Court leave

Ask in {% slack_channel "people-ops" %} about jury duty.
{% image "_img/hr-links.png" "the HR Links leave screen" %}
- File the summons {% comment %}TODO link to the summons page{% endcomment %}
{% comment %}
Left out until HR confirms.
{% endcomment %}
A Django page may write {% url 'home' %} and {% if user %} in prose.
"""


def test_a_sites_own_liquid_shortcodes_are_read(tmp_path: Path) -> None:
    """Eleventy's and Jekyll plugins' own tags: no tag left as text, a link through one
    points to its path, a channel or an image's words are kept, a comment is dropped with
    what it holds; a template statement the page shows stays."""
    (tmp_path / "leave.md").write_text(ELEVENTY, encoding="utf-8")
    chunks = _chunks(tmp_path)
    texts = "\n".join(str(c["text"]) for c in chunks)
    for tag in ("{% alert", "{% endalert", "{% page", "{% slack_channel", "{% image", "{% comment"):
        assert tag not in texts, tag
    assert "Current employees can use the leave comparison chart." in texts
    assert "[out of office expectations](travel/out-of-office/)" in texts
    assert "Ask in people-ops about jury duty." in texts
    assert "the HR Links leave screen" in texts and "_img/hr-links.png" not in texts
    assert "TODO" not in texts and "Left out until HR confirms" not in texts
    assert "File the summons" in texts
    assert "{% url 'home' %}" in texts and "{% if user %}" in texts
    court = next(c for c in chunks if c["section_key"] == "court-leave")
    assert "jury duty" in str(court["text"])


def test_a_comment_over_several_lines_keeps_the_line_count() -> None:
    text = "a\n{% comment %}\nhidden\n{% endcomment %}\nb {% note %}\n"
    out = strip_site_tags(text)
    assert out.count("\n") == text.count("\n") and "hidden" not in out
    assert out.split("\n")[0] == "a" and out.split("\n")[4] == "b "
