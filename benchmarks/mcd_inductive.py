"""Minimum cluster distortion, transductive against inductive, on 20 Newsgroups and Flickr8k (issue 13, sec. 4).

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
computed on the test collection itself (what a user's search engine would do), and the tf.idf
cosine in the training documents' vocabulary and idf ("cos-tr": the baseline inside the
inductive metric's own family, which its held-out check measures against).

``--test-groups 10`` is the shifted setting of issue 13: the metric learns from 10 groups and
retrieves among the messages of the 10 others (2 folds, the halves of a seeded permutation).

``--dataset flickr8k`` runs the reproduction's Flickr8k protocol instead (the five captions of
an image form a cluster; random sets of 200 training and 50 test images, seeds 1000 + s;
unigram + bigram tf.idf), with the same four columns.

Where MinimumClusterDistortion has the held-out baseline check (``baseline_holdout``,
:mod:`learnsim.baseline`), every metric above is forced on (``baseline_holdout=None``), and the
chosen inductive metric is fitted once more with the defaults: its 11-pt AP ("default") and its
verdict (``baseline_gain_.status``, the held-out gain over the cosine) show what a user's
default fit would have given.

    python benchmarks/mcd_inductive.py [--dataset 20ng|flickr8k] [--seeds 0] [--folds 5]
                                       [--test-groups 4] [--sets 10] [--quick] [--data-dir DIR]
"""
import argparse
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import normalize

from learnsim.datasets import load_20newsgroups, load_flickr8k_captions
from learnsim.mcd import MinimumClusterDistortion
from learnsim.reproduce.mochihashi import _has_words, _retrieval
from learnsim.text import TextVectorizer
from shift_common import guard_status, has_guard, limit_threads


#: Input weightings the inductive metric chooses from (TextVectorizer parameters).
WEIGHTINGS = {"tfidf": {"weighting": "tfidf"},
              "tfidf-sublinear": {"weighting": "tfidf", "sublinear_tf": True},
              "bm25": {"weighting": "bm25"}}


#: the learned metric forced on, without the held-out check (where the class has one)
FORCED = {"baseline_holdout": None} if has_guard(MinimumClusterDistortion) else {}


def _inductive_ap(train_docs, train_labels, test_docs, test_labels, weighting, seed, ngram_range=(1, 1),
                  forced=True):
    vec = TextVectorizer(**WEIGHTINGS[weighting], ngram_range=ngram_range).fit(train_docs)
    Xtr = normalize(sp.csr_matrix(vec.transform(train_docs), dtype=np.float64))
    Xte = normalize(sp.csr_matrix(vec.transform(test_docs), dtype=np.float64))
    m = MinimumClusterDistortion(random_state=seed, **(FORCED if forced else {})).fit(Xtr, train_labels)
    return _retrieval(m.pairwise_distances(Xte, squared=True), test_labels)["ap11"], m


def _choose_weighting(docs, labels, seed, n_splits=2, ngram_range=(1, 1)):
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
            scores[w].append(_inductive_ap(fit_docs, labels[~val], val_docs, labels[val], w, seed, ngram_range)[0])
    means = {w: float(np.mean(v)) for w, v in scores.items()}
    return max(means, key=means.get), means


def _fold(docs, labels, n_train, seed, ngram_range=(1, 1)):
    test_labels = labels[n_train:]
    train_docs, test_docs = docs[:n_train], docs[n_train:]
    row = {}
    # baselines on the test collection itself
    bm25 = TextVectorizer("bm25", ngram_range=ngram_range).fit(test_docs)
    S = (bm25.transform(test_docs, role="query") @ bm25.transform(test_docs).T).toarray()
    row["bm25"] = _retrieval(S, test_labels, similarity=True)["ap11"]
    cos = normalize(TextVectorizer("tfidf", ngram_range=ngram_range).fit_transform(test_docs))
    row["cosine"] = _retrieval((cos @ cos.T).toarray(), test_labels, similarity=True)["ap11"]
    # the same cosine in the training documents' vocabulary and idf: the baseline inside the
    # inductive metric's family (what its held-out check compares with), words new to the
    # test collection dropped
    own = normalize(TextVectorizer("tfidf", ngram_range=ngram_range).fit(train_docs).transform(test_docs))
    row["cosine_train_vocab"] = _retrieval((own @ own.T).toarray(), test_labels, similarity=True)["ap11"]

    # transductive: vocabulary and basis from all documents, test rows unlabelled (-1)
    X = normalize(sp.csr_matrix(TextVectorizer("tfidf", ngram_range=ngram_range).fit(docs).transform(docs),
                                dtype=np.float64))
    y = np.concatenate([labels[:n_train], np.full(len(test_labels), -1)])
    t = time.perf_counter()
    m = MinimumClusterDistortion(random_state=seed, **FORCED).fit(X, y)
    row["fit_trans_s"] = time.perf_counter() - t
    row["mcd_transductive"] = _retrieval(m.pairwise_distances(X[n_train:], squared=True), test_labels)["ap11"]

    # inductive: vocabulary, idf and basis from the training documents only
    row["mcd_inductive"] = _inductive_ap(train_docs, labels[:n_train], test_docs, test_labels, "tfidf", seed,
                                         ngram_range)[0]
    t = time.perf_counter()
    weighting, _ = _choose_weighting(train_docs, labels[:n_train], seed, ngram_range=ngram_range)
    ap, m = _inductive_ap(train_docs, labels[:n_train], test_docs, test_labels, weighting, seed, ngram_range)
    row["fit_ind_s"] = time.perf_counter() - t
    row["mcd_inductive_chosen"] = ap
    row["choice_inductive"] = (weighting, m.n_basis_, m.shrinkage_, m.complement_weight_)
    # what a user's default fit gives with that weighting (the held-out check may fall back to the cosine)
    row["mcd_default"], m = (_inductive_ap(train_docs, labels[:n_train], test_docs, test_labels, weighting, seed,
                                           ngram_range, forced=False) if FORCED else (ap, m))
    row["status"] = guard_status(m)
    return row


