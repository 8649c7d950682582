"""Pair models under a shift of domain: STS-B across genres, the Quora sample across topics (issue 13, sec. 4).

Each setting trains on one source and tests on pairs of another, beside an in-domain contrast
with the same test pairs and as many training pairs (drawn from every genre / topic), all in
one process; every learned rule is against the tf.idf cosine on the same test pairs, as a
ratio and as a difference with a paired bootstrap 95 % interval over the test pairs.

* STS-B (``--only sts``): the rows' genres (news, captions, forums). For each held-out genre g:
  FILM (d = 100, the triplets of ``benchmarks/bench_pair_classifier.py``) and the pair
  regressor (:class:`learnsim.pair_classifier.PairScoreRegressor`; its default blocks or the
  same plus FILM's block, chosen by dev Pearson) train on the ``train`` pairs of the two other
  genres; FILM + cosine's weight and the regressor's variant are chosen on the ``dev`` pairs
  of those two genres; the test is the ``test`` pairs of g. In-domain: the same number of
  ``train`` pairs drawn from all genres, chosen on all ``dev`` pairs. Measure: Pearson.
  The user path ("learnsim.fit(pairs=...)"): the same training and dev pairs, as
  ``(text_a, text_b, score)`` tuples, go to ``learnsim.fit(pairs=..., random_state=0)`` with
  its default options (as ``learnsim fit --pairs FILE --columns score=...``): it fits its own
  tf.idf (not sublinear) on the distinct texts of those pairs, holds 20 % of them out and keeps
  the pair regression (with or without FILM's cosine) only when its held-out Pearson gain over
  the input cosine is certain, else the input cosine mapped to the scores' scale. The test
  pairs' predicted scores come from ``Pipeline.match`` (what ``learnsim match --pairs`` prints);
  the row beneath it is that model's own input cosine (its vocabulary, its weighting) on the
  same pairs, which is what its fallback predicts up to a linear map. The note gives what the
  fit chose (its held-out Pearsons and gain) and the Spearman correlations.
* Quora (``--only quora``): topics are built reproducibly from the text alone: the pair's two
  questions as one document, sublinear tf.idf fitted on the dev pairs (English stop list, terms in
  at least 5 documents), LSI 100 (seed 0), rows
  L2-normalised, k-means with k = 6 (10 starts, seed 0); test pairs get the nearest centre.
  For each held-out topic t: the dev pairs of the other topics split 80 / 20 (seed 0) into
  training and validation pairs; FILM (d = 50, one hard negative among the anchor's 10 nearest
  training questions) trains on the training pairs; the tf.idf cosine threshold and FILM +
  cosine (``ThresholdMatcher(input_weight="auto")``) are fitted on the validation pairs; the pair
  classifier (:class:`learnsim.pair_classifier.PairClassifierMatcher`, default blocks; it
  chooses C and its threshold on its own folds) on training and validation pairs; the test is
  the ``test`` pairs of topic t. In-domain: as many dev pairs drawn from all topics. Measure:
  accuracy.

As in ``learnsim reproduce film`` and ``benchmarks/bench_pair_classifier.py``, the word tf.idf
(sublinear tf, L2 rows) is fitted on the texts of all splits without labels; FILM's own basis
comes from the training pairs' texts only. ``--vocabulary train`` (STS-B) fits the word tf.idf
on the training source's texts only (train and dev pairs of the training genres) and the pair
regression's character idf on its training pairs' texts: the inductive setting, in which the
cosine baseline uses the same vectoriser. Where a learner has the held-out baseline check
(``baseline_holdout``), the learned model is forced on (``baseline_holdout=None``) for the
table, and the default fit's verdict (``baseline_gain_.status``) is printed beside it.

    python benchmarks/shift_pairs.py [--only sts|quora] [--quick] [--data-dir DIR]
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.decomposition import TruncatedSVD
from sklearn.preprocessing import normalize

import learnsim
from learnsim.datasets import load_quora_pairs, load_sts_benchmark
from learnsim.evaluation import pearson, spearman
from learnsim.film import FILM
from learnsim.film.hybrid import select_input_weight
from learnsim.matching import ThresholdMatcher, pair_similarity
from learnsim.matching.pair_classifier import DEFAULT_FEATURES, PairClassifierMatcher, PairScoreRegressor
from learnsim.search import top_k
from learnsim.supervision import Pairs, duplicate_pairs_to_triplets, graded_pairs_to_triplets, split_pairs
from learnsim.text import TextVectorizer
from shift_common import accuracy, bootstrap_interval, guard_status, guarded, limit_threads, markdown

SEED = 0
GENRES = ("news", "captions", "forums")
N_TOPICS = 6


def _vectorizer(texts):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return TextVectorizer("tfidf", sublinear_tf=True, norm="l2", dtype=np.float64).fit(texts)


def _genre(name):
    # the files spell the forum genre main-forum (train) and main-forums (dev, test)
    name = str(name).replace("main-", "")
    return "forums" if name.startswith("forum") else name


def _local(X, idx):
    """Rows of X that the pairs use, and the pairs renumbered into them: FILM's basis is then
    built from the training texts only."""
    items = np.unique(idx)
    position = np.full(X.shape[0], -1, dtype=np.int64)
    position[items] = np.arange(items.size)
    return X[items], position[idx]


def _keep_nonempty(T, X):
    empty = np.flatnonzero(np.diff(sp.csr_matrix(X).indptr) == 0)
    T = T.indices if hasattr(T, "indices") else np.asarray(T)
    return T[~np.isin(T, empty).any(axis=1)]


def _fit_films(X, idx, make_triplets, params):
    """FILM forced on and (where it has the check) with its defaults, on the pairs' texts."""
    Xl, local = _local(X, idx)
    T = _keep_nonempty(make_triplets(Xl, local), Xl)
    return {name: est.fit(Xl, T) for name, est in guarded(FILM, random_state=SEED, **params).items()}


