"""Retrieval runs from the command line (issue 33, point 6): ``learnsim evaluate --queries
--qrels (--index | --corpus [--model])`` beside BM25 and the tf.idf cosine, ``learnsim search
--run`` writing a TREC run file, ``learnsim evaluate --run`` measuring one, trec_eval's
definitions checked by hand (and against pytrec_eval where it is installed), and hostile input
files answered by exit status 2 and one line naming the file and line.
"""
from __future__ import annotations

import json
import math

import pytest

from conftest import require_corpus, run_cli
from learnsim.datasets import make_clustered_corpus

N_CLUSTERS, PER_CLUSTER = 4, 8


def ok(args):
    code, out, err = run_cli(args)
    assert code == 0, (args, code, err)
    return out, err


def ok_json(args):
    return json.loads(ok(list(args) + ["--json"])[0])


def assert_user_error(args, *fragments):
    """Exit status 2 and one line on stderr holding every fragment, no traceback."""
    code, out, err = run_cli(args)
    assert code == 2, (args, code, out, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, f"expected a one-line message, got: {err!r}"
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """A small clustered collection with ids, one query per cluster (a document's first words)
    whose relevant documents are the cluster's (level 2 for the document it came from), a model
    (minimum cluster distortion: a distance, so a run negates it) and an index of it."""
    folder = tmp_path_factory.mktemp("runs")
    c = make_clustered_corpus(n_clusters=N_CLUSTERS, docs_per_cluster=PER_CLUSTER, vocab_size=300,
                              topic_words=12, random_state=3)
    texts, topics = [str(t) for t in c.data], [int(v) for v in c.target]
    ids = [f"d{i}" for i in range(len(texts))]
    (folder / "docs.tsv").write_text("".join(f"{i}\t{t}\n" for i, t in zip(ids, texts)), encoding="utf-8")
    (folder / "train.tsv").write_text("".join(f"{y}\t{t}\n" for t, y in zip(texts, topics)), encoding="utf-8")
    sources = [topics.index(y) for y in range(N_CLUSTERS)]
    qids = [f"q{y + 1}" for y in range(N_CLUSTERS)]
    queries = [" ".join(texts[i].split()[:12]) for i in sources]
    (folder / "queries.tsv").write_text("qid\ttext\n" + "".join(f"{q}\t{t}\n" for q, t in zip(qids, queries)),
                                        encoding="utf-8")
    with open(folder / "qrels.txt", "w", encoding="utf-8") as f:
        for q, y, source in zip(qids, range(N_CLUSTERS), sources):
            for i, topic in enumerate(topics):
                if topic == y:
                    f.write(f"{q} 0 {ids[i]} {2 if i == source else 1}\n")
            f.write(f"{q} 0 {ids[(source + PER_CLUSTER) % len(ids)]} 0\n")    # judged, not relevant
    model = folder / "mcd.npz"
    # an mcd model whatever the checks keep (its run scores are negated distances, tested below)
    ok(["fit", "--input", folder / "train.tsv", "--model", model, "--n-basis", "8", "--baseline-holdout", "none"])
    index = folder / "idx"
    ok(["index", "build", "--model", model, "--corpus", folder / "docs.tsv", "--out", index])
    return {"folder": folder, "model": model, "index": index, "ids": ids, "qids": qids}


# --------------------------------------------------------------------------- trec_eval by hand

HAND_QRELS = """\
q1 0 d1 2
q1 0 d2 1
q1 0 d3 0
q1 0 d9 1
q2 0 d5 1
q3 0 d7 0
q4 0 d1 1
"""
# q1's scores tie at 0.8: trec_eval ranks the larger id first (d4 before d1), whatever the rank
# column says; q3 is judged without a relevant document; q5 has no judgment; q4 is not in the run
HAND_RUN = """\
q1 Q0 d3 1 0.9 hand
q1 Q0 d1 2 0.8 hand
q1 Q0 d4 3 0.8 hand
q1 Q0 d2 4 0.5 hand
q2 Q0 d5 1 1.0 hand
q2 Q0 d6 2 0.5 hand
q3 Q0 d7 1 0.3 hand
q5 Q0 d1 1 2.0 hand
"""


def _hand_values():
    """trec_eval's map, ndcg_cut.10, P.10 and recall.100 of HAND_RUN, worked out by hand."""
    log2 = math.log2
    # q1 ranks d3, d4, d1 (level 2), d2 (level 1); R = 3 (d9 is never retrieved)
    q1 = {"map": (1 / 3 + 2 / 4) / 3, "p@10": 2 / 10, "recall@100": 2 / 3,
          "ndcg@10": (2 / log2(4) + 1 / log2(5)) / (2 / log2(2) + 1 / log2(3) + 1 / log2(4))}
    q2 = {"map": 1.0, "p@10": 1 / 10, "recall@100": 1.0, "ndcg@10": 1.0}
    q3 = {"map": 0.0, "p@10": 0.0, "recall@100": 0.0, "ndcg@10": 0.0}
    per_query = {"q1": q1, "q2": q2, "q3": q3}
    means = {m: sum(q[m] for q in per_query.values()) / 3 for m in q1}
    return per_query, means


@pytest.fixture
def hand_files(tmp_path):
    (tmp_path / "qrels.txt").write_text(HAND_QRELS, encoding="utf-8")
    (tmp_path / "run.trec").write_text(HAND_RUN, encoding="utf-8")
    return tmp_path


def test_run_file_measures_match_the_hand_computed_trec_eval_values(hand_files):
    per_query, means = _hand_values()
    out = ok_json(["evaluate", "--run", hand_files / "run.trec", "--qrels", hand_files / "qrels.txt"])
    assert out["queries"] == 3
    assert (out["n_skipped_queries"], out["n_unranked_queries"], out["n_queries_without_relevant"]) == (1, 1, 1)
    for m, value in means.items():
        assert out["methods"]["run"][m] == pytest.approx(value, abs=1e-12), m
    for qid, values in per_query.items():
        for m, value in values.items():
            assert out["per_query"]["run"][qid][m] == pytest.approx(value, abs=1e-12), (qid, m)
    text, err = ok(["evaluate", "--run", hand_files / "run.trec", "--qrels", hand_files / "qrels.txt"])
    assert f"{means['map']:.3f}" in text and "nDCG@10" in text and "recall@100" in text
    assert "1 of the 4 queries" in err and "without -c" in err


def test_the_measures_agree_with_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    import numpy as np

    from learnsim.evaluation import per_query_run_measures

    rng = np.random.default_rng(0)
    docs = [f"d{i}" for i in range(60)]
    qrels, run = {}, {}
    for q in range(12):
        judged = rng.choice(docs, size=15, replace=False)
        qrels[f"q{q}"] = {d: int(rng.integers(0, 4)) for d in judged}
        retrieved = rng.choice(docs, size=40, replace=False)
        # coarse scores: many ties, which trec_eval breaks by descending document id
        run[f"q{q}"] = {d: float(rng.integers(0, 8)) / 4 for d in retrieved}
    names = {"map": "map", "ndcg@10": "ndcg_cut_10", "p@10": "P_10", "recall@100": "recall_100"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.10", "recall.100"}).evaluate(run)
    ours = per_query_run_measures(run, qrels)
    assert set(ours) == set(theirs)
    for qid in ours:
        for m, name in names.items():
            assert ours[qid][m] == pytest.approx(theirs[qid][name], abs=1e-12), (qid, m)


# --------------------------------------------------------------------------- the collection

def test_evaluate_queries_reports_learned_beside_the_baselines(collection):
    f = collection["folder"]
    args = ["evaluate", "--queries", f / "queries.tsv", "--qrels", f / "qrels.txt"]
    out = ok_json(args + ["--corpus", f / "docs.tsv", "--model", collection["model"]])
    assert set(out["methods"]) == {"learned", "bm25", "cosine"}
    assert out["queries"] == N_CLUSTERS and out["documents"] == len(collection["ids"])
    assert out["k"] == len(collection["ids"])                # 1000 capped at the collection
    for m in ("map", "ndcg@10", "p@10", "recall@100"):
        strongest = out["strongest_baseline"][m]
        assert strongest == max(("bm25", "cosine"), key=lambda b: out["methods"][b][m])
        assert out["ratio_learned_to_strongest_baseline"][m] == pytest.approx(
            out["methods"]["learned"][m] / out["methods"][strongest][m])
        assert all(0.0 <= out["methods"][name][m] <= 1.0 for name in out["methods"])
    # the planted clusters are easy: every method finds the source document of its query first
    assert all(out["per_query"][name][q]["ndcg@10"] > 0.5 for name in out["methods"] for q in collection["qids"])
    text, _ = ok(args + ["--corpus", f / "docs.tsv", "--model", collection["model"]])
    assert "learned/strongest" in text and "MAP" in text and ("(bm25)" in text or "(cosine)" in text)
    # without --model: the baselines alone, no ratio
    alone = ok_json(args + ["--corpus", f / "docs.tsv"])
    assert set(alone["methods"]) == {"bm25", "cosine"} and alone["ratio_learned_to_strongest_baseline"] is None
    assert alone["methods"]["bm25"] == out["methods"]["bm25"]
    text, _ = ok(args + ["--corpus", f / "docs.tsv"])
    assert "No --model" in text and "learned" not in text.split("\n\n")[-1]


def test_a_run_file_gives_the_same_measures_as_the_index_it_came_from(collection, tmp_path):
    f = collection["folder"]
    direct = ok_json(["evaluate", "--queries", f / "queries.tsv", "--qrels", f / "qrels.txt",
                      "--index", collection["index"]])
    run = tmp_path / "out.trec"
    summary = ok_json(["search", "--index", collection["index"], "--queries", f / "queries.tsv", "--run", run,
                       "--run-tag", "mine", "-k", "20"])
    assert summary["lines"] == N_CLUSTERS * 20 and summary["tag"] == "mine"
    lines = [line.split() for line in run.read_text(encoding="utf-8").splitlines()]
    assert all(len(fields) == 6 and fields[1] == "Q0" and fields[5] == "mine" for fields in lines)
    for qid in collection["qids"]:
        rows = [fields for fields in lines if fields[0] == qid]
        assert [int(r[3]) for r in rows] == list(range(1, 21))
        scores = [float(r[4]) for r in rows]
        assert scores == sorted(scores, reverse=True)
        assert {r[2] for r in rows} <= set(collection["ids"])
    # the index ranks by a distance: the run's scores are its negation
    assert all(float(fields[4]) <= 0 for fields in lines)
    from_file = ok_json(["evaluate", "--run", run, "--qrels", f / "qrels.txt"])
    shallow = ok_json(["evaluate", "--queries", f / "queries.tsv", "--qrels", f / "qrels.txt",
                       "--index", collection["index"], "-k", "20"])
    assert from_file["methods"]["run"] == shallow["methods"]["learned"]
    assert from_file["per_query"]["run"] == shallow["per_query"]["learned"]
    # the whole collection ranked (the default depth) matches a run of every document
    full = tmp_path / "full.trec"
    ok(["search", "--index", collection["index"], "--queries", f / "queries.tsv", "--run", full])
    assert ok_json(["evaluate", "--run", full, "--qrels", f / "qrels.txt"])["methods"]["run"] \
        == direct["methods"]["learned"]


def test_search_run_from_a_corpus_and_beir_files(collection, tmp_path):
    f = collection["folder"]
    texts = dict(line.split("\t", 1) for line in (f / "docs.tsv").read_text(encoding="utf-8").splitlines())
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"_id": i, "title": "", "text": t}) + "\n" for i, t in texts.items()),
                      encoding="utf-8")
    queries = tmp_path / "queries.jsonl"
    queries.write_text("".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t in
                               (line.split("\t", 1) for line in
                                (f / "queries.tsv").read_text(encoding="utf-8").splitlines()[1:])),
                       encoding="utf-8")
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\t{d}\t{r}\n" for q, _zero, d, r in (line.split() for line in
                                                   (f / "qrels.txt").read_text(encoding="utf-8").splitlines())),
        encoding="utf-8")
    run = tmp_path / "beir.trec"
    ok(["search", "--model", collection["model"], "--corpus", corpus, "--queries", queries, "--run", run])
    beir = ok_json(["evaluate", "--run", run, "--qrels", qrels])
    tsv = ok_json(["evaluate", "--queries", f / "queries.tsv", "--qrels", f / "qrels.txt", "--corpus",
                   f / "docs.tsv", "--model", collection["model"]])
    for m, value in beir["methods"]["run"].items():
        assert value == pytest.approx(tsv["methods"]["learned"][m], abs=1e-9)


