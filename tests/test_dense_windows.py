"""Dense windows: a long chunk embedded as windows, scored by its best one (MaxSim).

Real Qdrant Edge on tmp_path (and qdrant-client local mode for the server
adapter), the deterministic fake embedder (a token is a word): the windows,
the multivector index, the cosine a hit reports, the manifest binding, and the
transfer of windowed collections are what is checked here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError
from qdrant_client import QdrantClient

from sectio import Sectio, Settings
from sectio.cli import main
from sectio.errors import CorpusMismatch
from sectio.index.copy import copy_collection, serving_gate
from sectio.index.edge.store import EdgeBackend
from sectio.index.ids import point_id_for
from sectio.index.port import best_cosine, dense_rows
from sectio.index.server.store import ServerBackend
from sectio.ingest.chunking import dense_windows
from tests.helpers import chunk, write_jsonl

WINDOW = 16
TITLE = "Warfarin"
# five sentences of eight words, no word shared: windows of 16 tokens hold two each
LONG = " ".join(
    [
        "Take one tablet daily with water at night.",
        "Bleeding gums or dark stools need urgent care.",
        "Aspirin and ibuprofen raise that risk even more.",
        "Pregnant women should avoid it during early months.",
        "Store below thirty degrees away from direct light.",
    ]
)
SHORT = "Warfarin thins the blood."


def _count(text: str) -> int:
    return len(text.split())


def test_a_short_chunk_is_one_window_exactly_its_index_text() -> None:
    assert dense_windows([TITLE], SHORT, WINDOW, _count) == [f"{TITLE}\n{SHORT}"]
    assert dense_windows([], SHORT, WINDOW, _count) == [SHORT]


def test_long_chunk_windows_fit_carry_the_titles_and_cover_the_text_in_order() -> None:
    titles = [TITLE, "Warnings"]
    windows = dense_windows(titles, LONG, WINDOW, _count)
    assert len(windows) > 1
    for w in windows:
        assert w.startswith("Warfarin\nWarnings\n")
        assert _count(w) <= WINDOW
    bodies = [w.split("\n", 2)[2] for w in windows]
    assert " ".join(bodies).split() == LONG.split()


def test_titles_longer_than_the_window_still_leave_text_in_every_window() -> None:
    windows = dense_windows(["a very long title " * 5], LONG, WINDOW, _count)
    assert all(w.split("\n", 1)[1].strip() for w in windows)
    assert " ".join(w.split("\n", 1)[1] for w in windows).split() == LONG.split()


def test_the_window_setting_is_zero_or_at_least_16() -> None:
    assert Settings(dense_window_tokens=0).dense_window_tokens == 0
    assert Settings(dense_window_tokens=128).dense_window_tokens == 128
    for bad in (1, 15, -1):
        with pytest.raises(ValidationError):
            Settings(dense_window_tokens=bad)


def test_best_cosine_takes_the_best_row() -> None:
    q = np.array([1.0, 0.0], dtype=np.float32)
    assert best_cosine(q, (0.0, 2.0)) == pytest.approx(0.0)
    assert best_cosine(q, ((0.0, 1.0), (3.0, 4.0))) == pytest.approx(0.6)
    assert best_cosine(q, None) == 0.0
    assert dense_rows((1.0, 2.0)).shape == (1, 2)


def _corpus(tmp_path: Path) -> Path:
    rows = [
        chunk("warfarin", "warnings", 0, LONG, doc_title=TITLE, tenant="a"),
        chunk("warfarin", "overview", 0, SHORT, doc_title=TITLE, tenant="a"),
        chunk("other", "body", 0, "Metformin treats type 2 diabetes.", tenant="a"),
    ]
    return write_jsonl(tmp_path / "c.jsonl", rows)


@pytest.fixture
def windowed_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    with Sectio(Settings(home=home, embedder="fake", dense_window_tokens=WINDOW)) as s:
        report = s.ingest(_corpus(tmp_path))
        assert report.action == "created" and report.collection_count == 3
    return home


def test_a_windowed_collection_stores_one_vector_per_window(windowed_home: Path) -> None:
    with Sectio(Settings(home=windowed_home, embedder="fake", dense_window_tokens=WINDOW)) as s:
        manifest = s.backend.read_manifest("default")
        assert manifest is not None and manifest.dense_window_tokens == WINDOW
        index = s.collection().index
        long_id, short_id = point_id_for("warfarin#warnings#0"), point_id_for("warfarin#overview#0")
        points = {p.id: p for p in index.retrieve([long_id, short_id], with_vectors=True)}
        windows = dense_windows([TITLE], LONG, WINDOW, s.embedder.count_tokens)
        stored = dense_rows(points[long_id].dense or ())
        assert len(windows) > 1 and stored.shape == (len(windows), 384)
        expected = s.embedder.embed_documents(windows)
        assert np.allclose(stored, expected, atol=1e-5)
        assert dense_rows(points[short_id].dense or ()).shape == (1, 384)


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_a_hit_scores_its_best_windows_cosine(windowed_home: Path, mode: str) -> None:
    with Sectio(Settings(home=windowed_home, embedder="fake", dense_window_tokens=WINDOW)) as s:
        windows = dense_windows([TITLE], LONG, WINDOW, s.embedder.count_tokens)
        # the text of the last window only: a one-vector chunk would dilute it
        question = windows[-1].split("\n", 1)[1]
        result = s.search(question, top_k=3, mode=mode, tenant="a")
        assert result.details["dense_window_tokens"] == WINDOW
        top = result.hits[0]
        assert top.chunk_id == "warfarin#warnings#0"
        qv = s.embedder.embed_query(question)
        best = max(best_cosine(qv, v) for v in s.embedder.embed_documents(windows))
        assert top.score == pytest.approx(best, abs=1e-4)
        whole = s.embedder.embed_documents([f"{TITLE}\n{LONG}"])[0]
        assert top.score > best_cosine(qv, whole) + 0.1  # the window beats the whole chunk


def test_the_window_is_bound_by_the_manifest(windowed_home: Path) -> None:
    corpus = windowed_home.parent / "c.jsonl"
    with Sectio(Settings(home=windowed_home, embedder="fake", dense_window_tokens=WINDOW)) as s:
        again = s.ingest(corpus)
        assert (again.action, again.upserted) == ("converged", 0)
    with Sectio(Settings(home=windowed_home, embedder="fake")) as s:
        with pytest.raises(CorpusMismatch) as err:
            s.ingest(corpus)
        assert err.value.fields == ["dense_window_tokens"]
        replaced = s.ingest(corpus, replace=True)
        assert replaced.action == "replaced"
        index = s.collection().index
        (p,) = index.retrieve([point_id_for("warfarin#warnings#0")], with_vectors=True)
        assert dense_rows(p.dense or ()).shape == (1, 384)


def test_windowed_collections_travel_to_the_server_adapter_and_back(
    windowed_home: Path, tmp_path: Path
) -> None:
    edge = EdgeBackend(windowed_home / "collections")
    server = ServerBackend(QdrantClient(":memory:"), local=True)
    gate = serving_gate("default", "fake-hash-bow", 384)
    try:
        copy_collection(edge, "default", server, "default", verify=gate)
        back = EdgeBackend(tmp_path / "back" / "collections")
        copy_collection(server, "default", back, "copy", verify=gate)
        long_id = point_id_for("warfarin#warnings#0")
        with Sectio(Settings(home=windowed_home, embedder="fake")) as s:
            windows = dense_windows([TITLE], LONG, WINDOW, s.embedder.count_tokens)
            qv = s.embedder.embed_query(windows[-1].split("\n", 1)[1])
        for backend, name in ((edge, "default"), (server, "default"), (back, "copy")):
            index = backend.open(name)
            try:
                (p,) = index.retrieve([long_id], with_vectors=True)
                assert dense_rows(p.dense or ()).shape == (len(windows), 384)
                hits = index.search_dense(qv, 3)
                assert hits[0].id == long_id
                assert hits[0].score == pytest.approx(best_cosine(qv, p.dense), abs=1e-4)
            finally:
                index.close()
    finally:
        server.close()


def test_cli_ingest_with_windows_and_info_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for key in ("SECTIO_QDRANT_URL", "SECTIO_QDRANT_LOCATION"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("SECTIO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    monkeypatch.setenv("SECTIO_DENSE_WINDOW_TOKENS", "8")
    assert main(["ingest", str(_corpus(tmp_path))]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: invalid setting SECTIO_DENSE_WINDOW_TOKENS: must be 0")
    assert len(err.splitlines()) == 1
    monkeypatch.setenv("SECTIO_DENSE_WINDOW_TOKENS", str(WINDOW))
    assert main(["ingest", str(_corpus(tmp_path))]) == 0
    assert main(["info"]) == 0
    assert f"windows of {WINDOW} tokens" in capsys.readouterr().out


def test_a_bad_setting_is_a_one_line_config_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("SECTIO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SECTIO_QUANTIZATION", "int4")
    assert main(["info"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: invalid setting SECTIO_QUANTIZATION:") and "'int4'" in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "home").exists()  # nothing was created


def test_chunks_longer_than_the_model_reads_get_windows_by_themselves(tmp_path: Path) -> None:
    """With ``chunk_max_tokens`` over the embedder's input, windows of its input turn on."""
    long_text = " ".join(f"w{i}." for i in range(1200))  # 1,200 one-word sentences
    rows = [chunk("big", "body", 0, long_text), chunk("small", "body", 0, SHORT)]
    source = write_jsonl(tmp_path / "big.jsonl", rows)
    settings = Settings(home=tmp_path / "h", embedder="fake", chunk_max_tokens=2048)
    with Sectio(settings) as s:
        reads = s.embedder.max_length  # 512 words for the fake embedder
        s.ingest(source)
        manifest = s.backend.read_manifest("default")
        assert manifest is not None and manifest.dense_window_tokens == reads - 2
        (big,) = s.collection().index.retrieve([point_id_for("big#body#0")], with_vectors=True)
        rows_stored = dense_rows(big.dense or ())
        assert rows_stored.shape[0] == 3  # 1,200 words in windows of 510: the tail is embedded
    # at the default chunk size the model reads every chunk whole: one vector each
    with Sectio(Settings(home=tmp_path / "d", embedder="fake")) as s:
        assert s.window_tokens() == 0
    # an explicit setting wins
    explicit = Settings(
        home=tmp_path / "e", embedder="fake", chunk_max_tokens=2048, dense_window_tokens=64
    )
    with Sectio(explicit) as s:
        assert s.window_tokens() == 64
