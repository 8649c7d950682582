"""One input rule for learnsim.fit (issue 33, point 3): lists, numpy arrays, pandas Series and
DataFrames, Hugging Face datasets, read_pairs' and read_labelled_documents' results and files
(.tsv, .csv, .jsonl, .parquet) fit the very same model from the same data and seed; missing
values, missing and ambiguous columns and wrong lengths are errors naming them; ``import
learnsim`` never imports pandas or datasets (learnsim._inputs)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import learnsim
import learnsim.io
from learnsim._inputs import as_id, fit_inputs
from learnsim.datasets import DocumentFormatError, make_clustered_corpus, read_labelled_documents, read_pairs

from index_models import hugging_face_datasets

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

# small and fixed: the pair fits take a fraction of a second (no re-ranking or rule search)
FILM_FAST = {"dimensions": 4, "max_iter": 20, "matcher": "threshold", "rerank": False}
MCD_FIXED = {"n_basis": 8, "shrinkage": 0.01, "complement_weight": 0.3}


def _pandas():
    return pytest.importorskip("pandas", reason="pandas is not installed (pip install pandas)")


def _hf_datasets():
    return hugging_face_datasets()


def _pyarrow():
    return pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install pyarrow): no .parquet")


# --------------------------------------------------------------------------- data

@pytest.fixture(scope="module")
def corpus():
    c = make_clustered_corpus(n_clusters=4, docs_per_cluster=10, random_state=0)
    texts = [str(t) for t in c.data]
    labels = [int(v) for v in c.target]
    labels[3] = -1          # in no cluster, as a file's -1
    return texts, labels


@pytest.fixture(scope="module")
def pair_rows(corpus):
    texts, labels = corpus
    rng = np.random.default_rng(0)
    rows = []
    while len(rows) < 80:
        i, j = (int(v) for v in rng.choice(len(texts), 2, replace=False))
        if len(rows) % 2:      # half duplicates: two texts of one topic
            same = [k for k in range(len(texts)) if labels[k] == labels[i] and k != i]
            if not same:
                continue
            j = same[len(rows) % len(same)]
        rows.append((texts[i], texts[j], int(labels[i] == labels[j])))
    return rows


def _state(pipeline):
    """Every part's saved state: its meta (timings left out) and arrays, as plain values."""
    out = {}
    for name, part in sorted(pipeline.parts.items()):
        get_state = getattr(part, "_get_state", None)
        if get_state is None:
            continue
        meta, arrays = get_state()
        meta = {k: v for k, v in meta.items() if not ("seconds" in str(k) or "time" in str(k))}
        out[name] = (json.dumps(meta, sort_keys=True, default=repr),
                     {k: (v.toarray() if sp.issparse(v) else np.asarray(v)) for k, v in arrays.items()})
    return out


def assert_same_model(got, expected, texts):
    """Exactly the same model: the saved state of every part and what it computes."""
    state_g, state_e = _state(got), _state(expected)
    assert sorted(state_g) == sorted(state_e)
    for name in state_e:
        assert state_g[name][0] == state_e[name][0], name
        assert sorted(state_g[name][1]) == sorted(state_e[name][1]), name
        for key, value in state_e[name][1].items():
            np.testing.assert_array_equal(state_g[name][1][key], value, err_msg=f"{name}/{key}")
    encoded_g, encoded_e = got.encode(texts), expected.encode(texts)
    if sp.issparse(encoded_e):
        encoded_g, encoded_e = encoded_g.toarray(), encoded_e.toarray()
    np.testing.assert_array_equal(encoded_g, encoded_e)
    assert got.search(texts[:3], texts, k=5) == expected.search(texts[:3], texts, k=5)


def _write_pair_files(rows, folder):
    """The pairs as .tsv, .csv and .jsonl files, with a header the reader recognises."""
    folder.mkdir(exist_ok=True)
    tsv = folder / "pairs.tsv"
    tsv.write_text("question1\tquestion2\tis_duplicate\n" + "".join(f"{a}\t{b}\t{y}\n" for a, b, y in rows),
                   encoding="utf-8")
    csv = folder / "pairs.csv"
    csv.write_text("text_a,text_b,label\n" + "".join(f'"{a}","{b}",{y}\n' for a, b, y in rows), encoding="utf-8")
    jsonl = folder / "pairs.jsonl"
    jsonl.write_text("".join(json.dumps({"q1": a, "q2": b, "dup": y}) + "\n" for a, b, y in rows), encoding="utf-8")
    return tsv, csv, jsonl


