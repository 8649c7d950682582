"""Each learner's default ``learnsim fit`` against its baseline on held-out supervision (issue 13, sec. 1).

``learnsim fit`` keeps back part of the supervision, measures the learned similarity against
the method's baseline there, keeps the learned part only when the whole 95 % interval of the gain
lies above zero, and reports it (``learnsim.baseline``). This script writes each development
corpus in the layout ``learnsim fit`` reads, runs the command in this process with its defaults
and ``--json``, and prints the report (status, held-out scores, gain and interval). Where a test
set exists, the saved model is also scored there against the same baseline, in this process on
the same data, with the ratio:

* ``mcd``: 20 Newsgroups, 100 training messages of each group (seed 0), ``--input``; the test
  collection is 100 test messages of each group (leave-one-out 11-point AP, learned metric
  against the cosine of the model's own input weighting).
* ``film``: the same 20 Newsgroups file with ``--method film`` (FILM's own held-out check).
* ``film-pairs``: the Quora sample's dev pairs with ``--method film --pairs`` (the search rule
  against the input cosine, the duplicate rule against an input-cosine threshold).
* ``relative``: WebKB (paper subset), the reproduction's training pages and 150,000 University
  triplets; test triplets among the test pages, against W = 1.
* ``linklearn``: Wikispeedia articles and links with ``--method linklearn`` (both variants).

    python benchmarks/baseline_gains.py [--only mcd film film-pairs relative linklearn] [--data-dir DIR]
"""
import argparse
import contextlib
import io
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from learnsim.cli import main as learnsim_main


def _one_line(text):
    return " ".join(str(text).split())


def _fit(args):
    """Run ``learnsim fit ... --json`` in this process: (summary, warning lines, seconds)."""
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = learnsim_main(["--no-progress", "fit", *map(str, args), "--json"])
    seconds = time.perf_counter() - start
    if code != 0:
        raise RuntimeError(f"learnsim fit failed ({code}): {err.getvalue()}")
    warn = [line for line in err.getvalue().splitlines() if "warning" in line.lower()]
    return json.loads(out.getvalue()), warn, seconds


def _show(name, summary, warn, seconds, key="baseline_gain"):
    from learnsim.baseline import BaselineGain

    report = summary.get(key)
    print(f"\n[{name}] learnsim fit in {seconds:.0f} s")
    if report is None:
        print("  no report")
        return None
    print("  " + BaselineGain.from_dict(report).summary())
    for line in warn:
        print("  stderr: " + line[:300])
    return report


def _write_labelled(path, labels, texts, names):
    with open(path, "w", encoding="utf-8") as f:
        for y, t in zip(labels, texts):
            t = _one_line(t)
            if t:
                f.write(f"{names[y]}\t{t}\n")


def _20ng_sample(data_dir, subset, per_group, seed):
    from learnsim.datasets import load_20newsgroups

    d = load_20newsgroups(subset, data_dir=data_dir)
    y = np.asarray(d.target)
    rng = np.random.default_rng(seed)
    rows = np.concatenate([rng.choice(np.flatnonzero(y == c), per_group, replace=False) for c in np.unique(y)])
    rows = [i for i in rows if _one_line(d.data[i])]
    return [d.data[i] for i in rows], y[rows], list(d.target_names)


def run_mcd(data_dir, tmp):
    texts, y, names = _20ng_sample(data_dir, "train", 100, 0)
    path = tmp / "20ng_train.tsv"
    _write_labelled(path, y, texts, names)
    summary, warn, secs = _fit(["--input", path, "--model", tmp / "mcd.npz"])
    _show("mcd: 20 Newsgroups, 2,000 labelled messages", summary, warn, secs)
    _show("mcd: the same, as search (held-out clusters against the strongest baseline)", summary, [], secs,
          key="search_baseline_gain")
    print(f"  weighting chosen: {summary['weighting']} (held-out scores {summary.get('weighting_selection')}); "
          f"the model: {summary.get('model')}")
    _test_clusters(tmp / "mcd.npz", data_dir)
    return path


def _test_clusters(model_path, data_dir):
    """The saved model on 2,000 test messages (leave-one-out 11-pt AP) beside the cosine of the
    model's own weighting and BM25, in this process."""
    import learnsim
    from learnsim.baseline import LexicalBaselines
    from learnsim.evaluation import cluster_retrieval_report

    model = learnsim.load(model_path)
    test_texts, yt, _ = _20ng_sample(data_dir, "test", 100, 1)
    learned = cluster_retrieval_report(model.similarity(test_texts, test_texts), yt)["ap11"]
    lex = LexicalBaselines(test_texts)
    Q = lex.query_counts(test_texts)
    bm25 = cluster_retrieval_report(lex.scores("bm25", Q), yt)["ap11"]
    cosine = cluster_retrieval_report(lex.scores("cosine", Q), yt)["ap11"]
    print(f"  test collection (2,000 test messages, leave-one-out 11-pt AP): model ({model.scoring}) {learned:.4f}, "
          f"BM25 {bm25:.4f} (ratio {learned / bm25:.3f}), tf.idf cosine {cosine:.4f} (ratio {learned / cosine:.3f})")


def run_film(data_dir, tmp, path=None):
    if path is None:
        texts, y, names = _20ng_sample(data_dir, "train", 100, 0)
        path = tmp / "20ng_train.tsv"
        _write_labelled(path, y, texts, names)
    summary, warn, secs = _fit(["--method", "film", "--input", path, "--model", tmp / "film.npz"])
    _show("film: 20 Newsgroups, 2,000 labelled messages", summary, warn, secs)
    _show("film: the same, as search (held-out clusters against the strongest baseline)", summary, [], secs,
          key="search_baseline_gain")
    print(f"  the model: {summary.get('model')}")
    _test_clusters(tmp / "film.npz", data_dir)


