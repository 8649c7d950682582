"""Three commands against their targets (issue 32, part 1): ``learnsim cluster``, ``learnsim search
--explain`` and ``learnsim serve``, each run as a user runs it, in a process of its own.

1. *cluster*: the default model (minimum cluster distortion) fitted on 2,000 labelled 20
   Newsgroups training messages, an index of ``--cluster-docs`` (3,081) test messages, and
   ``learnsim cluster --index IDX --k 77 --json`` timed as a process; in turn with it, in this
   process, scikit-learn's ``KMeans(n_clusters=k, random_state=seed)`` (its default ``n_init``)
   fitted on the rows the command clusters (``learnsim.index._cluster``: the index's rows in the
   space where the learned distance is Euclidean), ``--cluster-repeats`` times each. The ratio of
   the medians, command / KMeans, is the target (<= 2); the adjusted Rand index of the two
   labelings says whether they are the same clustering. ``--cluster-source synthetic`` (or no 20 Newsgroups archive in the data
   directory) takes the synthetic corpus of ``bench_index.py`` instead.
2. *search*: FILM (``--model film``, 100 dimensions) or the default model fitted on the synthetic
   linked corpus of ``bench_index.py``, and an index of ``--docs`` (100,000) of its documents
   (exact search, as ``bench_index.py`` and ``bench_serve.py`` build them); ``learnsim search
   --index IDX --query Q`` and the same with ``--explain``, the median of ``--repeats`` processes
   each (target: ``--explain`` under 1 s). ``--model quora-reranked``: the default pair fit of
   ``learnsim fit --method film --pairs`` on the Quora sample's dev pairs, whose search re-ranks,
   and an index of the sample's questions.
3. *serve*: ``learnsim serve IDX --port 0`` on that index (``bench_serve.Server``): the seconds
   from the start of the process to the first 200 of ``GET /healthz`` (target: 2 s), and to the
   answer of a first search sent then; the median of ``--serve-repeats`` starts.

The commands run with this checkout's ``src`` first on ``PYTHONPATH`` and BLAS, OpenMP and numba
limited to ``--threads`` threads (default: the machine's cores, what a user gets); the KMeans of
this process is limited to as many. Timings on a shared machine vary: compare ratios measured in
one run.

Usage::

    python benchmarks/bench_cli_startup.py                      # about 3-5 minutes on 2 cores
    python benchmarks/bench_cli_startup.py --parts search,serve --model default --json results/cli-startup.json
    python benchmarks/bench_cli_startup.py --docs 2000 --fit-docs 300 --cluster-docs 200 --k 8 --cluster-source synthetic

The exit status is 1 when a command failed (a missed target is reported, not an error).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import warnings
from pathlib import Path
from urllib.parse import urlencode

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# this checkout's learnsim in this process too, as the commands get it (bench_index._env)
sys.path.insert(0, str(HERE.parent / "src"))
import bench_index as corpus_gen  # noqa: E402  (the synthetic corpus, queries and the commands' environment)
import bench_serve  # noqa: E402  (learnsim serve in a subprocess, waited for until /healthz says 200)

PARTS = ("cluster", "search", "serve")
TARGETS = {"cluster": 2.0, "search": 1.0, "serve": 2.0}
# the 20 Newsgroups sample of the cluster part (the size a user reported, issue 32)
NEWSGROUPS_FIT_DOCS = 2_000


def _run(cmd, threads, timeout):
    """Wall seconds and stdout of a ``learnsim`` command in a process of its own (killed, and a
    TimeoutExpired, after ``timeout`` seconds)."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "learnsim", *map(str, cmd)], env=corpus_gen._env(threads),
                          capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.stderr.write(done.stderr[-3000:])
        raise RuntimeError(f"learnsim {cmd[0]} exited with status {done.returncode}")
    return seconds, done.stdout


def _fit(texts, labels, model):
    import learnsim

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if model == "film":
            return learnsim.fit(texts, clusters=labels, method="film", baseline_holdout=None)
        return learnsim.fit(texts, clusters=labels)   # the default: minimum cluster distortion


