"""The command line reads .parquet files wherever it reads a documents or pairs file (--input,
--corpus, --pairs): the same model and index as from the same rows in a .tsv/.jsonl file; a
table without a text column is exit code 2 with one line."""
from __future__ import annotations

import json

import numpy as np
import pytest

pd = pytest.importorskip("pandas", reason="parquet needs pandas (the pandas extra; in the test extra)")
pytest.importorskip("pyarrow", reason="parquet needs pyarrow (the pandas extra; in the test extra)")

from learnsim.cli import main  # noqa: E402
from learnsim.pipeline import Pipeline  # noqa: E402

from index_models import corpus  # noqa: E402


def _same_model(a, b):
    pa, pb = Pipeline.load(a), Pipeline.load(b)
    texts = corpus()[0][:20]
    assert pa.scoring == pb.scoring
    # a fit from pairs may end as a term-weight baseline (BM25, the tf.idf cosine): sparse rows
    ra, rb = (r.toarray() if hasattr(r, "toarray") else r for r in (pa.transform(texts), pb.transform(texts)))
    np.testing.assert_array_equal(ra, rb)


def test_fit_and_index_from_parquet(tmp_path, capsys):
    texts, topics, ids, _ = corpus()
    texts, topics, ids = texts[:60], topics[:60], ids[:60]
    pd.DataFrame({"label": topics, "text": texts}).to_parquet(tmp_path / "lab.parquet")
    (tmp_path / "lab.tsv").write_text("".join(f"{t}\t{x}\n" for t, x in zip(topics, texts)), encoding="utf-8")
    for name in ("lab.parquet", "lab.tsv"):
        assert main(["fit", "--input", str(tmp_path / name), "--model", str(tmp_path / f"{name}.npz")]) == 0
    _same_model(tmp_path / "lab.parquet.npz", tmp_path / "lab.tsv.npz")
    frame = pd.DataFrame({"id": ids, "text": texts, "topic": topics, "score": np.linspace(0, 1, len(ids))})
    frame.to_parquet(tmp_path / "docs.parquet")
    idx = tmp_path / "idx"
    assert main(["index", "build", "--model", str(tmp_path / "lab.tsv.npz"), "--corpus", str(tmp_path / "docs.parquet"),
                 "--out", str(idx)]) == 0
    capsys.readouterr()
    assert main(["search", "--index", str(idx), "--query", texts[3], "-k", "60", "--filter", "score>=0.5",
                 "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)[0]["hits"]
    assert hits and {h["id"] for h in hits} == set(ids[30:]) & {h["id"] for h in hits}
    assert all(h["metadata"]["score"] >= 0.5 for h in hits) and len(hits) == 30


def test_pairs_from_parquet(tmp_path):
    texts = corpus()[0]
    rows = [(texts[i], texts[i + 1], int(i % 3 == 0)) for i in range(0, 80, 2)]
    pd.DataFrame(rows, columns=["q1", "q2", "dup"]).to_parquet(tmp_path / "p.parquet")
    (tmp_path / "p.tsv").write_text("q1\tq2\tdup\n" + "".join(f"{a}\t{b}\t{c}\n" for a, b, c in rows), encoding="utf-8")
    for name in ("p.parquet", "p.tsv"):
        assert main(["fit", "--method", "film", "--pairs", str(tmp_path / name), "--columns", "text_a=q1,text_b=q2,label=dup",
                     "--matcher", "threshold", "--no-rerank", "--model", str(tmp_path / f"{name}.npz")]) == 0
    _same_model(tmp_path / "p.parquet.npz", tmp_path / "p.tsv.npz")


def test_a_table_without_text_is_one_line(tmp_path, capsys):
    pd.DataFrame({"label": [1, 2], "body": ["a b", "c d"]}).to_parquet(tmp_path / "bad.parquet")
    assert main(["fit", "--input", str(tmp_path / "bad.parquet"), "--model", str(tmp_path / "m.npz")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.parquet, row 1" in err[0] and "text" in err[0]


def test_a_bad_pair_in_parquet_names_the_file_and_its_row(tmp_path, capsys):
    """Stop 68's sweep: "DataFrame row 0: ..." named neither the file nor the row as the other
    readers count them."""
    frame = pd.DataFrame({"label": [1.0, float("nan"), 0.0], "text_a": ["a b", "c d", "e f"],
                          "text_b": ["a c", "c e", "g h"]})
    frame.to_parquet(tmp_path / "pairs.parquet")
    assert main(["fit", "--pairs", str(tmp_path / "pairs.parquet"), "--model", str(tmp_path / "m.npz")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pairs.parquet, row 2: label" in err[0], err


def test_an_id_given_twice_in_parquet_names_its_rows(tmp_path, capsys):
    """The id check of search and match said "docs.parquet, line 3: ... (first on line 1)" of a
    table whose reader counts rows ("row 3" in every other message)."""
    pd.DataFrame({"id": ["a", "b", "a"], "text": ["red apple", "green pear", "ripe plum"]}).to_parquet(
        tmp_path / "docs.parquet")
    from learnsim._baseline_models import baseline_pipeline

    baseline_pipeline("cosine", corpus()[0][:20]).save(tmp_path / "m.npz")
    assert main(["search", "--model", str(tmp_path / "m.npz"), "--corpus", str(tmp_path / "docs.parquet"),
                 "--query", "apple"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "docs.parquet, row 3: the id 'a' appears twice (first on row 1)" in err[0], err


def test_a_parquet_file_where_ids_are_needed_is_refused_in_one_line(tmp_path, capsys):
    """search --run reads its queries and collection by id (datasets.read_id_texts), which does
    not read .parquet: the table was read as text, two notes of undecodable lines and "line 4:
    expected 'id<TAB>text'; got '0\\x00?...'"."""
    from learnsim._baseline_models import baseline_pipeline

    baseline_pipeline("cosine", corpus()[0][:20]).save(tmp_path / "m.npz")
    pd.DataFrame({"id": ["a", "b"], "text": ["red apple", "green pear"]}).to_parquet(tmp_path / "q.parquet")
    (tmp_path / "q.jsonl").write_text('{"id": "a", "text": "red apple"}\n', encoding="utf-8")
    model = str(tmp_path / "m.npz")
    for corpus_file, queries in (("q.parquet", "q.jsonl"), ("q.jsonl", "q.parquet")):
        assert main(["search", "--model", model, "--corpus", str(tmp_path / corpus_file), "--queries",
                     str(tmp_path / queries), "--run", str(tmp_path / "run.txt")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "a .parquet file is not read where each of the" in err[0], err
        assert "JSON Lines" in err[0] and "U+FFFD" not in err[0]
    assert not (tmp_path / "run.txt").exists()


def test_index_build_names_a_parquet_files_rows(tmp_path, capsys):
    """index build said "docs.parquet, line 2: ..." of a table whose reader counts rows ("row 2"
    in its own messages): a text with no letter, an id given twice."""
    from learnsim._baseline_models import baseline_pipeline

    baseline_pipeline("cosine", corpus()[0][:20]).save(tmp_path / "m.npz")
    tables = {"bad text": ({"id": ["a", "b"], "text": ["red apple", "..."]}, "docs.parquet, row 2: the text"),
              "twice": ({"id": ["a", "b", "a"], "text": ["red apple", "green pear", "ripe plum"]},
                        "docs.parquet, row 3: the id 'a' appears twice (first on row 1)")}
    for columns, expected in tables.values():
        pd.DataFrame(columns).to_parquet(tmp_path / "docs.parquet")
        assert main(["index", "build", "--model", str(tmp_path / "m.npz"), "--corpus", str(tmp_path / "docs.parquet"),
                     "--out", str(tmp_path / "idx")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and expected in err[0], err


def test_index_build_names_a_parquet_document_without_an_id_by_its_row(tmp_path, capsys):
    """A table without an id column: its documents were named "line-N" by their row, a line the
    file has not (the same table as a .csv, under its header, is line N+1 there); the name is now
    the row, as every message about a .parquet file counts it."""
    from learnsim._baseline_models import baseline_pipeline

    baseline_pipeline("cosine", corpus()[0][:20]).save(tmp_path / "m.npz")
    frame = pd.DataFrame({"text": ["red apple", "green pear", "ripe plum"]})
    frame.to_parquet(tmp_path / "docs.parquet")
    frame.to_csv(tmp_path / "docs.csv", index=False)
    found = {}
    for name in ("docs.parquet", "docs.csv"):
        assert main(["index", "build", "--model", str(tmp_path / "m.npz"), "--corpus", str(tmp_path / name),
                     "--out", str(tmp_path / f"idx-{name}")]) == 0
        capsys.readouterr()
        assert main(["search", "--index", str(tmp_path / f"idx-{name}"), "--query", "ripe plum", "-k", "1",
                     "--json"]) == 0
        found[name] = json.loads(capsys.readouterr().out)[0]["hits"][0]["id"]
    # the third document: the table's row 3, the .csv file's line 4 (its header is line 1)
    assert found == {"docs.parquet": "row-3", "docs.csv": "line-4"}