# --------------------------------------------------------------------------- hostile input

def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name, qrels, run, fragments", [
    ("qrels line short of a field", "q1 0 d1 1\nq1 0 d2\n", HAND_RUN, ["qrels.txt, line 2", "3 field(s)"]),
    ("non-numeric relevance", "q1 0 d1 yes\nq2 0 d5 1\n", HAND_RUN, ["qrels.txt, line 1", "'yes'", "not an integer"]),
    ("empty qrels", "\n\n", HAND_RUN, ["qrels.txt holds no relevance judgment"]),
    ("run line short of a field", HAND_QRELS, "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.4\n",
     ["run.trec, line 2", "5 field(s), expected 6"]),
    ("non-numeric score", HAND_QRELS, "q1 Q0 d1 1 high t\n", ["run.trec, line 1", "'high'", "not a finite number"]),
    ("non-integer rank", HAND_QRELS, "q1 Q0 d1 first 0.5 t\n", ["run.trec, line 1", "'first'", "not an integer"]),
    ("duplicate document", HAND_QRELS, "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.4 t\nq1 Q0 d1 3 0.3 t\n",
     ["run.trec, line 3", "'d1'", "ranked again for query 'q1'", "line 1"]),
    ("empty run", HAND_QRELS, "", ["run.trec holds no run line"]),
    ("unknown queries", HAND_QRELS, "x1 Q0 d1 1 0.5 t\n", ["run.trec", "none of its 1 queries", "qrels.txt"]),
])
def test_hostile_run_and_qrels_files_exit_2_with_one_line(tmp_path, name, qrels, run, fragments):
    q, r = _write(tmp_path / "qrels.txt", qrels), _write(tmp_path / "run.trec", run)
    assert_user_error(["evaluate", "--run", r, "--qrels", q], *fragments)


