"""'learnsim match' printed a probability on the other side of its decision (P(dup) 0.587 beside
'different'): the threshold and its calibration were fitted apart. Every row of --pairs and
--corpus now has P(dup) >= 0.5 exactly where it says duplicate, whichever rule the fit chose."""
from __future__ import annotations

import json

import numpy as np
import pytest

from learnsim.datasets import make_clustered_corpus
from conftest import run_cli

FILM_FAST = ["--method", "film", "--dimensions", "4", "--max-iter", "20"]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("matchprob")
    corpus = make_clustered_corpus(n_clusters=6, docs_per_cluster=10, random_state=5)
    rng = np.random.default_rng(1)
    rows = []
    for k in range(320):
        i, j = rng.choice(len(corpus.data), 2, replace=False)
        if k % 2:
            j = rng.choice(np.flatnonzero(corpus.target == corpus.target[i]))
            if j == i:
                continue
        # one label in six flipped: no rule decides every pair right, many pairs lie near its cut
        label = int(corpus.target[i] == corpus.target[j]) ^ int(rng.random() < 1 / 6)
        rows.append((label, corpus.data[i], corpus.data[j]))
    pairs = folder / "pairs.tsv"
    pairs.write_text("".join(f"{a}\t{b}\t{c}\n" for a, b, c in rows), encoding="utf-8")
    docs = folder / "docs.tsv"
    docs.write_text("".join(f"d{i}\t{t}\n" for i, t in enumerate(corpus.data)), encoding="utf-8")
    return {"folder": folder, "pairs": pairs, "docs": docs}


@pytest.mark.parametrize("matcher", ["threshold", "classifier"])
def test_every_probability_is_on_the_side_of_its_decision(data, matcher):
    model = data["folder"] / f"{matcher}.npz"
    code, _, err = run_cli(["fit", "--pairs", data["pairs"], "--model", model, "--matcher", matcher] + FILM_FAST)
    assert code == 0, err
    code, out, err = run_cli(["match", "--model", model, "--pairs", data["pairs"], "--json"])
    assert code == 0, err
    rows = json.loads(out)["pairs"]
    assert len(rows) > 250
    decided = np.array([r["duplicate"] for r in rows])
    proba = np.array([r["probability"] for r in rows])
    assert 0 < decided.sum() < len(rows)
    assert np.array_equal(decided, proba >= 0.5), [(r["line"], r["probability"], r["duplicate"]) for r in rows
                                                   if r["duplicate"] != (r["probability"] >= 0.5)][:5]
    # the table says the same
    code, out, _ = run_cli(["match", "--model", model, "--pairs", data["pairs"]])
    for line in out.splitlines()[4:]:
        fields = line.split()
        if len(fields) > 2 and fields[2] in ("duplicate", "different"):
            assert (float(fields[1]) >= 0.5) == (fields[2] == "duplicate"), line
    # near-duplicates of a collection: each listed pair is a duplicate, so at least 0.5
    code, out, err = run_cli(["match", "--model", model, "--corpus", data["docs"], "--json"])
    assert code == 0, err
    listed = json.loads(out)["pairs"]
    assert all(r["probability"] >= 0.5 for r in listed), [r["probability"] for r in listed][:5]
