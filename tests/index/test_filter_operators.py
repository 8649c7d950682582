"""Metadata filters with operators (issue 33, point 2): ``$eq $ne $gt $gte $lt $lte $in $nin
$exists $and $or $not`` and dotted paths, compiled to one SQLite WHERE.

Checked: 200 seeded random filters over 2,000 documents of random metadata (ints, floats, strs,
bools, None, missing fields, lists, nested dicts) give exactly the ids a pure-Python reading of
the filter gives (tests/filter_reference.py), in the unfiltered rank order; the same on the
approximate (ANN) search path at about 5 % and 50 % selectivity; a bool is not a number, as the
equality of before already had it; a missing field matches $ne, $nin and $not; more_like and
match take the operators; an unknown operator, an operand of the wrong type, a bad path and
nesting past MAX_FILTER_DEPTH are FilterErrors naming them; the deepest and the largest filters
allowed run within SQLite's parser and expression bounds; values are bound, never SQL.

The FILM models of tests/index_models.py (20 dimensions; its dense variant for the ANN path)
serve every index here: about 30 s for the module on a 2-core machine.
"""
from __future__ import annotations

import json
import random

import pytest

from filter_reference import collection, expected_ids, matches, random_filters
from index_models import corpus, model, near_duplicate
from test_index_batch import dense_film

from learnsim.index import FilterError, Index, MAX_FILTER_VALUES
from learnsim.index._store import (MAX_FILTER_CONDITIONS, MAX_FILTER_DEPTH, MAX_PATH_SEGMENTS, DocumentStore,
                                   check_filter)

QUERY = "w001 w002 w003 w120 w240"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(index, {id: metadata}, the ids in unfiltered rank order) of 2,000 documents."""
    texts, ids, meta = collection()
    index = Index.build(tmp_path_factory.mktemp("ops") / "idx", model("film"), texts, ids, meta)
    ranked = [h["id"] for h in index.search(QUERY, k=len(ids))]
    assert sorted(ranked) == sorted(ids)
    yield index, dict(zip(ids, meta)), ranked
    index.close()


def test_random_filters_match_the_python_reference(built):
    index, meta_of, ranked = built
    counts = []
    for f in random_filters(200, seed=33):
        got = [h["id"] for h in index.search(QUERY, k=len(ranked), filter=f)]
        want = expected_ids(f, ranked, meta_of)
        assert got == want, (f, len(got), len(want))
        counts.append(len(want))
    # the generator reaches empty, partial and full results
    assert min(counts) == 0 and max(counts) == len(ranked)
    assert sum(1 for c in counts if 0 < c < len(ranked)) >= 100


def test_a_batch_of_queries_takes_the_filter_as_one_query_does(built):
    index, meta_of, _ = built
    f = {"$or": [{"a": {"$gte": 1}}, {"m.x": {"$exists": True}}], "b": {"$ne": "a"}}
    queries = [QUERY, "w010 w011", "w300 w301 w302"]
    for q, hits in zip(queries, index.search(queries, k=50, filter=f)):
        assert [h["id"] for h in hits] == [h["id"] for h in index.search(q, k=50, filter=f)]
        assert hits and all(matches(f, meta_of[h["id"]]) for h in hits)


# --------------------------------------------------------------------- semantics, by hand
@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A DocumentStore of hand-made metadata: (store, the metadata in seq order)."""
    metas = [{"v": 1}, {"v": 1.0}, {"v": True}, {"v": False}, {"v": 0}, {"v": "1"}, {"v": None}, {},
             None, {"v": [1]}, {"v": {"w": 1}}, {"v": 2.5}, {"v": "b"}, {"v": "ab"},
             {"m": {"y": 2021, "n": {"z": "deep"}}}, {"m": {"y": 2019}}, {"m": 2021}, {"m": {"y": "2021"}}]
    s = DocumentStore(tmp_path_factory.mktemp("store") / "docs.sqlite")
    s.add([str(i) for i in range(len(metas))], ["t"] * len(metas),
          [json.dumps(m) if m is not None else None for m in metas])
    yield s, metas
    s.close()


def _found(store, f):
    s, metas = store
    got = sorted(seq - 1 for seq in s.seqs_matching(check_filter(f)))
    assert got == [i for i, m in enumerate(metas) if matches(f, m)], f
    return got


