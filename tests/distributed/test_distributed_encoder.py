"""learnsim.distributed over a model of a pre-trained sentence encoder (Pipeline.from_encoder):
a DistributedIndex of it gives the hits of a learnsim.index.Index over the same texts, and
``vectorize`` gives the encoder's rows as dense blocks. Encoders have no ``n_features_out_``; the
build failed with an AttributeError inside a worker task. Run in this process (the synchronous
and threaded schedulers): the fake encoders are test classes a worker process could not import.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.bag", reason="learnsim.distributed needs the dask extra (pip install learnsim[dask])")

import dask  # noqa: E402
import dask.bag as db  # noqa: E402

from encoder_fakes import HashedWordEncoder, OnnxHashedEncoder, _hashed_sentence_encoder, register, topic_texts  # noqa: E402
from learnsim.distributed import DistributedIndex, vectorize  # noqa: E402
from learnsim.index import Index  # noqa: E402
from learnsim.pipeline import Pipeline  # noqa: E402


def _encoders(monkeypatch):
    """A SentenceEncoder (its memo and checks, hashed words for a network) and a plain object
    with transform and embedding_dim_; their classes resolve while the test runs (the index's
    model file is read back)."""
    import learnsim.text.encoders as encoders

    register(monkeypatch)
    cls = _hashed_sentence_encoder()
    monkeypatch.setattr(encoders, "HashedSentenceEncoder", cls, raising=False)
    return {"sentence-encoder": cls("/fake/hashed-sentences").fit(), "custom-object": HashedWordEncoder()}


@pytest.mark.parametrize("kind", ["sentence-encoder", "custom-object"])
@pytest.mark.parametrize("scheduler", ["synchronous", "threads"])
def test_an_encoder_model_indexes_as_a_single_index(kind, scheduler, tmp_path, monkeypatch):
    texts, _ = topic_texts(per_topic=10)
    model = Pipeline.from_encoder(_encoders(monkeypatch)[kind])
    one = Index.build(tmp_path / "one", model, texts)
    queries = [texts[0], texts[17], "cat dog rain", "football team score"]
    with dask.config.set(scheduler=scheduler):
        bag = db.from_sequence(texts, npartitions=3)
        dist = DistributedIndex.build(tmp_path / "dist", model, bag)
        assert len(dist) == len(texts) and dist.scoring == one.scoring == "encoder cosine"
        found = dist.search(queries, k=5)
        again = DistributedIndex.open(tmp_path / "dist").search(queries[2], k=3)
    for a, b in zip(found, one.search(queries, k=5)):
        assert [h["id"] for h in a] == [h["id"] for h in b]
        np.testing.assert_allclose([h["score"] for h in a], [h["score"] for h in b], rtol=0, atol=1e-6)
    assert [h["id"] for h in again] == [h["id"] for h in one.search(queries[2], k=3)]
    one.close()


def test_vectorize_gives_an_encoders_rows_as_dense_blocks():
    texts, _ = topic_texts(per_topic=4)
    encoder = HashedWordEncoder()
    with dask.config.set(scheduler="synchronous"):
        X = vectorize(db.from_sequence(texts, npartitions=2), Pipeline.from_encoder(encoder))
        blocks = [X.blocks[i].compute() for i in range(X.numblocks[0])]
    assert X.shape == (len(texts), encoder.embedding_dim_)
    assert all(isinstance(b, np.ndarray) and b.dtype == np.float64 for b in blocks)
    np.testing.assert_allclose(np.vstack(blocks), encoder.transform(texts), atol=1e-6)


def test_an_encoder_that_drops_rows_on_a_worker_is_named():
    class Dropping(HashedWordEncoder):
        """Right on the two probe sentences, one row short on a partition."""

        def transform(self, texts):
            E = super().transform(texts)
            return E if len(E) <= 2 else E[:-1]

    texts, _ = topic_texts(per_topic=3)
    with dask.config.set(scheduler="synchronous"), \
            pytest.raises(ValueError, match=r"partition [01]: the encoder Dropping .*shape \(5, 24\) for 6 texts"):
        vectorize(db.from_sequence(texts, npartitions=2), Dropping()).compute()


def test_an_onnx_encoders_model_vectorizes_on_worker_processes(monkeypatch):
    # the encoder crosses to each worker process by pickle: under an ONNX backend its session did
    # not pickle and the computation failed; now it travels as its folder and settings and each
    # worker loads the model (hashed words here, a class the workers import from encoder_fakes)
    pytest.importorskip("distributed", reason="a cluster of worker processes needs dask.distributed")
    from dask_cluster import local_client

    register(monkeypatch)
    encoder = OnnxHashedEncoder("/fake/onnx-words", backend="onnx").fit()
    texts, _ = topic_texts(per_topic=3)
    expected = encoder.transform(texts)
    clients = local_client()
    client = next(clients)
    try:
        X = vectorize(db.from_sequence(texts, npartitions=3), Pipeline.from_encoder(encoder), client=client)
        got = client.compute(X, sync=True)
        pids = client.run(lambda: __import__("os").getpid())
    finally:
        next(clients, None)
    assert len(pids) == 2 and __import__("os").getpid() not in pids.values()
    np.testing.assert_allclose(got, expected, atol=1e-6)
