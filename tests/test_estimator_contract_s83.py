"""scikit-learn's estimator contract for the public estimators that tests/test_api.py's registry
does not hold (the text, pair, weighting and adapter estimators), and what a scikit-learn or
sentence-transformers user expects of a fitted :class:`learnsim.Pipeline` (helper apiwalk's walk
of the Python API): clone, get_params/set_params, a short repr, fit returning self, NotFittedError
naming fit before it, parameters checked in fit and not in __init__, pickle and joblib keeping the
scores, tags that say what fit takes, every parameter documented, one text never read as its
characters, and one Pipeline scored from 8 threads at once as serially.
"""
from __future__ import annotations

import inspect
import io
import pickle
import re
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

import learnsim
from learnsim.adapter import QueryAdapter
from learnsim.datasets import make_clustered_corpus
from learnsim.film import FILM
from learnsim.film.hybrid import HybridEmbedding
from learnsim.linklearn import LearnedBM25, LinkLearn
from learnsim.matching import PairClassifierMatcher, PairScoreRegressor, PairwiseKNNMatcher, ThresholdMatcher
from learnsim.supervision import Links, clusters_to_triplets
from learnsim.text import TextVectorizer
from learnsim.text.bm25 import BM25

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(scope="module")
def d():
    c = make_clustered_corpus(n_clusters=6, docs_per_cluster=15, random_state=0)
    texts, y = [str(t) for t in c.data], np.asarray(c.target)
    vec = TextVectorizer().fit(texts)
    X = vec.transform(texts)
    counts = TextVectorizer("tf").fit_transform(texts)
    triplets = clusters_to_triplets(y, 400, random_state=0)
    pairs = np.array([(i, j) for i in range(0, 90, 3) for j in (i + 1, (i + 20) % 90)])
    labels = (y[pairs[:, 0]] == y[pairs[:, 1]]).astype(int)
    edges = np.array([(i, j) for i in range(90) for j in range(90) if i != j and y[i] == y[j] and (i + j) % 5 == 0])
    links = Links.from_edges(edges, n_items=90)
    film = FILM(n_components=4, random_state=0).fit(X, triplets)
    rng = np.random.default_rng(0)
    E = rng.normal(size=(12, 5))
    adapter_triplets = [(6 + i, i, j) for i in range(3) for j in range(6) if j != i]
    return dict(texts=texts, y=y, vec=vec, X=X, counts=counts, triplets=triplets, pairs=pairs, labels=labels,
                links=links, edges=edges, film=film, E=E, adapter_triplets=adapter_triplets)


def _dense(a):
    return a.toarray() if sp.issparse(a) else np.asarray(a)