def test_a_bool_is_not_a_number_as_before(store):
    # the equality of before had it so: {"n": True} matched no integer (test_index_ids_filters)
    assert _found(store, {"v": 1}) == [0, 1]
    assert _found(store, {"v": True}) == [2]
    assert _found(store, {"v": 0}) == [4]
    assert _found(store, {"v": False}) == [3]
    assert _found(store, {"v": [True, 0]}) == [2, 4]
    assert _found(store, {"v": {"$gt": 0}}) == [0, 1, 11]          # not True
    assert _found(store, {"v": {"$lte": 0}}) == [4]                # not False
    assert _found(store, {"v": {"$in": [1, "1"]}}) == [0, 1, 5]
    with pytest.raises(FilterError, match=r"\$gt on 'v' compares a number .* or a str; got True"):
        check_filter({"v": {"$gt": True}})
    with pytest.raises(FilterError, match=r"\$lt on 'v' compares"):
        check_filter({"v": {"$lt": None}})


def test_a_missing_field_matches_the_negations_only(store):
    missing = [7, 8, 14, 15, 16, 17]
    assert _found(store, {"v": {"$exists": False}}) == missing
    assert set(missing) <= set(_found(store, {"v": {"$ne": 1}}))
    assert set(missing) <= set(_found(store, {"v": {"$nin": [1, "1", None]}}))
    assert set(missing) <= set(_found(store, {"$not": {"v": {"$gte": 1}}}))
    for f in ({"v": None}, {"v": {"$gt": -100}}, {"v": {"$lt": "zzz"}}, {"v": {"$in": [None, 1]}}):
        assert not set(missing) & set(_found(store, f)), f
    # null is there: it exists, equals None, and is no number
    assert 6 in _found(store, {"v": {"$exists": True}}) and _found(store, {"v": None}) == [6]


def test_comparisons_take_their_own_kind(store):
    assert _found(store, {"v": {"$gte": "a"}}) == [12, 13]       # strs only, by code point
    assert _found(store, {"v": {"$gt": "1", "$lt": "b"}}) == [13]
    assert _found(store, {"v": {"$gt": 1, "$lte": 2.5}}) == [11]
    # a list or a dict in the metadata equals nothing, yet exists
    assert 9 not in _found(store, {"v": {"$in": [1, "[1]"]}}) and 10 in _found(store, {"v": {"$exists": True}})


def test_dotted_paths_walk_nested_dicts_only(store):
    assert _found(store, {"m.y": {"$gte": 2020}}) == [14]          # not "2021", not m = 2021
    assert _found(store, {"m.y": "2021"}) == [17]
    assert _found(store, {"m.n.z": "deep"}) == [14]
    assert _found(store, {"m": 2021}) == [16]
    assert _found(store, {"v.w": 1}) == [10]
    assert 16 in _found(store, {"m.y": {"$exists": False}})       # through a number: missing
    assert _found(store, {"$or": [{"m.y": 2019}, {"m.n.z": {"$exists": True}}]}) == [14, 15]
    assert _found(store, {"$and": [{"m.y": {"$exists": True}}, {"$not": {"m.y": 2019}}]}) == [14, 17]


def test_values_are_bound_never_written_into_the_sql(store):
    s, _ = store
    hostile = "x') OR 1=1; DROP TABLE docs; --"
    assert _found(store, {"v": hostile}) == []
    assert _found(store, {"v": {"$nin": [hostile, '"', "'"]}}) == list(range(len(store[1])))
    assert s.count() == len(store[1])


