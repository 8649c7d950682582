"""``learnsim evaluate`` on what the model was fitted on: a figure measured there says what the
model remembers, not how it does on new texts (a fit's own notes scored learned 1.000, 1.19x the
strongest baseline, without a word). The model's fingerprint of its training texts
(:class:`learnsim._training.TrainingTexts`) is looked up, the overlap noted on stderr and given
in the JSON report as ``seen_in_training``."""
from __future__ import annotations

from ._common import _note

#: what the figures of each form are not, where they are measured on training texts
_NOT = {"queries": "how it searches new queries", "pairs": "how it judges new pairs",
        "documents": "how it searches new documents"}


def seen_in_training(pipeline, form, **groups):
    """``{group: {"seen": n, "of": m}}`` for each group of texts (``queries=[...]``,
    ``texts=[...]``), with one note on stderr where any was seen; None where the model holds no
    fingerprint (a model file from before it was kept, an encoder's model): unknown, not 0.
    ``form`` ("queries", "pairs", "documents") says what the figures would otherwise measure."""
    training = getattr(pipeline, "training", None)
    if training is None:
        return None
    counts = {name: training.count(texts) for name, texts in groups.items()}
    shown = [(name, c) for name, c in counts.items() if c["seen"]]
    # "120 of the 120 queries and 120 of the 120 documents" says the same twice: a group is named
    # only where its figure differs from the first one's
    shown = shown[:1] + [(name, c) for name, c in shown[1:] if (c["seen"], c["of"]) != (shown[0][1]["seen"], shown[0][1]["of"])]
    said = [f"{'about ' if c.get('estimated') else ''}{c['seen']} of the {c['of']} {_what(name, form)}"
            for name, c in shown]
    if said:
        how = (f" (estimated from the sampled fingerprint of its {training.n_texts:,} training texts)"
               if training.sampled else "")
        _note(f"note: {' and '.join(said)} {'is a text' if _one(shown) else 'are texts'} the model was fitted "
              f"on{how}: these figures measure what it remembers, not {_NOT[form]}")
    return counts


def _what(name, form):
    if name == "texts" and form == "pairs":
        return "texts of the pairs"
    return name


def _one(shown):
    return len(shown) == 1 and shown[0][1]["seen"] == 1
