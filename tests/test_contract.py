"""The corpus contract: records, readers, profiles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sectio.contract.profile import load_profile
from sectio.contract.record import ChunkRecord, corpus_sha256
from sectio.errors import ContractError, ProfileError, RecordError
from sectio.ingest.readers import detect_format, read_beir, read_chunks, read_source
from tests.helpers import chunk, write_jsonl


def test_unknown_fields_pass_through_untouched(tmp_path: Path) -> None:
    row = chunk("d", "s", 0, "text", atc_codes=["A10BA02"], page_hint={"p": 3})
    [record] = read_chunks(write_jsonl(tmp_path / "c.jsonl", [row]))
    payload = record.payload()
    assert payload["atc_codes"] == ["A10BA02"]
    assert payload["page_hint"] == {"p": 3}
    assert payload["tenant"] == "default" and payload["chunk_kind"] == "prose"


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda r: r.pop("doc_id"), "doc_id"),
        (lambda r: r.update(part_index=-1), "part_index"),
        (lambda r: r.update(part_index=True), "part_index"),
        (lambda r: r.update(part_index="2"), "part_index"),
        (lambda r: r.update(text="   "), "text"),
        (lambda r: r.update(chunk_kind="table"), "chunk_kind"),
        (lambda r: r.update(source_refs=[{"page": 2}]), "source_refs.0.source"),
    ],
)
def test_bad_record_names_file_line_and_field(tmp_path: Path, mutate, field: str) -> None:
    rows = [chunk("d", "s", i, f"text {i}") for i in range(3)]
    mutate(rows[1])
    path = write_jsonl(tmp_path / "c.jsonl", rows)
    with pytest.raises(RecordError) as info:
        read_chunks(path)
    assert info.value.line == 2
    assert info.value.field == field
    assert str(info.value).startswith(f"{path}:2: field {field}:")


def test_invalid_json_and_duplicate_ids_are_named(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(chunk("d", "s", 0, "a")) + "\n{not json\n")
    with pytest.raises(RecordError, match=r":2: field <json>"):
        read_chunks(path)
    dup = write_jsonl(tmp_path / "d.jsonl", [chunk("d", "s", 0, "a"), chunk("d", "s", 0, "b")])
    with pytest.raises(RecordError, match=r":2: field chunk_id: duplicate of line 1"):
        read_chunks(dup)


def test_corpus_hash_ignores_key_order_but_not_content() -> None:
    a = ChunkRecord.model_validate(chunk("d", "s", 0, "x"))
    b = ChunkRecord.model_validate(dict(reversed(list(chunk("d", "s", 0, "x").items()))))
    c = ChunkRecord.model_validate(chunk("d", "s", 0, "y"))
    assert corpus_sha256([a]) == corpus_sha256([b]) != corpus_sha256([c])


def test_beir_reader_keeps_title_and_splits_long_documents(tmp_path: Path) -> None:
    long_text = " ".join(f"Sentence number {i} is here." for i in range(80))
    path = write_jsonl(
        tmp_path / "corpus.jsonl",
        [
            {"_id": "1", "title": "Short one", "text": "A short abstract."},
            {"_id": "2", "title": "Long one", "text": long_text},
        ],
    )
    records = read_beir(path, max_tokens=64)
    assert records[0].chunk_id == "1" and records[0].doc_title == "Short one"
    assert "Short one" in records[0].index_text()
    long_parts = [r for r in records if r.doc_id == "2"]
    assert len(long_parts) > 2
    assert [r.part_index for r in long_parts] == list(range(len(long_parts)))
    assert [r.chunk_id for r in long_parts][:2] == ["2#0", "2#1"]
    # no text lost, no word cut
    assert " ".join(r.text for r in long_parts).split() == long_text.split()


def test_format_detection(tmp_path: Path, small_corpus: Path) -> None:
    assert detect_format(small_corpus) == "chunks"
    beir = write_jsonl(tmp_path / "b.jsonl", [{"_id": "x", "text": "t"}])
    assert detect_format(beir) == "beir"
    (tmp_path / "bdir").mkdir()
    write_jsonl(tmp_path / "bdir" / "corpus.jsonl", [{"_id": "x", "text": "t"}])
    assert detect_format(tmp_path / "bdir") == "beir"
    assert read_source(tmp_path / "bdir").format == "beir"
    odd = write_jsonl(tmp_path / "o.jsonl", [{"id": 1}])
    with pytest.raises(ContractError, match="cannot tell the format"):
        detect_format(odd)
    with pytest.raises(ContractError, match="no such file"):
        detect_format(tmp_path / "missing.jsonl")


def test_shipped_profiles_load_and_keep_book_order() -> None:
    vi = load_profile("vi_drug_monograph")
    keys = [s.key for s in vi.sections]
    for key in (
        "ten_chung_quoc_te",
        "loai_thuoc",
        "chi_dinh",
        "chong_chi_dinh",
        "than_trong",
        "lieu_luong_va_cach_dung",
        "tuong_tac_thuoc",
        "thoi_ky_mang_thai",
        "thoi_ky_cho_con_bu",
        "duoc_ly_va_co_che_tac_dung",
        "qua_lieu_va_xu_tri",
    ):
        assert key in keys
    assert keys.index("chi_dinh") < keys.index("chong_chi_dinh") < keys.index("qua_lieu_va_xu_tri")
    assert set(vi.intro_sections) == {
        "ten_chung_quoc_te",
        "loai_thuoc",
        "chi_dinh",
        "duoc_ly_va_co_che_tac_dung",
    }
    assert vi.pooling.enabled_sections == ("than_trong",)
    assert vi.pooling.excluded_sections == ("duoc_ly_va_co_che_tac_dung",)
    en = load_profile("en_drug_label")
    for key in (
        "indications_and_usage",
        "contraindications",
        "warnings_and_cautions",
        "dosage_and_administration",
        "drug_interactions",
        "adverse_reactions",
        "pregnancy",
        "nursing_mothers",
        "overdosage",
        "clinical_pharmacology",
        "description",
        "how_supplied",
    ):
        assert en.section(key) is not None, key
    assert en.sha256() != vi.sha256()


def test_profile_errors_are_clear(tmp_path: Path) -> None:
    bad = tmp_path / "p.toml"
    bad.write_text('name = "x"\n[[sections]]\nkey = "a"\nphrase = ["typo"]\n')
    with pytest.raises(ProfileError, match="sections.0.phrase"):
        load_profile(bad)
    bad.write_text('name = "x"\nreverse_lookup_section = "nope"\n[[sections]]\nkey = "a"\n')
    with pytest.raises(ProfileError, match="unknown section keys"):
        load_profile(bad)
    bad.write_text("name = \n")
    with pytest.raises(ProfileError, match="not valid TOML"):
        load_profile(bad)
    with pytest.raises(ProfileError, match="not a shipped profile"):
        load_profile("no_such_profile")


def test_tenant_for_beir_sources_prefixes_ids(tmp_path: Path, small_corpus: Path) -> None:
    path = write_jsonl(tmp_path / "beir.jsonl", [{"_id": "1", "title": "T", "text": "body"}])
    [record] = read_source(path, tenant="acme").records
    assert (record.tenant, record.chunk_id, record.doc_id) == ("acme", "acme:1", "1")
    [plain] = read_source(path).records
    assert (plain.tenant, plain.chunk_id) == ("default", "1")
    with pytest.raises(ContractError, match="carry their own tenant"):
        read_source(small_corpus, tenant="acme")