def test_metadata_holding_a_nul_character_is_refused_by_name(tmp_path):
    """SQLite's JSON functions end a string at a NUL character: metadata {"v": "a\\x00b"} was
    stored, and the filter {"v": "a"} matched it ({"v": {"$gt": "a"}} did not). It is refused
    when written now, as a lone surrogate is; a backslash followed by "u0000" is no NUL."""
    texts, _, _, _ = corpus()
    index = Index.build(tmp_path / "idx", model("film"), texts[:20])
    for bad in ({"v": "a\x00b"}, {"m": {"x": ["ok", "\x00"]}}, {"k\x00": 1}):
        with pytest.raises(ValueError, match=r"metadata\[1\] holds a str with a NUL character"):
            index.add(["w001 w002", "w003 w004"], ids=["nul-a", "nul-b"], metadata=[{"v": "a"}, bad])
    assert len(index) == 20
    assert index.add(["w001 w002"], ids=["nul-c"], metadata=[{"v": "a\\u0000b", "w": "\\x00"}]) == ["nul-c"]
    assert index.document("nul-c")[1] == {"v": "a\\u0000b", "w": "\\x00"}
    assert [h["id"] for h in index.search("w001 w002", k=3, filter={"v": "a\\u0000b"})] == ["nul-c"]
    index.close()


def test_metadata_integers_beyond_64_bits_are_refused_by_name(tmp_path):
    """SQLite reads an integer beyond 64 bits in JSON as a float: metadata {"v": -2**63 - 1} was
    stored, and the filter {"v": -2**63} matched it while {"v": {"$lt": -2**63}} did not (2**64 + 1
    likewise). A filter refuses such an integer; metadata now does too, at any depth, and the
    largest 64-bit ones are stored and compared exactly."""
    texts, _, _, _ = corpus()
    index = Index.build(tmp_path / "idx", model("film"), texts[:20])
    for bad in ({"v": -2**63 - 1}, {"v": 2**64 + 1}, {"m": {"x": [1, 10**30]}}):
        with pytest.raises(ValueError, match=r"metadata\[1\] must hold JSON values only .*within 64 bits"):
            index.add(["w001 w002", "w003 w004"], ids=["big-a", "big-b"], metadata=[{"v": 1}, bad])
    assert len(index) == 20
    edges = {"lo": -2**63, "hi": 2**63 - 1}
    index.add(["w001 w002", "w003 w004"], ids=["edge-lo", "edge-hi"], metadata=[{"v": edges["lo"]}, {"v": edges["hi"]}])
    assert index.document("edge-hi")[1] == {"v": 2**63 - 1}
    found = {h["id"] for h in index.search("w001 w002", k=30, filter={"v": -2**63})}
    assert found == {"edge-lo"}
    found = {h["id"] for h in index.search("w001 w002", k=30, filter={"v": {"$gt": 2**63 - 2}})}
    assert found == {"edge-hi"}
    index.close()


def test_numpy_scalars_and_arrays_are_filter_values(store):
    """A filter of a DataFrame's values (np.int64, np.bool_, np.float32, df.col.unique()) was
    refused as not "an integer within 64 bits; got np.int64(1)"; ids and k took numpy integers.
    Each filter finds what its Python values find."""
    np = pytest.importorskip("numpy")
    s, _ = store
    for given, plain in (({"v": np.int64(1)}, {"v": 1}),
                         ({"v": np.bool_(True)}, {"v": True}),
                         ({"v": {"$gt": np.int32(0), "$lte": np.float32(2.5)}}, {"v": {"$gt": 0, "$lte": 2.5}}),
                         ({"v": {"$in": np.array([0, 2.5])}}, {"v": {"$in": [0, 2.5]}}),
                         ({"v": np.array(["b", "ab"])}, {"v": ["b", "ab"]}),
                         ({"v": {"$nin": np.array(["b"]), "$exists": np.bool_(True)}},
                          {"v": {"$nin": ["b"], "$exists": True}})):
        assert check_filter(given) == check_filter(plain)
        assert s.seqs_matching(check_filter(given)) == s.seqs_matching(check_filter(plain)) != []
    for bad in ({"v": np.uint64(2 ** 64 - 1)}, {"v": np.float64("nan")}, {"v": np.datetime64("2020-01-01")},
                {"v": np.array([[1]])}, {"v": {"$in": np.array([])}}):
        with pytest.raises(FilterError):
            check_filter(bad)


