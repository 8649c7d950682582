"""learnsim.distributed.search's collection vocabulary pass over texts whose terms hold a lone
surrogate (a custom token pattern keeps one, of text decoded with ``errors="surrogateescape"``):
the vocabulary is what learnsim.text.collection_vocabulary gives for the same texts on one
machine (its terms encoded with surrogatepass), where strict UTF-8 raised a UnicodeEncodeError.
Computed in this process (dask's synchronous scheduler): the pass is the same code on a cluster."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.bag", reason="learnsim.distributed needs the dask extra (pip install learnsim[dask])")

import dask  # noqa: E402
import dask.bag as db  # noqa: E402

from learnsim.distributed.search import _vocabulary_pass  # noqa: E402
from learnsim.text import TextVectorizer, collection_terms, collection_vocabulary  # noqa: E402

TEXTS = ["caf\udce9 noir", "plain tea", "caf\udce9 au lait", "x\udc80y tea", "lait chaud", "tea for two"]


def test_a_term_holding_a_lone_surrogate_is_counted_as_collection_vocabulary_counts_it():
    vec = TextVectorizer("tf", token_pattern=r"\S+").fit(TEXTS[:3])
    with dask.config.set(scheduler="synchronous"):
        stats = _vocabulary_pass(db.from_sequence(TEXTS, npartitions=3), vec, 2, None)
    whole = collection_vocabulary(vec, TEXTS)
    assert collection_terms(stats) == collection_terms(whole)
    assert {"caf\udce9", "x\udc80y"} <= set(collection_terms(stats))
    np.testing.assert_array_equal(stats["vocabulary"], whole["vocabulary"])
    np.testing.assert_array_equal(stats["vocabulary_offsets"], whole["vocabulary_offsets"])
    np.testing.assert_array_equal(stats["vocabulary_df"], whole["vocabulary_df"])
    assert int(stats["vocabulary_n_documents"]) == len(TEXTS)
    np.testing.assert_allclose(float(stats["vocabulary_avgdl"]), float(whole["vocabulary_avgdl"]), rtol=1e-12)
