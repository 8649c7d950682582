"""One warning per cause in a fit from pairs, each saying what is true of the model saved.

A pair of two texts labelled both duplicate and not duplicate was said three times by
learnsim.fit (read_pairs' 'the data: 1 pair(s) of the same two texts are labelled 1 on one line and
0 on another', the fit's own '... labelled both duplicate and not duplicate', and '1 non-duplicate
pair(s) join texts that chains of duplicate pairs connect', the same pair) and twice by learnsim
fit."""
import warnings

import numpy as np
import pytest

import learnsim
from conftest import run_cli

TOPICS = [["volcano", "lava", "magma", "eruption", "ash", "crater"],
          ["football", "goal", "match", "referee", "league", "striker"],
          ["piano", "violin", "concert", "orchestra", "melody", "chord"],
          ["bread", "flour", "yeast", "oven", "dough", "crust"],
          ["river", "delta", "flood", "bank", "stream", "water"],
          ["planet", "orbit", "star", "comet", "moon", "galaxy"]]
FAST = {"method": "film", "n_components": 4, "max_iter": 20}


def _topic_texts(seed=0):
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for t, words in enumerate(TOPICS):
        for _ in range(10):
            texts.append(" ".join(rng.choice(words, 6)) + f" filler{rng.integers(50)} word{rng.integers(50)}")
            labels.append(t)
    return texts, np.array(labels), rng


def _index_pairs(n=150, seed=0):
    texts, labels, rng = _topic_texts(seed)
    pairs = []
    for _ in range(n):
        i, j = (int(k) for k in rng.choice(len(texts), 2, replace=False))
        pairs.append((i, j, int(labels[i] == labels[j])))
    return texts, pairs


def _said(**kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        learnsim.fit(**kw, **FAST)
    return [str(w.message) for w in caught]


def _of_the_conflict(messages):
    return [m for m in messages if "same two texts" in m or "chains of duplicate pairs" in m]


@pytest.mark.parametrize("given", ["texts", "indices"])
def test_a_pair_labelled_both_ways_is_said_once(given):
    texts, pairs = _index_pairs()
    pairs = pairs + [(0, 1, 1), (1, 0, 0)]
    if given == "texts":
        said = _said(pairs=[(texts[i], texts[j], y) for i, j, y in pairs])
    else:
        said = _said(texts=texts, pairs=pairs)
    named = _of_the_conflict(said)
    assert len(named) == 1 and "1 pair(s) of the same two texts" in named[0], said


def test_other_non_duplicates_joined_by_chains_are_still_said():
    """0-1, 1-2 duplicates and 0-2 not: no pair is labelled both ways, the chain warning stays."""
    texts, pairs = _index_pairs()
    said = _said(texts=texts, pairs=pairs + [(0, 1, 1), (1, 2, 1), (0, 2, 0)])
    named = _of_the_conflict(said)
    assert len(named) == 1 and "1 non-duplicate pair(s) join texts that chains" in named[0], said


def test_the_command_says_a_pair_labelled_both_ways_once(tmp_path):
    texts, pairs = _index_pairs()
    pairs = pairs + [(0, 1, 1), (1, 0, 0)]
    path = tmp_path / "pairs.tsv"
    path.write_text("label\ttext_a\ttext_b\n" + "".join(f"{y}\t{texts[i]}\t{texts[j]}\n" for i, j, y in pairs),
                    encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("always")     # as PYTHONWARNINGS=always: a repeat is not hidden
        code, _, err = run_cli(["fit", "--pairs", path, "--model", tmp_path / "m.npz", "--method", "film",
                                "--dimensions", "4", "--max-iter", "20"])
    assert code == 0, err
    named = _of_the_conflict(err.splitlines())
    assert len(named) == 1 and "lines 152 and 153" in named[0], err


# ----------------------------------------------------------------------------- graded pairs
# The score rule and FILM's search weight, each checked against the input cosine on the same
# held-out pairs, said 'graded pair rule: ... so the model falls back to the baseline' and 'FILM
# search (graded pairs): ... so the model falls back to the baseline': two lines that read as the
# whole model falling back, twice.

def _graded(seed):
    texts, pairs = _index_pairs(seed=seed)
    rng = np.random.default_rng(seed + 1)
    return texts, [(i, j, 4.0 * y + float(rng.random())) for i, j, y in pairs]


def _graded_said(seed):
    from learnsim import fitting
    from learnsim.baseline import BaselineWarning

    texts, pairs = _graded(seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fitting.fit(texts, pairs=pairs, **FAST)
    said = [str(w.message) for w in caught if issubclass(w.category, BaselineWarning)]
    return [result.report[k]["status"] for k in ("match_baseline_gain", "baseline_gain")], said


def test_graded_parts_that_fall_back_are_named_once():
    statuses, said = _graded_said(1)
    assert statuses == ["baseline", "baseline"]     # the case of the report: both parts are the input cosine
    assert len(said) == 1, said
    assert "the score rule is the input cosine" in said[0] and "search is the input cosine" in said[0], said[0]
    assert "the model falls back" not in said[0], said[0]


def test_a_graded_part_that_falls_back_alone_is_named():
    statuses, said = _graded_said(0)
    assert statuses == ["learned", "baseline"]      # the score rule is learned, search is the input cosine
    assert len(said) == 1, said
    assert said[0].startswith("graded pairs: ") and said[0].endswith("so search is the input cosine"), said[0]


def test_the_command_names_the_graded_parts_once(tmp_path):
    texts, pairs = _graded(1)
    path = tmp_path / "graded.tsv"
    path.write_text("score\ttext_a\ttext_b\n" + "".join(f"{y}\t{texts[i]}\t{texts[j]}\n" for i, j, y in pairs),
                    encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        code, _, err = run_cli(["fit", "--pairs", path, "--model", tmp_path / "m.npz", "--method", "film",
                                "--dimensions", "4", "--max-iter", "20"])
    assert code == 0, err
    lines = [line for line in err.splitlines() if "input cosine" in line]
    assert len(lines) == 1 and lines[0].startswith("learnsim: warning: graded pairs: "), err
    assert "falls back to the baseline" not in err, err