# --------------------------------------------------------------------- more_like, match
def test_more_like_and_match_take_operators(tmp_path):
    texts, _, ids, meta = corpus()
    dup = near_duplicate(texts[100], seed=100)
    index = Index.build(tmp_path / "pairs", model("film_pairs"), texts + [dup], ids + ["dup100"],
                        [dict(m, nested={"n": m["n"]}) for m in meta] + [{"topic": meta[100]["topic"], "n": 1000}])
    f = {"nested.n": {"$gte": 50}, "$not": {"half": "odd"}}
    hits = index.more_like("d100", k=20, filter=f)
    assert hits and "d100" not in {h["id"] for h in hits}
    assert all(h["metadata"]["nested"]["n"] >= 50 and h["metadata"]["half"] == "even" for h in hits)
    found = index.match(dup, k=5, filter={"n": {"$in": [100, 1000]}})
    assert {h["id"] for h in found} <= {"d100", "dup100"} and found
    assert index.match(dup, k=5, filter={"n": {"$gt": 5000}}) == []
    with pytest.raises(FilterError, match="unknown filter operator '\\$regex'"):
        index.more_like("d100", k=3, filter={"n": {"$regex": "1"}})
    with pytest.raises(FilterError, match="unknown filter operator '\\$near'"):
        index.match(dup, k=3, filter={"$near": 1})
    index.close()


# --------------------------------------------------------------------- refused by name
@pytest.mark.parametrize("bad, message", [
    ({"year": {"$regex": "^20"}}, r"unknown filter operator '\$regex' on 'year'"),
    ({"year": {"$gtee": 2020}}, r"unknown filter operator '\$gtee' on 'year'"),
    ({"year": {"$gte": 2020, "lt": 3}}, r"unknown filter operator 'lt' on 'year'"),
    ({"$nor": [{"a": 1}]}, r"unknown filter operator '\$nor'"),
    ({"a": {"$not": {"$gt": 1}}}, r"unknown filter operator '\$not' on 'a'.*negates a filter"),
    ({"a": {"$in": 3}}, r"\$in on 'a' takes a non-empty list of values; got 3"),
    ({"a": {"$nin": "ab"}}, r"\$nin on 'a' takes a non-empty list"),
    ({"a": {"$in": []}}, r"\$in on 'a' lists no value"),
    ({"a": {"$in": [[1]]}}, "must be a str"),
    ({"$and": {"a": 1}}, r"\$and takes a non-empty list of filters"),
    ({"$or": []}, r"\$or takes a non-empty list of filters"),
    ({"$and": [{}]}, r"a filter inside \$and, \$or or \$not must be a non-empty dict"),
    ({"$or": [3]}, r"must be a non-empty dict"),
    ({"$not": [{"a": 1}]}, r"\$not takes a filter \(a dict\)"),
    ({"a": {"$gt": [1, 2]}}, r"\$gt on 'a' compares a number"),
    ({"a": {"$gte": {"x": 1}}}, r"\$gte on 'a' compares a number"),
    ({"a": {"$eq": [1]}}, r"\$eq on 'a' takes one value"),
    ({"a": {"$ne": {"x": 1}}}, r"\$ne on 'a' takes one value"),
    ({"a": {"$exists": 1}}, r"\$exists on 'a' takes true or false; got 1"),
    ({"a": {"$gt": float("nan")}}, r"\$gt operand of 'a' is NaN: not a number JSON allows"),
    ({"a": {"$lt": 2 ** 64}}, r"\$lt on 'a' compares"),
    ({"a": {"$eq": "\ud800"}}, "must be a str"),
    # SQLite's JSON functions end a string at NUL: "a\x00b" was the filter "a"
    ({"a": "a\x00b"}, r"filter value of 'a' holds a NUL character"),
    ({"a": {"$nin": ["x", "\x00"]}}, r"filter value of 'a' holds a NUL character"),
    ({"a": {"$gte": "b\x00"}}, r"\$gte operand of 'a' holds a NUL character"),
    ({"a": {}}, "filter value of 'a'"),
    ({"a.": 1}, "field"), ({".a": 1}, "field"), ({"a..b": 1}, "field"), ({"a.b c": 1}, "field"),
    ({"a.b'": 1}, "field"), ({'a."b': 1}, "field"),
    ({".".join(["p"] * (MAX_PATH_SEGMENTS + 1)): 1}, f"at most {MAX_PATH_SEGMENTS}"),
    ({"a": {"$in": list(range(MAX_FILTER_VALUES))}, "b": {"$gt": 1}}, f"more than {MAX_FILTER_VALUES} values"),
    ({"$or": [{f"k{i}": {"$gt": i}} for i in range(MAX_FILTER_CONDITIONS)] + [{"a": {"$exists": True}}]},
     f"more than {MAX_FILTER_CONDITIONS} field conditions"),
])
def test_bad_filters_are_refused_by_name(built, bad, message):
    index = built[0]
    with pytest.raises(FilterError, match=message) as info:
        index.search(QUERY, k=3, filter=bad)
    assert isinstance(info.value, ValueError)