# ---------------------------------------------------------------------- cluster
def cluster_data(args):
    """(fitting texts, their labels, texts to index, source name)."""
    source = args.cluster_source
    if source in ("auto", "20ng"):
        from learnsim.datasets import load_20newsgroups

        try:
            train, test = load_20newsgroups("train"), load_20newsgroups("test")
        except FileNotFoundError:
            if source == "20ng":
                raise
            source = "synthetic"
        else:
            rng = np.random.default_rng(args.seed)
            fit = rng.choice(len(train.data), min(NEWSGROUPS_FIT_DOCS, len(train.data)), replace=False)
            docs = rng.choice(len(test.data), min(args.cluster_docs, len(test.data)), replace=False)
            return ([train.data[i] for i in fit], [int(train.target[i]) for i in fit],
                    [test.data[i] for i in docs], "20 Newsgroups")
    vocab = corpus_gen.vocabulary()
    texts, topics, _, _ = corpus_gen.fitting_corpus(args.seed, vocab)
    n = min(args.fit_docs, len(texts))
    docs, _ = corpus_gen.corpus(args.cluster_docs, args.seed, vocab, stream=2)
    return texts[:n], [int(t) for t in topics[:n]], docs, "synthetic"


def _rows_clustered(idx):
    """The rows ``learnsim cluster`` gives K-means (learnsim.index._cluster), read here."""
    from learnsim.index import _cluster

    _, rows = _cluster._live_rows(idx)
    return _cluster._embedding(idx, rows)


def cluster_part(args, work):
    from threadpoolctl import threadpool_limits
    from learnsim.index import Index
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score

    fit_texts, fit_labels, texts, source = cluster_data(args)
    print(f"cluster: fitting the default model on {len(fit_texts)} {source} documents, indexing {len(texts)} ...",
          flush=True)
    path = work / "cluster-index"
    ids = [f"c{i}" for i in range(len(texts))]
    Index.build(path, _fit(fit_texts, fit_labels, "default"), texts, ids, overwrite=True).close()
    k = min(args.k, len(texts))
    with threadpool_limits(args.threads), Index.open(path) as idx:
        start = time.perf_counter()
        E = _rows_clustered(idx)
        rows_s = time.perf_counter() - start
        # the command and scikit-learn in turn, so that both meet the same load of a shared machine
        command_s, sklearn_s = [], []
        for _ in range(args.cluster_repeats):
            seconds, out = _run(["cluster", "--index", path, "--k", k, "--seed", args.seed, "--json"], args.threads,
                                args.command_timeout)
            command_s.append(seconds)
            start = time.perf_counter()
            km = KMeans(n_clusters=k, random_state=args.seed).fit(E)
            sklearn_s.append(time.perf_counter() - start)
        command = json.loads(out)
        start = time.perf_counter()
        in_process = idx.cluster(k, random_state=args.seed)
        in_process_s = time.perf_counter() - start
    median_command, median_sklearn = statistics.median(command_s), statistics.median(sklearn_s)
    return {"source": source, "documents": len(texts), "k": k, "rows_shape": list(E.shape),
            "rows_sparse": bool(hasattr(E, "tocsr")), "command_s": median_command, "sklearn_kmeans_s": median_sklearn,
            "runs_command_s": command_s, "runs_sklearn_kmeans_s": sklearn_s,
            "rows_s": rows_s, "index_cluster_s": in_process_s, "ratio": median_command / median_sklearn,
            # 1.0: the command's labels are scikit-learn's on the same rows (up to their names)
            "adjusted_rand": float(adjusted_rand_score([command[i] for i in ids], km.labels_)),
            "same_as_in_process": command == in_process}