def _newsgroups_folds(args):
    """(seed, fold, documents, labels, n_train, ngram_range): the reproduction's 100 messages of
    each group; the groups split into 20 / test_groups folds of test_groups held-out groups."""
    news = load_20newsgroups("all", data_dir=args.data_dir)
    target = np.asarray(news.target)
    usable = np.array([_has_words(d) for d in news.data])
    n_folds = 20 // args.test_groups
    for seed in args.seeds:
        rng = np.random.default_rng(seed)
        sample = np.concatenate([rng.choice(np.flatnonzero((target == g) & usable), 100, replace=False)
                                 for g in range(20)])
        groups = np.array_split(rng.permutation(20), n_folds)
        for f in range(min(args.folds, n_folds)):
            is_test = np.isin(target[sample], groups[f])
            order = np.concatenate([sample[~is_test], sample[is_test]])
            yield seed, f, [news.data[i] for i in order], target[order], int((~is_test).sum()), (1, 1)


def _flickr_folds(args):
    """The reproduction's Flickr8k sets: 250 random images (seed 1000 + s), the captions of the
    first 200 train, those of the last 50 are the test collection; unigrams and bigrams."""
    caps = load_flickr8k_captions(data_dir=args.data_dir)
    target = np.asarray(caps.target)
    by_image = {}
    for i, t in enumerate(target):
        by_image.setdefault(t, []).append(i)
    for s in range(args.sets):
        rng = np.random.default_rng(1000 + s)
        images = rng.choice(len(caps.image_ids), 250, replace=False)
        order = np.concatenate([by_image[i] for i in images])
        n_train = sum(len(by_image[i]) for i in images[:200])
        yield 1000 + s, 0, [caps.data[i] for i in order], target[order], n_train, (1, 2)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=("20ng", "flickr8k"), default="20ng")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="20ng: sampling seeds")
    parser.add_argument("--folds", type=int, default=5, help="20ng: at most this many folds of each seed")
    parser.add_argument("--test-groups", type=int, default=4, choices=(2, 4, 5, 10),
                        help="20ng: groups held out per fold (4: the reproduction's 5 folds; 10: halves)")
    parser.add_argument("--sets", type=int, default=10, help="flickr8k: random sets of 250 images")
    parser.add_argument("--quick", action="store_true", help="one fold / one set")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    if args.quick:
        args.folds, args.sets, args.seeds = 1, 1, args.seeds[:1]
    limit_threads(args.threads)
    warnings.simplefilter("ignore")
    folds = _newsgroups_folds(args) if args.dataset == "20ng" else _flickr_folds(args)
    rows = []
    start = time.perf_counter()
    print(f"{'seed':>4} {'fold':>4} {'bm25':>6} {'cosine':>6} {'cos-tr':>6} {'trans':>6} {'induct':>6} {'chosen':>6} "
          f"{'ch/bm25':>7} {'default':>7}  chosen on validation (weighting, n_basis, shrinkage, complement); "
          "default fit's check")
    for seed, f, docs, labels, n_train, ngram_range in folds:
        r = _fold(docs, labels, n_train, seed, ngram_range)
        rows.append(r)
        print(f"{seed:>4} {f:>4} {r['bm25']:>6.3f} {r['cosine']:>6.3f} {r['cosine_train_vocab']:>6.3f} "
              f"{r['mcd_transductive']:>6.3f} "
              f"{r['mcd_inductive']:>6.3f} {r['mcd_inductive_chosen']:>6.3f} "
              f"{r['mcd_inductive_chosen'] / r['bm25']:>7.3f} {r['mcd_default']:>7.3f}  {r['choice_inductive']}; "
              f"{r['status']}", flush=True)
    keys = ("bm25", "cosine", "cosine_train_vocab", "mcd_transductive", "mcd_inductive", "mcd_inductive_chosen", "mcd_default")
    mean = {k: float(np.mean([r[k] for r in rows])) for k in keys}
    print(f"{args.dataset}: mean 11-pt AP over {len(rows)} folds: BM25 {mean['bm25']:.3f}, cosine {mean['cosine']:.3f}"
          f" ({time.perf_counter() - start:.0f} s)")
    for k in keys[2:]:
        print(f"  {k:<22} {mean[k]:.3f}  ({mean[k] / mean['bm25']:.3f}x BM25, {mean[k] / mean['cosine']:.3f}x cosine)")
    if FORCED:
        statuses = [r["status"].split()[0] for r in rows]
        print(f"  default fit's check: {', '.join(f'{statuses.count(s)} {s}' for s in sorted(set(statuses)))}")


if __name__ == "__main__":
    main()