def test_hostile_query_and_corpus_files_exit_2_with_one_line(collection, tmp_path):
    f = collection["folder"]
    base = ["evaluate", "--queries", f / "queries.tsv", "--corpus", f / "docs.tsv"]
    # judgments none of whose queries the queries file has
    bad = _write(tmp_path / "qrels.txt", "q8 0 d1 1\nq9 0 d2 1\n")
    assert_user_error(base + ["--qrels", bad], "qrels.txt", "none of its 2 judged queries", "'q8'", "queries.tsv")
    # judgments whose documents are none of the collection's
    other = _write(tmp_path / "other.txt", "q1 0 x1 1\nq2 0 x2 1\n")
    assert_user_error(base + ["--qrels", other], "other.txt", "none of its 2 relevant documents")
    # a corpus whose lines have no ids, a queries file of no known layout
    plain = _write(tmp_path / "plain.txt", "first document\nsecond document\n")
    assert_user_error(["evaluate", "--queries", f / "queries.tsv", "--qrels", f / "qrels.txt", "--corpus", plain],
                      "plain.txt, line 1", "no id")
    assert_user_error(["evaluate", "--queries", plain, "--qrels", f / "qrels.txt", "--corpus", f / "docs.tsv"],
                      "plain.txt", "not a queries file")
    dup = _write(tmp_path / "dup.tsv", "q1\tone\nq1\ttwo\n")
    assert_user_error(base[:1] + ["--queries", dup, "--corpus", f / "docs.tsv", "--qrels", f / "qrels.txt"],
                      "dup.tsv", "'q1'", "more than once")
    empty = _write(tmp_path / "empty.tsv", "")
    assert_user_error(["evaluate", "--queries", empty, "--qrels", f / "qrels.txt", "--corpus", f / "docs.tsv"],
                      "empty.tsv", "empty")
    bad_json = _write(tmp_path / "q.jsonl", '{"_id": "q1", "text": "a"}\n{"text": "b"}\n')
    assert_user_error(["search", "--index", collection["index"], "--queries", bad_json, "--run", tmp_path / "r"],
                      "q.jsonl, line 2", "no id")


