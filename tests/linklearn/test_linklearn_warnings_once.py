"""One warning per cause in a LinkLearn fit: documents left without a vocabulary term were named
twice, by the vectoriser ('6 of 66 training documents are empty after tokenisation ...', every
document counted as a training one) and by the recipe ('5 training document(s) have no vocabulary
term; they and their links are left out')."""
import warnings

import numpy as np

import learnsim

TOPICS = [["volcano", "lava", "magma", "eruption", "ash", "crater"],
          ["football", "goal", "match", "referee", "league", "striker"],
          ["piano", "violin", "concert", "orchestra", "melody", "chord"],
          ["bread", "flour", "yeast", "oven", "dough", "crust"]]


def _linked(n_empty, seed=0):
    """15 documents per topic, each linking to 3 of its topic, and ``n_empty`` documents of stop
    words and a word of their own (no term left once single-document terms are dropped)."""
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for t, words in enumerate(TOPICS):
        for _ in range(15):
            texts.append(" ".join(rng.choice(words, 8)))
            labels.append(t)
    for k in range(n_empty):
        texts.append(f"the and of zzq{k}")
        labels.append(k % 4)
    labels = np.array(labels)
    links = []
    for i in range(len(texts)):
        same = np.flatnonzero((labels == labels[i]) & (np.arange(len(texts)) != i))
        links += [(i, int(j)) for j in rng.choice(same, 3, replace=False)]
    return texts, links


def _said(texts, links, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = learnsim.fit(texts, links=links, method="linklearn", max_iter=5, **options)
    return result, [str(w.message) for w in caught]


def test_documents_without_a_term_are_named_once():
    texts, links = _linked(6)
    _, said = _said(texts, links)
    empty = [m for m in said if "empty" in m or "no vocabulary term" in m]
    assert len(empty) == 1, said
    # all six, of all the documents, and what becomes of those the fit learns from
    assert "6 of 66 documents" in empty[0] and "left out" in empty[0], empty[0]


def test_the_command_names_them_once(tmp_path):
    from conftest import run_cli

    texts, links = _linked(6)
    (tmp_path / "docs.tsv").write_text("".join(f"d{i}\t{t}\n" for i, t in enumerate(texts)), encoding="utf-8")
    (tmp_path / "links.tsv").write_text("".join(f"d{a}\td{b}\n" for a, b in links), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("always")     # as PYTHONWARNINGS=always: a repeat is not hidden
        code, _, err = run_cli(["fit", "--method", "linklearn", "--input", tmp_path / "docs.tsv", "--links",
                                tmp_path / "links.tsv", "--model", tmp_path / "m.npz", "--max-iter", "5"])
    assert code == 0, err
    lines = [line for line in err.splitlines() if "empty" in line or "no vocabulary term" in line]
    assert len(lines) == 1 and lines[0].startswith("learnsim: warning: 6 of 66 documents"), err


def test_a_weighting_that_fell_back_is_not_said_to_fall_back_again_by_the_search_check():
    """LinkLearn fell back to the tf.idf cosine ('LinkLearn: average precision ...; the learned part
    does not help, so the model falls back to the baseline'), and the search check then measured
    that cosine against the strongest baseline, the same tf.idf cosine: a gain of exactly 0 and a
    second 'so the model falls back to the baseline' for one cause."""
    from learnsim import fitting
    from learnsim.baseline import BaselineWarning

    texts, links = _linked(6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fitting.fit(texts, links=links, method="linklearn", max_iter=5)
    report = result.report
    assert report["baseline_gain"]["status"] == "baseline" and report["model"] == "cosine"   # the case
    said = [str(w.message) for w in caught if issubclass(w.category, BaselineWarning)]
    assert len(said) == 1 and said[0].startswith("LinkLearn: "), said


def test_a_weighting_replaced_by_another_baseline_is_said_once_naming_the_model_saved():
    """LinkLearn fell back to the tf.idf cosine and the search check made the model BM25: the
    weighting's 'so the model falls back to the baseline' (the tf.idf cosine) named a model that
    is not saved, beside the check's warning that names BM25."""
    from learnsim import fitting
    from learnsim.baseline import BaselineWarning

    texts, links = _linked(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fitting.fit(texts, links=links, method="linklearn", max_iter=5)
    report = result.report
    assert report["baseline_gain"]["status"] == "baseline" and report["model"] == "bm25"     # the case
    said = [str(w.message) for w in caught if issubclass(w.category, BaselineWarning)]
    assert len(said) == 1 and said[0].startswith("learnsim fit --method linklearn: nDCG@10"), said
    assert "BM25" in said[0], said[0]
