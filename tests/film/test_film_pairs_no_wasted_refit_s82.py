"""A FILM fit on pairs whose search check ends as the strongest baseline saves that baseline's
model: the FILM fitted again on every pair was never read (about 40 % of such a fit's time)."""
import contextlib
import warnings

import numpy as np

import learnsim
import learnsim.fitting

from retrieval_fakes import nickname_collection


def _stages(monkeypatch):
    seen = []
    real = learnsim.fitting.stage

    @contextlib.contextmanager
    def recording(name, *args, **kwargs):
        seen.append(name)
        with real(name, *args, **kwargs):
            yield

    monkeypatch.setattr(learnsim.fitting, "stage", recording)
    return seen


def _fit(docs, train, **options):
    rows = [(q, docs[d], 1) for q, d in train]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return learnsim.fitting.fit(pairs=rows, corpus=docs, method="film", **options)


def test_a_fit_that_ends_as_the_baseline_does_not_fit_film_again(monkeypatch):
    docs, train, warm, cold = nickname_collection(seed=0)
    seen = _stages(monkeypatch)
    result = _fit(docs, train)
    assert result.report["model"] == "bm25"
    assert "FILM: learning the metric from every pair" not in seen
    # the model saved is the baseline's, as before: it ranks as BM25 does
    queries = [q for q, _ in warm + cold][:20]
    from learnsim.baseline import LexicalBaselines

    lex = LexicalBaselines(docs)
    expected = lex.scores("bm25", lex.query_counts(queries))
    assert np.allclose(result.pipeline.similarity(queries, docs), expected, rtol=1e-5, atol=1e-5)


def test_an_unchecked_fit_still_learns_from_every_pair(monkeypatch):
    docs, train, _, _ = nickname_collection(seed=0)
    seen = _stages(monkeypatch)
    result = _fit(docs, train, baseline_holdout=None)
    assert type(result.pipeline.metric).__name__ == "FILM"
    assert any(name.startswith("FILM: learning the metric from") for name in seen)
