"""One warning per cause in a fit from relative comparisons: with 16 anchors, 4 are held out, too
few (fewer than 6) for any check to tell a gain from chance, and the fit said so three times (the
check against W = 1, the held-out triplets against BM25 and search against BM25), each ending
'so the model falls back to the baseline', the first of them naming W = 1 though the model saved
is BM25."""
import warnings

import numpy as np

from learnsim import fitting
from learnsim.baseline import BaselineWarning

TOPICS = [["volcano", "lava", "magma", "eruption", "ash", "crater"],
          ["football", "goal", "match", "referee", "league", "striker"],
          ["piano", "violin", "concert", "orchestra", "melody", "chord"],
          ["bread", "flour", "yeast", "oven", "dough", "crust"]]


def _compared(n_anchors, per_topic=5, seed=0):
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for t, words in enumerate(TOPICS):
        for _ in range(per_topic):
            texts.append(" ".join(rng.choice(words, 6)) + f" filler{rng.integers(50)} word{rng.integers(50)}")
            labels.append(t)
    labels = np.array(labels)
    T = []
    for a in range(n_anchors):
        same = np.flatnonzero((labels == labels[a]) & (np.arange(len(texts)) != a))
        other = np.flatnonzero(labels != labels[a])
        T += [(a, int(rng.choice(same)), int(rng.choice(other))) for _ in range(6)]
    return texts, T


def _fitted(texts, T):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fitting.fit(texts, triplets=T, method="relative")
    return result, [str(w.message) for w in caught if issubclass(w.category, BaselineWarning)]


def test_too_few_held_out_anchors_are_said_once_naming_the_model_saved():
    texts, T = _compared(16)
    result, said = _fitted(texts, T)
    assert result.report["validation_anchors"] == 4
    assert len(said) == 1, said
    model = result.report["model"]
    assert model not in ("learned", "W = 1")        # the strongest baseline, e.g. bm25
    title = {"bm25": "BM25", "cosine": "tf.idf cosine"}[model]
    assert "only 4 held-out anchors" in said[0] and "too few to tell a gain" in said[0], said[0]
    # every check it stands for, and what the model saved is
    assert "W = 1" in said[0] and "nDCG@10" in said[0] and f"the model saved is {title}" in said[0], said[0]
    assert "falls back to the baseline" not in said[0], said[0]


def test_the_command_says_it_once(tmp_path):
    from conftest import run_cli

    texts, T = _compared(16)
    (tmp_path / "docs.tsv").write_text("".join(f"d{i}\t{t}\n" for i, t in enumerate(texts)), encoding="utf-8")
    (tmp_path / "triplets.tsv").write_text("".join(f"d{a}\td{b}\td{c}\n" for a, b, c in T), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("always")     # as PYTHONWARNINGS=always: a repeat is not hidden
        code, _, err = run_cli(["fit", "--method", "relative", "--input", tmp_path / "docs.tsv", "--triplets",
                                tmp_path / "triplets.tsv", "--model", tmp_path / "m.npz"])
    assert code == 0, err
    lines = [line for line in err.splitlines() if "too few" in line]
    assert len(lines) == 1 and lines[0].startswith("learnsim: warning: learnsim fit --method relative: only 4"), err


def test_the_check_against_w1_is_not_said_where_the_model_saved_is_a_search_baseline():
    """40 anchors, 10 held out: W = 1 kept over the learned weights ('... so the model falls back to
    the baseline', W = 1), then the search check made the model BM25: the first warning named a
    model that is not saved (the report keeps it in baseline_gain)."""
    texts, T = _compared(40, per_topic=10)
    result, said = _fitted(texts, T)
    report = result.report
    assert report["baseline_gain"]["status"] == "baseline" and report["model"] == "bm25"     # the case
    assert said and not any("W = 1" in m for m in said), said
    assert all("BM25" in m for m in said), said


def test_triplets_and_search_that_both_made_the_model_bm25_are_said_once():
    """The same 40 anchors: the held-out triplets (learned 1.0000 against BM25 1.0000) and then
    search (nDCG@10) both fell back to BM25, and each said '... so the model falls back to the
    baseline': two lines of one cause. One now names both checks and the model saved."""
    texts, T = _compared(40, per_topic=10)
    result, said = _fitted(texts, T)
    report = result.report
    assert report["model"] == "bm25"        # the case: both checks fell back, the model is BM25
    assert report["triplet_baseline_gain"]["status"] == "baseline"
    assert report["search_baseline_gain"]["status"] == "baseline"
    assert len(said) == 1, said
    assert "triplet accuracy" in said[0] and "nDCG@10" in said[0], said[0]
    assert "the model saved is BM25" in said[0] and "falls back to the baseline" not in said[0], said[0]
