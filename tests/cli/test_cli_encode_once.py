"""Every text encoded once (issue 43, part 4): ``learnsim fit --encoder``, ``index build`` and
``evaluate`` with the same model keep the collection's embeddings beside the model
("m.npz" -> "m.embeddings/") and read them again, so that the three commands together encode each
distinct text once. The encoder is the real SentenceEncoder (memo, cache, count) over hashed word
vectors in place of a network (:func:`encoder_fakes.register_sentence_encoder`)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import run_cli
from encoder_fakes import register_sentence_encoder
from retrieval_fakes import write_beir_folder

from learnsim.text import encoders
from learnsim.text.encoders import encoded_text_count


def ok(args):
    code, out, err = run_cli(args)
    assert code == 0, (args, code, err)
    return out


def _new_process(monkeypatch):
    # a command run later starts with an empty memo: only the cache beside the model carries over
    monkeypatch.setattr(encoders, "_MEMO", {})


def test_fit_index_and_evaluate_encode_each_text_once(tmp_path, monkeypatch):
    register_sentence_encoder(monkeypatch)
    monkeypatch.delenv("LEARNSIM_EMBEDDING_CACHE", raising=False)
    (tmp_path / "beir").mkdir()
    beir = write_beir_folder(tmp_path / "beir")
    corpus = [json.loads(line) for line in (beir / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    queries = {json.loads(line)["_id"]: json.loads(line)["text"]
               for line in (beir / "queries.jsonl").read_text(encoding="utf-8").splitlines()}
    test_queries = {line.split("\t")[0] for line in (beir / "qrels" / "test.tsv").read_text().splitlines()[1:]}
    train_queries = {line.split("\t")[0] for line in (beir / "qrels" / "train.tsv").read_text().splitlines()[1:]}
    model = tmp_path / "m.npz"

    _new_process(monkeypatch)
    start = encoded_text_count()
    # unchecked: the model keeps FILM over the encoder (on so few queries the check may end as BM25)
    ok(["fit", "--beir", beir, "--encoder", "fake-sentence-encoder", "--model", model, "--baseline-holdout", "none"])
    fitted = encoded_text_count() - start
    documents = {d["title"] + "\n" + d["text"] for d in corpus}
    asked = {queries[q] for q in train_queries}
    assert fitted == len(documents | asked)
    assert (tmp_path / "m.embeddings").is_dir()

    _new_process(monkeypatch)
    start = encoded_text_count()
    ok(["index", "build", "--model", model, "--corpus", beir / "corpus.jsonl", "--out", tmp_path / "idx"])
    assert encoded_text_count() - start == 0                      # every document came from the cache

    assert (tmp_path / "idx.embeddings").is_dir()          # the index keeps the vectors it took from the model's

    # a query-side adapter over the same encoder, promoted on the index: the documents keep their
    # vectors, and nothing is encoded again
    adapter = tmp_path / "adapter.npz"
    ok(["fit", "--beir", beir, "--method", "adapter", "--encoder", "fake-sentence-encoder", "--model", adapter,
        "--baseline-holdout", "none"])
    _new_process(monkeypatch)
    start = encoded_text_count()
    ok(["index", "promote", tmp_path / "idx", "--model", adapter, "--force"])
    assert encoded_text_count() - start == 0
    out = ok(["search", "--index", tmp_path / "idx", "--query", "parcel late", "--json"])
    assert "adapted" in json.loads(out)[0]["scoring"] or "adapter" in json.loads(out)[0]["scoring"]

    _new_process(monkeypatch)
    start = encoded_text_count()
    ok(["evaluate", "--model", model, "--corpus", beir / "corpus.jsonl", "--queries", beir / "queries.jsonl",
        "--qrels", beir / "qrels" / "test.tsv"])
    # only the test queries are new
    assert encoded_text_count() - start == len({queries[q] for q in test_queries} - documents - asked)


def test_the_cache_gives_the_vectors_a_fresh_encode_gives(tmp_path, monkeypatch):
    cls = register_sentence_encoder(monkeypatch)
    texts = [f"parcel {i} late delivery" for i in range(30)]
    fresh = cls("/fake/fake-sentence-encoder").fit().transform(texts)
    with encoders.embedding_cache(tmp_path / "cache"):
        cls("/fake/fake-sentence-encoder").fit().transform(texts)
        _new_process(monkeypatch)
        start = encoded_text_count()
        again = cls("/fake/fake-sentence-encoder").fit().transform(texts)
        assert encoded_text_count() == start
    assert np.allclose(again, fresh, atol=1e-6)


def test_the_cache_can_be_turned_off(tmp_path, monkeypatch):
    register_sentence_encoder(monkeypatch)
    monkeypatch.setenv("LEARNSIM_EMBEDDING_CACHE", "off")
    beir = write_beir_folder(tmp_path)
    ok(["fit", "--beir", beir, "--encoder", "fake-sentence-encoder", "--model", tmp_path / "m.npz",
        "--baseline-holdout", "none"])
    assert not (tmp_path / "m.embeddings").exists()
