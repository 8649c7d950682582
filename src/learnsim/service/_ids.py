"""The answer to an id in a route's path (GET, DELETE /v1/docs/{id}, .../similar, PUT) that is
over the bound of an id (MAX_ID_CHARS): 422 naming the bound on every id route, as a write
answers, not 404 "not in the index" on the reads. The reads and DELETE still look such an id up
first: an index built before ids were bounded (f2adf11) may hold one."""
from __future__ import annotations

from ._limits import MAX_ID_CHARS

__all__ = ["long_id_problem"]


def long_id_problem(doc_id):
    """The 422 message of ``doc_id`` when it is over MAX_ID_CHARS; None when it is not."""
    if isinstance(doc_id, str) and len(doc_id) > MAX_ID_CHARS:
        return f"an id has at most {MAX_ID_CHARS} characters; got {len(doc_id)}"
    return None
