"""``learnsim match`` (duplicate decisions and near-duplicates of a collection), ``evaluate`` on
pairs and links, and ``--encoding-errors``."""
from __future__ import annotations

import json

import numpy as np
import pytest

from learnsim.datasets import make_clustered_corpus
from learnsim.persistence import load
from conftest import run_cli

FILM_FAST = ["--method", "film", "--dimensions", "4", "--max-iter", "20"]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("match")
    corpus = make_clustered_corpus(n_clusters=6, docs_per_cluster=10, random_state=5)
    rng = np.random.default_rng(1)
    rows = []
    for k in range(320):
        i, j = rng.choice(len(corpus.data), 2, replace=False)
        if k % 2:     # half duplicates: two documents of one topic
            j = rng.choice(np.flatnonzero(corpus.target == corpus.target[i]))
            if j == i:
                continue
        rows.append((int(corpus.target[i] == corpus.target[j]), corpus.data[i], corpus.data[j], k))
    pairs = folder / "pairs.tsv"
    pairs.write_text("".join(f"{a}\t{b}\t{c}\t{d}\n" for a, b, c, d in rows), encoding="utf-8")
    unlabelled = folder / "decide.tsv"
    unlabelled.write_text("".join(f"{b}\t{c}\n" for _, b, c, _ in rows[:10]), encoding="utf-8")
    docs = folder / "docs.tsv"
    docs.write_text("".join(f"d{i}\t{t}\n" for i, t in enumerate(corpus.data)), encoding="utf-8")
    model = folder / "film.npz"
    code, out, err = run_cli(["fit", "--pairs", pairs, "--model", model] + FILM_FAST)
    assert code == 0, err
    return {"folder": folder, "pairs": pairs, "rows": rows, "decide": unlabelled, "docs": docs, "model": model,
            "labels": corpus.target}


def test_fit_film_on_pairs_stores_the_validated_matcher(data):
    from learnsim.matching import PairwiseKNNMatcher, ThresholdMatcher
    from learnsim.matching import PairClassifierMatcher
    from learnsim.matching import MatchRule

    parts = load(data["model"])
    # "lexical": the search rule mixes BM25 in, where that beat FILM alone on the held-out queries
    assert {"vectorizer", "metric", "matcher", "match_rule", "search"} <= set(parts)
    assert set(parts) <= {"vectorizer", "metric", "matcher", "match_rule", "search", "lexical", "training"}
    assert isinstance(parts["matcher"], (ThresholdMatcher, PairwiseKNNMatcher, PairClassifierMatcher))
    assert isinstance(parts["match_rule"], MatchRule) and parts["match_rule"].baseline_gain is not None
    # auto compared every rule (and the input-cosine threshold) on the held-out pairs
    assert set(parts["match_rule"].accuracies) >= {"cosine", "threshold", "knn", "classifier"}


def test_match_pairs_prints_a_probability_and_a_decision_per_pair(data):
    code, out, err = run_cli(["match", "--model", data["model"], "--pairs", data["decide"], "--json"])
    assert code == 0, err
    result = json.loads(out)
    assert result["n_pairs"] == 10 and len(result["pairs"]) == 10
    for row in result["pairs"]:
        assert 0.0 <= row["probability"] <= 1.0
        assert row["duplicate"] == (row["score"] >= result["threshold"])
    code, out, _ = run_cli(["match", "--model", data["model"], "--pairs", data["decide"]])
    assert code == 0 and "P(dup)" in out and ("duplicate" in out or "different" in out)
    assert len(out.strip().splitlines()) == 2 + 2 + 10


def test_match_pairs_with_labels_and_columns(data):
    code, out, err = run_cli(["match", "--model", data["model"], "--pairs", data["pairs"],
                              "--columns", "label=0,text_a=1,text_b=2", "--json"])
    assert code == 0, err
    result = json.loads(out)
    labels = np.array([r["label"] for r in result["pairs"]])
    decided = np.array([r["duplicate"] for r in result["pairs"]])
    assert np.mean(labels == decided) > 0.7


def test_match_corpus_lists_near_duplicates_above_the_threshold(data):
    code, out, err = run_cli(["match", "--model", data["model"], "--corpus", data["docs"], "--neighbours", "5",
                              "--json"])
    assert code == 0, err
    result = json.loads(out)
    assert result["n_pairs"] > 0
    pairs = [(r["index_a"], r["index_b"]) for r in result["pairs"]]
    assert all(a < b for a, b in pairs) and len(set(pairs)) == len(pairs)
    assert all(r["score"] >= result["threshold"] for r in result["pairs"])
    same_topic = np.mean([data["labels"][a] == data["labels"][b] for a, b in pairs])
    assert same_topic > 0.7
    code, out, _ = run_cli(["match", "--model", data["model"], "--corpus", data["docs"]])
    assert code == 0 and "near-duplicate pair(s) among 60 documents" in out