def _line(name, value, base, ci, extra=""):
    return [name, f"{value:.4f}", f"{value / base:.3f}", f"{value - base:+.4f} [{ci[0]:+.4f}, {ci[1]:+.4f}]", extra]


def _user_path(train_pairs, test_pairs, gold, cos_test, base, options):
    """Rows for the graded user path: ``learnsim.fit(pairs=[(a, b, score), ...])`` as a user
    calls it, its ``Pipeline.match`` scores on the test pairs, and its own input cosine."""
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = learnsim.fit(pairs=train_pairs, random_state=SEED, **options)
    fit_s = time.perf_counter() - start
    pred = np.array([r["score"] for r in model.match(test_pairs)], dtype=np.float64)
    n = len(test_pairs)
    V = model.vectorize([a for a, _ in test_pairs] + [b for _, b in test_pairs])
    own = pair_similarity(V, np.column_stack([np.arange(n), np.arange(n) + n]))
    rule, search = model.match_rule, model.search_rule
    gain = rule.baseline_gain
    held = ", ".join(f"{k} {v:.3f}" for k, v in rule.pearsons.items())
    verdict = "unchecked" if gain is None else (
        f"{gain.status} ({gain.gain:+.3f} [{gain.ci_low:+.3f}, {gain.ci_high:+.3f}])" if gain.gain is not None
        else gain.status)
    chose = "cosine (fell back)" if rule.matcher == "cosine" else f"{rule.matcher} (learned)"
    w = "-" if search is None or search.input_weight is None else f"{search.input_weight:.2f}"
    note = (f"chose {chose}; held-out Pearson {held}; {verdict}; search w = {w}; Spearman "
            f"{spearman(pred, gold):.4f} (cosine {spearman(cos_test, gold):.4f}); fit {fit_s:.0f} s")
    print(f"  learnsim.fit(pairs=...): {len(train_pairs)} pairs, {fit_s:.0f} s; chose {chose}; "
          f"{len(caught)} warning(s): " + " | ".join(str(c.message)[:160] for c in caught), flush=True)
    return [["", "learnsim.fit(pairs=...), Pipeline.match"]
            + _line("", pearson(pred, gold), base, bootstrap_interval(pearson, pred, cos_test, gold))[1:4] + [note],
            ["", "  its input cosine (the model's tf.idf)"]
            + _line("", pearson(own, gold), base, bootstrap_interval(pearson, own, cos_test, gold))[1:4]
            + [f"Spearman {spearman(own, gold):.4f}; {V.shape[1]} terms"]]