# --------------------------------------------------------------------------- pairs: every form

@pytest.fixture(scope="module")
def pairs_model(pair_rows):
    return learnsim.fit(pairs=pair_rows, **FILM_FAST)


PAIR_FORMS = ["tuples-array", "dataframe-header", "dataframe-keywords", "dataframe-columns", "dataframe-spec",
              "read_pairs", "tsv-str", "tsv-path", "csv", "jsonl-columns", "parquet", "dataset"]


def _pairs_form(form, rows, tmp_path):
    """(pairs, keyword arguments) of ``form`` holding ``rows``."""
    if form == "tuples-array":
        return np.array(rows, dtype=object), {}
    if form == "read_pairs":
        return read_pairs(rows), {}
    tsv, csv, jsonl = _write_pair_files(rows, tmp_path / "files")
    if form == "tsv-str":
        return str(tsv), {}
    if form == "tsv-path":
        return tsv, {}
    if form == "csv":
        return csv, {}
    if form == "jsonl-columns":
        return str(jsonl), {"text_a": "q1", "text_b": "q2", "label": "dup"}
    pd = _pandas()
    named = pd.DataFrame(rows, columns=["q1", "q2", "dup"])
    if form == "dataframe-header":
        return pd.DataFrame(rows, columns=["question1", "question2", "is_duplicate"]), {}
    if form == "dataframe-keywords":
        return named, {"text_a": "q1", "text_b": "q2", "label": "dup"}
    if form == "dataframe-columns":
        return named, {"columns": {"text_a": "q1", "text_b": "q2", "label": "dup"}}
    if form == "dataframe-spec":
        return named, {"columns": "label=2,text_a=0,text_b=1"}
    if form == "parquet":
        _pyarrow()
        path = tmp_path / "pairs.parquet"
        named.to_parquet(path)
        return path, {"text_a": "q1", "text_b": "q2", "label": "dup"}
    if form == "dataset":
        hf = _hf_datasets()
        return hf.Dataset.from_pandas(named), {"text_a": "q1", "text_b": "q2", "label": "dup"}
    raise AssertionError(form)


@pytest.mark.parametrize("form", PAIR_FORMS)
def test_pairs_in_every_form_fit_the_same_model(form, pair_rows, pairs_model, corpus, tmp_path):
    pairs, keywords = _pairs_form(form, pair_rows, tmp_path)
    model = learnsim.fit(pairs=pairs, **keywords, **FILM_FAST)
    assert_same_model(model, pairs_model, corpus[0])
    decide = [(a, b) for a, b, _ in pair_rows[:10]]
    assert model.match(decide) == pairs_model.match(decide)


def test_graded_pairs_from_a_dataframe_score_column(pair_rows, corpus):
    pd = _pandas()
    graded = [(a, b, 0.5 + 4 * y + 0.1 * (k % 3)) for k, (a, b, y) in enumerate(pair_rows)]
    fast = {"dimensions": 4, "max_iter": 20, "rerank": False, "baseline_holdout": None}
    expected = learnsim.fit(pairs=graded, **fast)
    frame = pd.DataFrame(graded, columns=["sentence1", "sentence2", "sim"])
    got = learnsim.fit(pairs=frame, text_a="sentence1", text_b="sentence2", score="sim", **fast)
    assert_same_model(got, expected, corpus[0])
    # a column of scores under the name "label" is read as graded, as learnsim fit --pairs reads a file
    auto = fit_inputs(None, pairs=frame.rename(columns={"sim": "label"}))[2]
    assert auto.kind == "graded" and auto.scores.tolist() == [g[2] for g in graded]


