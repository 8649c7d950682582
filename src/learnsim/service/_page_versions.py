"""The search page's hits explained by the version that found them.

The page (``/``) gathers its view in one call in the reads' thread (the search, its interleaving
when sampled, the score's name and kind) and explains its hits (the "why" line and the marks) in
pieces, later calls, each of which loads a promotion or a rollback another process made since.
Taken as they came, a page of MCD's distances showed BM25's explanations ("squared distance 0 =
w173 +2.070, ...") and one of BM25's scores MCD's. So the page is gathered and explained again
when any of its calls saw another version, and after ``tries`` it is the service's 503 that says
to retry, as a search that changed version under every try.
"""
from __future__ import annotations

__all__ = ["explained_page"]


async def explained_page(gather, explain_piece, chunk, tries):
    """The view ``await gather()`` (whose ``"_versions"`` are the versions the gathering call
    saw), its hits explained in place ``chunk`` at a time by ``await explain_piece(data, hits)``
    (which returns the version that explained them); None when every try saw two versions."""
    for _ in range(tries):
        data = await gather()
        hits = data["hits"] or []
        seen = set(data.pop("_versions"))
        for start in range(0, len(hits), chunk):
            seen.add(await explain_piece(data, hits[start:start + chunk]))
        if len(seen) == 1:
            return data
    return None
