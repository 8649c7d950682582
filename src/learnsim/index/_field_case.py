"""A filter's field that no document has, where one differs from it in case alone: a
:class:`~learnsim.exceptions.FilterError` naming both, not a filter that silently matches nothing
(or, under ``$ne``, ``$nin``, ``$not`` and ``$exists: false``, everything).

An index built from a ``.csv`` by learnsim before its column names were kept as written holds
them in lower case ("Topic" as "topic"): ``--filter Topic=Geo`` on it matched no document, the
same filter that matches on an index built since. Elasticsearch and chromadb answer a field no
document has with nothing; this module answers so too, but where the one explanation is this.

Only the standard library is imported here (a search opens it).
"""
from __future__ import annotations

from ..exceptions import FilterError

__all__ = ["check_field_case"]


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


def check_field_case(conn, conditions):
    """Raise a FilterError where a field a filter names is in no live document's metadata and
    another differs from it in case alone. Costs one query a field, which stops at the first
    document that has it (a full pass only where none has, as the filter itself would make)."""
    for name in _top_fields(conditions, {}):
        path = '$."' + name + '"'
        held = conn.execute("SELECT 1 FROM docs WHERE deleted_seq IS NULL AND json_type(meta, ?) IS NOT NULL LIMIT 1",
                            (path,)).fetchone()
        if held is not None:
            continue
        others = [row[0] for row in conn.execute(
            "SELECT DISTINCT j.key FROM docs, json_each(docs.meta) AS j WHERE docs.deleted_seq IS NULL "
            "AND docs.meta IS NOT NULL AND lower(j.key) = lower(?) AND j.key != ? LIMIT 3", (name, name))]
        if others:
            named = " and ".join(repr(o) for o in others)
            raise FilterError(f"no document of the index has the metadata field {name!r}, but {named} differs from it "
                              "in case alone (an index built from a .csv by an older learnsim holds its column names in "
                              f"lower case): filter on {others[0]!r}, or build the index again to keep the names as "
                              "written")