def test_index_pairs_from_a_dataframe_with_texts(corpus, pair_rows):
    pd = _pandas()
    texts, labels = corpus
    rows = [(i, j, int(labels[i] == labels[j])) for i in range(0, 40, 3) for j in range(1, 40, 7) if i != j]
    expected = learnsim.fit(texts, pairs=rows, **FILM_FAST)
    frame = pd.DataFrame(rows, columns=["a", "b", "same"])
    got = learnsim.fit(pd.Series(texts, index=range(100, 140)), pairs=frame, text_a="a", text_b="b", label="same",
                       **FILM_FAST)
    assert_same_model(got, expected, texts)


# --------------------------------------------------------------------------- clusters: every form

@pytest.fixture(scope="module")
def clusters_model(corpus):
    texts, labels = corpus
    return learnsim.fit(texts, clusters=labels, **MCD_FIXED)


CLUSTER_FORMS = ["arrays", "series", "dataframe", "dataframe-keywords", "dataframe-float-labels", "read_labelled",
                 "tsv", "csv", "jsonl", "parquet", "dataset"]


def _clusters_form(form, texts, labels, tmp_path):
    """(positional texts, keyword arguments) of ``form``."""
    if form == "arrays":
        return np.array(texts), {"clusters": np.array(labels)}
    tsv = tmp_path / "train.tsv"
    tsv.write_text("".join(f"{y}\t{t}\n" for t, y in zip(texts, labels)), encoding="utf-8")
    if form == "read_labelled":
        return read_labelled_documents(tsv), {}
    if form == "tsv":
        return tsv, {}
    if form == "csv":
        path = tmp_path / "train.csv"
        path.write_text("label,text\n" + "".join(f'{y},"{t}"\n' for t, y in zip(texts, labels)), encoding="utf-8")
        return path, {}
    if form == "jsonl":
        path = tmp_path / "train.jsonl"
        path.write_text("".join(json.dumps({"text": t, "label": y}) + "\n" for t, y in zip(texts, labels)),
                        encoding="utf-8")
        return path, {}
    pd = _pandas()
    frame = pd.DataFrame({"text": texts, "label": labels})
    if form == "series":
        # a Series is its values in order: a shuffled index changes nothing
        index = list(range(len(texts)))[::-1]
        return pd.Series(texts, index=index), {"clusters": pd.Series(labels, index=index)}
    if form == "dataframe":
        return frame, {}
    if form == "dataframe-keywords":
        return frame.rename(columns={"text": "body", "label": "topic"}).assign(extra=1), {"text": "body",
                                                                                          "label": "topic"}
    if form == "dataframe-float-labels":
        # an integer column with a missing value turns float; filled with -1, the labels are the same
        floats = pd.Series([np.nan if y == -1 else float(y) for y in labels]).fillna(-1)
        return frame.assign(label=floats), {}
    if form == "parquet":
        _pyarrow()
        path = tmp_path / "train.parquet"
        frame.to_parquet(path)
        return path, {}
    if form == "dataset":
        hf = _hf_datasets()
        return hf.Dataset.from_pandas(frame), {}
    raise AssertionError(form)


@pytest.mark.parametrize("form", CLUSTER_FORMS)
def test_clusters_in_every_form_fit_the_same_model(form, corpus, clusters_model, tmp_path):
    texts, labels = corpus
    source, keywords = _clusters_form(form, texts, labels, tmp_path)
    assert_same_model(learnsim.fit(source, **keywords, **MCD_FIXED), clusters_model, texts)


def test_triplets_and_links_from_tables(corpus):
    pd = _pandas()
    texts, _ = corpus
    triplets = [(0, 1, 2), (3, 4, 5), (6, 7, 8)]
    links = [(0, 1), (1, 2)]
    # columns by name, in any order; or the only three (two) columns in order
    shuffled = pd.DataFrame({"farther": [t[2] for t in triplets], "anchor": [t[0] for t in triplets],
                             "closer": [t[1] for t in triplets]})
    assert fit_inputs(texts, triplets=shuffled)[3] == triplets
    assert fit_inputs(texts, triplets=pd.DataFrame(triplets, columns=["a", "b", "c"]))[3] == triplets
    by_name = pd.DataFrame({"target": [t for _, t in links], "source": [s for s, _ in links]})
    assert fit_inputs(texts, links=by_name)[4] == links
    with pytest.raises(ValueError, match="anchor, closer, farther"):
        fit_inputs(texts, triplets=pd.DataFrame({"a": [0], "b": [1]}))
    with pytest.raises(TypeError, match="not a file name"):
        fit_inputs(texts, links="links.tsv")


