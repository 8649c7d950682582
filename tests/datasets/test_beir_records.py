"""BEIR's JSON Lines records as other tools write them: a record's id is the one every reader
(BEIR's GenericDataLoader reads "_id") would give it, or the record is refused, naming its line."""
import json

import pytest

from learnsim.cli import main
from learnsim.datasets import read_documents, read_id_texts


def _jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize("read", [lambda p: read_id_texts(p), lambda p: read_documents(p)],
                         ids=["read_id_texts", "read_documents"])
def test_a_record_whose_id_and__id_disagree_is_refused_naming_its_line(tmp_path, read):
    # learnsim took "id" ('PMID-9'), BEIR's loader "_id" ('d1'): the judgements naming 'd1' met no
    # document, a relevant document never found, with a note of unknown documents at most
    path = _jsonl(tmp_path / "corpus.jsonl", [{"_id": "d0", "text": "bone density"},
                                              {"_id": "d1", "id": "PMID-9", "text": "vitamin d"}])
    with pytest.raises(ValueError, match=r"line 2") as caught:
        read(path)
    message = str(caught.value)
    assert str(path) in message and "'d1'" in message and "'PMID-9'" in message


@pytest.mark.parametrize("record", [{"_id": 17, "id": "17", "text": "vitamin d"},
                                    {"_id": {"$oid": "65a1"}, "id": "17", "text": "vitamin d"}],
                         ids=["the same id", "mongo's object id"])
def test_ids_that_agree_or_an__id_that_is_no_id_are_read(tmp_path, record):
    path = _jsonl(tmp_path / "corpus.jsonl", [{"_id": "d0", "text": "bone density"}, record])
    assert read_id_texts(path)[0] == ["d0", "17"]


def test_a_numeric__id_names_the_document_the_qrels_name_as_text(tmp_path, capsys):
    root = tmp_path / "beir"
    (root / "qrels").mkdir(parents=True)
    _jsonl(root / "corpus.jsonl", [{"_id": 17, "title": "", "text": "bone density"},
                                   {"_id": 18, "title": "", "text": "vitamin d"}])
    _jsonl(root / "queries.jsonl", [{"_id": 1, "text": "bone"}])
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\t17\t1\n", encoding="utf-8")
    assert main(["evaluate", "--beir", str(root), "--split", "test", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["methods"]["bm25"]["ndcg@10"] == pytest.approx(1.0)


@pytest.mark.parametrize("indent", [None, 2], ids=["one line", "pretty-printed"])
@pytest.mark.parametrize("read", [lambda p: read_id_texts(p), lambda p: read_documents(p)],
                         ids=["read_id_texts", "read_documents"])
def test_a_json_array_given_as_json_lines_is_named_as_one(tmp_path, read, indent):
    # "line 1: not valid JSON (Expecting value at column 2)" and "expected a JSON object; got list"
    # named what the line was not, not what the file is
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps([{"_id": "d1", "text": "bone"}, {"_id": "d2", "text": "vitamin"}], indent=indent),
                    encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 1: .*JSON array.*JSON Lines") as caught:
        read(path)
    assert str(path) in str(caught.value)