def test_match_needs_a_model_with_a_validated_rule(data, tmp_path):
    docs = tmp_path / "train.tsv"
    corpus = make_clustered_corpus(n_clusters=4, docs_per_cluster=6, random_state=0)
    docs.write_text("".join(f"{corpus.target[i]}\t{t}\n" for i, t in enumerate(corpus.data)), encoding="utf-8")
    model = tmp_path / "mcd.npz"
    assert run_cli(["fit", "--input", docs, "--model", model, "--n-basis", "4", "--shrinkage", "0.1",
                    "--complement-weight", "0"])[0] == 0
    code, out, err = run_cli(["match", "--model", model, "--pairs", data["decide"]])
    assert code == 2 and "holds no validated duplicate rule" in err and "Traceback" not in err


def test_evaluate_pairs_reports_accuracy_f1_and_auc(data):
    code, out, err = run_cli(["evaluate", "--model", data["model"], "--pairs", data["pairs"], "--json"])
    assert code == 0, err
    report = json.loads(out)
    assert report["pairs"] == len(data["rows"])
    assert report["accuracy"] > 0.7 and report["f1"] > 0.7 and report["roc_auc"] > 0.8
    assert 0.0 <= report["cosine_roc_auc"] <= 1.0
    code, out, _ = run_cli(["evaluate", "--model", data["model"], "--pairs", data["pairs"]])
    assert code == 0 and "ROC AUC" in out and "Duplicate detection on" in out


def test_evaluate_pairs_needs_labels(data):
    code, _, err = run_cli(["evaluate", "--model", data["model"], "--pairs", data["decide"]])
    assert code == 2 and "no label or score column" in err


def test_evaluate_message_is_about_evaluation(tmp_path, data):
    single = tmp_path / "single.tsv"
    single.write_text("a\tone text\nb\tanother text\n", encoding="utf-8")
    code, _, err = run_cli(["evaluate", "--model", data["model"], "--input", single])
    assert code == 2 and "leave-one-out evaluation needs clusters" in err
    assert "is learned from" not in err


def test_evaluate_linklearn_on_links(tmp_path):
    corpus = make_clustered_corpus(n_clusters=6, docs_per_cluster=12, random_state=3)
    pages, links = tmp_path / "pages.tsv", tmp_path / "links.tsv"
    pages.write_text("".join(f"p{i}\t{t}\n" for i, t in enumerate(corpus.data)), encoding="utf-8")
    rng = np.random.default_rng(0)
    edges = set()
    for i in range(len(corpus.data)):
        for j in rng.choice(np.flatnonzero(corpus.target == corpus.target[i]), 3):
            if i != j:
                edges.add((i, int(j)))
    links.write_text("".join(f"p{a}\tp{b}\n" for a, b in sorted(edges)), encoding="utf-8")
    model = tmp_path / "ll.npz"
    code, _, err = run_cli(["fit", "--method", "linklearn", "--input", pages, "--links", links, "--model", model,
                            "--max-iter", "3000"])
    assert code == 0, err
    code, out, err = run_cli(["evaluate", "--model", model, "--input", pages, "--links", links, "--json"])
    assert code == 0, err
    report = json.loads(out)
    assert report["queries"] == len(corpus.data)
    # a link and its reverse are one, as learnsim fit --links counts them (1b166f6): they were two
    n_linked = len({frozenset(edge) for edge in edges})
    assert n_linked < len(edges)        # some pages link to each other: the test can fail
    assert report["links"] == n_linked
    learned = report["methods"]["learned"]
    assert 0.0 < learned["avgp"] <= 1.0 and 0.0 <= learned["p@10"] <= 1.0
    code, out, _ = run_cli(["evaluate", "--model", model, "--input", pages, "--links", links])
    assert code == 0 and "AvgP" in out and "P@10" in out and "Link retrieval" in out
    assert f"({n_linked} links)" in out


# --------------------------------------------------------------------------- bad bytes

