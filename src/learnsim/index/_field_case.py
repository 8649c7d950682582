"""A filter's field that no document has, where one differs from it in case alone: a
:class:`~learnsim.exceptions.FilterError` naming both, not a filter that silently matches nothing
(or, under ``$ne``, ``$nin``, ``$not`` and ``$exists: false``, everything).

An index built from a ``.csv`` by learnsim before its column names were kept as written holds
them in lower case ("Topic" as "topic"): ``--filter Topic=Geo`` on it matched no document, the
same filter that matches on an index built since. Elasticsearch and chromadb answer a field no
document has with nothing; this module answers so too, but where the one explanation is this.

A dotted field is a path through nested dicts ("meta.year"): a document whose metadata holds
the key "a.b" itself (a dict from a flattened JSON, a column named so) was not matched by the filter
{"a.b": ...}, silently, even where other documents hold the path a -> b and were. Where a live
document holds such a key (or "b.c" under "a" for a.b.c: any grouping of the names), it is a
FilterError saying so: a filter cannot name it.

A list in the metadata is looked into by ``$contains`` and ``$not_contains`` alone; it equals no
value (as in chromadb, whose ``$eq`` and ``$in`` compare scalars only). A value condition (``$eq``,
``$ne``, ``$in``, ``$nin``, ``$gt``...) on a path that holds lists in the documents that have it,
and nothing else, matched nothing (or, negated, everything): the filter of an Elasticsearch or
MongoDB user, whose term query matches an element of an array. It is a FilterError pointing to
``$contains``; so is ``$contains`` on a path that holds no list where documents hold values, and a
value condition on a path that holds dicts only (a name for a path into them).

A field written in another Unicode normal form than a held key ("café" with a combining accent,
NFD, where the documents hold the letter é, NFC) looks the same and matches nothing: a FilterError
naming both forms, as a name differing in case alone is.

Only the standard library is imported here (a search opens it).
"""
from __future__ import annotations

import json
import unicodedata

from ..exceptions import FilterError

__all__ = ["check_field_case", "without_absent"]


def _top_fields(tree, out):
    """The first names of the paths of a condition tree (:func:`learnsim.index._store.check_filter`'s)."""
    kind = tree[0]
    if kind in ("and", "or"):
        for child in tree[1]:
            _top_fields(child, out)
    elif kind == "not":
        _top_fields(tree[1], out)
    else:
        out.setdefault(tree[1][0], None)
    return out


def _leaves(tree, out):
    """{path: the kinds of the conditions on it} of a condition tree."""
    kind = tree[0]
    if kind in ("and", "or"):
        for child in tree[1]:
            _leaves(child, out)
    elif kind == "not":
        _leaves(tree[1], out)
    else:
        out.setdefault(tuple(tree[1]), set()).add(kind)
    return out


def _held_as(conn, json_path, test):
    """Whether a live document's metadata has at ``json_path`` a value whose JSON type passes
    ``test`` (SQL over ``t``; stops at the first)."""
    return conn.execute(f"SELECT 1 FROM (SELECT json_type(meta, ?) AS t FROM docs WHERE deleted_seq IS NULL) "
                        f"WHERE {test} LIMIT 1", (json_path,)).fetchone() is not None


def _dotted_key(conn, paths):
    """(a path, a key holding a dot through which some live document's metadata reaches a value
    by the path's names grouped otherwise than one name a key: "a.b" -> "c", "a" -> "b.c" for
    a.b.c), or None, for the dotted ``paths``. One pass: the rows read are those whose JSON text
    holds two of a path's names joined by a dot (an ASCII name is written as it is; any dot for
    others, or for more than _PAIRS pairs), each looked at in Python."""
    paths = [path for path in paths if len(path) > 1]
    if not paths:
        return None
    pairs = sorted({f"{a}.{b}" for path in paths for a, b in zip(path, path[1:])})
    if len(pairs) > _PAIRS or not all(pair.isascii() for pair in pairs):
        pairs = ["."]
    rows = conn.execute("SELECT meta FROM docs WHERE deleted_seq IS NULL AND meta IS NOT NULL AND ("
                        + " OR ".join("instr(meta, ?) > 0" for _ in pairs) + ")", pairs)
    for (raw,) in rows:
        try:
            meta = json.loads(raw)
        except (TypeError, ValueError, RecursionError):
            continue        # damage is verify's and the digest's to name, not a filter's
        for path in paths:
            found = _grouped(meta, path)
            if found is not None:
                return path, found
    return None


# the most strings a dotted-key pass looks for in the metadata's text, each a bound parameter
# (SQLite binds 999 in old builds); past it, every row holding a dot is read
_PAIRS = 64