# --------------------------------------------------------------------------- errors that name the problem

def test_missing_values_are_errors_never_the_text_nan(corpus, pair_rows):
    pd = _pandas()
    texts, labels = corpus
    frame = pd.DataFrame({"text": texts, "label": labels})
    frame.loc[5, "text"] = np.nan
    with pytest.raises(ValueError, match=r"column 'text' \(text\), row 5, is missing"):
        learnsim.fit(frame)
    with pytest.raises(ValueError, match=r"texts\[2\] is missing"):
        learnsim.fit(texts[:2] + [float("nan")] + texts[3:], clusters=labels)
    pairs = pd.DataFrame(pair_rows, columns=["q1", "q2", "dup"])
    pairs.loc[7, "dup"] = np.nan
    with pytest.raises(ValueError, match=r"column 'dup' \(label\), row 7, is missing"):
        learnsim.fit(pairs=pairs, text_a="q1", text_b="q2", label="dup")
    pairs = pd.DataFrame(pair_rows, columns=["q1", "q2", "dup"]).astype({"q2": "string"})
    pairs.loc[3, "q2"] = pd.NA
    with pytest.raises(ValueError, match=r"column 'q2' \(text_b\), row 3"):
        learnsim.fit(pairs=pairs, text_a="q1", text_b="q2", label="dup")


def test_missing_and_ambiguous_columns_are_named(corpus, pair_rows):
    pd = _pandas()
    texts, labels = corpus
    frame = pd.DataFrame({"body": texts, "topic": labels})
    with pytest.raises(ValueError, match=r"no 'text' column for text \(its columns are 'body', 'topic'\)"):
        learnsim.fit(frame)
    with pytest.raises(ValueError, match="no 'label' column"):
        learnsim.fit(frame, text="body")
    with pytest.raises(ValueError, match="no column named 'nope'"):
        learnsim.fit(frame, text="body", label="nope")
    twice = pd.concat([frame.rename(columns={"body": "text"})[["text"]]] * 2 + [frame[["topic"]]], axis=1)
    with pytest.raises(ValueError, match="2 columns are named 'text'"):
        learnsim.fit(twice, label="topic")
    with pytest.raises(ValueError, match="2 columns are named 'text'"):
        learnsim.fit(pd.DataFrame({"Text": texts, "TEXT": texts, "label": labels}))
    # a name that matches exactly is no ambiguity
    assert learnsim.fit(pd.DataFrame({"text": texts, "Text": labels, "label": labels}), **MCD_FIXED) is not None
    pairs = pd.DataFrame(pair_rows, columns=["question1", "text_a", "question2"])
    with pytest.raises(DocumentFormatError, match="'question1' and 'text_a' could each be text_a"):
        learnsim.fit(pairs=pairs)
    with pytest.raises(DocumentFormatError, match="no column named 'q9'"):
        learnsim.fit(pairs=pd.DataFrame(pair_rows, columns=["q1", "q2", "dup"]), text_a="q9", text_b="q2",
                     label="dup")
    with pytest.raises(ValueError, match="no label or score column"):
        learnsim.fit(pairs=pd.DataFrame([r[:2] for r in pair_rows], columns=["text_a", "text_b"]))
    # only the label named: the texts by their recognised header names
    named = pd.DataFrame(pair_rows, columns=["question1", "question2", "dup"])
    assert learnsim.fit(pairs=named, label="dup", **FILM_FAST).matcher is not None


