"""Where users wait: CLI start-up and the first query, each next to its reference, in one run.

Three tables:

1. **CLI start**: fresh ``sectio`` processes (the installed entry point) next to
   ``python -c pass`` on the same interpreter, interleaved run by run so that
   the machine's load hits both alike: wall p50, CPU (user + system of the
   child) p50, and wall as a multiple of ``python -c pass``. Targets (issue 20):
   ``--version`` / ``--help`` < 0.3 s, ``info`` < 0.5 s; ``search --mode
   lexical`` loads no model (tests/test_cli_startup.py checks which modules
   each command imports).
2. **First query vs warm**, in one fresh process with a loaded collection:
   the first ``ask`` / ``search`` (opens the collection, loads the model and,
   for ``ask``, the routes; writes the trace as the CLI does) next to the same
   call repeated (p50 of ``--warm`` repeats; the query LRU is off, so every
   repeat embeds its question again). The cold ``sectio ask`` process of
   table 1 is the shell user's view of the same question.
3. **ONNX session**: loading MiniLM's session the first time vs a second
   embedder in the same process (the session is shared) vs an optimised-model
   file (``ORT_ENABLE_EXTENDED`` graph saved once, loaded with optimisations
   off): load CPU, query p50, file size. It answers "would a persistent
   optimised model under ``SECTIO_HOME`` speed the load?".

Bytecode: the commands run with ``PYTHONPYCACHEPREFIX=WORK/pycache`` (filled by
an untimed warm-up run), as an installed package has its ``.pyc`` files; this
machine sets ``PYTHONDONTWRITEBYTECODE``, which would otherwise recompile
sectio's ~130 modules on every start.

The demo corpus (271 chunks, MiniLM int8) is ingested once under
``WORK/home``; ``--docs DIR`` also ingests a Markdown folder (profile
``docs_argocd``) and adds its ``ask`` rows. ``--src DIR`` runs tables 1 and 2
against another checkout's ``src`` (``PYTHONPATH``; e.g. ``git archive`` of an
older commit) on the same home: a before/after in the same conditions.

Run::

    .venv/bin/python benchmarks/startup.py                      # ~3 min on 2 busy cores
    DOCS=../shared/data/docs_argocd/docs/operator-manual/user-management  # 12 pages
    .venv/bin/python benchmarks/startup.py --docs $DOCS
    git archive 4b510f3 src | tar -x -C /tmp/before                     # main before issue 20
    .venv/bin/python benchmarks/startup.py --docs $DOCS --src /tmp/before/src
    .venv/bin/python benchmarks/startup.py --home H [--src DIR]  # table 1's start-up rows on H
    .venv/bin/python benchmarks/startup.py --docs .sectio-bench/corpora/owasp_cheatsheets/tree \
        --docs-profile docs --docs-question "What is peppering in password storage?" [--src DIR]

``--home H`` times only ``python -c pass``, ``--version``, ``--help`` and ``info`` on an
existing home (e.g. one SciFact collection: ``sectio ingest corpus.jsonl --format beir``).
Run it once per checkout rather than interleaving two: an older checkout's ``info``
opens the shard, which rewrites some of its files, so the next run of this one opens it
once again before it can read the recorded count (:mod:`sectio.index.edge.tally`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import print_table, run_phase

QUESTION = "who should not take Glucophage?"  # the demo's printed next step
RANKED = "which drug lowers blood pressure"  # no drug named: fallback search, calibrated
SEARCH = "lactic acidosis"
DOCS_QUESTION = "How do I disable the admin user?"


def _env(work: Path, home: Path, src: Path | None = None) -> dict[str, str]:
    """The commands' environment: this home, a bytecode cache, ``src`` first on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SECTIO_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(SECTIO_HOME=str(home), PYTHONPYCACHEPREFIX=str(work / "pycache"))
    if src is not None:
        env["PYTHONPATH"] = str(src.resolve())
    return env


