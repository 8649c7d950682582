"""A condition on a metadata field that no live document holds is answered from the live
documents' top keys (kept with the filters' rows, index._filter_rows) without a pass over the
metadata: {"Topic1": 1}, {"Topic1": 2}, ... each cost the filter's full SQL pass (about 120 ms
at 50,000 documents) though its answer was known. The answers are the SQL path's, for every
operator, under $not, $and and $or, next to held fields, deletes included."""
from __future__ import annotations

import json
import random

import pytest

from filter_reference import matches, random_filters, random_metadata
from index_models import corpus, model

from learnsim.index import Index
from learnsim.index._field_case import live_top_keys
from learnsim.index._store import DocumentStore, check_filter

QUERY = "w001 w002 w003 w120 w240"

# each operator on a field no document holds ("nope"), alone, negated and beside held fields
ABSENT = [{"nope": 1}, {"nope": None}, {"nope": [1, "a", None]}, {"nope": {"$eq": "a"}}, {"nope": {"$ne": "a"}},
          {"nope": {"$ne": None}}, {"nope": {"$gt": 0}}, {"nope": {"$gte": "a"}}, {"nope": {"$lt": 3}},
          {"nope": {"$lte": 2.5}}, {"nope": {"$in": [1, True]}}, {"nope": {"$nin": [1, None]}},
          {"nope": {"$exists": True}}, {"nope": {"$exists": False}}, {"nope": {"$contains": "a"}},
          {"nope": {"$not_contains": 1}}, {"nope.deep": {"$exists": False}}, {"nope.deep": 3},
          {"nope": {"$gt": 0, "$ne": 5}}, {"nope": {"$exists": False, "$nin": [2]}}]
ABSENT += [{"$not": f} for f in ABSENT]
MIXED = [{"a": {"$gte": 1}, "nope": {"$ne": 1}}, {"a": {"$gte": 1}, "nope": 1},
         {"$or": [{"a": "b"}, {"nope": {"$exists": True}}]}, {"$or": [{"a": "b"}, {"nope": {"$nin": ["x"]}}]},
         {"$not": {"$or": [{"b": {"$exists": True}}, {"nope": 2}]}},
         {"$and": [{"$not": {"nope": 1}}, {"$or": [{"m.x": {"$exists": False}}, {"nope": {"$lt": 1}}]}]}]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A DocumentStore of random metadata (filter_reference's), a few documents deleted."""
    rng = random.Random(5)
    metas = [random_metadata(rng) for _ in range(300)]
    s = DocumentStore(tmp_path_factory.mktemp("absent") / "docs.sqlite")
    ids = [f"d{i}" for i in range(len(metas))]
    s.add(ids, ["t"] * len(metas), [json.dumps(m) if m is not None else None for m in metas])
    s.delete(ids[::17])
    assert "nope" not in live_top_keys(s.conn)
    yield s, metas
    s.close()


def _json_reads(conn, run):
    """(what ``run()`` returns, the statements it ran that read the metadata's values)."""
    seen = []
    conn.set_trace_callback(seen.append)
    try:
        got = run()
    finally:
        conn.set_trace_callback(None)
    return got, [sql for sql in seen if "json_type(meta" in sql or "json_extract(meta" in sql]


def test_an_absent_field_is_answered_as_the_sql_path_answers_it_without_a_pass(store):
    s, metas = store
    keys = live_top_keys(s.conn)
    live = {seq for seq, in s.conn.execute("SELECT seq FROM docs WHERE deleted_seq IS NULL")}
    answers = set()
    for f in ABSENT + MIXED + random_filters(200, seed=41):
        tree = check_filter(f)
        want = s.seqs_matching(tree)                    # the SQL path: no keys given
        if "contains" not in json.dumps(f):         # the reference reads no $contains
            assert want == sorted(seq for seq in live if matches(f, metas[seq - 1])), f
        got, reads = _json_reads(s.conn, lambda: s.seqs_matching(tree, lambda: keys))
        assert sorted(got) == sorted(want), f
        if f in ABSENT:
            assert reads == [], f
            answers.add(len(got))
    # both answers a field no document holds can have: no row, every live row
    assert answers == {0, len(live)}


def test_an_index_answers_a_new_value_of_an_absent_field_without_a_pass(tmp_path):
    texts, topics, ids, _ = corpus()
    path = tmp_path / "idx"
    Index.build(path, model("linklearn"), texts[:40], ids[:40], [{"topic": int(t)} for t in topics[:40]]).close()
    with Index.open(path) as index:
        every = [h["id"] for h in index.search(QUERY, 40)]
        index.search(QUERY, 5, filter={"Topic1": -1})         # the keys are read once, here
        for value in range(3):
            got, reads = _json_reads(index.store.conn, lambda: index.search(QUERY, 5, filter={"Topic1": value}))
            assert got == [] and reads == []
            got, reads = _json_reads(index.store.conn,
                                     lambda: index.search(QUERY, 40, filter={"Topic1": {"$ne": value}}))
            assert [h["id"] for h in got] == every and reads == []
        index.delete([every[0]])
        got = [h["id"] for h in index.search(QUERY, 40, filter={"$not": {"Topic1": 7}})]
        assert got == every[1:]