# name: (make, fit, use after fit, a parameter value fit must refuse)
ESTIMATORS = {
    "TextVectorizer": (lambda d: TextVectorizer(), lambda e, d: e.fit(d["texts"]),
                       lambda e, d: e.transform(d["texts"][:5]), {"weighting": "bogus"}),
    "BM25": (lambda d: BM25(), lambda e, d: e.fit(d["counts"]), lambda e, d: e.score(d["counts"][:5]), {"k1": -1}),
    "LinkLearn": (lambda d: LinkLearn(max_iter=300, baseline_holdout=None, random_state=0), lambda e, d: e.fit(d["counts"], d["links"]),
                  lambda e, d: e.transform(d["counts"][:5]), {"learning_rate": -1}),
    "LearnedBM25": (lambda d: LearnedBM25(), lambda e, d: e.fit(d["counts"], d["links"]),
                    lambda e, d: e.transform(d["counts"][:5]), {"max_queries": -1}),
    "ThresholdMatcher": (lambda d: ThresholdMatcher(d["film"]), lambda e, d: e.fit(d["X"], d["pairs"], d["labels"]),
                         lambda e, d: e.predict_proba(d["pairs"][:5], X=d["X"]), {"metric": "bogus"}),
    "PairwiseKNNMatcher": (lambda d: PairwiseKNNMatcher(d["film"]),
                           lambda e, d: e.fit(d["X"], d["pairs"], d["labels"]),
                           lambda e, d: e.predict(d["pairs"][:5], X=d["X"]), {"k": -2}),
    "PairClassifierMatcher": (lambda d: PairClassifierMatcher(vectorizer=d["vec"], C=1.0),
                              lambda e, d: e.fit(d["texts"], d["pairs"], d["labels"]),
                              lambda e, d: e.predict_proba(d["pairs"][:5], X=d["texts"]), {"C": -1}),
    "PairScoreRegressor": (lambda d: PairScoreRegressor(vectorizer=d["vec"], alpha=1.0),
                           lambda e, d: e.fit(d["texts"], d["pairs"], d["labels"].astype(float)),
                           lambda e, d: e.predict(d["pairs"][:5], X=d["texts"]), {"alpha": -1}),
    "HybridEmbedding": (lambda d: HybridEmbedding(d["film"]), lambda e, d: e.fit(d["X"]),
                        lambda e, d: e.transform(d["X"][:5]), {"input_weight": 7}),
    "QueryAdapter": (lambda d: QueryAdapter(alpha=0.01), lambda e, d: e.fit(d["E"], d["adapter_triplets"]),
                     lambda e, d: e.similarity(d["E"][6:], d["E"][:6]), {"alpha": -1}),
}


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_clone_params_and_a_short_repr(d, name):
    make = ESTIMATORS[name][0]
    est = make(d)
    params = est.get_params(deep=False)
    copy = clone(est)
    assert copy is not est and type(copy) is type(est)
    assert repr(copy.get_params(deep=False)) == repr(params)
    assert make(d).set_params(**params).get_params(deep=False).keys() == params.keys()
    text = repr(est)
    assert "\n" not in text and len(text) <= 120, text
    with pytest.raises(ValueError, match="bogus_name"):
        est.set_params(bogus_name=1)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_unfitted_use_is_a_not_fitted_error_naming_fit(d, name):
    make, fit, use, _ = ESTIMATORS[name]
    with pytest.raises(NotFittedError, match="fit"):
        use(make(d), d)
    # a clone of a fitted estimator is unfitted again
    with pytest.raises(NotFittedError, match="fit"):
        use(clone(fit(make(d), d)), d)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_parameters_are_checked_in_fit_not_in_init(d, name):
    make, fit, _, bad = ESTIMATORS[name]
    est = make(d).set_params(**bad)          # scikit-learn's rule: __init__ and set_params only store
    assert est.get_params()[next(iter(bad))] == next(iter(bad.values()))
    with pytest.raises(ValueError, match=next(iter(bad))):
        fit(est, d)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_fit_returns_self_and_pickle_and_joblib_keep_the_scores(d, name):
    make, fit, use, _ = ESTIMATORS[name]
    est = make(d)
    assert fit(est, d) is est
    want = _dense(use(est, d))
    buffer = io.BytesIO()
    joblib.dump(est, buffer)
    buffer.seek(0)
    for again in (pickle.loads(pickle.dumps(est)), joblib.load(buffer)):
        np.testing.assert_array_equal(_dense(use(again, d)), want)


# what each estimator's fit takes as X (scikit-learn's tags: what its checks and meta-estimators read);
# LinkLearn's and LearnedBM25's: tests/test_estimator_contract_s84.py
TEXT_INPUT = {"TextVectorizer", "PairClassifierMatcher", "PairScoreRegressor"}
SPARSE_INPUT = {"BM25", "ThresholdMatcher", "PairwiseKNNMatcher", "HybridEmbedding"}


@pytest.mark.parametrize("name", sorted(TEXT_INPUT | SPARSE_INPUT))
def test_tags_say_what_fit_takes(d, name):
    make, fit, use, _ = ESTIMATORS[name]
    tags = make(d).__sklearn_tags__()
    if name in TEXT_INPUT:
        # a list of str, as scikit-learn's CountVectorizer says it: not a 2-D array
        assert tags.input_tags.string and not tags.input_tags.two_d_array
    else:
        assert tags.input_tags.sparse
        if name == "ThresholdMatcher":                         # and it is so: a sparse X fits
            assert fit(make(d), d).predict(d["pairs"][:3], X=d["X"]).shape == (3,)


def test_the_relative_metric_says_it_takes_sparse_input(d):
    from learnsim.relative import RelativeComparisonMetric

    est = RelativeComparisonMetric(random_state=0, baseline_holdout=None)
    assert est.__sklearn_tags__().input_tags.sparse
    assert est.fit(d["X"], d["triplets"]).pairwise_distances(d["X"][:3]).shape == (3, 3)


def test_bm25_says_it_takes_counts(d):
    assert BM25().__sklearn_tags__().input_tags.positive_only