def _run_once(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s of the child) of one run; a failure stops the benchmark."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def cli_table(env: dict[str, str], runs: int, docs: bool, queries: bool = True) -> list[list[Any]]:
    """Table 1: each command's wall and CPU p50 next to ``python -c pass`` (``queries``
    False: the start-up commands only, for a home without the demo collection)."""
    exe = str(Path(sys.executable).parent / "sectio")
    commands: list[tuple[str, list[str], str]] = [
        ("python -c pass (reference)", [sys.executable, "-c", "pass"], ""),
        ("sectio --version", [exe, "--version"], "< 0.3 s"),
        ("sectio --help", [exe, "--help"], "< 0.3 s"),
        ("sectio info", [exe, "info"], "< 0.5 s"),
    ]
    if queries:
        commands += [
            (
                "sectio search --mode lexical",
                [exe, "search", SEARCH, "-c", "demo", "--mode", "lexical"],
                "",
            ),
            ("sectio search (hybrid)", [exe, "search", SEARCH, "-c", "demo"], ""),
            ("sectio ask (section route)", [exe, "ask", QUESTION, "-c", "demo"], ""),
            ("sectio ask (fallback search)", [exe, "ask", RANKED, "-c", "demo"], ""),
        ]
    if queries and docs:
        commands.append(
            (
                "sectio ask (docs planner)",
                [exe, "ask", env.get("STARTUP_DOCS_QUESTION", DOCS_QUESTION), "-c", "docs"],
                "",
            )
        )
    for _, cmd, _ in commands:  # untimed: fills the bytecode cache, migrates the trace store
        _run_once(cmd, env)
    walls: dict[str, list[float]] = {name: [] for name, _, _ in commands}
    cpus: dict[str, list[float]] = {name: [] for name, _, _ in commands}
    for _ in range(runs):
        for name, cmd, _ in commands:
            wall, cpu = _run_once(cmd, env)
            walls[name].append(wall)
            cpus[name].append(cpu)
    reference = statistics.median(walls[commands[0][0]])
    rows = []
    for name, _, target in commands:
        wall = statistics.median(walls[name])
        rows.append(
            [
                name,
                wall * 1000,
                statistics.median(cpus[name]) * 1000,
                f"{wall / reference:.1f}x",
                target,
            ]
        )
    return rows


#: Table 2's calls: (what, collection, question).
CALLS = {
    "ask (section route)": ("ask", "demo", QUESTION),
    "ask (fallback search)": ("ask", "demo", RANKED),
    "search (hybrid)": ("search", "demo", SEARCH),
    "ask (docs planner)": ("ask", "docs", DOCS_QUESTION),
}


def phase_query(home: str, call: str) -> dict[str, Any]:
    """Table 2, in this fresh process: ``call`` the first time vs the same call warm."""
    os.environ["SECTIO_QUERY_CACHE_SIZE"] = "0"  # every repeat embeds its question again
    warm = int(os.environ.get("STARTUP_WARM", "9"))
    started = time.perf_counter()
    from sectio import Sectio, Settings

    sx = Sectio(Settings(home=Path(home)), write_traces=True)  # as the CLI
    imported = (time.perf_counter() - started) * 1000
    what, collection, question = CALLS[call]
    if collection == "docs":
        question = os.environ.get("STARTUP_DOCS_QUESTION", question)
    run = sx.ask if what == "ask" else sx.search
    times = []
    for _ in range(warm + 1):
        t0 = time.perf_counter()
        run(question, collection=collection)
        times.append((time.perf_counter() - t0) * 1000)
    sx.close()
    return {"import": imported, "first": times[0], "warm": statistics.median(times[1:])}


def phase_onnx(work: str) -> dict[str, Any]:
    """Table 3, in this fresh process: session loads (CPU ms), query p50, file sizes."""
    from sectio.embed.minilm import MiniLMEmbedder

    model = MiniLMEmbedder(Path(work) / "onnx-a")
    t0 = time.process_time()
    model.embed_query("warm up")  # the first session of the process (+ its tokenizer)
    first = (time.process_time() - t0) * 1000
    t0 = time.process_time()
    MiniLMEmbedder(Path(work) / "onnx-b").embed_query("warm up")  # another embedder, same session
    second = (time.process_time() - t0) * 1000
    import onnxruntime as ort

    source = model._model_dir / "model.onnx"
    optimized = Path(work) / "minilm-optimized.onnx"
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = str(optimized)
    ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
    feed = _feed(model)
    rows: dict[str, Any] = {"shared": {"first": first, "second": second}}
    for name, path, level in (
        ("bundled", source, ort.GraphOptimizationLevel.ORT_ENABLE_ALL),
        ("optimized file", optimized, ort.GraphOptimizationLevel.ORT_DISABLE_ALL),
    ):
        loads, queries = [], []
        for _ in range(5):
            options = ort.SessionOptions()
            options.graph_optimization_level = level
            t0 = time.process_time()
            session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
            loads.append((time.process_time() - t0) * 1000)
            for _ in range(20):
                t0 = time.perf_counter()
                session.run(None, feed)
                queries.append((time.perf_counter() - t0) * 1000)
        rows[name] = {
            "load": statistics.median(loads),
            "query": statistics.median(queries),
            "mb": path.resolve().stat().st_size / 2**20,
        }
    return rows


def _feed(model: Any) -> dict[str, Any]:
    """One short question as the session's inputs."""
    import numpy as np

    enc = model.encoder.tokenizer.encode_batch([QUESTION])
    ids = np.array([e.ids for e in enc], dtype=np.int64)
    mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}