# ---------------------------------------------------------------------- search and serve
def _quora_index(args, work):
    """``--model quora-reranked``: the default pair fit on the Quora sample's dev pairs (FILM, its
    rules and, where held-out queries gain, search's re-ranker) and an index of the sample's
    questions (dev and test, at most ``--docs``); queries: test questions."""
    from learnsim.datasets import find_data_dir, load_quora_pairs
    from learnsim.index import Index
    from learnsim.pipeline import Pipeline

    folder = Path(find_data_dir(None)) / "quora-sample"
    model = work / "quora.npz"
    print("search: fitting the default pair model on the Quora sample's dev pairs ...", flush=True)
    _run(["fit", "--method", "film", "--pairs", folder / "dev.tsv", "--model", model], args.threads,
         args.command_timeout)
    pipeline = Pipeline.load(model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        test = [str(t) for t in load_quora_pairs(folder / "test.tsv").texts]
        texts = list(dict.fromkeys(test + [str(t) for t in load_quora_pairs(folder / "dev.tsv").texts]))
    texts = texts[:args.docs]
    path = work / "index"
    start = time.perf_counter()
    Index.build(path, pipeline, texts, [f"d{i}" for i in range(len(texts))], overwrite=True, ann=args.ann).close()
    build_s = time.perf_counter() - start
    args.docs = len(texts)
    return path, test[:max(args.repeats, 1) + 1], repr(pipeline), build_s


def build_index(args, work):
    """The index of the search and serve parts, and queries of it."""
    from learnsim.index import Index

    if args.model == "quora-reranked":
        return _quora_index(args, work)
    vocab = corpus_gen.vocabulary()
    fit_texts, topics, _, df = corpus_gen.fitting_corpus(args.seed, vocab)
    n = min(args.fit_docs, len(fit_texts))
    print(f"search: fitting {args.model} on {n} synthetic documents, indexing {args.docs} ...", flush=True)
    pipeline = _fit(fit_texts[:n], [int(t) for t in topics[:n]], args.model)
    texts, _ = corpus_gen.corpus(args.docs, args.seed, vocab)
    path = work / "index"
    start = time.perf_counter()
    Index.build(path, pipeline, texts, [f"d{i}" for i in range(len(texts))], overwrite=True, ann=args.ann).close()
    build_s = time.perf_counter() - start
    return path, corpus_gen.make_queries(max(args.repeats, 1) + 1, args.seed, vocab, df), repr(pipeline), build_s


def search_part(args, path, queries):
    times = {"search_s": [], "explain_s": []}
    for r in range(args.repeats):
        q = queries[r % len(queries)]
        for key, extra in (("search_s", []), ("explain_s", ["--explain"])):
            times[key].append(_run(["search", "--index", path, "--query", q, "-k", 10, *extra], args.threads,
                                   args.command_timeout)[0])
    out = {key: float(statistics.median(v)) for key, v in times.items()}
    out.update(runs=times, python_pass_s=_python_pass())
    return out


def _python_pass():
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - start


def serve_part(args, path, queries):
    first_200, first_search = [], []
    for r in range(args.serve_repeats):
        start = time.perf_counter()
        server = bench_serve.Server(path, args.threads)    # returns once /healthz answered 200
        try:
            first_200.append(time.perf_counter() - start)
            url = f"{server.base}/v1/search?" + urlencode({"q": queries[r % len(queries)], "k": 10})
            with urllib.request.urlopen(url, timeout=60) as answer:
                answer.read()
            first_search.append(time.perf_counter() - start)
        finally:
            server.stop()
    return {"first_200_s": float(statistics.median(first_200)), "first_search_s": float(statistics.median(first_search)),
            "runs_first_200_s": first_200, "runs_first_search_s": first_search}


# ---------------------------------------------------------------------- the run
def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated, among {','.join(PARTS)}")
    ap.add_argument("--docs", type=int, default=100_000, help="documents of the search and serve index")
    ap.add_argument("--model", choices=["film", "default", "quora-reranked"], default="film",
                    help="the search and serve index's model: FILM, the default (minimum cluster distortion), "
                         "or the default pair fit on the Quora sample (re-ranked search) over its questions")
    ap.add_argument("--ann", default="exact", help="Index.build's ann for that index (default: exact)")
    ap.add_argument("--fit-docs", type=int, default=corpus_gen.FIT_DOCS,
                    help="synthetic documents the models are fitted on (at most the 1,500 of bench_index.py)")
    ap.add_argument("--cluster-docs", type=int, default=3_081, help="documents of the cluster index")
    ap.add_argument("--k", type=int, default=77, help="K-means clusters")
    ap.add_argument("--cluster-source", choices=["auto", "20ng", "synthetic"], default="auto",
                    help="the cluster index's documents: 20 Newsgroups (auto: where its archive is found)")
    ap.add_argument("--cluster-repeats", type=int, default=3,
                    help="cluster commands and scikit-learn fits, in turn (medians)")
    ap.add_argument("--repeats", type=int, default=5, help="processes of each search command (median)")
    ap.add_argument("--serve-repeats", type=int, default=3, help="starts of the server (median)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="BLAS, OpenMP and numba threads of the commands and of this process's KMeans")
    ap.add_argument("--command-timeout", type=float, default=1800.0,
                    help="seconds after which a command is stopped and counted as failed")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir", default=None, help="where the indexes go (default: a temporary directory, removed)")
    ap.add_argument("--json", default=None, help="write the results there")
    args = ap.parse_args(argv)
    parts = [p for p in args.parts.split(",") if p]
    bad = [p for p in parts if p not in PARTS]
    if bad or not parts:
        ap.error(f"--parts: choose among {', '.join(PARTS)}; got {args.parts!r}")
    for name in ("docs", "fit_docs", "cluster_docs", "k", "cluster_repeats", "repeats", "serve_repeats", "threads"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1; got {getattr(args, name)}")
    args.parts = parts
    return args


def main(argv=None):
    args = parse(argv)
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="bench-cli-startup-"))
    work.mkdir(parents=True, exist_ok=True)
    result = {"parts": args.parts, "threads": args.threads,
              "machine": {"cpus": os.cpu_count(), "python": platform.python_version()}}
    failed = False
    try:
        if "cluster" in args.parts:
            try:
                result["cluster"] = cluster_part(args, work)
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                failed, result["cluster"] = True, {"error": str(exc)}
        if "search" in args.parts or "serve" in args.parts:
            path, queries, pipeline, build_s = build_index(args, work)
            result["index"] = {"documents": args.docs, "pipeline": pipeline, "ann": args.ann, "build_s": build_s}
            for part, run in (("search", search_part), ("serve", serve_part)):
                if part in args.parts:
                    try:
                        result[part] = run(args, path, queries)
                    except (RuntimeError, SystemExit, OSError, subprocess.TimeoutExpired) as exc:
                        failed, result[part] = True, {"error": str(exc)}
        print(table(result))
        if args.json:
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps(result, indent=2))
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