# --------------------------------------------------------------------------- STS-B
def sts(data_dir, quick, vocabulary="all"):
    splits = {s: load_sts_benchmark(s, data_dir=data_dir) for s in ("train", "dev", "test")}
    texts, parts = [], {}
    for name, d in splits.items():
        parts[name] = (d.pairs.indices + len(texts), d.pairs.scores, np.array([_genre(g) for g in d.genres]))
        texts += list(d.texts)
    if vocabulary == "all":
        vec = _vectorizer(texts)
        X = vec.transform(texts)
    film_params = dict(n_components=30, max_iter=50) if quick else dict(n_components=100)
    held_out = GENRES[:1] if quick else GENRES
    rng = np.random.default_rng(SEED)
    table = []
    for g in held_out:
        te_idx, te_y, te_g = parts["test"]
        test = te_g == g
        tr_idx, tr_y, tr_g = parts["train"]
        dv_idx, dv_y, dv_g = parts["dev"]
        shifted = tr_g != g
        n_train = int(shifted.sum())
        settings = {"shifted": (shifted, dv_g != g),
                    "in-domain": (np.isin(np.arange(tr_g.size), rng.choice(tr_g.size, n_train, replace=False)),
                                  np.ones(dv_g.size, bool))}
        gold = te_y[test]
        for setting, (tr_mask, dv_mask) in settings.items():
            fit_texts, train_idx = texts, tr_idx[tr_mask]
            if vocabulary == "train":
                # inductive: the word tf.idf from the training source's texts, the pair
                # regression's character idf from its training pairs' texts only
                vec = _vectorizer([texts[i] for i in np.unique(np.concatenate([tr_idx[tr_mask], dv_idx[dv_mask]]))])
                X = vec.transform(texts)
                items = np.unique(train_idx)
                fit_texts = [texts[i] for i in items]
                train_idx = np.searchsorted(items, train_idx)
            cos_test = pair_similarity(X, te_idx[test])
            base = pearson(cos_test, gold)
            print(f"STS-B, test genre {g} ({int(test.sum())} test pairs), {setting}: {int(tr_mask.sum())} training "
                  f"pairs ({', '.join(sorted(set(tr_g[tr_mask])))}), {int(dv_mask.sum())} dev pairs", flush=True)
            start = time.perf_counter()
            films = _fit_films(X, tr_idx[tr_mask], lambda Xl, local: graded_pairs_to_triplets(
                Pairs(local, scores=tr_y[tr_mask]), random_state=SEED, high_score=3.0, n_random_negatives=2,
                n_items=Xl.shape[0]), film_params)
            film_s = time.perf_counter() - start
            gold_dev = dv_y[dv_mask]
            cos_dev = pair_similarity(X, dv_idx[dv_mask])
            rows = [[f"{g}, {setting}", "tf.idf cosine", f"{base:.4f}", "1.000", "-", ""]]
            if vocabulary == "train":
                # the cosine a user computes without any training: tf.idf fitted on the test texts
                own_vec = _vectorizer([texts[i] for i in np.unique(te_idx[test])])
                ref = pair_similarity(own_vec.transform(texts), te_idx[test])
                rows.append(["", "tf.idf cosine, fitted on the test genre's texts"]
                            + _line("", pearson(ref, gold), base, bootstrap_interval(pearson, ref, cos_test, gold))[1:4]
                            + ["no training data"])
            film = films["forced"]
            E = film.transform(X)
            alone = pair_similarity(E, te_idx[test])
            w, _ = select_input_weight(cos_dev, pair_similarity(E, dv_idx[dv_mask]), lambda s: pearson(s, gold_dev))
            mix = w * cos_test + (1 - w) * alone
            rows.append(["", "FILM alone"] + _line("", pearson(alone, gold), base,
                                                   bootstrap_interval(pearson, alone, cos_test, gold))[1:4]
                        + [f"fit {film_s:.0f} s"])
            rows.append(["", "FILM + cosine"] + _line("", pearson(mix, gold), base,
                                                      bootstrap_interval(pearson, mix, cos_test, gold))[1:4]
                        + [f"w = {w:.2f} (dev)"])
            if "default" in films:
                # what a user gets: FILM's own similarity, its weight chosen on held-out triplets
                own = films["default"].pair_similarity(te_idx[test], X)
                rows.append(["", "FILM, default fit"] + _line("", pearson(own, gold), base,
                                                              bootstrap_interval(pearson, own, cos_test, gold))[1:4]
                            + [f"w = {films['default'].input_weight_:.2f}, {guard_status(films['default'])}"])
            candidates = {"default": dict(features=DEFAULT_FEATURES)}
            if not quick:
                candidates["default + FILM"] = dict(features=DEFAULT_FEATURES + ("embedding",),
                                                    embedding=films["forced"])
            train_pairs = Pairs(train_idx, scores=tr_y[tr_mask])
            dev_pairs = Pairs(dv_idx[dv_mask], scores=gold_dev)
            fitted = {}
            for name, params in candidates.items():
                start = time.perf_counter()
                models = {v: m.fit(fit_texts, train_pairs) for v, m in
                          guarded(PairScoreRegressor, vectorizer=vec, random_state=SEED, **params).items()}
                fitted[name] = (models, models["forced"].score(dev_pairs, X=texts), time.perf_counter() - start)
                print(f"  pair regression [{name}]: dev Pearson {fitted[name][1]:.4f} ({fitted[name][2]:.0f} s)",
                      flush=True)
            chosen = max(fitted, key=lambda k: fitted[k][1])
            for variant, model in fitted[chosen][0].items():
                pred = model.predict(te_idx[test], texts)
                tag = "" if variant == "forced" else " (default fit)"
                rows.append(["", f"pair regression [{chosen}]{tag}"]
                            + _line("", pearson(pred, gold), base, bootstrap_interval(pearson, pred, cos_test, gold))[1:4]
                            + [guard_status(model) if variant == "default" else f"dev {fitted[chosen][1]:.4f}"])
            # the graded user path on the same training and dev pairs, with its own validation
            user_idx = np.vstack([tr_idx[tr_mask], dv_idx[dv_mask]])
            user_y = np.concatenate([tr_y[tr_mask], gold_dev])
            rows += _user_path([(texts[i], texts[j], float(y)) for (i, j), y in zip(user_idx, user_y)],
                               [(texts[i], texts[j]) for i, j in te_idx[test]], gold, cos_test, base,
                               dict(n_components=30, max_iter=50) if quick else {})
            for row in rows:
                print("  " + " | ".join(row[1:]), flush=True)
            table += rows
    print("\nSTS-B across genres: test Pearson (the test pairs of one genre)\n")
    print(markdown(["test genre, training", "rule", "Pearson", "/ cosine", "- cosine [95 % CI]", "note"], table))


