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


def _note_line(args, *fragments):
    code, out, err = run_cli(args)
    assert code == 0, (code, err)
    notes = [line for line in err.splitlines() if "Unicode form" in line]
    assert len(notes) == 1, err
    assert all(f in notes[0] for f in fragments), notes[0]
    return notes[0]


@pytest.mark.parametrize("name", ["ids.jsonl", "ids.tsv", "ids.csv"])
def test_one_id_in_two_unicode_forms_is_said(tmp_path, model, name):
    """'café' precomposed (NFC) on one line and with a combining accent (NFD) on another are two ids
    as written (docs/indexes.md), two documents that print alike in every hit, run file and 'index
    delete --id', which judgements and run files read as one id; nothing said so. Now one note
    names both lines and both ids in escapes; the documents stay two."""
    from learnsim.index import Index

    nfc, nfd = "caf\u00e9", "cafe\u0301"
    rows = [(nfc, TEXTS[0]), ("other", TEXTS[1]), (nfd, TEXTS[2])]
    corpus = tmp_path / name
    if name.endswith(".jsonl"):
        import json
        corpus.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in rows), encoding="utf-8")
    elif name.endswith(".tsv"):
        corpus.write_text("".join(f"{i}\t{t}\n" for i, t in rows), encoding="utf-8")
    else:
        corpus.write_text("id,text\n" + "".join(f"{i},{t}\n" for i, t in rows), encoding="utf-8")
    first, last = (1, 3) if not name.endswith(".csv") else (2, 4)
    said = (f"{name}, line {last}:", f"line {first}", "NFC", r"'caf\xe9'", r"'cafe\u0301'")
    _note_line(["index", "build", "--model", model, "--corpus", corpus, "--out", tmp_path / "idx"], *said)
    assert Index.open(tmp_path / "idx").live_documents()[0] == [nfc, "other", nfd]
    # search --corpus says it where the file names its ids (not a .tsv's first column, which may be
    # a label, as it checks an id given twice)
    if not name.endswith(".tsv"):
        _note_line(["search", "--model", model, "--corpus", corpus, "--query", "charged twice"], *said)


def test_ids_that_differ_otherwise_stay_two_documents(tmp_path, model):
    """'1' and '01', 'ab' and 'a<ZWSP>b' are two ids as written (as Elasticsearch and Pyserini keep
    them); only two Unicode forms of one text are refused."""
    from learnsim.index import Index

    corpus = tmp_path / "ids.tsv"
    corpus.write_text(f"1\t{TEXTS[0]}\n01\t{TEXTS[1]}\nab\t{TEXTS[2]}\na\u200bb\t{TEXTS[3]}\n", encoding="utf-8")
    code, _, err = run_cli(["index", "build", "--model", model, "--corpus", corpus, "--out", tmp_path / "idx"])
    assert code == 0, err
    assert Index.open(tmp_path / "idx").live_documents()[0] == ["1", "01", "ab", "a\u200bb"]


@pytest.mark.parametrize("update", [False, True])
def test_index_add_says_an_indexed_id_in_another_unicode_form(tmp_path, model, update):
    """'café' indexed precomposed and added (or --update'd) with a combining accent: a second
    document that prints alike, and under --update one that replaced nothing (the old text kept,
    the new one added beside it), without a word. The add is as before; a note says it."""
    from learnsim.index import Index

    first = tmp_path / "first.tsv"
    first.write_text(f"caf\u00e9\t{TEXTS[0]}\nother\t{TEXTS[1]}\n", encoding="utf-8")
    code, _, err = run_cli(["index", "build", "--model", model, "--corpus", first, "--out", tmp_path / "idx"])
    assert code == 0, err
    more = tmp_path / "more.tsv"
    more.write_text(f"new\t{TEXTS[2]}\ncafe\u0301\t{TEXTS[3]}\n", encoding="utf-8")
    note = _note_line(["index", "add", tmp_path / "idx", "--corpus", more] + (["--update"] if update else []),
                      "more.tsv", r"'cafe\u0301'", r"'caf\xe9'", "NFC")
    assert ("replacing nothing" in note) == update
    assert Index.open(tmp_path / "idx").live_documents()[0] == ["caf\u00e9", "other", "new", "cafe\u0301"]
    # an update of the id as indexed says nothing
    again = tmp_path / "again.tsv"
    again.write_text(f"caf\u00e9\t{TEXTS[4]}\n", encoding="utf-8")
    code, _, err = run_cli(["index", "add", tmp_path / "idx", "--corpus", again, "--update"])
    assert code == 0 and "Unicode form" not in err, err