def table(r):
    """The results as a markdown table: each command, what it is set against, the ratio or the
    time against its target."""
    rows = []
    c = r.get("cluster")
    if c is not None and "error" not in c:
        rows.append([f"cluster --k {c['k']} ({c['documents']:,} {c['source']} docs)", f"{c['command_s']:.2f} s",
                     f"sklearn KMeans on the same rows {c['sklearn_kmeans_s']:.2f} s "
                     f"(ARI {c['adjusted_rand']:.3f})", f"{c['ratio']:.2f}x", f"<= {TARGETS['cluster']:g}x",
                     _met(c["ratio"] <= TARGETS["cluster"])])
    n = r.get("index", {}).get("documents")
    s = r.get("search")
    if s is not None and "error" not in s:
        rows.append([f"search --explain ({n:,} docs)", f"{s['explain_s']:.2f} s",
                     f"search {s['search_s']:.2f} s, python -c pass {s['python_pass_s']:.2f} s",
                     f"{s['explain_s'] / s['search_s']:.2f}x", f"< {TARGETS['search']:g} s",
                     _met(s["explain_s"] < TARGETS["search"])])
    v = r.get("serve")
    if v is not None and "error" not in v:
        rows.append([f"serve: start -> /healthz 200 ({n:,} docs)", f"{v['first_200_s']:.2f} s",
                     f"first search answered {v['first_search_s']:.2f} s", "-", f"<= {TARGETS['serve']:g} s",
                     _met(v["first_200_s"] <= TARGETS["serve"])])
    for part in PARTS:
        if isinstance(r.get(part), dict) and "error" in r[part]:
            rows.append([part, "failed", r[part]["error"][:80], "-", "-", "no"])
    head = "| command | time | set against | ratio | target | met |\n|---|---|---|---|---|---|"
    return head + "\n" + "\n".join("| " + " | ".join(row) + " |" for row in rows)


def _met(ok):
    return "yes" if ok else "**no**"


if __name__ == "__main__":
    sys.exit(main())
