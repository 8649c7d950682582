"""Ids as written, code point for code point: an id in Unicode NFC and the same in NFD (macOS file
names, some exports) are two documents, in Index, on the command line and over HTTP alike, as a
filter's field names are taken as written; one path normalising and not another would make
`document(id)` and a PUT of the same id disagree about which document it is."""
from __future__ import annotations

import json
import shutil
import warnings
from urllib.parse import quote

import pytest

from index_models import corpus, model

from learnsim.cli import main
from learnsim.index import Index

NFC, NFD = "caf\u00e9", "cafe\u0301"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("idforms") / "idx"
    Index.build(path, model("bm25"), texts[:20], ids[:20], meta[:20]).close()
    return path


@pytest.fixture
def fresh(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    return tmp_path / "idx"


def _texts_of(path):
    with Index.open(path) as idx:
        return {i: idx.document(i)[0] for i in (NFC, NFD)}, idx.info()["documents"]


def test_nfc_and_nfd_ids_are_two_documents_in_python(fresh):
    texts, *_ = corpus()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with Index.open(fresh) as idx:
            idx.add([texts[30]], [NFC])
            idx.add([texts[31]], [NFD])     # not "already in the index"
    got, n = _texts_of(fresh)
    assert got == {NFC: texts[30], NFD: texts[31]} and n == 22


def test_nfc_and_nfd_ids_are_two_documents_on_the_command_line(fresh, tmp_path):
    texts, *_ = corpus()
    corpus_file = tmp_path / "two.jsonl"
    corpus_file.write_text("".join(json.dumps({"id": i, "text": t}) + "\n"
                                   for i, t in ((NFC, texts[30]), (NFD, texts[31]))), encoding="utf-8")
    assert main(["index", "add", str(fresh), "--corpus", str(corpus_file)]) == 0
    got, n = _texts_of(fresh)
    assert got == {NFC: texts[30], NFD: texts[31]} and n == 22


def test_nfc_and_nfd_ids_are_two_documents_over_http(fresh):
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from learnsim.service import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

        texts, *_ = corpus()
        with TestClient(create_app(fresh), raise_server_exceptions=False, base_url="http://127.0.0.1") as c:
            for i, t in ((NFC, texts[30]), (NFD, texts[31])):
                r = c.put("/v1/docs/" + quote(i, safe=""), json={"text": t})
                assert r.status_code == 201 and r.json()["id"] == i, r.text
            for i, t in ((NFC, texts[30]), (NFD, texts[31])):
                r = c.get("/v1/docs/" + quote(i, safe=""))
                assert r.status_code == 200 and r.json()["id"] == i and r.json()["text"] == t
    got, n = _texts_of(fresh)
    assert got == {NFC: texts[30], NFD: texts[31]} and n == 22
