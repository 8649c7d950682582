"""FILM's held-out check against the input cosine (``baseline_holdout``) on 20 Newsgroups:
what it chooses, what it costs, and what refitting on every cluster gains over keeping the fit
on the training part of the clusters.

In one process on the same data: FILM (d dimensions) learns from class labels of a sample of
training messages (tf.idf, sublinear tf, L2 rows), or (``--supervision triplets``) from
5 triplets per message drawn from those labels. With the default ``baseline_holdout=0.2`` it
holds out a fifth of the groups (labels) or of the anchors with all their triplets (triplets),
fits on the rest, chooses the input-cosine weight w there and then refits on everything (what
``fit`` does); the held-out fit's map is recorded as well. Held-out groups are topics FILM has
never seen, while the test messages are of the training topics; held-out anchors are messages
of the training topics. A
sample of test messages scores, per query, the average precision of its group among the other
test messages under

* the input cosine (w = 1, the baseline);
* FILM refitted on every group, with the chosen w (the fitted model's ``similarity``);
* FILM fitted on the training part of the groups only, with the same w (no refit);
* FILM refitted, alone (w = 0, the paper's cosine).

The seconds of the plain fit (``baseline_holdout=None``) and of the checked one give the cost.

    python benchmarks/film_baseline.py [--data-dir DIR] [--n-train 4000] [--n-test 2000] [--d 20]
"""
import argparse
import time
import warnings

import numpy as np

from learnsim.datasets import load_20newsgroups
from learnsim.evaluation import average_precision
from learnsim.film import FILM
from learnsim.text import TextVectorizer


class _Recording(FILM):
    """FILM that keeps the map of its first (held-out) fit."""

    def _learn(self, Xn, T, *args):
        super()._learn(Xn, T, *args)
        if not hasattr(self, "_held_out_map"):
            self._held_out_map = self._components.copy()


def _unit(M):
    M = M.toarray() if hasattr(M, "toarray") else np.asarray(M)
    n = np.linalg.norm(M, axis=1, keepdims=True)
    return M / np.where(n > 0, n, 1.0)


def _map(X, L, w, labels):
    S = w * (_unit(X) @ _unit(X).T)
    if w < 1.0:
        E = _unit(X @ L.T)
        S = S + (1.0 - w) * (E @ E.T)
    return float(np.nanmean(average_precision(S, labels[:, None] == labels[None, :], exclude_self=True)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--n-train", type=int, default=4000)
    parser.add_argument("--n-test", type=int, default=2000)
    parser.add_argument("--d", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--supervision", choices=("labels", "triplets"), default="labels")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    train, test = (load_20newsgroups(s, data_dir=args.data_dir) for s in ("train", "test"))
    tr = rng.choice(len(train.data), min(args.n_train, len(train.data)), replace=False)
    te = rng.choice(len(test.data), min(args.n_test, len(test.data)), replace=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vec = TextVectorizer("tfidf", sublinear_tf=True, norm="l2", dtype=np.float64)
        X_train = vec.fit_transform([train.data[i] for i in tr])
        X_test = vec.transform([test.data[i] for i in te])
    y_train, y_test = np.asarray(train.target)[tr], np.asarray(test.target)[te]
    y_fit = y_train
    if args.supervision == "triplets":
        from learnsim.supervision import clusters_to_triplets

        nonzero = np.flatnonzero(np.diff(X_train.tocsr().indptr) > 0)
        labels = np.full(len(y_train), -1)
        labels[nonzero] = y_train[nonzero]
        y_fit = clusters_to_triplets(labels, 5 * len(y_train), random_state=args.seed).indices

    start = time.perf_counter()
    plain = FILM(n_components=args.d, random_state=args.seed, baseline_holdout=None).fit(X_train, y_fit)
    plain_s = time.perf_counter() - start
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        checked = _Recording(n_components=args.d, random_state=args.seed).fit(X_train, y_fit)
    checked_s = time.perf_counter() - start
    report = checked.baseline_gain_
    for w in caught:
        print(f"  warning: {w.message}")
    print(f"20 Newsgroups, {len(tr)} training and {len(te)} test messages, FILM d = {args.d}, from "
          f"{args.supervision}")
    print(f"held-out check: {report.summary()}")
    w = checked.input_weight_
    same = np.array_equal(plain.components_, checked.components_)
    print(f"fit seconds: plain {plain_s:.1f}, with the check {checked_s:.1f} ({checked_s / plain_s:.2f}x); "
          f"refitted map identical to the plain fit's: {same}\n")
    rows = [("input cosine (w = 1, baseline)", _map(X_test, checked.components_, 1.0, y_test)),
            (f"FILM refitted on every group, w = {w:g} (the model)", _map(X_test, checked.components_, w, y_test)),
            (f"FILM on the training groups only, w = {w:g} (no refit)",
             _map(X_test, checked._held_out_map, w, y_test)),
            ("FILM refitted, alone (w = 0)", _map(X_test, checked.components_, 0.0, y_test))]
    base = rows[0][1]
    print("| similarity | test MAP | / input cosine |\n|---|---|---|")
    for name, value in rows:
        print(f"| {name} | {value:.4f} | {value / base:.3f} |")


if __name__ == "__main__":
    main()