def _nested(depth, leaf=None):
    """A filter ``depth`` objects deep, alternating $and, $or and $not."""
    f = leaf or {"a": {"$gte": 0}}
    for d in range(depth - 1):
        f = [{"$and": [f, {"b": {"$ne": "x"}}]}, {"$or": [{"c": 1}, f]}, {"$not": f}][d % 3]
    return f


def _refusal(f):
    with pytest.raises(FilterError) as info:
        check_filter(f)
    return str(info.value)


def test_nesting_is_bounded(built):
    index, meta_of, ranked = built
    deepest = _nested(MAX_FILTER_DEPTH)
    got = [h["id"] for h in index.search(QUERY, k=len(ranked), filter=deepest)]
    assert got == expected_ids(deepest, ranked, meta_of)
    with pytest.raises(FilterError, match=f"nests deeper than {MAX_FILTER_DEPTH} levels"):
        index.search(QUERY, k=3, filter=_nested(MAX_FILTER_DEPTH + 1))
    # hostile depth is refused before any recursion runs out
    hostile = {"a": 1}
    for _ in range(50_000):
        hostile = {"$not": hostile}
    with pytest.raises(FilterError, match="nests deeper"):
        check_filter(hostile)
    listed = [1]
    for _ in range(50_000):
        listed = [listed]
    with pytest.raises(FilterError, match="must be a str"):
        check_filter({"a": {"$in": listed}})


def test_the_largest_filters_allowed_run_in_sqlite(built):
    """The bounds keep SQLite within its parser stack (about 100 nested parentheses in 3.40) and
    its expression depth (1,000): the deepest nesting with a wide list at every level, and
    MAX_FILTER_CONDITIONS conditions side by side in an $or and in an $and."""
    index, meta_of, ranked = built
    rng = random.Random(5)

    def wide(depth):
        # a filter object at `depth`: 40 conditions in its list, and one filter nested deeper
        kids = [{"a": {"$in": [rng.randrange(5), "b"]}, "m.n.z": {"$nin": [True, None]}} for _ in range(40)]
        if depth % 3 == 0 and depth + 2 < MAX_FILTER_DEPTH:
            kids.append({"$not": wide(depth + 2)})
        elif depth + 1 < MAX_FILTER_DEPTH:
            kids.append(wide(depth + 1))
        return {"$and" if depth % 2 else "$or": kids}

    deepest = wide(1)
    assert check_filter(deepest) and "nests deeper" in _refusal({"$not": deepest})
    for f in (deepest, {"$or": [{f"k{i}": i} for i in range(MAX_FILTER_CONDITIONS - 1)] + [{"a": 1}]},
              {f"k{i}": {"$ne": i} for i in range(MAX_FILTER_CONDITIONS)}):
        got = [h["id"] for h in index.search(QUERY, k=len(ranked), filter=f)]
        assert got == expected_ids(f, ranked, meta_of)


# --------------------------------------------------------------------- the ANN path
@pytest.fixture(scope="module")
def ann_pair(tmp_path_factory):
    """(approximate index, exact index, {id: metadata}) of 1,200 documents; the ANN backends
    are an extra: skipped without them."""
    pytest.importorskip("learnsim.ann")
    from learnsim.ann import available_backends
    from learnsim.index import _ann

    backends = available_backends()
    if not backends:
        pytest.skip("neither faiss-cpu nor usearch is installed (pip install learnsim[ann])")
    backend = next(b for b in _ann.AUTO_BACKENDS + tuple(backends) if b in backends)
    texts, ids, meta = collection(1200, seed=11)
    root = tmp_path_factory.mktemp("ops-ann")
    # dense rows only (the shared FILM falls back to the input cosine: sparse rows, always exact)
    approx = Index.build(root / "ann", dense_film(), texts, ids, meta, ann={"backend": backend, "min_rows": 500})
    exact = Index.build(root / "exact", dense_film(), texts, ids, meta, ann="exact")
    assert approx.info()["search"]["mode"] == "approximate"
    yield approx, exact, dict(zip(ids, meta))
    approx.close()
    exact.close()


