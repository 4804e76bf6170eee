"""Small English and Vietnamese corpora for the routed-retrieval tests (fake embedder)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sectio import Sectio
from sectio.retrieve.pipeline import Router
from sectio.retrieve.rerank import Reranker
from tests.helpers import chunk, write_jsonl


def vi_rows(tenant: str = "default") -> list[dict[str, Any]]:
    """Two Vietnamese monographs; ibuprofen has the seed's pooling case in it."""
    ibu = {"doc_title": "Ibuprofen", "aliases": ["Brufen"], "tenant": tenant}
    para = {"doc_title": "Paracetamol", "aliases": ["Acetaminophen"], "tenant": tenant}
    return [
        chunk("ibuprofen", "ten_chung_quoc_te", 0, "Ibuprofen.", **ibu),
        chunk("ibuprofen", "loai_thuoc", 0, "Thuốc chống viêm không steroid.", **ibu),
        chunk(
            "ibuprofen", "chi_dinh", 0, "Giảm đau nhẹ và vừa, hạ sốt, viêm khớp dạng thấp.", **ibu
        ),
        chunk(
            "ibuprofen",
            "duoc_ly_va_co_che_tac_dung",
            0,
            "Ibuprofen ức chế prostaglandin nên có thể gây loét dạ dày tá tràng và chảy máu "
            "dạ dày tá tràng khi dùng kéo dài.",
            **ibu,
        ),
        chunk(
            "ibuprofen",
            "chong_chi_dinh",
            0,
            "Chống chỉ định: người bệnh loét dạ dày tá tràng tiến triển; quá mẫn với ibuprofen.",
            **ibu,
        ),
        chunk("ibuprofen", "than_trong", 0, "Thận trọng với người cao tuổi.", **ibu),
        chunk("ibuprofen", "than_trong", 1, "Thận trọng khi suy thận, suy tim.", **ibu),
        chunk(
            "ibuprofen",
            "tuong_tac_thuoc",
            0,
            "Dùng cùng thuốc chống đông làm tăng nguy cơ chảy máu.",
            **ibu,
        ),
        chunk("ibuprofen", "lieu_luong_va_cach_dung", 0, "Người lớn 200 mg đến 400 mg.", **ibu),
        chunk("ibuprofen", "qua_lieu_va_xu_tri", 0, "Quá liều gây buồn nôn, nôn.", **ibu),
        chunk("paracetamol", "ten_chung_quoc_te", 0, "Paracetamol (acetaminophen).", **para),
        chunk("paracetamol", "loai_thuoc", 0, "Thuốc giảm đau hạ sốt.", **para),
        chunk("paracetamol", "chi_dinh", 0, "Giảm đau, hạ sốt, đau đầu.", **para),
        chunk(
            "paracetamol",
            "duoc_ly_va_co_che_tac_dung",
            0,
            "Paracetamol tác động lên trung khu điều nhiệt ở vùng dưới đồi.",
            **para,
        ),
        chunk(
            "paracetamol",
            "chong_chi_dinh",
            0,
            "Người bệnh thiếu hụt glucose-6-phosphat dehydrogenase; quá mẫn với paracetamol.",
            **para,
        ),
        chunk("paracetamol", "than_trong", 0, "Thận trọng khi nghiện rượu.", **para),
        chunk(
            "paracetamol",
            "lieu_luong_va_cach_dung",
            0,
            "Người lớn 500 mg mỗi 4 đến 6 giờ, tối đa 4 g mỗi ngày.",
            **para,
        ),
        chunk("paracetamol", "qua_lieu_va_xu_tri", 0, "Quá liều gây hoại tử gan.", **para),
        chunk(
            "paracetamol",
            "tuong_tac_thuoc",
            0,
            "Uống rượu nhiều và kéo dài làm tăng độc tính với gan.",
            **para,
        ),
    ]


def en_rows(tenant: str = "default") -> list[dict[str, Any]]:
    """Three English labels (openFDA keys)."""
    met = {"doc_title": "Metformin", "aliases": ["Glucophage"], "tenant": tenant}
    ibu = {"doc_title": "Ibuprofen", "aliases": ["Advil", "Motrin"], "tenant": tenant}
    war = {"doc_title": "Warfarin", "aliases": ["Coumadin"], "tenant": tenant}
    return [
        chunk(
            "metformin",
            "indications_and_usage",
            0,
            "Metformin is indicated to improve glycemic control in type 2 diabetes mellitus.",
            **met,
        ),
        chunk(
            "metformin",
            "dosage_and_administration",
            0,
            "Starting dose 500 mg twice a day with meals.",
            **met,
        ),
        chunk(
            "metformin",
            "dosage_and_administration",
            1,
            "Maximum dose 2550 mg per day in divided doses.",
            **met,
        ),
        chunk(
            "metformin",
            "contraindications",
            0,
            "Severe renal impairment. Hypersensitivity to metformin. Metabolic acidosis.",
            **met,
        ),
        chunk(
            "metformin",
            "warnings_and_cautions",
            0,
            "Lactic acidosis: risk increases with renal impairment and alcohol.",
            **met,
        ),
        chunk(
            "metformin",
            "adverse_reactions",
            0,
            "Diarrhea, nausea, vomiting, flatulence are the most common reactions.",
            **met,
        ),
        chunk(
            "metformin",
            "drug_interactions",
            0,
            "Carbonic anhydrase inhibitors may increase the risk of lactic acidosis.",
            **met,
        ),
        chunk(
            "ibuprofen",
            "indications_and_usage",
            0,
            "Ibuprofen is indicated for relief of rheumatoid arthritis and mild to moderate pain.",
            **ibu,
        ),
        chunk(
            "ibuprofen",
            "dosage_and_administration",
            0,
            "Use the lowest effective dose for the shortest duration.",
            **ibu,
        ),
        chunk(
            "ibuprofen",
            "drug_interactions",
            0,
            "Aspirin and anticoagulants such as warfarin increase the risk of bleeding.",
            **ibu,
        ),
        chunk(
            "ibuprofen",
            "warnings_and_cautions",
            0,
            "NSAIDs cause an increased risk of serious gastrointestinal bleeding.",
            **ibu,
        ),
        chunk(
            "warfarin",
            "indications_and_usage",
            0,
            "Warfarin is indicated for prophylaxis and treatment of venous thrombosis.",
            **war,
        ),
        chunk(
            "warfarin",
            "drug_interactions",
            0,
            "NSAIDs such as ibuprofen and aspirin increase bleeding risk with warfarin.",
            **war,
        ),
        chunk(
            "warfarin",
            "contraindications",
            0,
            "Pregnancy, except in women with mechanical heart valves.",
            **war,
        ),
    ]


def write(tmp: Path, name: str, rows: list[dict[str, Any]]) -> Path:
    """Write ``rows`` under ``tmp`` as ``name``.jsonl."""
    return write_jsonl(tmp / f"{name}.jsonl", rows)


def policy_router(
    sx: Sectio, collection: str, reranker: Reranker | None = None, **policy: float
) -> Router:
    """``collection``'s router with ``reranker`` (None: no reranker) and policy overrides."""
    base = sx.router(collection)
    return Router(
        base.collection,
        sx.embedder,
        reranker=lambda: (reranker, None),
        policy=base.policy.with_overrides(**policy),
    )
