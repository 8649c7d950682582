"""Minimum cluster distortion, transductive against inductive, on 20 Newsgroups (issue 13, sec. 4).

The reproduction's default ("full" setting of `learnsim reproduce mochihashi`) fits the tf.idf
vocabulary on every document and gives the test collection to the metric as unlabelled rows,
which shape its principal basis: a transductive setting. What a user gets for documents added
after the fit is the inductive one: vocabulary, idf and basis from the training documents only,
the test documents only transformed. The inductive metric's input weighting (tf.idf, tf.idf
with sublinear tf, or BM25 document weights, rows L2-normalised) is chosen per fold on
validation clusters: the training groups split into fitting and held-out groups, never the
test groups. Both settings run here on the same folds, in the same process, with
the reproduction's protocol (100 messages of each of the 20 groups; 5 folds of 4 held-out
groups; retrieval among the held-out groups' messages), against full-vocabulary BM25 and cosine
computed on the test collection itself (what a user's search engine would do).

    python benchmarks/mcd_inductive.py [--seeds 0] [--folds 5] [--data-dir DIR]
"""
import argparse
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import normalize

from learnsim.datasets import load_20newsgroups
from learnsim.mcd import MinimumClusterDistortion
from learnsim.reproduce.mochihashi import _has_words, _retrieval
from learnsim.text import TextVectorizer


#: Input weightings the inductive metric chooses from (TextVectorizer parameters).
WEIGHTINGS = {"tfidf": {"weighting": "tfidf"},
              "tfidf-sublinear": {"weighting": "tfidf", "sublinear_tf": True},
              "bm25": {"weighting": "bm25"}}


def _inductive_ap(train_docs, train_labels, test_docs, test_labels, weighting, seed):
    vec = TextVectorizer(**WEIGHTINGS[weighting]).fit(train_docs)
    Xtr = normalize(sp.csr_matrix(vec.transform(train_docs), dtype=np.float64))
    Xte = normalize(sp.csr_matrix(vec.transform(test_docs), dtype=np.float64))
    m = MinimumClusterDistortion(random_state=seed).fit(Xtr, train_labels)
    return _retrieval(m.pairwise_distances(Xte, squared=True), test_labels)["ap11"], m


def _choose_weighting(docs, labels, seed, n_splits=2):
    """The weighting whose inductive metric retrieves best among held-out training groups:
    each split fits on three quarters of the training groups and scores the last quarter."""
    groups = np.unique(labels)
    rng = np.random.default_rng(seed)
    scores = {w: [] for w in WEIGHTINGS}
    for split in range(n_splits):
        held = rng.permutation(groups)[:max(1, len(groups) // 4)]
        val = np.isin(labels, held)
        fit_docs = [d for d, v in zip(docs, val) if not v]
        val_docs = [d for d, v in zip(docs, val) if v]
        for w in WEIGHTINGS:
            scores[w].append(_inductive_ap(fit_docs, labels[~val], val_docs, labels[val], w, seed)[0])
    means = {w: float(np.mean(v)) for w, v in scores.items()}
    return max(means, key=means.get), means


def _fold(docs, labels, n_train, seed):
    test_labels = labels[n_train:]
    train_docs, test_docs = docs[:n_train], docs[n_train:]
    row = {}
    # baselines on the test collection itself
    bm25 = TextVectorizer("bm25").fit(test_docs)
    S = (bm25.transform(test_docs, role="query") @ bm25.transform(test_docs).T).toarray()
    row["bm25"] = _retrieval(S, test_labels, similarity=True)["ap11"]
    cos = normalize(TextVectorizer("tfidf").fit_transform(test_docs))
    row["cosine"] = _retrieval((cos @ cos.T).toarray(), test_labels, similarity=True)["ap11"]

    # transductive: vocabulary and basis from all documents, test rows unlabelled (-1)
    X = normalize(sp.csr_matrix(TextVectorizer("tfidf").fit(docs).transform(docs), dtype=np.float64))
    y = np.concatenate([labels[:n_train], np.full(len(test_labels), -1)])
    t = time.perf_counter()
    m = MinimumClusterDistortion(random_state=seed).fit(X, y)
    row["fit_trans_s"] = time.perf_counter() - t
    row["mcd_transductive"] = _retrieval(m.pairwise_distances(X[n_train:], squared=True), test_labels)["ap11"]

    # inductive: vocabulary, idf and basis from the training documents only
    row["mcd_inductive"] = _inductive_ap(train_docs, labels[:n_train], test_docs, test_labels, "tfidf", seed)[0]
    t = time.perf_counter()
    weighting, _ = _choose_weighting(train_docs, labels[:n_train], seed)
    ap, m = _inductive_ap(train_docs, labels[:n_train], test_docs, test_labels, weighting, seed)
    row["fit_ind_s"] = time.perf_counter() - t
    row["mcd_inductive_chosen"] = ap
    row["choice_inductive"] = (weighting, m.n_basis_, m.shrinkage_, m.complement_weight_)
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    news = load_20newsgroups("all", data_dir=args.data_dir)
    target = np.asarray(news.target)
    usable = np.array([_has_words(d) for d in news.data])
    rows = []
    print(f"{'seed':>4} {'fold':>4} {'bm25':>6} {'cosine':>6} {'trans':>6} {'induct':>6} {'chosen':>6} "
          f"{'ch/bm25':>7}  chosen on validation (weighting, n_basis, shrinkage, complement)")
    for seed in args.seeds:
        rng = np.random.default_rng(seed)
        sample = np.concatenate([rng.choice(np.flatnonzero((target == g) & usable), 100, replace=False)
                                 for g in range(20)])
        groups = np.array_split(rng.permutation(20), 5)
        for f in range(args.folds):
            is_test = np.isin(target[sample], groups[f])
            order = np.concatenate([sample[~is_test], sample[is_test]])
            docs = [news.data[i] for i in order]
            r = _fold(docs, target[order], int((~is_test).sum()), seed)
            rows.append(r)
            print(f"{seed:>4} {f:>4} {r['bm25']:>6.3f} {r['cosine']:>6.3f} {r['mcd_transductive']:>6.3f} "
                  f"{r['mcd_inductive']:>6.3f} {r['mcd_inductive_chosen']:>6.3f} "
                  f"{r['mcd_inductive_chosen'] / r['bm25']:>7.3f}  {r['choice_inductive']}",
                  flush=True)
    keys = ("bm25", "cosine", "mcd_transductive", "mcd_inductive", "mcd_inductive_chosen")
    mean = {k: float(np.mean([r[k] for r in rows])) for k in keys}
    print(f"mean 11-pt AP over {len(rows)} folds: BM25 {mean['bm25']:.3f}, cosine {mean['cosine']:.3f}")
    for k in keys[2:]:
        print(f"  {k:<22} {mean[k]:.3f}  ({mean[k] / mean['bm25']:.3f}x BM25)")


if __name__ == "__main__":
    main()
