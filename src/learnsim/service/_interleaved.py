"""An interleaved search's answer, explained by the version that ranked it.

The interleaving (``ClickRecorder.interleaved``: the served search, the candidate's re-scoring,
the team draft) is one call in the reads' thread; its explanations (``explain=true``) are more
calls after it, each of which loads a promotion or a rollback another process made since. Taken
as they came, an answer named v1 and carried v2's explanations (MCD's "distance" under BM25's
"score": 15 of 167 explained interleaved answers through 12 switches). So the explanations are
kept only where every piece was made by the version the interleaving names; otherwise the search
is interleaved again, and after ``tries`` such tries it is answered as a plain search (which
itself searches again or says to retry): an interleaving is a sample, and a search left out of
it loses no evidence, where one labelled with the wrong version would count it for another.
"""
from __future__ import annotations

__all__ = ["interleaved_answer"]


async def interleaved_answer(interleave, explain_into, q, explain, n_top, until, tries):
    """``(mixed, label)`` of ``await interleave()`` (``mixed`` None: not interleaved), its hits
    explained in place when ``explain`` by ``explain_into`` (which returns the labels of the
    versions that explained them); ``(None, None)`` when no try's explanations were all its own
    version's."""
    for _ in range(tries):
        mixed, label = await interleave()
        if mixed is None or not explain:
            return mixed, label
        if await explain_into([q], [mixed[0]], n_top, until) == {label}:
            return mixed, label
    return None, None