def test_judgements_of_queries_not_in_the_queries_file_are_a_note(collection, tmp_path):
    # trec_eval and Pyserini measure the queries they have, and fit leaves such judgements out
    # with a note: evaluate refused the whole file for one judged query --queries lacks
    f = collection["folder"]
    base = ["evaluate", "--queries", f / "queries.tsv", "--corpus", f / "docs.tsv"]
    judged = (f / "qrels.txt").read_text(encoding="utf-8")
    more = _write(tmp_path / "more.txt", judged + "q9 0 d2 1\nq9 0 d3 0\nq10 0 d4 1\n")
    code, out, err = run_cli(base + ["--qrels", more, "--json"])
    assert code == 0, err
    notes = [line for line in err.splitlines() if "q9" in line]
    assert len(notes) == 1 and "3 judgement(s)" in notes[0] and "2 queries" in notes[0], err
    # measured as without those lines: the same queries, the same figures
    alone = ok_json(base + ["--qrels", f / "qrels.txt"])
    got = json.loads(out)
    assert got["queries"] == alone["queries"] == N_CLUSTERS
    for method, values in alone["methods"].items():
        for m, value in values.items():
            assert got["methods"][method][m] == pytest.approx(value, abs=1e-12)


@pytest.mark.parametrize("args, fragment", [
    (["search", "--index", "{index}", "--query", "a query", "--run", "{tmp}/r.trec"], "--run needs --queries"),
    (["search", "--index", "{index}", "--queries", "{queries}", "--run", "{tmp}/r.trec", "--run-tag", "two words"],
     "--run-tag"),
    (["search", "--index", "{index}", "--queries", "{queries}", "--run", "{tmp}/no/such/r.trec"], "does not exist"),
    (["evaluate", "--queries", "{queries}", "--corpus", "{corpus}"], "--queries needs --qrels"),
    (["evaluate", "--queries", "{queries}", "--qrels", "{qrels}"], "--index DIR, or --corpus FILE"),
    (["evaluate", "--run", "{tmp}/r.trec", "--qrels", "{qrels}", "--model", "{model}"], "leave out --model"),
    (["evaluate", "--input", "{corpus}"], "--input needs --model"),
    (["evaluate", "--model", "{model}", "--input", "{corpus}", "--qrels", "{qrels}"], "--qrels"),
])
def test_option_mistakes_exit_2_with_one_line(collection, tmp_path, args, fragment):
    f = collection["folder"]
    values = {"index": collection["index"], "tmp": tmp_path, "queries": f / "queries.tsv", "corpus": f / "docs.tsv",
              "qrels": f / "qrels.txt", "model": collection["model"]}
    assert_user_error([a.format(**{k: str(v) for k, v in values.items()}) for a in args], fragment)


def test_help_says_which_layouts_queries_and_qrels_take():
    for command in ("search", "evaluate"):
        code, out, _ = run_cli([command, "--help"])
        flat = " ".join(out.split())
        assert code == 0
        for layout in ("qid<TAB>text", '"_id"', "TREC topics", "SMART records", "--run FILE"):
            assert layout in flat, (command, layout)
    code, out, _ = run_cli(["evaluate", "--help"])
    flat = " ".join(out.split())
    assert "qid 0 docid relevance" in flat and "query-id<TAB>corpus-id<TAB>score" in flat


# --------------------------------------------------------------------------- a real collection

@pytest.mark.corpus
def test_cisi_baselines_from_its_smart_files():
    folder = require_corpus("ir/cisi")
    out = ok_json(["evaluate", "--queries", folder / "CISI.QRY", "--qrels", folder / "CISI.REL",
                   "--corpus", folder / "CISI.ALL"])
    assert out["queries"] == 76 and out["documents"] == 1460 and out["k"] == 1000
    # docs/retrieval_runs.md: BM25 0.180, the cosine 0.243 (MAP)
    assert out["methods"]["bm25"]["map"] == pytest.approx(0.180, abs=0.005)
    assert out["methods"]["cosine"]["map"] == pytest.approx(0.243, abs=0.005)


