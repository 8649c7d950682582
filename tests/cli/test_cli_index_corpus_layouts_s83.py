"""What users bring to ``learnsim index build --corpus`` (and ``index add``): the labelled file
``label<TAB>text`` that ``learnsim fit --input`` takes, read as a corpus. Under a first line
``label<TAB>text`` the first column is a label, not an id; without that line the file reads as
``id<TAB>text`` and a label repeated is refused in one line that says the first column looked like
a label and how to have it read so."""
from __future__ import annotations

import pytest

from conftest import run_cli

TEXTS = ["I was charged twice for the same order", "how do I reset my password", "the app crashes on start",
         "refund the duplicate charge on my card", "cannot log in to my account"]
LABELS = ["billing", "account", "bug", "billing", "account"]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    from learnsim._baseline_models import baseline_pipeline

    path = tmp_path_factory.mktemp("s83_model") / "m.npz"
    baseline_pipeline("cosine", TEXTS).save(path)
    return path


def _one_line_error(args):
    code, out, err = run_cli(args)
    assert code == 2, (code, out, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("header", ["label\ttext", "Label\ttext", "category\ttext", "topic\ttext"])
def test_a_labelled_file_under_its_header_is_indexed_with_the_label_as_metadata(tmp_path, model, header):
    """Under 'label<TAB>text' the labels were taken as the ids: 'the id 'billing' appears twice', or,
    each label once, an index whose documents were named by their labels, without a word."""
    from learnsim.index import Index

    corpus = tmp_path / "labelled.tsv"
    corpus.write_text(header + "\n" + "".join(f"{l}\t{t}\n" for l, t in zip(LABELS, TEXTS)), encoding="utf-8")
    code, out, err = run_cli(["index", "build", "--model", model, "--corpus", corpus, "--out", tmp_path / "idx"])
    assert code == 0, err
    index = Index.open(tmp_path / "idx")
    ids, texts = index.live_documents()
    # numbered by line, as any document without an id: the header is line 1
    assert ids == [f"line-{n}" for n in range(2, 2 + len(TEXTS))] and texts == TEXTS
    column = header.split("\t")[0].lower()
    assert [index.document(i)[1] for i in ids] == [{column: label} for label in LABELS]
    hits = index.search(["reset my password"], 1, filter={column: "account"})[0]
    assert [h[0] if isinstance(h, tuple) else h["id"] for h in hits] == ["line-3"]


def test_a_labelled_file_without_a_header_is_refused_saying_the_first_column_looks_like_a_label(tmp_path, model):
    corpus = tmp_path / "labelled.tsv"
    corpus.write_text("".join(f"{l}\t{t}\n" for l, t in zip(LABELS, TEXTS)), encoding="utf-8")
    line = _one_line_error(["index", "build", "--model", model, "--corpus", corpus, "--out", tmp_path / "idx"])
    assert "labelled.tsv, line 4: the id 'billing' appears twice (first on line 1)" in line
    # what to do about it, in the same line
    assert "label<TAB>text" in line and "first line" in line
    assert not (tmp_path / "idx").exists()
    # a .jsonl's repeated id is no label: no such hint
    jsonl = tmp_path / "twice.jsonl"
    jsonl.write_text('{"id": "a", "text": "one two"}\n{"id": "a", "text": "three four"}\n', encoding="utf-8")
    line = _one_line_error(["index", "build", "--model", model, "--corpus", jsonl, "--out", tmp_path / "idx"])
    assert "appears twice" in line and "label<TAB>text" not in line

