"""A pure-Python reading of the metadata filters of learnsim.index (issue 33, point 2), and the
random documents and filters the property tests compare it with SQLite's on.

The reference is written from the semantics of :func:`learnsim.index._store.check_filter`, not
from its code: a dotted path walks dicts, kinds are compared apart (a bool is not a number, a
missing field equals nothing), ``$ne``/``$nin``/``$not`` are plain negations (a missing field
matches them), ``$gt`` and friends need a number or a str on both sides.
"""
from __future__ import annotations

import random

MISSING = object()
FIELDS = ("a", "b", "c", "m.x", "m.y", "m.n.z", "nope")
# floats with short exact binary forms, some equal to the integers (3 == 3.0)
NUMBERS = (-3, -1, 0, 1, 2, 3, 7, 2 ** 40, -0.5, 0.0, 0.25, 1.0, 2.5, 3.0, 1e300)
STRINGS = ("", "a", "b", "ab", "B", "10", "2", "é", "z'; DROP TABLE docs; --", 'q"uote')
SCALARS = NUMBERS + STRINGS + (True, False, None)


def _kind(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "str"
    return "other"          # a list or a dict in the metadata


def lookup(meta, path):
    """The value at a dotted ``path`` of ``meta``, or MISSING."""
    cur = meta
    for seg in path.split("."):
        if not isinstance(cur, dict) or seg not in cur:
            return MISSING
        cur = cur[seg]
    return cur


def _op(v, op, x):
    if op == "$eq":
        return v is not MISSING and _kind(v) == _kind(x) != "other" and v == x
    if op == "$ne":
        return not _op(v, "$eq", x)
    if op == "$in":
        return any(_op(v, "$eq", y) for y in x)
    if op == "$nin":
        return not _op(v, "$in", x)
    if op == "$exists":
        return (v is not MISSING) == x
    if v is MISSING or _kind(v) != _kind(x) or _kind(x) not in ("number", "str"):
        return False
    return {"$gt": v > x, "$gte": v >= x, "$lt": v < x, "$lte": v <= x}[op]


def matches(filter, meta):
    """Whether ``meta`` (a dict or None) satisfies ``filter``."""
    for key, cond in filter.items():
        if key == "$and":
            ok = all(matches(f, meta) for f in cond)
        elif key == "$or":
            ok = any(matches(f, meta) for f in cond)
        elif key == "$not":
            ok = not matches(cond, meta)
        else:
            v = lookup(meta, key)
            if isinstance(cond, dict):
                ok = all(_op(v, op, x) for op, x in cond.items())
            elif isinstance(cond, list):
                ok = _op(v, "$in", cond)
            else:
                ok = _op(v, "$eq", cond)
        if not ok:
            return False
    return True


def _value(rng):
    r = rng.random()
    if r < 0.08:
        return [rng.choice(SCALARS), rng.choice(SCALARS)]
    if r < 0.12:
        return {"x": rng.choice(SCALARS)}
    return rng.choice(SCALARS)


def random_metadata(rng):
    """Metadata of ints, floats, strs, bools, None, missing fields, lists and nested dicts (or None)."""
    if rng.random() < 0.03:
        return None
    meta = {}
    for field in ("a", "b", "c"):
        if rng.random() < 0.8:
            meta[field] = _value(rng)
    r = rng.random()
    if r < 0.7:
        m = {}
        for field in ("x", "y"):
            if rng.random() < 0.75:
                m[field] = _value(rng)
        if rng.random() < 0.5:
            m["n"] = {"z": _value(rng)} if rng.random() < 0.8 else _value(rng)
        meta["m"] = m
    elif r < 0.85:
        meta["m"] = _value(rng)         # not a dict: a path through it reaches nothing
    meta["u"] = rng.random()            # for filters of a chosen selectivity
    return meta


def _condition(rng):
    r = rng.random()
    if r < 0.12:
        return rng.choice(SCALARS)                                  # shorthand $eq
    if r < 0.2:
        return rng.sample(SCALARS, rng.randint(1, 4))               # shorthand $in
    ops = {}
    for _ in range(1 if rng.random() < 0.75 else 2):
        op = rng.choice(("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists"))
        if op in ("$in", "$nin"):
            ops[op] = rng.sample(SCALARS, rng.randint(1, 5))
        elif op == "$exists":
            ops[op] = rng.random() < 0.5
        elif op in ("$eq", "$ne"):
            ops[op] = rng.choice(SCALARS)
        else:
            ops[op] = rng.choice(NUMBERS + STRINGS)
    return ops


def random_filter(rng, depth=1, max_depth=5):
    """A random filter of the grammar: fields, operators, shorthands, $and, $or, $not."""
    out = {}
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        r = rng.random()
        if depth < max_depth and r < 0.15:
            out["$and"] = [random_filter(rng, depth + 1, max_depth) for _ in range(rng.randint(1, 3))]
        elif depth < max_depth and r < 0.3:
            out["$or"] = [random_filter(rng, depth + 1, max_depth) for _ in range(rng.randint(1, 3))]
        elif depth < max_depth and r < 0.4:
            out["$not"] = random_filter(rng, depth + 1, max_depth)
        else:
            out[rng.choice(FIELDS)] = _condition(rng)
    return out


def random_filters(n, seed):
    rng = random.Random(seed)
    return [random_filter(rng) for _ in range(n)]


def collection(n=2000, seed=7):
    """(texts, ids, metadata) of ``n`` documents of the shared clustered vocabulary, with random metadata."""
    from learnsim.datasets import make_clustered_corpus

    c = make_clustered_corpus(n_clusters=6, docs_per_cluster=-(-n // 6), vocab_size=400, topic_words=15,
                              random_state=seed)
    texts = [str(t) for t in c.data][:n]
    rng = random.Random(seed)
    return texts, [f"f{i}" for i in range(n)], [random_metadata(rng) for _ in range(n)]


def expected_ids(filter, ranked_ids, meta_of):
    """The ids of ``ranked_ids`` (an unfiltered ranking) that ``filter`` matches, in that order."""
    return [i for i in ranked_ids if matches(filter, meta_of[i])]