def _grouped(value, names, dotted=None):
    """The first key with a dot on a way through nested dicts by ``names`` grouped into keys, one
    of the groups being two names or more; None if there is none."""
    if not names:
        return dotted
    if not isinstance(value, dict):
        return None
    for end in range(1, len(names) + 1):
        key = ".".join(names[:end])
        if key in value:
            found = _grouped(value[key], names[end:], dotted or (key if end > 1 else None))
            if found is not None:
                return found
    return None


def _held(conn, json_path):
    """Whether a live document's metadata has something at ``json_path`` (stops at the first)."""
    return conn.execute("SELECT 1 FROM docs WHERE deleted_seq IS NULL AND json_type(meta, ?) IS NOT NULL LIMIT 1",
                        (json_path,)).fetchone() is not None


def live_top_keys(conn):
    """The top keys of every live document's metadata (one pass of json_each)."""
    return {row[0] for row in conn.execute(
        "SELECT DISTINCT j.key FROM docs, json_each(docs.meta) AS j WHERE docs.deleted_seq IS NULL "
        "AND docs.meta IS NOT NULL")}


def _form(text):
    """Which Unicode normal form ``text`` is written in, in words."""
    if unicodedata.is_normalized("NFC", text):
        return "NFC" if not unicodedata.is_normalized("NFD", text) else "NFC and NFD alike"
    if unicodedata.is_normalized("NFD", text):
        return "NFD: accents as combining characters"
    return "neither NFC nor NFD"


def _refuse_other_form(name, keys, field=None):
    """A FilterError where a held key is ``name`` written in another Unicode normal form ("café"
    as é, or as e and a combining accent), perhaps in another case too: the two look alike, and
    the filter would match nothing (or, negated, everything) without a word. Matching the key as
    written is chromadb's and Elasticsearch's rule: it is kept, the mismatch named."""
    if name.isascii():
        return      # an ASCII name is the same in every normal form, as an ASCII key is
    nfc = unicodedata.normalize("NFC", name)
    others = sorted(k for k in keys if k != name and not k.isascii()
                    and unicodedata.normalize("NFC", k).lower() == nfc.lower())[:3]
    if not others:
        return
    other = others[0]
    how = ("Unicode normal form alone" if unicodedata.normalize("NFC", other) == nfc
           else "case and Unicode normal form")
    where = "" if field is None or field == name else f" (in the field {ascii(field)})"
    raise FilterError(f"no document of the index has the metadata field {ascii(name)}{where} ({_form(name)}), but "
                      f"{ascii(other)} ({_form(other)}) differs from it in {how}: the two look alike but a "
                      f"filter matches a key as written; filter on {ascii(other)}, the field as the documents "
                      "write it (in Python unicodedata.normalize('NFC', field), or 'NFD', makes a field so)")


def _refuse_near(name, keys, path=None, end=0):
    """A FilterError where ``name`` is in none of ``keys`` (those held where it is asked: the top
    keys, or those under ``path[:end]``, ``name`` being ``path[end]``) and one of them is written
    otherwise in case or Unicode normal form alone."""
    field = name if path is None else ".".join(path)
    _refuse_other_form(name, keys, field)
    others = sorted(k for k in keys if k.lower() == name.lower() and k != name)[:3]
    if others:
        named = " and ".join(repr(o) for o in others)
        where = "" if path is None else f" (its name {name!r} under {'.'.join(path[:end])!r})"
        raise FilterError(f"no document of the index has the metadata field {field!r}{where}, but {named} differs "
                          "from it in case alone (an index built from a .csv by an older learnsim holds its column "
                          f"names in lower case): filter on {others[0]!r}, or build the index again to keep the "
                          "names as written")


def _nested_keys(conn, path, read):
    """(the position in ``path`` of its first name below the first that no live document reaches,
    the keys the documents hold beside it), or None where a document holds the whole path. A query
    a name, and a pass of json_each a dict of names (kept in ``read``, by its path, for the
    filter's other fields); asked only where no document holds the path."""
    for end in range(1, len(path)):
        if _held(conn, "$" + "".join(f'."{name}"' for name in path[:end + 1])):
            continue
        parent = path[:end]
        if parent not in read:
            json_path = "$" + "".join(f'."{name}"' for name in parent)
            read[parent] = {row[0] for row in conn.execute(
                "SELECT DISTINCT j.key FROM docs, json_each(docs.meta, ?) AS j WHERE docs.deleted_seq IS NULL "
                "AND docs.meta IS NOT NULL AND json_type(docs.meta, ?) = 'object'", (json_path, json_path))}
        return end, read[parent]
    return None