def build_home(home: Path, docs: Path | None, docs_profile: str = "docs_argocd") -> None:
    """The demo collection (and a docs one) under ``home``, once; the store migrated; one
    question asked of each (the first ask of a home embeds the answerability
    calibration's fixed questions into its cache, once for its life)."""
    from sectio import Sectio, Settings
    from sectio.demo import DEMO_PROFILE, demo_corpus_path

    with Sectio(Settings(home=home)) as sx:
        if not sx.has_collection("demo"):
            print("ingesting the demo corpus (once) ...", file=sys.stderr)
            sx.ingest(demo_corpus_path(), profile=DEMO_PROFILE, collection="demo")
        if docs is not None and not sx.has_collection("docs"):
            print(f"ingesting {docs} (once; minutes) ...", file=sys.stderr)
            sx.ingest(docs, profile=docs_profile, collection="docs")
        sx.ops.migrate()
        for collection in ("demo", "docs") if docs is not None else ("demo",):
            sx.ask("which setting is documented here", collection=collection)


def start_up_only(work: Path, home: Path, src: Path | None, runs: int) -> None:
    """``--home``: table 1's start-up rows on an existing home (e.g. one SciFact collection)."""
    if not (home / "collections").is_dir():
        raise SystemExit(f"{home} holds no collections")
    load_before = os.getloadavg()[0]
    cli = cli_table(_env(work, home, src), runs, docs=False, queries=False)
    print(f"\ncode: {src or 'this checkout'}; home: {home}")
    print(f"load average {load_before:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print_table(
        "CLI start: fresh process, p50 of interleaved runs",
        ["command", "wall ms", "CPU ms", "wall vs python -c pass", "target"],
        cli,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7, help="timed runs per command (table 1)")
    ap.add_argument("--warm", type=int, default=9, help="warm repeats per call (table 2)")
    ap.add_argument(
        "--work", type=Path, default=Path(tempfile.gettempdir()) / "sectio-bench-startup"
    )
    ap.add_argument("--docs", type=Path, default=None, help="a Markdown folder: add docs rows")
    ap.add_argument("--src", type=Path, default=None, help="time another checkout's src")
    ap.add_argument("--docs-profile", default="docs_argocd", help="the docs folder's profile")
    ap.add_argument("--docs-question", default=DOCS_QUESTION, help="the docs rows' question")
    ap.add_argument(
        "--home",
        type=Path,
        default=None,
        help="an existing SECTIO_HOME: table 1's start-up rows (python -c pass, --version, "
        "--help, info) on it, nothing else",
    )
    args = ap.parse_args()
    work = args.work.resolve()
    if args.home is not None:
        start_up_only(work, args.home.resolve(), args.src, args.runs)
        return
    home = work / "home"
    build_home(home, args.docs, args.docs_profile)
    load_before = os.getloadavg()[0]
    script = Path(__file__).resolve()
    env = {**_env(work, home, args.src), "STARTUP_WARM": str(args.warm)}
    env["STARTUP_DOCS_QUESTION"] = args.docs_question
    calls = [c for c in CALLS if args.docs or CALLS[c][1] != "docs"]
    query = {c: run_phase(script, "query", str(home), c, env=env) for c in calls}
    onnx = None if args.src else run_phase(script, "onnx", str(work), env=env)
    cli = cli_table(env, args.runs, args.docs is not None)
    print(f"\ncode: {args.src or 'this checkout'}")
    print(f"load average {load_before:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print_table(
        "CLI start: fresh process, p50 of interleaved runs",
        ["command", "wall ms", "CPU ms", "wall vs python -c pass", "target"],
        cli,
    )
    print_table(
        "first call vs warm, each in a fresh process (trace written, query LRU off)",
        ["call", "import + Sectio() ms", "first call ms", "warm p50 ms", "first / warm"],
        [
            [name, v["import"], v["first"], v["warm"], f"{v['first'] / v['warm']:.0f}x"]
            for name, v in query.items()
        ],
    )
    if onnx is None:
        return
    print_table(
        "ONNX session (MiniLM int8): load CPU ms, query p50 ms, file MiB",
        ["session", "load CPU ms", "query p50 ms", "MiB"],
        [
            [
                "first embedder of the process (session + tokenizer)",
                onnx["shared"]["first"],
                "",
                "",
            ],
            ["second embedder, same process (shared session)", onnx["shared"]["second"], "", ""],
            [
                "bundled model, ORT_ENABLE_ALL",
                onnx["bundled"]["load"],
                onnx["bundled"]["query"],
                onnx["bundled"]["mb"],
            ],
            [
                "optimized file (EXTENDED, saved), loaded unoptimized",
                onnx["optimized file"]["load"],
                onnx["optimized file"]["query"],
                onnx["optimized file"]["mb"],
            ],
        ],
    )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "query":
        print(json.dumps(phase_query(sys.argv[2], sys.argv[3])))
    elif len(sys.argv) > 1 and sys.argv[1] == "onnx":
        print(json.dumps(phase_onnx(sys.argv[2])))
    else:
        main()
