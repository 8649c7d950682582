"""A fit on 2-5 labelled clusters ends as the strongest baseline (BM25 or the tf.idf cosine), but
``learnsim fit`` still printed mcd's 'Metric: n_basis=...' and 'Against the baseline: not checked'
lines (FILM's 'Metric:' and 'Similarity:') above the lines saying the model is BM25: the output
described a model it had not saved. It now prints what is true of the saved model: the documents
read, the method line (the model is the baseline, and why) and the check that chose it; and one
warning for the one cause (too few clusters), where 4 and 5 clusters gave two."""
from __future__ import annotations

import json

import pytest

from conftest import run_cli

TOPICS = {
    "cooking": ["Boil the pasta in salted water for ten minutes.", "Chop the onions and fry them in butter.",
                "Bake the bread at two hundred degrees.", "Stir the soup and add pepper and salt.",
                "Roast the chicken with garlic and lemon."],
    "travel": ["Book the train tickets to Paris early.", "Pack a light bag for the weekend trip.",
               "The flight to Rome was delayed two hours.", "Find a cheap hotel near the old town.",
               "Rent a car at the airport for the tour."],
    "garden": ["Water the tomato plants every morning.", "Prune the roses before the spring frost.",
               "Plant the tulip bulbs in autumn soil.", "Mow the lawn and rake the fallen leaves.",
               "Pull the weeds between the carrot rows."],
    "music": ["Tune the guitar before the concert starts.", "Practise the piano scales every evening.",
              "The band played a new song on stage.", "Learn the drum rhythm of the chorus.",
              "Sing the melody softly with the choir."],
    "money": ["Save part of the salary every month.", "Pay the credit card bill before the deadline.",
              "Compare the bank interest rates for savings.", "Track the monthly budget in a spreadsheet.",
              "Invest in a low cost index fund."],
}
FILM_FAST = ["--method", "film", "--dimensions", "4", "--max-iter", "20"]
# the lines of a learned model: its metric, FILM's similarity, its own check against Euclid / the input cosine
LEARNED_LINES = ("Metric:", "Similarity:", "Against the baseline:", "Weighting chosen")


def _notes(tmp_path, n_clusters):
    path = tmp_path / f"notes{n_clusters}.jsonl"
    path.write_text("".join(json.dumps({"label": label, "text": text}) + "\n"
                            for label in list(TOPICS)[:n_clusters] for text in TOPICS[label]), encoding="utf-8")
    return path


@pytest.mark.parametrize("method", [[], FILM_FAST], ids=["mcd", "film"])
@pytest.mark.parametrize("n_clusters", [2, 3, 4, 5])
def test_a_fit_that_ends_as_the_baseline_prints_only_the_baseline(tmp_path, n_clusters, method):
    notes = _notes(tmp_path, n_clusters)
    code, out, err = run_cli(["fit", "--input", notes, "--model", tmp_path / "m.npz", "--json", *method])
    assert code == 0, err
    summary = json.loads(out)
    assert summary["search_baseline_gain"]["status"] == "baseline"
    assert summary["model"] == summary["strongest_baseline"] in ("bm25", "cosine")
    code, out, err = run_cli(["fit", "--input", notes, "--model", tmp_path / "m.npz", *method])
    assert code == 0, err
    lines = out.strip().splitlines()
    assert not [line for line in lines if line.startswith(LEARNED_LINES)], out
    # the documents read, then the method line: the baseline, and why
    assert lines[0].startswith(f"Fitted on {5 * n_clusters} documents ({5 * n_clusters} in {n_clusters} clusters)")
    assert "features" not in lines[0], lines[0]     # the learned vectoriser's, not the saved model's
    scoring = {"bm25": "BM25", "cosine": "tf.idf cosine"}[summary["model"]]
    assert lines[1].startswith(f"The model is {scoring}, the strongest baseline"), out
    # 2-3 clusters: too few to check; 4-5: checked on held-out items of each cluster (stop 85)
    assert ("too few" if n_clusters < 4 else "did not beat") in lines[1], lines[1]
    assert any(line.startswith("Search against the strongest baseline: ") for line in lines), out
    assert lines[-1].startswith("Fit in ")
    if not method:
        # one cause, one warning (4 and 5 clusters: mcd's 'not checked against Euclid', then the
        # search check's; FILM's own check and the search check still both warn there: left to
        # learnsim.fitting, whose clusters_too_few quiets the learner at 2-3 clusters only)
        warned = [line for line in err.splitlines() if "warning:" in line]
        assert len(warned) == 1, err
        assert ("too few" if n_clusters < 4 else "does not beat") in warned[0]


def test_a_learned_model_keeps_its_lines(tmp_path):
    """--baseline-holdout none keeps mcd's metric unchecked: its lines stay."""
    notes = _notes(tmp_path, 3)
    code, out, err = run_cli(["fit", "--input", notes, "--model", tmp_path / "m.npz", "--baseline-holdout", "none"])
    assert code == 0, err
    assert "Metric: n_basis=" in out and "features (tfidf)" in out and "The model is" not in out, out


def test_relative_that_ends_as_the_baseline_prints_only_the_baseline(tmp_path):
    """--method relative whose search check replaced the weights by BM25 printed the learner's
    'features (binary)' and its check against W = 1 ('Relative comparisons: ...', 'Against the
    baseline: ...') above 'The model is BM25'."""
    texts = [text for label in TOPICS for text in TOPICS[label]]
    labels = [k for k, label in enumerate(TOPICS) for _ in TOPICS[label]]
    docs = tmp_path / "docs.tsv"
    docs.write_text("".join(f"d{i}\t{t}\n" for i, t in enumerate(texts)), encoding="utf-8")
    rows = [f"d{a}\td{b}\td{c}\n" for a in range(25) for b in range(25) for c in range(25)
            if a != b and labels[a] == labels[b] and labels[c] != labels[a] and (a + b + c) % 7 == 0][:200]
    triplets = tmp_path / "triplets.tsv"
    triplets.write_text("".join(rows), encoding="utf-8")
    args = ["fit", "--method", "relative", "--input", docs, "--triplets", triplets, "--model", tmp_path / "m.npz"]
    code, out, err = run_cli(args + ["--json"])
    assert code == 0, err
    summary = json.loads(out)
    assert summary["model"] == summary["strongest_baseline"] in ("bm25", "cosine"), summary["model"]
    code, out, err = run_cli(args)
    assert code == 0, err
    lines = out.strip().splitlines()
    assert not [line for line in lines if line.startswith(("Relative comparisons:", "Against the baseline:"))], out
    assert lines[0] == "Fitted on 200 triplets over 25 documents.", lines[0]
    assert lines[1].startswith("The model is BM25, the strongest baseline: what the weights learned"), out
    assert any(line.startswith("Search against the strongest baseline: ") for line in lines), out