def test_ids_with_leading_zeros_meet_their_judgments(tmp_path):
    # the corpus names a document 007, the qrels 7: the same document, as learnsim's readers read ids
    corpus = _write(tmp_path / "docs.tsv", "007\tpassword reset help\n008\tdouble charge refund\n"
                                           "009\tapp crashes at start\n")
    queries = _write(tmp_path / "queries.tsv", "01\tpassword reset\n02\tcharged twice refund\n")
    qrels = _write(tmp_path / "qrels.txt", "1 0 7 1\n2 0 8 1\n")
    out = ok_json(["evaluate", "--queries", queries, "--qrels", qrels, "--corpus", corpus])
    assert out["queries"] == 2 and out["methods"]["bm25"]["map"] == 1.0



def test_a_run_names_queries_and_documents_as_their_files_do(tmp_path):
    # trec_eval matches ids as strings: a run that wrote "7" for a query file's "007" would meet
    # none of the qrels' "007" lines, silently. Ids stay as written, from a corpus or an index,
    # and still meet judgements that write them without the zeros.
    docs = [("0042", "password reset help"), ("0043", "double charge refund"), ("A7", "app crashes at start")]
    corpus = _write(tmp_path / "corpus.jsonl", "".join(json.dumps({"_id": i, "title": "", "text": t}) + "\n"
                                                      for i, t in docs))
    queries = _write(tmp_path / "queries.jsonl", '{"_id": "007", "text": "password reset"}\n'
                                                 '{"_id": "008", "text": "charged twice refund"}\n')
    qrels = _write(tmp_path / "qrels.tsv", "query-id\tcorpus-id\tscore\n007\t0042\t1\n008\t0043\t1\n")
    from learnsim._baseline_models import baseline_pipeline

    model = str(tmp_path / "bm25.npz")
    baseline_pipeline("bm25", [t for _, t in docs]).save(model)
    index = str(tmp_path / "idx")
    ok(["index", "build", "--model", model, "--corpus", corpus, "--out", index])
    judged = {tuple(line.split("\t")[:2]) for line in open(qrels, encoding="utf-8").read().splitlines()[1:]}
    for source in (["--index", index], ["--model", model, "--corpus", corpus]):
        run = str(tmp_path / "run.txt")
        ok(["search", *source, "--queries", queries, "--run", run])
        lines = [line.split() for line in open(run, encoding="utf-8").read().splitlines()]
        assert {q for q, *_ in lines} == {"007", "008"}, source
        assert judged <= {(q, d) for q, _, d, *_ in lines}, source     # every judgement met verbatim
        for written in (qrels, _write(tmp_path / "unpadded.txt", "7 0 42 1\n8 0 43 1\n")):
            out = ok_json(["evaluate", "--run", run, "--qrels", written])
            assert out["queries"] == 2 and out["methods"]["run"]["map"] == 1.0, (source, written)
    out = ok_json(["evaluate", "--queries", queries, "--qrels", qrels, "--index", index])
    assert set(out["per_query"]["learned"]) == {"007", "008"}


# --------------------------------------------------------------------------- one rule for every run

SHARED_RULE_DOCS = ["cats purr softly on the mat", "dogs bark loudly at night", "felines and kittens nap all day",
                    "birds chase small mice", "fish swim in the cold river", "the cat sleeps while the dog barks",
                    "rain falls on the quiet town", "a kitten plays with yarn"]
SHARED_RULE_QUERIES = ["cats", "dogs barking", "mice", "river fish"]
# each query has a relevant document sharing no word with it (d2 for cats: felines; d7 for cats too)
SHARED_RULE_QRELS = {"q1": ["d0", "d2", "d7", "d5"], "q2": ["d1", "d5"], "q3": ["d3", "d6"], "q4": ["d4", "d6"]}


@pytest.mark.parametrize("baseline", ["bm25", "cosine"])
def test_a_model_that_is_a_baseline_measures_as_that_baseline(tmp_path, baseline):
    """A model that is BM25 (or the tf.idf cosine), the model a fit ends as when nothing learned
    beats it, retrieves what the baseline retrieves and so measures the same on every measure:
    no run is credited with documents it scored 0 (sharing no word with the query), which an
    earlier evaluate did for the baselines alone, padding them to -k in collection order."""
    from learnsim._baseline_models import baseline_pipeline

    corpus = _write(tmp_path / "docs.tsv", "".join(f"d{i}\t{t}\n" for i, t in enumerate(SHARED_RULE_DOCS)))
    queries = _write(tmp_path / "queries.tsv",
                     "".join(f"q{i + 1}\t{t}\n" for i, t in enumerate(SHARED_RULE_QUERIES)))
    qrels = _write(tmp_path / "qrels.txt", "".join(f"{q} 0 {d} 1\n" for q, docs in SHARED_RULE_QRELS.items()
                                                   for d in docs))
    model = tmp_path / f"{baseline}.npz"
    baseline_pipeline(baseline, SHARED_RULE_DOCS).save(model)
    out = ok_json(["evaluate", "--queries", queries, "--qrels", qrels, "--corpus", corpus, "--model", model])
    for m in ("map", "ndcg@10", "p@10", "recall@100"):
        assert out["methods"]["learned"][m] == pytest.approx(out["methods"][baseline][m], abs=1e-12), m
    for q in SHARED_RULE_QRELS:
        assert out["per_query"]["learned"][q] == pytest.approx(out["per_query"][baseline][q], abs=1e-12), q
    # the documents sharing no word with a query are no hit of any run: recall below 1 for each
    assert out["methods"][baseline]["recall@100"] < 1.0
    assert out["methods"]["bm25"]["recall@100"] < 1.0 and out["methods"]["cosine"]["recall@100"] < 1.0