ALL_PUBLIC = ["learnsim.text:TextVectorizer", "learnsim.text.bm25:BM25", "learnsim.mcd:MinimumClusterDistortion",
              "learnsim.film:FILM", "learnsim.relative:RelativeComparisonMetric", "learnsim.linklearn:LinkLearn",
              "learnsim.linklearn:LearnedBM25", "learnsim.matching:ThresholdMatcher",
              "learnsim.matching:PairwiseKNNMatcher", "learnsim.matching:PairClassifierMatcher",
              "learnsim.matching:OnCollection", "learnsim.matching:Reranker", "learnsim.film.hybrid:HybridEmbedding",
              "learnsim.adapter:QueryAdapter", "learnsim.text.encoders:SentenceEncoder",
              "learnsim.text.encoders:Model2VecEncoder", "learnsim.pipeline:Pipeline"]


def _documented(doc):
    section = re.search(r"Parameters\n-+\n(.*?)(\n\S[^\n]*\n-+\n|\Z)", doc, re.S)
    names = set()
    for line in (section.group(1) if section else "").splitlines():
        head = re.match(r"^(\w[\w, ]*?)\s*(:|$)", line)
        if head:
            names |= {n.strip() for n in head.group(1).split(",")}
    return names


@pytest.mark.parametrize("path", ALL_PUBLIC)
def test_every_parameter_of_init_is_documented(path):
    import importlib

    module, name = path.split(":")
    cls = getattr(importlib.import_module(module), name)
    params = [p.name for p in inspect.signature(cls.__init__).parameters.values()
              if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    missing = [p for p in params if p not in _documented(inspect.getdoc(cls) or "")]
    assert not missing, f"{path}'s Parameters section lacks {missing}"


def test_the_documentation_check_can_fail():
    assert _documented("Summary.\n\nParameters\n----------\nalpha : float\n    x\nbeta, gamma\n    y\n\n"
                       "Returns\n-------\nint\n") == {"alpha", "beta", "gamma"}


# ------------------------------------------------------------------------------------ Pipeline
@pytest.fixture(scope="module")
def models(d):
    texts, y = d["texts"], list(d["y"])
    pairs = [(texts[i], texts[j], int(y[i] == y[j])) for i in range(0, 90, 2) for j in (i + 1, (i + 17) % 90)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = {"mcd": learnsim.fit(texts, clusters=y, baseline_holdout=None),
                  "film-pairs": learnsim.fit(pairs=pairs),
                  "linklearn": learnsim.fit(texts, links=[tuple(map(int, e)) for e in d["edges"]],
                                            baseline_holdout=None, max_iter=2000)}
    # the three families of scoring: a distance, a cosine with a duplicate rule, term weights
    assert [m.method for m in fitted.values()] == ["MinimumClusterDistortion", "FILM", "LinkLearn"]
    assert fitted["film-pairs"].matcher is not None
    # and BM25, what many fits end as (its idf kept per collection)
    from learnsim._baseline_models import baseline_pipeline

    fitted["bm25"] = baseline_pipeline("bm25", texts)
    return fitted


def test_a_pipeline_is_not_cloned_into_an_unfitted_one(models):
    """A Pipeline holds fitted parts (learnsim.fit makes it): clone refuses it with scikit-learn's
    TypeError naming get_params, and copy.deepcopy or pickle copy it."""
    with pytest.raises(TypeError, match="get_params"):
        clone(models["mcd"])


@pytest.mark.parametrize("pair", [("how do i learn python", "learning python fast"),
                                  ["how do i learn python", "learning python fast"]])
def test_match_refuses_one_pair_given_without_its_list(models, pair):
    """model.match(("a", "b")), the classic mistake: it said "pairs[0] must be a tuple (text_a,
    text_b); got 'how do i learn python'", a first text read as a pair."""
    with pytest.raises(TypeError, match=r"single pair.*\[\(text_a, text_b\)\]"):
        models["film-pairs"].match(pair)
    assert len(models["film-pairs"].match([tuple(pair)])) == 1


@pytest.mark.parametrize("kind", ["mcd", "film-pairs", "linklearn"])
def test_every_form_of_a_list_of_texts_gives_the_same_answer_and_a_str_is_never_characters(models, d, kind):
    import pandas as pd

    model, texts = models[kind], d["texts"]
    queries, corpus = texts[:3], texts[:20]
    want = model.similarity(queries, corpus)
    assert want.shape == (3, 20) and want.dtype == np.float64
    for form in (tuple, np.array, lambda t: pd.Series(t, index=range(100, 100 + len(t)))):
        np.testing.assert_array_equal(model.similarity(form(queries), form(corpus)), want)
    assert model.search(tuple(queries), corpus, k=3) == model.search(queries, corpus, k=3)
    # one str query is one text (search), or refused where a list is the argument
    assert model.search(texts[0], corpus, k=3) == model.search([texts[0]], corpus, k=3)[0]
    for call in (lambda: model.encode(texts[0]), lambda: model.similarity(texts[0], corpus),
                 lambda: model.search(queries, texts[0], k=3)):
        with pytest.raises(TypeError, match="single str"):
            call()
    # a generator has no length to check against: refused by name, not read half-way
    with pytest.raises(TypeError, match="got generator"):
        model.encode(t for t in queries)


@pytest.mark.parametrize("kind", ["mcd", "film-pairs", "linklearn", "bm25"])
def test_one_pipeline_scored_from_8_threads_gives_the_serial_answers(models, d, kind):
    texts = d["texts"]
    model = pickle.loads(pickle.dumps(models[kind]))       # fresh: its scorer and caches built under the race
    queries = [t[:60] for t in texts[::5]]

    def work(t):
        corpus = texts[t % 3:]          # three collections: each thread's statistics its own
        out = [model.search(queries, corpus, k=5), model.similarity(queries, corpus), _dense(model.encode(queries))]
        if model.matcher is not None:
            out.append(model.match([(q, texts[0]) for q in queries]))
        return out

    serial = [work(t) for t in range(8)]
    model = pickle.loads(pickle.dumps(models[kind]))
    start = threading.Barrier(8)

    def together(t):
        start.wait(timeout=60)
        return work(t)

    for _ in range(2):
        with ThreadPoolExecutor(8) as pool:
            got = list(pool.map(together, range(8)))
        for t in range(8):
            assert got[t][0] == serial[t][0]
            np.testing.assert_array_equal(got[t][1], serial[t][1])
            np.testing.assert_array_equal(got[t][2], serial[t][2])
            assert got[t][3:] == serial[t][3:]


@pytest.mark.parametrize("form, words", [("dataframe", r"DataFrame.*column names.*df\['body'\]"),
                                         ("dict", r"dict.*keys"), ("set", r"set.*no order")])
@pytest.mark.parametrize("call", ["fit", "transform"])
def test_a_text_vectorizer_never_reads_a_table_or_a_dict_as_its_names(d, form, words, call):
    """TextVectorizer().fit(df) read the DataFrame's column names as the documents (one
    document, 'body', or with a 1-letter name 'empty vocabulary'), transform(df) gave one row
    for the whole table, a dict its keys and a set its texts in the hash seed's order: now a
    TypeError saying what to pass."""
    import pandas as pd

    texts = d["texts"][:6]
    given = {"dataframe": pd.DataFrame({"body": texts}), "dict": dict.fromkeys(texts, 0), "set": set(texts)}[form]
    vec = TextVectorizer() if call == "fit" else TextVectorizer().fit(texts)
    with pytest.raises(TypeError, match=words):
        getattr(vec, call)(given)
    # what they should have passed is read as a list
    assert TextVectorizer().fit(pd.Series(texts)).transform(list(dict.fromkeys(texts))).shape[0] == 6


def test_dir_of_the_package_lists_every_public_name():
    """dir(learnsim) left out Pipeline, which the package gives on first use (so learnsim.Pip<Tab>
    completed nothing in IPython), while its subpackages list their lazy names."""
    assert set(learnsim.__all__) <= set(dir(learnsim))
    assert {"fit", "load", "set_progress", "__version__"} <= set(dir(learnsim))


def test_a_pipeline_of_unfitted_parts_is_refused_when_made_naming_the_part(d):
    """Pipeline(TextVectorizer(), FILM()) was made, and every search, encode and save then said
    "This TextVectorizer instance is not fitted yet. Call 'fit'", a method a Pipeline does not
    have: now NotFittedError when it is made, naming the part and learnsim.fit."""
    from learnsim.pipeline import Pipeline

    with pytest.raises(NotFittedError, match=r"vectorizer \(TextVectorizer\) is not fitted.*learnsim\.fit"):
        Pipeline(TextVectorizer(), FILM())
    with pytest.raises(NotFittedError, match=r"metric \(FILM\) is not fitted.*learnsim\.fit"):
        Pipeline(d["vec"], FILM())
    assert Pipeline(d["vec"], d["film"]).similarity(["a query"], d["texts"][:4]).shape == (1, 4)
