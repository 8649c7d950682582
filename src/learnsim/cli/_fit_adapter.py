"""``learnsim fit --method adapter``: the query-side adapter (:mod:`learnsim.adapter`) over
--encoder, from judgements (--qrels, --beir) or pairs, checked as search is used."""
from __future__ import annotations

from ._common import UsageError, _note
from ._fit_text import (fit_options, print_fitted_on, print_held_out, read_corpus_option, read_supervision,
                        save_and_summarise)

__all__ = ["fit_adapter"]


def _cli_note(message, info=False):
    _note(message)


def fit_adapter(args, model_path, summary):
    """Fit (learnsim.fitting.fit_adapter), save and report the adapter."""
    from ..baseline import BaselineGain
    from ..fitting import fit_adapter as fit

    if args.encoder_model is None:
        raise UsageError("--method adapter maps the query embeddings of a sentence encoder: give --encoder")
    if args.input is not None:
        raise UsageError("--method adapter learns from judgements (--qrels, --beir) or --pairs, not from --input")
    texts, _labels, pairs = read_supervision(args, summary)
    if pairs.is_graded:
        raise UsageError(f"{args.pairs}: the pairs carry graded scores; the adapter learns from relevant pairs "
                         "(label 1) or judgements (--qrels)")
    texts, documents = read_corpus_option(args, texts, summary)
    result = fit(fit_options(args), texts, pairs, summary, documents=documents, note=_cli_note)
    if save_and_summarise(result, model_path, args):
        return 0
    print_fitted_on(summary, args, None, pairs)
    if summary.get("triplets"):
        negatives = summary.get("negatives") or {}
        print(f"The adapter learned from {summary['triplets']} triplets: each relevant pair against a hard negative "
              f"(BM25: {negatives.get('hard', 0)}; the encoder: {negatives.get('encoder', 0)}), a random document "
              f"({negatives.get('random', 0)}), a labelled "
              f"non-relevant one ({negatives.get('labelled', 0)}) and a relevant one of a lower grade "
              f"({summary.get('graded_triplets', 0)}).")
    print_held_out(summary)
    report = summary.get("baseline_gain")
    if report is not None:
        print(f"Search against the strongest baseline: {BaselineGain.from_dict(report).summary()}.")
    if summary.get("model") not in (None, "learned"):
        print(f"The model is {result.pipeline.scoring}: the adapter did not beat it on the held-out queries; "
              "'learnsim search' and 'learnsim index build' use it.")
    else:
        print(f"Search rule (learned, ridge weight {summary['alpha']:g}): {result.pipeline.scorer.description}; "
              "documents keep the encoder's vectors (a new adapter re-embeds nothing).")
    print(f"Fit in {summary['fit_seconds']:.2f} s (encoding {result.details.vec_seconds:.2f} s, adapter "
          f"{result.details.metric_seconds:.2f} s); saved {model_path}.")
    return 0