def test_a_run_file_of_a_words_model_lists_only_documents_sharing_a_word(tmp_path):
    from learnsim._baseline_models import baseline_pipeline

    corpus = _write(tmp_path / "docs.tsv", "".join(f"d{i}\t{t}\n" for i, t in enumerate(SHARED_RULE_DOCS)))
    queries = _write(tmp_path / "queries.tsv",
                     "".join(f"q{i + 1}\t{t}\n" for i, t in enumerate(SHARED_RULE_QUERIES)))
    model = tmp_path / "bm25.npz"
    baseline_pipeline("bm25", SHARED_RULE_DOCS).save(model)
    run = tmp_path / "run.trec"
    out, _ = ok(["search", "--model", model, "--corpus", corpus, "--queries", queries, "--run", run])
    lines = run.read_text(encoding="utf-8").splitlines()
    # "cats" shares a word with d0 and d5 only (cat, cats: one Porter stem), and so on: never all 8 per query
    assert 0 < len(lines) < len(SHARED_RULE_QUERIES) * len(SHARED_RULE_DOCS)
    assert {line.split()[2] for line in lines if line.split()[0] == "q1"} <= {"d0", "d5"}
    assert "at most the top 8 documents of each of 4 queries" in out


# --------------------------------------------------------------------------- stop 68's sweep of the files

def test_a_symlink_loop_as_a_path_is_one_line(collection, tmp_path):
    f = collection["folder"]
    (tmp_path / "loopA").symlink_to(tmp_path / "loopB")
    (tmp_path / "loopB").symlink_to(tmp_path / "loopA")
    loop = tmp_path / "loopA"
    base = ["search", "--model", collection["model"], "--queries", f / "queries.tsv"]
    assert_user_error(base + ["--corpus", f / "docs.tsv", "--run", loop], "--run", "a symbolic link loop")
    assert_user_error(base + ["--corpus", loop, "--run", tmp_path / "out.trec"], "the input", "a symbolic link loop")


def test_an_output_hard_linked_to_an_input_is_refused(collection, tmp_path):
    f = collection["folder"]
    queries = tmp_path / "q.tsv"
    queries.write_bytes((f / "queries.tsv").read_bytes())
    os_link = tmp_path / "run.trec"
    import os

    os.link(queries, os_link)
    assert_user_error(["search", "--model", collection["model"], "--queries", queries, "--corpus", f / "docs.tsv",
                       "--run", os_link], "is the command's input")
    assert queries.read_bytes() == (f / "queries.tsv").read_bytes()


def test_ids_that_are_one_to_the_judgements_are_refused(collection, tmp_path):
    corpus = _write(tmp_path / "docs.tsv", "007\tbread flour yeast\n7\tvolcano lava magma\na\thockey puck\n")
    queries = _write(tmp_path / "q.tsv", "q1\tbread flour\n")
    qrels = _write(tmp_path / "qrels.txt", "q1 0 7 1\n")
    assert_user_error(["evaluate", "--queries", queries, "--qrels", qrels, "--corpus", corpus],
                      "'007' and '7' are one id")
    index = tmp_path / "idx"
    ok(["index", "build", "--model", collection["model"], "--corpus", corpus, "--out", index])
    assert_user_error(["evaluate", "--queries", queries, "--qrels", qrels, "--index", index], "'007' and '7' are one id")
    assert_user_error(["search", "--index", index, "--queries", queries, "--run", tmp_path / "r.trec"],
                      "'007' and '7' are one id")


def test_a_query_id_opening_with_a_hash_is_refused(collection, tmp_path):
    f = collection["folder"]
    queries = _write(tmp_path / "q.tsv", "#1\tbread flour\n2\tvolcano\n")
    assert_user_error(["search", "--model", collection["model"], "--corpus", f / "docs.tsv", "--queries", queries,
                       "--run", tmp_path / "r.trec"], "'#1' opens with '#'")


def test_ids_of_digits_other_than_ascii_are_kept_as_they_are(tmp_path):
    from learnsim._baseline_models import baseline_pipeline

    texts = ["bread flour yeast", "volcano lava", "hockey puck"]
    corpus = _write(tmp_path / "docs.tsv", "".join(f"{i}\t{t}\n" for i, t in zip(("\u00b2", "\u0667", "7"), texts)))
    queries = _write(tmp_path / "q.tsv", "q1\tvolcano\n")
    model = tmp_path / "bm25.npz"
    baseline_pipeline("bm25", texts).save(model)
    run = tmp_path / "r.trec"
    ok(["search", "--model", model, "--corpus", corpus, "--queries", queries, "--run", run])
    qrels = _write(tmp_path / "qrels.txt", "q1 0 \u0667 1\n")
    out = ok_json(["evaluate", "--run", run, "--qrels", qrels])
    assert out["queries"] == 1
    docs = {line.split()[2] for line in run.read_text(encoding="utf-8").splitlines()}
    assert docs <= {"\u00b2", "\u0667", "7"} and "\u0667" in docs


