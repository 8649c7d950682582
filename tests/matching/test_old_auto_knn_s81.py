"""Model files saved before 'learnsim fit --matcher auto' stopped choosing the pairwise kNN rule (it
decides a pair by the other texts given with it: two texts alone are always duplicates) kept the
rule on load, without a word. Loading such a model now warns, naming the problem and the refit
command, and keeps its answers (no silently different rule); a kNN rule named alone (--matcher knn)
loads quietly. The old file is built with the current code: a kNN rule fitted by name, with the
match_rule auto recorded (every candidate's held-out accuracy)."""
import json
import warnings

import numpy as np
import pytest

from learnsim.matching._rule import OLD_AUTO_KNN
from learnsim.pipeline import Pipeline
from conftest import run_cli
from old_matchers import old_auto_knn


def _notes():
    topics = {"phone": ["The new phone", "This smartphone", "My old phone", "The budget handset"],
              "weather": ["In Boston", "In Denver", "In Miami", "In Seattle"],
              "food": ["This restaurant", "The noodle bar", "The school canteen", "The new cafe"]}
    tails = {"phone": ["has a battery that dies before lunch", "takes very sharp photos at night",
                       "lags badly since the last update", "charges very fast"],
             "weather": ["heavy rain is expected tomorrow", "temperatures are dropping fast",
                         "a storm will reach the coast tonight", "snow is forecast for the weekend"],
             "food": ["serves very tasty braised pork", "makes dumplings with thin skins",
                      "keeps you waiting an hour for a table", "brews very good coffee"]}
    notes = [f"{s} {t}." for k in topics for s in topics[k] for t in tails[k]]
    edits = [n.replace("very", "really") if "very" in n else "Honestly, " + n for n in notes]
    texts = notes + edits
    n = len(notes)
    rng = np.random.default_rng(0)
    pairs = [(i, n + i, 1) for i in range(n)]
    while len(pairs) < 2 * n:
        i, j = rng.choice(n, 2, replace=False)
        pairs.append((int(i), int(j), 0))
    return texts, pairs


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("oldknn")
    texts, pairs = _notes()
    old_model, named = old_auto_knn(texts, pairs)
    old = folder / "old_auto_knn.npz"
    old_model.save(old)
    new = folder / "named_knn.npz"
    named.save(new)
    return {"old": old, "named": new, "texts": texts, "folder": folder}


def _load(path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = Pipeline.load(path)
    return model, [str(w.message) for w in caught]


def test_loading_a_model_whose_auto_chose_the_knn_rule_warns_and_keeps_its_answers(models):
    old, said = _load(models["old"])
    named, quiet = _load(models["named"])
    assert [m for m in said if m == OLD_AUTO_KNN], said
    assert "learnsim fit --method film --pairs" in OLD_AUTO_KNN and "--matcher knn" in OLD_AUTO_KNN
    assert not [m for m in quiet if "kNN" in m], quiet
    assert old.match_rule.knn_chosen_by_auto and not named.match_rule.knn_chosen_by_auto
    # the same rule, the same answers: nothing is swapped behind the user's back
    texts = models["texts"]
    asked = [(texts[0], texts[48]), (texts[0], texts[20]), (texts[5], texts[53]), (texts[30], texts[7])]
    assert [d["duplicate"] for d in old.match(asked)] == [d["duplicate"] for d in named.match(asked)]
    assert type(old.matcher).__name__ == "PairwiseKNNMatcher"


def test_learnsim_match_says_it_in_one_line(models):
    texts = models["texts"]
    pairs = models["folder"] / "ask.tsv"
    pairs.write_text("".join(f"{texts[i]}\t{texts[j]}\n" for i, j in [(0, 48), (0, 20), (5, 53), (30, 7)]),
                     encoding="utf-8")
    code, out, err = run_cli(["match", "--model", models["old"], "--pairs", pairs, "--json"])
    assert code == 0, err
    lines = [line for line in err.splitlines() if "kNN rule" in line]
    assert len(lines) == 1 and "learnsim fit --method film --pairs" in lines[0] and "Traceback" not in err
    assert json.loads(out)["matcher"] == "knn"          # kept, and said
    code, _, err = run_cli(["match", "--model", models["named"], "--pairs", pairs, "--json"])
    assert code == 0 and "kNN rule" not in err
