"""How ``search``, ``match`` and ``evaluate`` score documents: :mod:`learnsim.scorer`, the one
scoring of each model family that the pipeline and the index use too."""
from __future__ import annotations

from ..scorer import Scorer, scorer_for

__all__ = ["Scorer", "scorer_for"]