def test_k_with_a_run_file_or_labelled_documents_is_refused(collection, tmp_path):
    f = collection["folder"]
    run = tmp_path / "r.trec"
    ok(["search", "--model", collection["model"], "--corpus", f / "docs.tsv", "--queries", f / "queries.tsv",
        "--run", run])
    assert_user_error(["evaluate", "--run", run, "--qrels", f / "qrels.txt", "-k", "1"], "leave out -k")
    assert_user_error(["evaluate", "--model", collection["model"], "--input", f / "train.tsv", "-k", "3"],
                      "-k go(es) with --queries")


def test_unclosed_trec_elements_are_found_as_the_lazy_expression_finds_them():
    """datasets.trec._elements pairs tags in one pass; its answer is finditer's of
    opening(.*?)closing, which took quadratic time on files whose elements are not closed."""
    import random
    import re

    from learnsim.datasets.trec import _TREC_DOC_CLOSE, _TREC_DOC_OPEN, _elements

    lazy = re.compile(r"<DOC(?:\s[^>]*)?>(.*?)</DOC>", re.DOTALL | re.IGNORECASE)
    rng = random.Random(0)
    pieces = ["<DOC>", "</DOC>", "<doc id=1>", "</DOC >", "x", "<DOCNO>", "\n", "</doc>"]
    for _ in range(300):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 30)))
        assert [body for _, body in _elements(text, _TREC_DOC_OPEN, _TREC_DOC_CLOSE)] == lazy.findall(text), text
    # 20,000 unclosed elements: none found (the lazy expression would rescan the text from each)
    assert _elements("<DOC>x</DOC >" * 20000, _TREC_DOC_OPEN, _TREC_DOC_CLOSE) == []


@pytest.mark.skipif(not __import__("os").path.exists("/dev/full"), reason="needs /dev/full")
def test_a_run_that_cannot_be_written_names_the_file(collection):
    f = collection["folder"]
    assert_user_error(["search", "--model", collection["model"], "--corpus", f / "docs.tsv", "--queries",
                       f / "queries.tsv", "--run", "/dev/full"], "--run /dev/full: cannot write it")


def test_a_title_that_is_not_text_is_refused_not_dropped(collection, tmp_path):
    corpus = _write(tmp_path / "c.jsonl", '{"_id": "t1", "title": ["volcano", "lava"], "text": "zebra"}\n'
                                          '{"_id": "t2", "title": "", "text": "hockey"}\n')
    assert_user_error(["search", "--model", collection["model"], "--corpus", corpus, "--query", "volcano"],
                      'line 1: "title" must be a string (or null); got list')


def test_a_quoted_field_longer_than_the_csv_module_default_is_read(collection, tmp_path):
    long_text = "volcano " * 40000          # 320 KB, above the csv module's 128 KiB
    corpus = _write(tmp_path / "c.csv", f'id,text\nd1,"{long_text}"\nd2,"hockey, ice"\n')
    out = ok_json(["search", "--model", collection["model"], "--corpus", corpus, "--query", "hockey"])
    assert out is not None


def test_an_error_quoting_a_huge_value_stays_a_short_line(collection, tmp_path):
    f = collection["folder"]
    qrels = _write(tmp_path / "q.tsv", "query-id\tcorpus-id\tscore\n" + "q" * 200000 + "\td1\t1\n")
    line = assert_user_error(["evaluate", "--queries", f / "queries.tsv", "--qrels", qrels, "--corpus",
                              f / "docs.tsv"])
    assert len(line) < 2100


def test_a_run_tag_without_a_run_is_refused(collection):
    f = collection["folder"]
    assert_user_error(["search", "--model", collection["model"], "--corpus", f / "docs.tsv", "--query", "x",
                       "--run-tag", "mine"], "--run-tag", "goes with --run")


# --------------------------------------------------------------------------- stop 69's sweep of judgements

def test_trec_qrels_whose_iteration_varies_are_read_as_trec(tmp_path):
    # numeric document ids and an iteration column that varies were read as CISI's pairs: the
    # iteration became the document, every line relevant, every measure 0 with no word
    qrels = _write(tmp_path / "qrels.txt", "1 0 184 2\n1 1 29 0\n2 7 12 0\n2 3 13 1\n")
    run = _write(tmp_path / "run.txt", "1 Q0 184 1 2.0 t\n1 Q0 29 2 1.0 t\n2 Q0 13 1 2.0 t\n2 Q0 12 2 1.0 t\n")
    out = ok_json(["evaluate", "--run", run, "--qrels", qrels])
    assert out["methods"]["run"]["map"] == 1.0
    # CISI's own layout, two constant numbers after each pair, is still pairs
    from learnsim.datasets import read_qrels

    info = {}
    pairs = _write(tmp_path / "cisi.rel", "1 28 0 0.000000\n1 35 0 0.000000\n2 12 0 0.000000\n")
    assert read_qrels(pairs, info=info) == {"1": {"28": 1, "35": 1}, "2": {"12": 1}} and info["layout"] == "pairs"


