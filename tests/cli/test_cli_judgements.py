"""Relevance judgements and BEIR files on the command line (issue 43, parts 1 and 2): ``learnsim
fit --qrels/--queries/--corpus`` and ``--beir DIR --split``, grades kept and negatives counted;
``index build`` reading BEIR's ``_id`` and ``title``, ids the file did not give that a run file
can name, and a field read but not used named in one line."""
from __future__ import annotations

import json

import pytest

from conftest import run_cli
from retrieval_fakes import write_beir_folder

def ok(args):
    code, out, err = run_cli(args)
    assert code == 0, (args, code, err)
    return out, err


def user_error(args, *fragments):
    code, out, err = run_cli(args)
    assert code == 2, (args, code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


@pytest.fixture(scope="module")
def beir(tmp_path_factory):
    return write_beir_folder(tmp_path_factory.mktemp("beir"))


def test_fit_from_a_beir_folder_keeps_the_grades_and_counts_its_negatives(beir, tmp_path):
    model = tmp_path / "m.npz"
    out, _ = ok(["fit", "--beir", beir, "--model", model, "--json"])
    report = json.loads(out)["report"] if "report" in json.loads(out) else json.loads(out)
    counts = report["judgements"]
    assert counts["queries"] == 4 * 6 and counts["relevant"] == 4 * 6 * 3 and counts["not_relevant"] == 4 * 6
    assert report["corpus"] == 60
    negatives = report["negatives"]
    assert negatives["hard"] > 0 and negatives["random"] > 0 and negatives["labelled"] > 0
    assert report["graded_triplets"] > 0
    # checked as search on held-out queries over the whole corpus
    assert "searching 60 documents" in report["held_out"]
    # the same fit from the three files
    same = tmp_path / "same.npz"
    out2, _ = ok(["fit", "--qrels", beir / "qrels" / "train.tsv", "--queries", beir / "queries.jsonl",
                  "--corpus", beir / "corpus.jsonl", "--model", same, "--json"])
    again = json.loads(out2)
    again = again.get("report", again)
    assert again["judgements"] == counts and again["triplets"] == report["triplets"]


def test_fit_from_judgements_prints_what_it_learned_from(beir, tmp_path):
    out, _ = ok(["fit", "--beir", beir, "--split", "train", "--model", tmp_path / "m.npz"])
    assert "Fitted on 72 relevant judgements (grades 1, 2) and 24 not relevant, of 24 queries over a corpus of 60" in out
    assert "a relevant document of a lower grade" in out


def test_fit_on_the_test_judgements_warns_once(beir, tmp_path):
    """A model fitted on --split test knows the queries a later evaluation on test measures: the
    fit goes on, with one line saying so; train does not warn."""
    _, err = ok(["fit", "--beir", beir, "--split", "test", "--model", tmp_path / "t.npz"])
    warned = [line for line in err.splitlines() if "--split test" in line]
    assert len(warned) == 1 and "queries the model has seen" in warned[0], err
    _, err = ok(["fit", "--beir", beir, "--split", "train", "--model", tmp_path / "m.npz"])
    assert "--split test" not in err and "has seen" not in err, err


def test_the_library_fits_the_same_judgements_from_mappings(beir):
    import learnsim.fitting
    from learnsim.datasets import read_id_texts, read_qrels, read_queries

    ids, texts = read_id_texts(beir / "corpus.jsonl")
    assert ids[0] == "pw-0" and texts[0].startswith("pw note 0\n")
    result = learnsim.fitting.fit(queries=read_queries(beir / "queries.jsonl"),
                                  qrels=read_qrels(beir / "qrels" / "train.tsv"), corpus=dict(zip(ids, texts)),
                                  baseline_holdout=None)
    assert result.report["judgements"]["relevant"] == 72
    assert type(result.pipeline.metric).__name__ == "FILM"


@pytest.mark.parametrize("args, fragments", [
    (["--qrels", "{beir}/qrels/train.tsv", "--corpus", "{beir}/corpus.jsonl"], ["--qrels needs --queries"]),
    (["--beir", "{beir}", "--split", "dev"], ["no qrels/dev.tsv", "its splits: test, train"]),
    (["--beir", "{beir}/nowhere"], ["no such folder"]),
    (["--beir", "{beir}", "--corpus", "{beir}/corpus.jsonl"], ["drop --corpus"]),
    (["--beir", "{beir}", "--method", "linklearn"], ["does not learn from judgements"]),
    (["--input", "{beir}/corpus.jsonl", "--split", "train"], ["--split names the judgements of a --beir folder"]),
])
def test_judgement_option_mistakes_exit_2_with_one_line(beir, tmp_path, args, fragments):
    args = [a.format(beir=beir) for a in args]
    user_error(["fit"] + args + ["--model", tmp_path / "m.npz"], *fragments)


def test_judgements_naming_nothing_known_exit_2(beir, tmp_path):
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("q-pw-0\tnowhere\t1\nq-none\tpw-0\t1\n", encoding="utf-8")
    user_error(["fit", "--qrels", qrels, "--queries", beir / "queries.jsonl", "--corpus", beir / "corpus.jsonl",
                "--model", tmp_path / "m.npz"], "no judgement names a known query and a known document")


def test_a_grade_beyond_trec_evals_range_exits_2(beir, tmp_path):
    """A grade of hundreds of digits cannot become nDCG's float gain: fit and evaluate refuse it
    with its line, where it once ended in an OverflowError's traceback."""
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\nq-pw-0\tpw-0\t" + "9" * 400 + "\n", encoding="utf-8")
    files = ["--qrels", qrels, "--queries", beir / "queries.jsonl", "--corpus", beir / "corpus.jsonl"]
    for command in (["fit", *files, "--model", tmp_path / "m.npz"], ["evaluate", *files]):
        user_error(command, "qrels.tsv, line 2: relevance grade", "is out of range")


def test_index_build_reads_beir_ids_and_titles(beir, tmp_path):
    model = tmp_path / "m.npz"
    ok(["fit", "--beir", beir, "--model", model, "--baseline-holdout", "none"])
    index = tmp_path / "idx"
    ok(["index", "build", "--model", model, "--corpus", beir / "corpus.jsonl", "--out", index])
    out, _ = ok(["search", "--index", index, "--query", "ship", "--k", "3", "--json"])
    hits = json.loads(out)[0]["hits"]
    # "ship" is only in the titles: the title is searched, and the hit carries its BEIR id
    assert len(hits) == 3 and all(h["id"].startswith("ship-") for h in hits)
    assert hits[0]["text"].startswith("ship note")


def test_ids_the_file_did_not_give_are_safe_in_a_run_file(beir, tmp_path):
    model = tmp_path / "m.npz"
    ok(["fit", "--beir", beir, "--model", model, "--baseline-holdout", "none"])
    plain = tmp_path / "docs.txt"
    plain.write_text("password reset login\nparcel delivery late\nrefund invoice card\n", encoding="utf-8")
    index = tmp_path / "idx"
    ok(["index", "build", "--model", model, "--corpus", plain, "--out", index])
    queries = tmp_path / "q.tsv"
    queries.write_text("1\tlate parcel\n2\trefund\n", encoding="utf-8")
    run = tmp_path / "run.trec"
    ok(["search", "--index", index, "--queries", queries, "--run", run])
    lines = run.read_text(encoding="utf-8").splitlines()
    assert lines and all(len(line.split()) == 6 for line in lines)
    assert any(line.split()[2] == "line-2" for line in lines if line.startswith("1 "))


def test_a_field_read_and_not_used_is_named_in_one_line(tmp_path):
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text("".join(json.dumps({"_id": f"d{i}", "text": t, "url": f"http://x/{i}", "metadata": {}}) + "\n"
                              for i, t in enumerate(["reset my password", "refund a charge", "parcel is late"])),
                      encoding="utf-8")
    labelled = tmp_path / "labelled.jsonl"
    labelled.write_text("".join(json.dumps({"id": f"d{i}", "label": i % 2, "text": t, "lang": "en"}) + "\n"
                                for i, t in enumerate(["reset my password", "password forgotten", "refund a charge",
                                                       "charged twice", "login fails", "refund please"])),
                        encoding="utf-8")
    from learnsim.datasets import read_documents, read_labelled_documents

    docs = read_documents(corpus)
    assert docs.ids == ["d0", "d1", "d2"] and docs.unused_fields == ["url"]
    assert read_labelled_documents(labelled).unused_fields == ["lang"]
    _, err = ok(["fit", "--input", labelled, "--model", tmp_path / "m.npz", "--baseline-holdout", "none"])
    notes = [line for line in err.splitlines() if "read but not used" in line]
    assert len(notes) == 1 and '"lang"' in notes[0]


def test_the_readme_judgements_example_runs_on_the_shipped_files(tmp_path):
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"
    model = tmp_path / "judged.npz"
    out, _ = ok(["fit", "--qrels", examples / "qrels-train.tsv", "--queries", examples / "queries.jsonl",
                 "--corpus", examples / "tickets.jsonl", "--model", model])
    assert "Fitted on 90 relevant judgements (grades 1, 2) and 30 not relevant, of 30 queries" in out
    out, _ = ok(["evaluate", "--model", model, "--corpus", examples / "tickets.jsonl", "--queries",
                 examples / "queries.jsonl", "--qrels", examples / "qrels-test.tsv", "--json"])
    report = json.loads(out)
    assert report["queries"] == 10 and report["documents"] == 120
    assert set(report["methods"]) >= {"learned", "bm25", "cosine"}


def test_evaluate_reads_a_beir_folder_as_fit_does(beir, tmp_path):
    model = tmp_path / "m.npz"
    ok(["fit", "--beir", beir, "--model", model, "--baseline-holdout", "none"])
    out, _ = ok(["evaluate", "--beir", beir, "--model", model, "--json"])
    report = json.loads(out)
    assert report["queries"] == 8 and report["documents"] == 60          # the test split by default
    out, _ = ok(["evaluate", "--beir", beir, "--split", "train", "--model", model, "--json"])
    assert json.loads(out)["queries"] == 24
    user_error(["evaluate", "--beir", beir, "--split", "dev", "--model", model], "no qrels/dev.tsv")
    user_error(["evaluate", "--beir", beir, "--qrels", beir / "qrels" / "test.tsv", "--model", model], "drop --qrels")


def test_fit_qrels_and_evaluate_name_the_fields_they_read_and_do_not_use(beir, tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    records = [json.loads(line) for line in (beir / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    corpus.write_text("".join(json.dumps({**r, "metadata": {"url": "http://x"}}) + "\n" for r in records),
                      encoding="utf-8")
    queries = tmp_path / "queries.jsonl"
    queries.write_text((beir / "queries.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    model = tmp_path / "m.npz"
    _, err = ok(["fit", "--qrels", beir / "qrels" / "train.tsv", "--queries", queries, "--corpus", corpus,
                 "--model", model, "--baseline-holdout", "none"])
    notes = [line for line in err.splitlines() if "read but not used" in line]
    assert len(notes) == 1 and str(corpus) in notes[0] and '"metadata"' in notes[0], err
    _, err = ok(["evaluate", "--model", model, "--corpus", corpus, "--queries", queries,
                 "--qrels", beir / "qrels" / "test.tsv"])
    notes = [line for line in err.splitlines() if "read but not used" in line]
    assert len(notes) == 1 and '"metadata"' in notes[0], err
    # the library reader says the same, and a file with nothing unused says nothing
    from learnsim.datasets import read_id_texts

    assert read_id_texts(corpus, with_unused=True)[2] == ["metadata"]
    assert read_id_texts(queries, "queries", with_unused=True)[2] == []


def test_one_file_as_corpus_and_queries_is_noted_once(beir, tmp_path):
    """The note on a field read and not used came twice, word for word, where one file was both
    --corpus and --queries (each document searched for the others)."""
    corpus = tmp_path / "corpus.jsonl"
    records = [json.loads(line) for line in (beir / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    corpus.write_text("".join(json.dumps({**r, "url": "http://x"}) + "\n" for r in records), encoding="utf-8")
    ids = [r["_id"] for r in records]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{i} 0 {i} 1\n" for i in ids), encoding="utf-8")
    model = tmp_path / "m.npz"
    ok(["fit", "--qrels", beir / "qrels" / "train.tsv", "--queries", beir / "queries.jsonl", "--corpus",
        beir / "corpus.jsonl", "--model", model, "--baseline-holdout", "none"])
    for args in (["search", "--model", model, "--corpus", corpus, "--queries", corpus, "--run", tmp_path / "r.txt"],
                 ["evaluate", "--model", model, "--corpus", corpus, "--queries", corpus, "--qrels", qrels]):
        _, err = ok(args)
        notes = [line for line in err.splitlines() if "read but not used" in line]
        assert len(notes) == 1 and '"url"' in notes[0], (args[0], err)
    _, err = ok(["fit", "--qrels", qrels, "--queries", corpus, "--corpus", corpus, "--model", tmp_path / "f.npz",
                 "--baseline-holdout", "none"])
    notes = [line for line in err.splitlines() if "read but not used" in line]
    assert len(notes) == 1 and '"url"' in notes[0], err


def test_non_relevant_judgements_are_not_said_to_be_dropped(tmp_path):
    """Judgements of queries that share documents: a document judged not relevant to one query and
    relevant to another is joined to it by a chain of relevant judgements, but judgements are not
    duplicates, and FILM learns from it as a negative (its triplets count it). The fit warned 'N
    non-duplicate pair(s) join texts that chains of duplicate pairs connect; they are not used as
    negatives'."""
    topics = [["match", "goal", "team", "league", "coach"], ["oven", "flour", "bake", "sugar", "butter"]]
    docs = [(f"d{t}{i}", " ".join(topics[t][(i + k) % 5] for k in range(3)) + f" page {i}")
            for t in range(2) for i in range(6)]
    queries = [(f"q{t}{i}", f"{topics[t][i]} {topics[t][(i + 2) % 5]}") for t in range(2) for i in range(5)]
    rows = []
    for t in range(2):
        for i in range(5):
            rows += [(f"q{t}{i}", f"d{t}{i}", 1), (f"q{t}{i}", f"d{t}{i + 1}", 1),
                     (f"q{t}{i}", f"d{t}{(i + 3) % 6}", 0)]
    (tmp_path / "corpus.tsv").write_text("".join(f"{a}\t{b}\n" for a, b in docs), encoding="utf-8")
    (tmp_path / "queries.tsv").write_text("".join(f"{a}\t{b}\n" for a, b in queries), encoding="utf-8")
    (tmp_path / "qrels.tsv").write_text("".join(f"{q}\t{d}\t{g}\n" for q, d, g in rows), encoding="utf-8")
    out, err = ok(["fit", "--qrels", tmp_path / "qrels.tsv", "--queries", tmp_path / "queries.tsv", "--corpus",
                   tmp_path / "corpus.tsv", "--model", tmp_path / "m.npz", "--method", "film", "--dimensions", "4",
                   "--max-iter", "20", "--json"])
    assert json.loads(out)["negatives"]["labelled"] > 0
    assert "not used as negatives" not in err, err


def test_judgements_that_name_nothing_of_the_collection_are_refused_naming_the_qrels_file(beir, tmp_path):
    qrels = tmp_path / "other.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\nq-none\tdoc-none\t1\n", encoding="utf-8")
    user_error(["fit", "--qrels", qrels, "--queries", beir / "queries.jsonl", "--corpus", beir / "corpus.jsonl",
                "--model", tmp_path / "m.npz"], "other.tsv: no judgement names a known query and a known document")