def test_wrong_lengths_and_misplaced_keywords(corpus, pair_rows, tmp_path):
    pd = _pandas()
    texts, labels = corpus
    with pytest.raises(ValueError, match="clusters has 39 labels but texts has 40 texts"):
        learnsim.fit(pd.Series(texts), clusters=pd.Series(labels[:-1]))
    with pytest.raises(TypeError, match="text_a= name columns of pairs given as a DataFrame"):
        learnsim.fit(pairs=pair_rows, text_a="q1")
    with pytest.raises(TypeError, match="apply where texts .* is a DataFrame"):
        learnsim.fit(texts, clusters=labels, text="body")
    with pytest.raises(ValueError, match="carry their own texts"):
        learnsim.fit(texts, pairs=read_pairs(pair_rows))
    with pytest.raises(TypeError, match="clusters is a DataFrame: pass its label column"):
        learnsim.fit(texts, clusters=pd.DataFrame({"label": labels}))


def test_a_str_where_texts_go_is_never_a_file(corpus, tmp_path, monkeypatch):
    texts, labels = corpus
    monkeypatch.chdir(tmp_path)
    Path("train.tsv").write_text("".join(f"{y}\t{t}\n" for t, y in zip(texts, labels)), encoding="utf-8")
    # the file exists, but a str is a text: refused as a single str, never read
    with pytest.raises(TypeError, match="texts must be a list of str"):
        learnsim.fit("train.tsv")
    with pytest.raises(TypeError, match="texts must be a list of str"):
        learnsim.fit("train.tsv", clusters=labels)
    assert learnsim.fit(Path("train.tsv"), **MCD_FIXED) is not None     # a Path is a file
    with pytest.raises(FileNotFoundError):
        learnsim.fit(pairs="no-such-pairs.tsv")
    with pytest.raises(ValueError, match="empty string"):
        learnsim.fit(pairs="  ")


def test_hugging_face_dataset_dict_and_streams_are_refused_clearly(pair_rows):
    hf = _hf_datasets()
    rows = {"text_a": [r[0] for r in pair_rows], "text_b": [r[1] for r in pair_rows], "label": [r[2] for r in pair_rows]}
    splits = hf.DatasetDict({"train": hf.Dataset.from_dict(rows)})
    with pytest.raises(TypeError, match=r"DatasetDict of splits \('train'\); pass one split"):
        learnsim.fit(pairs=splits)
    stream = hf.Dataset.from_dict(rows).to_iterable_dataset()
    with pytest.raises(TypeError, match="IterableDataset"):
        learnsim.fit(pairs=stream)
    # the split itself is taken
    assert learnsim.fit(pairs=splits["train"], **FILM_FAST).matcher is not None


def test_parquet_without_pyarrow_names_the_install(tmp_path, monkeypatch):
    path = tmp_path / "pairs.parquet"
    path.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)     # as if not installed
    with pytest.raises(ImportError, match="pip install (pandas )?pyarrow"):
        learnsim.fit(pairs=path)


def test_ids_rule():
    np_int = np.int64(7)
    assert as_id(7) == as_id("7") == as_id(np_int) == "7"
    assert as_id(-3) == "-3" and as_id(None) is None
    for bad in (True, np.bool_(False), 7.0, b"7", ""):
        with pytest.raises(TypeError, match="must be a non-empty str or an int"):
            as_id(bad)
    with pytest.raises(ValueError, match="missing"):
        as_id(float("nan"))


def test_a_named_dataframe_index_is_found_as_its_column():
    """pandas writes a named index as a column (to_csv, to_parquet), and df.set_index("id") is how
    a pandas user keys a table: its ids were dropped without a word and the documents numbered
    (hits "1", "2", ... for t001, t002, ...). A named level is found by name like a column; an
    unnamed index stays ignored, as is a Series' index, and a table's only column stays the text."""
    from learnsim._inputs import index_inputs

    pd = _pandas()
    frame = pd.DataFrame({"id": ["t1", "t2", "t3"], "text": ["red apple", "green pear", "ripe plum"],
                          "topic": ["a", "b", "a"]})
    texts, ids, _ = index_inputs(frame.set_index("id"))
    assert texts == list(frame["text"]) and ids == ["t1", "t2", "t3"]
    assert index_inputs(frame.rename(columns={"id": "doc"}).set_index("doc"), ids="doc")[1] == ["t1", "t2", "t3"]
    _, _, metadata = index_inputs(frame.set_index(["id", "topic"]), metadata=["topic"])
    assert metadata == [{"topic": "a"}, {"topic": "b"}, {"topic": "a"}]
    assert index_inputs(frame.drop(columns="id"))[1] is None                       # a RangeIndex: no ids
    assert index_inputs(frame.set_index("id")[["text"]].rename(columns={"text": "body"}))[0] == list(frame["text"])
    missing = frame.set_index("id")
    missing.index = ["t1", None, "t3"]
    missing.index.name = "id"
    with pytest.raises(ValueError, match="column 'id' \\(id\\), row 1, is missing"):
        index_inputs(missing)