def test_ties_are_broken_by_the_run_ids_as_written_and_value_matches_are_said(tmp_path):
    # trec_eval orders tied documents by their ids as written ("10" before "09"); matching "07"
    # to the qrels' "7" by value is learnsim's, said in a note and counted in --json
    qrels = _write(tmp_path / "qrels.txt", "7 0 10 1\n")
    run = _write(tmp_path / "run.txt", "07 Q0 09 1 1.0 t\n07 Q0 10 2 1.0 t\n")
    code, out, err = run_cli(["evaluate", "--run", run, "--qrels", qrels, "--json"])
    assert code == 0, err
    report = json.loads(out)
    assert report["methods"]["run"]["map"] == 1.0
    assert report["n_queries_matched_by_value"] == 1 and "only by value" in err
    # two queries of one run that are one by value are not both scored against the judgements
    both = _write(tmp_path / "both.txt", "7 Q0 10 1 1.0 t\n007 Q0 10 1 1.0 t\n")
    assert ok_json(["evaluate", "--run", both, "--qrels", qrels])["queries"] == 1


def test_a_run_score_is_a_number_as_trec_eval_reads_one(tmp_path):
    qrels = _write(tmp_path / "qrels.txt", "1 0 d1 1\n")
    for score in ("1_000", "\u0661", "inf", "nan"):
        run = _write(tmp_path / "run.txt", f"1 Q0 d1 1 {score} t\n")
        assert_user_error(["evaluate", "--run", run, "--qrels", qrels], "is not a finite number")


def test_fit_numbers_cranfield_queries_by_position_as_evaluate_does(tmp_path):
    # cranqrel numbers the queries 1..225 by position, cran.qry by ids 001, 002, 004, ...: fit took
    # the numbers as ids and learned from judgements attached to other queries' texts
    queries = _write(tmp_path / "q.tsv", "001\tpassword reset\n002\tdouble charge\n004\tapp crash\n")
    corpus = _write(tmp_path / "d.tsv", "a\treset a password\nb\trefund a double charge\nc\tthe app crashes\n"
                                        "d\tweather today\n")
    qrels = _write(tmp_path / "qrels.txt", "1 a 1\n2 b 1\n3 c 1\n")
    code, out, err = run_cli(["fit", "--qrels", qrels, "--queries", queries, "--corpus", corpus, "--model",
                              str(tmp_path / "m.npz"), "--json"])
    assert code == 0, err
    assert "by their position" in err
    assert json.loads(out)["judgements"]["unknown_query"] == 0


def test_a_split_is_a_name_not_a_path(tmp_path):
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    for split in ("./test", "../x", "a/b"):
        assert_user_error(["fit", "--beir", str(folder), "--split", split, "--model", str(tmp_path / "m.npz")],
                          "--split")


def test_query_numbers_that_are_mostly_positions_are_not_read_as_ids(tmp_path):
    # Cranfield's numbering (positions 1..n in a queries file whose ids skip numbers) with one
    # stray line: read by id, the judgements of '3' left out and those of '4' met the wrong query
    queries = _write(tmp_path / "q.tsv", "1\tcats\n2\tdogs\n4\tfish\n")
    corpus = _write(tmp_path / "d.tsv", "d1\tcats purr\nd2\tdogs bark\nd3\tfish swim\n")
    qrels = _write(tmp_path / "qrels.txt", "1 d1 1\n2 d2 1\n3 d3 1\n9 d3 1\n")
    assert_user_error(["evaluate", "--queries", queries, "--qrels", qrels, "--corpus", corpus],
                      "qrels.txt", "neither all ids", "nor all positions 1..3", "'9'")
    # without the stray line, by position, as before
    _write(qrels, "1 d1 1\n2 d2 1\n3 d3 1\n")
    out = ok_json(["evaluate", "--queries", queries, "--qrels", qrels, "--corpus", corpus])
    assert out["queries"] == 3 and out["methods"]["bm25"]["map"] == pytest.approx(1.0)


def test_notes_quoting_a_huge_id_stay_short_lines(collection, tmp_path):
    # the notes of judgements left out quoted an id whole: a document id of 200,000 characters
    # made a line of 200,000 on stderr
    f = collection["folder"]
    judged = (f / "qrels.txt").read_text(encoding="utf-8")
    qrels = _write(tmp_path / "q.txt", judged + "q1 0 " + "d" * 200_000 + " 1\n" + "q" * 200_000 + " 0 d1 1\n")
    code, _out, err = run_cli(["evaluate", "--queries", f / "queries.tsv", "--qrels", qrels, "--corpus",
                               f / "docs.tsv", "--json"])
    assert code == 0, err[:2000]
    notes = err.strip().splitlines()
    assert len(notes) == 2 and all(len(line) < 1000 for line in notes), [line[:200] for line in notes]
