"""A long document's row bytes, digest and text key built a piece at a time
(learnsim.index._row_pieces) are those built whole; a build of a long one-line document keeps it
whole and finds it (the pieces made small here)."""
import hashlib

import numpy as np
import pytest

from learnsim.index import _row_pieces, _store


@pytest.fixture
def small_pieces(monkeypatch):
    monkeypatch.setattr(_row_pieces, "CHUNK", 5)


TEXTS = ['plain words here and there', 'quote " back\\slash \n new\tline \x01 ctl', 'naïve café 東京 \ud83d\ude00 x',
         'lone \udc80 surrogate and emoji 😀' * 3, 'a' * 23]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("meta", [None, '{"k": "v \\"q\\""}'])
def test_pieces_are_the_row_bytes(small_pieces, text, meta):
    pieces = _row_pieces.long_row_pieces("id-\u00e9\"", text, meta)
    assert pieces is not None
    whole = _store.row_bytes("id-\u00e9\"", text, meta)
    assert b"".join(pieces) == whole
    assert b"".join(_row_pieces.utf8_pieces(text)) == text.encode("utf-8", "surrogatepass")
    assert _store.row_digest("id-\u00e9\"", text, meta) == hashlib.blake2b(whole, digest_size=16).hexdigest()
    assert _store.text_key(text) == hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def test_a_long_document_is_stored_and_found_whole(tmp_path, monkeypatch):
    from learnsim import fit
    from learnsim.index import Index
    from learnsim.text import _term_stream

    monkeypatch.setattr(_row_pieces, "CHUNK", 1000)
    monkeypatch.setattr(_term_stream, "STREAM_CHARS", 1000)
    monkeypatch.setattr(_term_stream, "BATCH", 100)
    rng = np.random.default_rng(0)
    words = ["w%d" % i for i in range(300)]
    labels = [i % 5 for i in range(100)]
    texts = [" ".join(rng.choice(words, 20)) + f" topic{lab} kind{lab}" for lab in labels]
    pipe = fit(texts, clusters=labels)
    long_text = " ".join(rng.choice(words, 20_000)) + ' "quoted" \\ topic3 naïve end'
    docs = texts[:50] + [long_text]
    idx = Index.build(tmp_path / "ix", pipe, docs, ids=[f"d{i}" for i in range(len(docs))])
    try:
        report = idx.verify()
        assert report["ok"], report["damaged"]
        hits = idx.search(long_text[:2000], k=3)
        assert hits[0]["id"] == "d50" and hits[0]["text"] == long_text
    finally:
        idx.close()