# --------------------------------------------------------------------------- import stays light

def test_import_learnsim_never_imports_pandas_or_datasets():
    # the conversions recognise the tables by their attributes: converting lists imports nothing
    # either (a fit imports scikit-learn, which itself imports pandas where it is installed)
    code = ("import sys, learnsim, learnsim.fitting, learnsim.pipeline, learnsim.index\n"
            "from learnsim._inputs import fit_inputs, index_inputs\n"
            "texts = ['red apple pie', 'green apple tart', 'blue sky above', 'grey sky below']\n"
            "fit_inputs(texts, clusters=[0, 0, 1, 1]); fit_inputs(None, pairs=[(texts[0], texts[1], 1)])\n"
            "index_inputs(texts, [1, 2, 3, 4], [None] * 4)\n"
            "print(','.join(m for m in ('pandas', 'datasets', 'pyarrow') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


def test_qrels_numbering_queries_mostly_by_position_are_refused_not_read_as_ids(tmp_path):
    """fit --qrels (learnsim._inputs.judgements_of): Cranfield's numbering by position in a queries
    file whose ids skip numbers, with one stray line, fell back to ids: '3' and '9' left out with
    a note and '4' fitted to the wrong query, as learnsim evaluate no longer does."""
    from learnsim._inputs import judgements_of

    queries = {"1": "cats", "2": "dogs", "4": "fish"}
    corpus = [("d1", "cats purr"), ("d2", "dogs bark"), ("d3", "fish swim")]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 d1 1\n2 d2 1\n3 d3 1\n9 d3 1\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"qrels.txt: its query numbers are neither all ids .* nor all positions "
                                         r"1\.\.3 .*'9'"):
        judgements_of(queries, qrels, corpus)
    # without the stray line: by position; all ids: by id
    for text, numbering in (("1 d1 1\n2 d2 1\n3 d3 1\n", "position"), ("1 d1 1\n2 d2 1\n4 d3 1\n", "id")):
        qrels.write_text(text, encoding="utf-8")
        info = {}
        judgements_of(queries, qrels, corpus, info=info)
        assert info["numbering"] == numbering



def test_zero_padded_query_ids_numbered_by_id_are_read_by_id(tmp_path):
    """Queries 001, 002, 005 judged by id in a qrels file were refused by fit's numbering check
    as "neither all ids of the queries (3 are not, e.g. '1')": the qrels reader gives '001' as 1
    and the check compared it with '001', where learnsim evaluate's copy of the check met them.
    One check serves both now (learnsim._inputs.check_numbering)."""
    from learnsim._inputs import judgements_of

    queries = {"001": "cats", "002": "dogs", "005": "fish"}
    corpus = [("d1", "cats purr"), ("d2", "dogs bark"), ("d3", "fish swim")]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("001 0 d1 1\n002 0 d2 1\n005 0 d3 1\n", encoding="utf-8")
    info = {}
    stats = judgements_of(queries, qrels, corpus, info=info)[3]
    assert info["numbering"] == "id" and stats["queries"] == 3 and stats["relevant"] == 3
    # the stray-line case is still refused, naming the queries' file where one is given
    from learnsim._inputs import check_numbering

    with pytest.raises(ValueError, match=r"neither all ids of q.tsv .* nor all positions 1\.\.3 in it .*'9'"):
        check_numbering("qrels.txt", {"1": {}, "2": {}, "3": {}, "9": {}}, ["1", "2", "4"], queries="q.tsv")