def run_film_pairs(data_dir, tmp):
    # the sample's own file, in the Quora layout learnsim fit reads as it is
    path = Path(data_dir) / "quora-sample" / "dev.tsv"
    summary, warn, secs = _fit(["--method", "film", "--pairs", path, "--model", tmp / "film_pairs.npz"])
    _show("film --pairs: Quora sample, 10,000 dev pairs (search, against the strongest baseline)", summary, warn,
          secs)
    if "match_baseline_gain" in summary:
        _show("film --pairs: Quora sample (duplicate rule)", summary, [], secs, key="match_baseline_gain")


def run_relative(data_dir, tmp):
    from learnsim.evaluation import evaluate_triplets
    from learnsim.persistence import load
    from learnsim.reproduce.relative import N_TEST, SEED, split_pages
    from learnsim.reproduce.webkb import load_webkb, webkb_triplets

    corpus = load_webkb(data_dir, subset="paper")
    train, test = split_pages(len(corpus.texts), np.random.default_rng(SEED))
    T = np.asarray(webkb_triplets(corpus, "university", 150_000, indices=train, random_state=SEED).indices)
    T_test = np.asarray(webkb_triplets(corpus, "university", N_TEST, indices=test, random_state=SEED + 1).indices)
    with open(tmp / "pages.tsv", "w", encoding="utf-8") as f:
        f.writelines(f"p{i}\t{_one_line(corpus.texts[i])}\n" for i in train)
    with open(tmp / "triplets.tsv", "w", encoding="utf-8") as f:
        f.writelines(f"p{a}\tp{b}\tp{c}\n" for a, b, c in T)
    summary, warn, secs = _fit(["--method", "relative", "--input", tmp / "pages.tsv", "--triplets",
                                tmp / "triplets.tsv", "--model", tmp / "rel.npz"])
    _show("relative: WebKB, 150,000 University triplets", summary, warn, secs)
    _show("relative: the same, held-out triplets against the strongest of BM25 and the tf.idf cosine", summary, [],
          secs, key="triplet_baseline_gain")
    _show("relative: the same, as search (held-out anchors against the strongest baseline)", summary, [], secs,
          key="search_baseline_gain")
    from learnsim.pipeline import Pipeline

    pipeline = Pipeline.from_parts(load(tmp / "rel.npz"))
    test_texts = [corpus.texts[i] for i in test]
    pos = {p: k for k, p in enumerate(test)}
    Tl = np.vectorize(pos.get)(T_test)
    # the saved model as it serves (the relative metric, or the baseline its search check ended as):
    # a triplet is right when the anchor is closer to its second item, a tie counts 1/2
    S = pipeline.searcher(test_texts).closeness(test_texts)
    near, far = S[Tl[:, 0], Tl[:, 1]], S[Tl[:, 0], Tl[:, 2]]
    learned = float(np.mean((near > far) + 0.5 * (near == far)))
    print(f"  the saved model is {pipeline.scoring}")
    if pipeline.vectorizer.weighting != "binary":
        print(f"  test triplets among unseen pages ({len(Tl)}): model {learned:.4f}")
        return
    w1 = evaluate_triplets(Tl, pipeline.vectorizer.transform(test_texts))["accuracy"]
    print(f"  test triplets among unseen pages ({len(Tl)}): model {learned:.4f}, W = 1 {w1:.4f}, "
          f"ratio {learned / w1:.3f}")


def run_linklearn(data_dir, tmp):
    from learnsim.datasets import load_wikispeedia

    d = load_wikispeedia(data_dir)
    with open(tmp / "articles.tsv", "w", encoding="utf-8") as f:
        f.writelines(f"{name}\t{_one_line(text)}\n" for name, text in zip(d.names, d.texts))
    edges = np.asarray(d.links.edges)
    with open(tmp / "links.tsv", "w", encoding="utf-8") as f:
        f.writelines(f"{d.names[a]}\t{d.names[b]}\n" for a, b in edges)
    for variant in ("paper", "bm25"):
        summary, warn, secs = _fit(["--method", "linklearn", "--variant", variant, "--input", tmp / "articles.tsv",
                                    "--links", tmp / "links.tsv", "--model", tmp / f"ll_{variant}.npz"])
        _show(f"linklearn --variant {variant}: Wikispeedia, {d.n_documents} articles", summary, warn, secs)
        _show(f"linklearn --variant {variant}: the same, as search (held-out articles against the strongest "
              "baseline)", summary, [], secs, key="search_baseline_gain")


PARTS = {"mcd": run_mcd, "film": run_film, "film-pairs": run_film_pairs, "relative": run_relative,
         "linklearn": run_linklearn}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=list(PARTS), default=list(PARTS))
    parser.add_argument("--data-dir", default=None, help="corpora (default: $LEARNSIM_DATA or ../shared/data)")
    args = parser.parse_args(argv)
    data_dir = args.data_dir or os.environ.get("LEARNSIM_DATA") or str(Path(__file__).resolve().parents[2] / "shared" / "data")
    with tempfile.TemporaryDirectory() as tmp:
        for part in args.only:
            PARTS[part](data_dir, Path(tmp))


if __name__ == "__main__":
    main()
