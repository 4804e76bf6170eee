"""``sectio.rerank``: the reranker beside ``embed/`` and ``index/``, its timeout defined once."""

from __future__ import annotations

import inspect
from pathlib import Path

from sectio import Sectio, Settings
from sectio.rerank import DEFAULT_TIMEOUT_S, FakeReranker, HttpReranker, rerank_fail_open
from sectio.retrieve import rerank as old_home
from sectio.retrieve.policy import EvidencePolicy
from tests.helpers import write_jsonl
from tests.helpers.api import label_rows


def test_the_timeout_has_one_definition() -> None:
    assert Settings.model_fields["rerank_timeout_s"].default == DEFAULT_TIMEOUT_S
    assert EvidencePolicy().rerank_timeout_s == DEFAULT_TIMEOUT_S
    for fn in (rerank_fail_open, HttpReranker.__init__):
        assert inspect.signature(fn).parameters["timeout_s"].default == DEFAULT_TIMEOUT_S
    assert old_home.FakeReranker is FakeReranker  # the former module name still imports


def test_the_setting_reaches_a_collection_unless_its_profile_sets_one(tmp_path: Path) -> None:
    corpus = write_jsonl(tmp_path / "l.jsonl", label_rows("default"))
    with Sectio(Settings(home=tmp_path / "h", embedder="fake", rerank_timeout_s=2.5)) as s:
        s.ingest(corpus, profile="en_drug_label")
        assert s.router("default").policy.rerank_timeout_s == 2.5


def test_the_fake_reads_words_as_retrieval_does() -> None:
    assert FakeReranker().rerank("Can't dose?", ["cant take a DOSE", "liver"]) == [2.0, 0.0]