def test_a_parquet_collection_keeps_the_ids_of_its_named_index_and_integer_ids_with_a_gap(tmp_path):
    """to_parquet of df.set_index("id") stores the ids as the index, which the reader dropped (hits
    "#0"); an integer id column with a missing value (float to pandas) was refused as "got 0.0"
    without naming the missing value."""
    pd, _ = _pandas(), _pyarrow()
    from learnsim.datasets import DocumentFormatError, read_documents

    frame = pd.DataFrame({"id": ["t1", "t2"], "text": ["hello world", "bye now"]})
    frame.set_index("id").to_parquet(tmp_path / "keyed.parquet")
    docs = read_documents(tmp_path / "keyed.parquet")
    assert docs.ids == ["t1", "t2"] and docs.texts == ["hello world", "bye now"] and docs.metadata is None
    pd.DataFrame({"id": [1, 2], "text": ["a", "b"]}).astype({"id": float}).to_parquet(tmp_path / "f.parquet")
    assert read_documents(tmp_path / "f.parquet").ids == ["1", "2"]
    pd.DataFrame({"id": [1, None, 3], "text": ["a", "b", "c"]}).to_parquet(tmp_path / "gap.parquet")
    with pytest.raises(DocumentFormatError, match=r"gap.parquet, row 2: the id column \"id\" has no value"):
        read_documents(tmp_path / "gap.parquet")
    # an unnamed index (a RangeIndex) is still no column
    frame.to_parquet(tmp_path / "plain.parquet", index=True)
    assert read_documents(tmp_path / "plain.parquet").ids == ["t1", "t2"]


def test_a_parquet_collection_gives_its_dates_as_iso_strings(tmp_path):
    # a datetime column was metadata of pandas Timestamps, refused by index build as no JSON value
    import datetime
    import json

    pd, _ = _pandas(), _pyarrow()
    from learnsim.datasets import read_documents

    when = pd.to_datetime(["2021-02-03 04:05:00", None, "2020-01-01 00:00:00"], format="ISO8601")
    pd.DataFrame({"id": ["a", "b", "c"], "text": ["x", "y", "z"], "when": when,
                  "day": [datetime.date(2020, 1, 1)] * 3}).to_parquet(tmp_path / "dt.parquet")
    meta = read_documents(tmp_path / "dt.parquet").metadata
    assert json.loads(json.dumps(meta)) == meta
    assert meta[1]["when"] is None and meta[0]["day"] == "2020-01-01"
    assert datetime.datetime.fromisoformat(meta[0]["when"]) == datetime.datetime(2021, 2, 3, 4, 5)
    assert meta[2]["when"] < meta[0]["when"]


def test_labelled_parquet_documents_may_leave_an_id_out_as_a_labelled_csv_may(tmp_path):
    pd, _ = _pandas(), _pyarrow()
    from learnsim.datasets import read_labelled_documents

    pd.DataFrame({"id": [1, None], "label": ["a", "b"], "text": ["x", "y"]}).to_parquet(tmp_path / "l.parquet")
    assert read_labelled_documents(tmp_path / "l.parquet").ids == ["1", None]


def test_a_missing_label_is_no_cluster_as_the_readers_read_the_same_frame(corpus, tmp_path):
    """learnsim.fit(df, label=...) refused a label column [1, None, 2] (pandas stores the None as
    NaN), while read_labelled_documents(df) and the same frame as .parquet read no cluster."""
    pd = _pandas()
    texts, labels = corpus
    column = [float(y) for y in labels]
    column[1] = None
    frame = pd.DataFrame({"text": texts, "label": column})
    assert np.isnan(frame["label"][1])
    _, clusters, *_ = fit_inputs(frame, label="label")
    assert clusters[1] is None and clusters[0] == labels[0] and all(isinstance(c, int) for c in clusters[2:])
    # the readers' reading of the same table, in memory and as a file
    read = learnsim.io.read_labelled_documents(frame).labels
    assert [c in (None, -1) for c in clusters] == [c is None for c in read]
    _, series_clusters, *_ = fit_inputs(texts, clusters=pd.Series(column))
    assert series_clusters == clusters
    learnsim.fit(frame, label="label")