def test_encoding_errors_strict_refuses_and_replace_notes_once(data, tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(b"d1\tHow do I learn python\xff?\nd2\tWhat is \xfe\xff python\nd3\tplain text\n")
    code, out, err = run_cli(["search", "--model", data["model"], "--corpus", bad, "--query", "python",
                              "--encoding-errors", "strict"])
    assert code == 2 and "line 1: not UTF-8" in err and len(err.strip().splitlines()) == 1
    code, out, err = run_cli(["search", "--model", data["model"], "--corpus", bad, "--query", "python"])
    assert code == 0
    notes = [line for line in err.splitlines() if "not UTF-8" in line]
    assert len(notes) == 1 and "2 line(s)" in notes[0] and "--encoding-errors strict" in notes[0]
    code, _, err = run_cli(["match", "--model", data["model"], "--corpus", bad, "--encoding-errors", "strict"])
    assert code == 2 and "not UTF-8" in err


@pytest.mark.parametrize("command", ["fit", "search", "match", "evaluate"])
def test_every_reading_command_takes_encoding_errors(command):
    code, out, _ = run_cli([command, "--help"])
    assert code == 0 and "--encoding-errors" in out


def test_evaluate_on_links_a_model_that_mixes_bm25_in(tmp_path):
    """A model whose search mixes normalised BM25 in (a FILM fitted on pairs may be one) is scored
    on links as --input scores it, with the documents' lexical vectors: it was refused with the
    scorer's "give the texts' lexical vectors". Here BM25 alone (weight 1): the learned AvgP and
    P@10 are those of normalised BM25 computed by hand."""
    from bm25_models import mixed, normalised_bm25
    from encoder_fakes import topic_texts
    from learnsim.evaluation import average_precision, precision_at_k

    texts, labels = topic_texts(per_topic=8, seed=4)
    labels = np.asarray(labels)
    pages, links = tmp_path / "pages.tsv", tmp_path / "links.tsv"
    pages.write_text("".join(f"p{i}\t{t}\n" for i, t in enumerate(texts)), encoding="utf-8")
    rng = np.random.default_rng(0)
    n = len(texts)
    relevant = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in rng.choice(np.flatnonzero((labels == labels[i]) & (np.arange(n) != i)), 2, replace=False):
            relevant[i, j] = relevant[j, i] = True
    links.write_text("".join(f"p{a}\tp{b}\n" for a, b in zip(*np.nonzero(np.triu(relevant)))), encoding="utf-8")
    model = tmp_path / "mixed.npz"
    mixed("term_film", 1.0).save(model)
    code, out, err = run_cli(["evaluate", "--model", model, "--input", pages, "--links", links, "--json"])
    assert code == 0, err
    learned = json.loads(out)["methods"]["learned"]
    scores = normalised_bm25(texts, texts)
    exclude = np.eye(n, dtype=bool)
    # (per query; the report gives their mean)
    assert learned["avgp"] == pytest.approx(np.mean(average_precision(scores, relevant, exclude=exclude)), abs=1e-9)
    assert learned["p@10"] == pytest.approx(np.mean(precision_at_k(scores, relevant, 10, exclude=exclude)), abs=1e-9)


@pytest.mark.parametrize("matcher", ["threshold", "knn"])
def test_match_corpus_names_the_neighbours_it_scored(data, tmp_path, matcher):
    """--neighbours beyond the collection: the report named the number asked ('each document's
    1000 nearest scored' among 60 documents); it names those scored, at most the others."""
    model = tmp_path / "m.npz"
    code, _, err = run_cli(["fit", "--pairs", data["pairs"], "--model", model, "--matcher", matcher,
                            "--baseline-holdout", "none"] + FILM_FAST)
    assert code == 0, err
    code, out, err = run_cli(["match", "--model", model, "--corpus", data["docs"], "--neighbours", "1000"])
    assert code == 0, err
    assert "each document's 59 nearest scored" in out, out
    code, out, err = run_cli(["match", "--model", model, "--corpus", data["docs"], "--neighbours", "1000", "--json"])
    assert code == 0 and json.loads(out)["neighbours"] == 59


def test_match_corpus_lists_exact_copies_with_certainty_under_a_threshold_rule(data, tmp_path):
    """An exact copy is a duplicate with probability 1 under every rule (DuplicateRule.copies, as
    --pairs and Pipeline.match give it): under a threshold rule --corpus gave a copy the
    threshold's probability (0.935), and left out copies of a text without a term of the model
    (a zero vector) altogether."""
    model = tmp_path / "m.npz"
    code, _, err = run_cli(["fit", "--pairs", data["pairs"], "--model", model, "--matcher", "threshold",
                            "--baseline-holdout", "none"] + FILM_FAST)
    assert code == 0, err
    texts = data["docs"].read_text(encoding="utf-8").splitlines()[:20]
    first = texts[0].split("\t", 1)[1]
    corpus = tmp_path / "c.tsv"
    corpus.write_text("\n".join(texts + [f"copy\t{first}", "z1\tqqqq zzzz", "z2\tqqqq zzzz"]) + "\n",
                      encoding="utf-8")
    code, out, err = run_cli(["match", "--model", model, "--corpus", corpus, "--json"])
    assert code == 0, err
    rows = {(r["id_a"], r["id_b"]): r for r in json.loads(out)["pairs"]}
    assert rows[("d0", "copy")]["probability"] == 1.0
    assert rows[("z1", "z2")]["probability"] == 1.0
    assert list(rows)[:2] in ([("d0", "copy"), ("z1", "z2")], [("z1", "z2"), ("d0", "copy")])    # copies first


def test_the_no_term_note_of_pairs_counts_each_text_once(data, tmp_path):
    """A pair of two identical texts holds a copy of its text: the note on texts with no term of
    the model counted the copy ('3 text(s) ... 'qqq', 'qqq', 'rrr'' for two texts)."""
    model = tmp_path / "m.npz"
    code, _, err = run_cli(["fit", "--pairs", data["pairs"], "--model", model, "--matcher", "threshold",
                            "--baseline-holdout", "none"] + FILM_FAST)
    assert code == 0, err
    path = tmp_path / "p.tsv"
    path.write_text("1\tqqqqq\tqqqqq\n0\tqqqqq\trrrrr\n", encoding="utf-8")
    for command in ("match", "evaluate"):
        code, _, err = run_cli([command, "--model", model, "--pairs", path])
        assert code == 0, (command, err)
        notes = [line for line in err.splitlines() if "no term of the model's vocabulary" in line]
        assert len(notes) == 1 and "2 text(s)" in notes[0] and notes[0].count("'qqqqq'") == 1, (command, err)


def test_match_index_says_when_a_text_has_no_word_the_duplicate_rule_knows(data, tmp_path):
    """Search weighs the index's own words and found the Russian text's twin, but the duplicate
    rule compares texts over the words of the fit (English-like here): "no near-duplicate among
    its 3 nearest documents" said nothing of why."""
    docs = tmp_path / "ru.jsonl"
    docs.write_text("".join(json.dumps({"id": f"r{i}", "text": t}, ensure_ascii=False) + "\n" for i, t in enumerate(
        ["Хочу удалить свой аккаунт", "Посылка ещё не доставлена", "Когда я получу возврат денег"])),
        encoding="utf-8")
    model, idx = tmp_path / "m.npz", tmp_path / "idx"
    code, _, err = run_cli(["fit", "--pairs", data["pairs"], "--model", model, "--matcher", "threshold",
                            "--baseline-holdout", "none"] + FILM_FAST)
    assert code == 0, err
    code, _, err = run_cli(["index", "build", "--model", model, "--corpus", docs, "--out", idx])
    assert code == 0, err
    text = "Хочу удалить аккаунт"
    code, out, err = run_cli(["match", "--index", idx, "--text", text, "--json"])
    assert code == 0, err
    assert json.loads(out)[0]["duplicates"] == []
    notes = [line for line in err.splitlines() if "of the model's vocabulary" in line]
    assert len(notes) == 1 and text in notes[0], err
    # a copy of an indexed text is still its duplicate, with no note
    code, out, err = run_cli(["match", "--index", idx, "--text", "Посылка ещё не доставлена", "--json"])
    assert code == 0 and json.loads(out)[0]["duplicates"][0]["id"] == "r1" and "vocabulary" not in err, err
    # dedupe of the same collection: "0 group(s)" said nothing of why
    code, out, err = run_cli(["dedupe", "--index", idx, "--json"])
    assert code == 0 and json.loads(out) == [], err
    notes = [line for line in err.splitlines() if "of the model's vocabulary" in line]
    assert len(notes) == 1 and "3 indexed document(s)" in notes[0], err


def test_match_pairs_names_the_pairs_with_an_empty_text(data, tmp_path):
    """A missing cell of a table (pandas writes NaN as an empty field) is an empty text, which the
    pair readers keep: such a pair was decided ("different", even for two empty texts) with no
    word of which lines they were."""
    model, path = tmp_path / "m.npz", tmp_path / "pairs.csv"
    code, _, err = run_cli(["fit", "--pairs", data["pairs"], "--model", model, "--matcher", "threshold",
                            "--baseline-holdout", "none"] + FILM_FAST)
    assert code == 0, err
    path.write_text('text_a,text_b\n,\nw001 w002,w001 w003\n"w004 w005",""\n', encoding="utf-8")
    code, out, err = run_cli(["match", "--model", model, "--pairs", path, "--json"])
    assert code == 0, err
    assert [r["line"] for r in json.loads(out)["pairs"]] == [2, 3, 4]
    notes = [line for line in err.splitlines() if "empty text" in line]
    assert len(notes) == 1 and "2 pair(s)" in notes[0] and "line 2" in notes[0], err