@pytest.mark.parametrize("share", [0.05, 0.5])
def test_the_ann_path_takes_the_filter(ann_pair, share):
    approx, exact, meta_of = ann_pair
    # about `share` of the documents, through operators, a path and a negation
    filters = [{"u": {"$lt": share}},
               {"$or": [{"u": {"$lt": share / 2}}, {"$and": [{"u": {"$gte": 1 - share / 2}}, {"$not": {"nope": 1}}]}]},
               {"u": {"$gte": share / 3, "$lt": share * 4 / 3}, "m.zz": {"$exists": False}}]
    texts = collection(1200, seed=11)[0]
    found = total = 0
    for f in filters:
        allowed = {i for i, m in meta_of.items() if matches(f, m)}
        assert abs(len(allowed) / len(meta_of) - share) < 0.08
        for q in texts[3:1200:150]:
            got, ref = approx.search(q, 10, filter=f), exact.search(q, 10, filter=f)
            assert len(got) == len(ref) == 10
            assert {h["id"] for h in got} <= allowed
            exact_scores = {h["id"]: h["score"] for h in exact.search(q, len(allowed), filter=f)}
            assert set(exact_scores) == allowed
            for h in got:
                assert h["score"] == pytest.approx(exact_scores[h["id"]], abs=1e-5)
            if share < 0.1:
                # under MIN_ALLOWED_FRACTION the segment is scanned exactly: the same hits
                assert [h["id"] for h in got] == [h["id"] for h in ref]
            found += len({h["id"] for h in got} & {h["id"] for h in ref})
            total += len(ref)
    assert found / total >= 0.85


def test_each_list_and_each_scalar_is_its_own_parameter():
    """SQLite evaluates json_extract of a parameter again for every row inside a CASE: when the
    lists and paths shared JSON arrays of 64, each row parsed the whole filter once per condition,
    and 32 lists of 310 long strings took 22 s on 19,000 documents. Each list is now bound alone
    (read by json_each) and each scalar as a one-element array: a row parses only what it tests."""
    from learnsim.index._store import _where

    lists = [[f"{i}-{j}-" + "x" * 50 for j in range(310)] for i in range(32)]
    tree = check_filter({"$or": [{"$or": [{"label": {"$in": lst}} for lst in lists[i:i + 10]]} for i in (0, 10, 20)]
                         + [{"label": {"$in": lst}} for lst in lists[30:]] + [{"year": {"$gte": 2020}}]})
    sql, args = _where(tree)
    bound = {name: json.loads(value) for name, value in args.items()}
    arrays = [v for v in bound.values() if len(v) > 1]
    assert sorted(map(tuple, arrays)) == sorted(map(tuple, lists))          # each list alone
    assert all(len(v) == 1 for v in bound.values() if v not in arrays)      # paths and values one each
    assert len(bound) == len(lists) + 3                                      # "$.label", "$.year", 2020: once each
    assert sql.count("json_each(:p") == len(lists)


@pytest.mark.parametrize("bad, message", [
    ({"x": float("nan")}, "filter value of 'x' is NaN: not a number JSON allows"),
    ({"x": [1, float("nan")]}, "filter value of 'x' is NaN"),
    ({"x": {"$eq": float("inf")}}, "$eq operand of 'x' is Infinity"),
    ({"x": {"$lte": float("nan")}}, "$lte operand of 'x' is NaN"),
    ({"x": {"$gt": float("-inf")}}, "$gt operand of 'x' is -Infinity"),
    ({"x": {"$not_contains": float("nan")}}, "$not_contains operand of 'x' is NaN"),
])
def test_nan_and_infinity_are_named(bad, message):
    """NaN and infinities were refused as 'must be a str, a finite number ...; got nan', a value
    the caller (a float from a column with gaps) did not see named; the refusal says what it is."""
    with pytest.raises(FilterError) as caught:
        check_filter(bad)
    assert message in str(caught.value), str(caught.value)