def check_field_case(conn, conditions, top_keys=None):
    """Raise a FilterError where a field a filter names is in no live document's metadata and
    another differs from it in case alone, where a live document holds a dotted field's names in a
    key with a dot, or where a value condition meets lists only ($contains values only). Costs
    a query or two a field, which stop at the first document that has it (a full pass only where
    none has, as the filter itself would make), and, where a field is dotted, one pass that
    reads the rows whose metadata text holds two of a dotted field's names joined by a dot.
    ``top_keys``: a callable giving :func:`live_top_keys`, kept by the caller while the rows stay
    (an open index: the filters' rows), so that a field no document has costs no pass each."""
    absent, keys = set(), None
    for name in _top_fields(conditions, {}):
        if keys is None:
            if top_keys is not None:
                keys = top_keys()
            elif _held(conn, '$."' + name + '"'):
                continue
            else:
                # a name no document has: the top keys of every live document, read once for all
                # the names (a pass of json_each a name made a filter of 32 absent fields cost 32)
                keys = live_top_keys(conn)
        if name in keys:
            continue
        absent.add(name)
        _refuse_near(name, keys)
    leaves = _leaves(conditions, {})
    found = _dotted_key(conn, leaves)
    if found is not None:
        key = ".".join(found[0])
        raise FilterError(f"the filter's field {key!r} is a path (the dots separate the names of nested dicts); but "
                          f"a document has the metadata key {found[1]!r} itself, which a filter cannot name (it would "
                          "match the documents holding the path and miss that one): store it as nested dicts, or "
                          "under a name without dots")
    nested = {}
    for path, kinds in leaves.items():
        json_path, key = "$" + "".join(f'."{name}"' for name in path), ".".join(path)
        if path[0] in absent:
            continue
        # the kind of the first document that has the field: a full pass only where none has it
        first = conn.execute("SELECT t FROM (SELECT json_type(meta, ?) AS t FROM docs WHERE deleted_seq IS NULL) "
                             "WHERE t IS NOT NULL LIMIT 1", (json_path,)).fetchone()
        if first is None:
            # a nested name the documents write otherwise ("m.topic" where they hold m -> Topic, or
            # an accent in another normal form) matched nothing, its first name being held
            near = _nested_keys(conn, path, nested) if len(path) > 1 else None
            if near is not None:
                _refuse_near(path[near[0]], near[1], path, near[0])
            continue
        if kinds == {"exists"}:
            continue
        # a filter that asks a field both ways ({"$or": [{f: v}, {f: {"$contains": v}}]}, for a field
        # of values and lists) knows of the lists: neither half is a mistake
        values, contains = bool(kinds & {"in", "cmp"}), "contains" in kinds
        if values and not contains and first[0] in ("array", "object") \
                and not _held_as(conn, json_path, "t NOT IN ('array', 'object')"):
            if first[0] == "object":
                raise FilterError(f"the documents that have the metadata field {key!r} hold dicts there, which equal "
                                  f"and compare with no value: name a field inside them, {key + '.name'!r}")
            raise FilterError(f"the documents that have the metadata field {key!r} hold lists there, which equal and "
                              f"compare with no value (as in chromadb): {{{key!r}: {{\"$contains\": value}}}} matches "
                              "a list holding the value, $not_contains one without it")
        if contains and not values and first[0] != "array" and not _held_as(conn, json_path, "t = 'array'"):
            raise FilterError(f"$contains and $not_contains look into a list, and no document holds a list at the "
                              f"metadata field {key!r}: compare its value with $eq, $ne, $in or $nin")


def without_absent(tree, keys):
    """``tree`` (:func:`learnsim.index._store.check_filter`'s) with each condition on a field whose
    first name is in none of ``keys`` (the live documents' top keys) replaced by its answer, True or
    False, and folded through $not, $and and $or: the whole tree where no such field is named,
    True (every live document) or False (none) where they decide it. The answers are the SQL
    path's for a missing field (:func:`learnsim.index._store._condition_sql`: no JSON type, ELSE
    0): $exists: false, $ne, $nin and $not_contains hold, every other condition fails. A filter
    of such fields cost a pass over every document's metadata at each new value ({"Topic1": 1},
    {"Topic1": 2}, ...: 120 ms at 50,000 documents) for an answer the keys already gave."""
    kind = tree[0]
    if kind in ("and", "or"):
        decides = kind == "or"      # True decides an OR, False an AND
        kept = []
        for child in tree[1]:
            child = without_absent(child, keys)
            if child is decides:
                return decides
            if child is not (not decides):
                kept.append(child)
        if not kept:
            return not decides
        return kept[0] if len(kept) == 1 else (kind, kept)
    if kind == "not":
        child = without_absent(tree[1], keys)
        return (not child) if isinstance(child, bool) else ("not", child)
    if tree[1][0] in keys:
        return tree
    if kind == "exists":
        return not tree[2]
    if kind in ("in", "contains"):
        return bool(tree[3])        # $nin and $ne, $not_contains: a missing field holds none
    return False                    # $gt, $gte, $lt, $lte: a missing field compares with nothing