# --------------------------------------------------------------------------- Quora
def _topics(dev, test, n_topics):
    """k-means topics of the pairs (two questions as one document), fitted on dev, applied to test."""
    docs_dev = [a + " " + b for a, b in zip(dev.question1, dev.question2)]
    docs_test = [a + " " + b for a, b in zip(test.question1, test.question2)]
    # an English stop list, min_df 5: topics of subject matter, not of question words (what, how, why)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vec = TextVectorizer("tfidf", stop_words="english", min_df=5, sublinear_tf=True, norm="l2",
                             dtype=np.float64).fit(docs_dev)
    svd = TruncatedSVD(100, random_state=SEED).fit(vec.transform(docs_dev))
    Z = normalize(svd.transform(vec.transform(docs_dev)))
    km = KMeans(n_topics, n_init=10, random_state=SEED).fit(Z)
    terms = np.asarray(vec.get_feature_names_out())
    centres = km.cluster_centers_ @ svd.components_
    words = [", ".join(terms[np.argsort(-c)[:8]]) for c in centres]
    return km.labels_, km.predict(normalize(svd.transform(vec.transform(docs_test)))), words


def quora(data_dir, quick):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dev, test = load_quora_pairs("dev", data_dir=data_dir), load_quora_pairs("test", data_dir=data_dir)
    texts = list(dev.texts) + list(test.texts)
    n_dev = len(dev.texts)
    vec = _vectorizer(texts)
    X = vec.transform(texts)
    topic_dev, topic_test, words = _topics(dev, test, N_TOPICS)
    for t in range(N_TOPICS):
        print(f"topic {t}: {int(np.sum(topic_dev == t))} dev / {int(np.sum(topic_test == t))} test pairs, "
              f"duplicates {np.mean(dev.pairs.labels[topic_dev == t]):.2f} / "
              f"{np.mean(test.pairs.labels[topic_test == t]):.2f}; top terms: {words[t]}", flush=True)
    dv_idx, dv_y = dev.pairs.indices, np.asarray(dev.pairs.labels, bool)
    te_idx, te_y = test.pairs.indices + n_dev, np.asarray(test.pairs.labels, bool)
    film_params = dict(n_components=20, max_iter=50) if quick else dict(n_components=50)
    rng = np.random.default_rng(SEED)
    table = []
    for t in range(1 if quick else N_TOPICS):
        test_mask = topic_test == t
        gold = te_y[test_mask]
        tp = Pairs(te_idx[test_mask], labels=gold)
        shifted = topic_dev != t
        n_pairs = int(shifted.sum())
        settings = {"shifted": shifted,
                    "in-domain": np.isin(np.arange(dv_y.size), rng.choice(dv_y.size, n_pairs, replace=False))}
        base = None
        for setting, mask in settings.items():
            print(f"Quora, test topic {t} ({int(test_mask.sum())} test pairs), {setting}: {n_pairs} dev pairs "
                  f"(topics {sorted(set(topic_dev[mask].tolist()))})", flush=True)
            train, val = split_pairs(Pairs(dv_idx[mask], labels=dv_y[mask]), 0.2, np.random.default_rng(SEED))
            cos = ThresholdMatcher().fit(X, val)
            cos_pred = cos.predict(tp)
            cos_acc = accuracy(cos_pred, gold)
            base = cos_acc
            correct_cos = cos_pred.astype(bool) == gold
            rows = [[f"topic {t}, {setting}", "tf.idf cosine threshold", f"{cos_acc:.4f}", "1.000", "-",
                     f"val {cos.validation_accuracy_:.4f}"]]

            def add(name, pred, note):
                ci = bootstrap_interval(lambda c, _y: np.mean(c), pred.astype(bool) == gold, correct_cos, gold)
                rows.append(["", name] + _line("", accuracy(pred, gold), base, ci)[1:4] + [note])

            start = time.perf_counter()

            def triplets(Xl, local, train=train):
                nb = top_k(Xl, Xl, 10, metric="cosine", exclude_self=True)[0]
                return duplicate_pairs_to_triplets(Pairs(local, labels=train.labels), n_items=Xl.shape[0],
                                                   n_random_negatives=1, random_state=SEED, neighbors=nb,
                                                   n_hard_negatives=1)
            films = _fit_films(X, train.indices, triplets, film_params)
            film_s = time.perf_counter() - start
            mixed = ThresholdMatcher(films["forced"], input_weight="auto").fit(X, val)
            add("FILM + cosine", mixed.predict(tp), f"w = {mixed.input_weight_:.2f} (val), fit {film_s:.0f} s")
            if "default" in films:
                # what a user gets: FILM's own weight (chosen on held-out triplets), the threshold on val
                film = films["default"]
                own = ThresholdMatcher(film, input_weight=film.input_weight_).fit(X, val)
                add("FILM, default fit", own.predict(tp), f"w = {film.input_weight_:.2f}, {guard_status(film)}")
            start = time.perf_counter()
            both = Pairs(np.vstack([train.indices, val.indices]), labels=np.concatenate([train.labels, val.labels]))
            for variant, model in guarded(PairClassifierMatcher, vectorizer=vec, random_state=SEED).items():
                model.fit(texts, both)
                tag = "" if variant == "forced" else " (default fit)"
                add(f"pair classifier{tag}", model.predict(tp, texts),
                    f"oof {model.validation_accuracy_:.4f}, {time.perf_counter() - start:.0f} s"
                    if variant == "forced" else guard_status(model))
            for row in rows:
                print("  " + " | ".join(row[1:]), flush=True)
            table += rows
    print("\nQuora sample across topics: test accuracy (the test pairs of one topic)\n")
    print(markdown(["test topic, training", "rule", "accuracy", "/ cosine", "- cosine [95 % CI]", "note"], table))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--only", choices=("sts", "quora"), default=None)
    parser.add_argument("--quick", action="store_true", help="one held-out genre / topic, small FILM")
    parser.add_argument("--vocabulary", choices=("all", "train"), default="all",
                        help="STS-B: the word tf.idf from the texts of all splits (default, as the "
                             "reproduction) or from the training source's texts only")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    args = parser.parse_args(argv)
    limit_threads(args.threads)
    t0 = time.perf_counter()
    if args.only in (None, "sts"):
        sts(args.data_dir, args.quick, args.vocabulary)
    if args.only in (None, "quora"):
        quora(args.data_dir, args.quick)
    print(f"\n{time.perf_counter() - t0:.0f} s in all")


if __name__ == "__main__":
    main()
