"""The query-side adapter (issue 43): a linear map of the query embedding alone, learned from
relevance judgements over a fixed sentence encoder, so that the documents keep their vectors.

:class:`QueryAdapter` is the learner (eq. 1-2 of its module); :mod:`learnsim.adapter.recipe` its
fitting recipe (``learnsim fit --method adapter``), checked as search is used
(:mod:`learnsim.baseline`).
"""
from ._adapter import QueryAdapter

__all__ = ["QueryAdapter"]
