"""``learnsim fit --method linklearn``: a term weighting learned from hyperlinks (paper 002).

Two variants (``args.variant``, ``--variant`` where the parser offers it):

* ``paper``: paper 002's eq. (5) (:class:`learnsim.linklearn.LinkLearn`), the in-domain model:
  on the collection it was trained on it is the strongest (Wikispeedia test third: +13.6 % AvgP
  over BM25 tuned there, ``learnsim reproduce linklearn``), but transferred to collections of short
  abstracts it falls to 0.59x (CISI) and 0.91x (Cranfield) of the tf.idf cosine; it warns
  (CollectionShiftWarning) when applied to a collection far from its training one.
* ``bm25``: :class:`learnsim.weighting.LearnedBM25`, the transferable family that contains
  Okapi BM25: transferred from Wikispeedia, 1.02x the cosine on CISI and 0.98x on Cranfield;
  in-domain, on the Wikispeedia test third, AvgP 0.386 where eq. (5) reaches 0.418 (BM25 tuned
  there 0.368; ``benchmarks/bench_weighting_transfer.py``).

The default is ``paper``: ``learnsim fit`` learns from the user's own linked collection and
``learnsim search`` / ``evaluate`` score that collection, the in-domain case where eq. (5)
measured best; the warning names the ``bm25`` variant when the model meets a collection far from
its training one. Either way ``fit`` keeps back a
share of the training documents with their links and keeps the learned weighting only where it
clearly beats its baseline there (the tf.idf cosine for ``paper``, BM25 for ``bm25``; learnsim.baseline).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..io import DocumentFormatError
from ..linklearn.recipe import DEFAULT_LINKLEARN_VARIANT
from ._common import _save_model, check_input_file, UsageError, _note, _print_json, note_unused_fields, read_documents
from ._fit_text import fit_options, fitted_model

# The fit itself (learning rate 0.03 and a held-out quarter of the documents when not given) is
# learnsim.linklearn.recipe.fit_linklearn's. ``--variant``: "paper" (eq. 5, in-domain; the default)
# or "bm25" (LearnedBM25, transferable); see above. Which options apply to which variant is the
# recipe's (check_variant, through learnsim.fitting.fit_linklearn): its ValueError, naming these
# flags, is the command's one-line error (exit 2). DEFAULT_VARIANT: the recipe's, by the name the
# command reads it.
DEFAULT_VARIANT = DEFAULT_LINKLEARN_VARIANT
_FLAGS = {"learning_rate": "--learning-rate", "variant": "--variant"}


def read_links(path, ids, encoding_errors="replace"):
    """Hyperlinks source_id<TAB>target_id between the documents ``ids``, as Links."""
    from ..io import decoded_lines
    from ..supervision import Links

    position = {doc_id: i for i, doc_id in enumerate(ids)}
    edges, self_links = [], 0
    for number, line in decoded_lines(path, encoding_errors=encoding_errors):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            raise DocumentFormatError(f"{path}, line {number}: expected source_id<TAB>target_id, got {line[:60]!r}")
        source, target = (f.strip() for f in fields)
        if number == 1 and (source, target) == ("source", "target") and "source" not in position:
            continue
        for doc_id in (source, target):
            if doc_id not in position:
                raise UsageError(f"{path}, line {number}: link to unknown document {doc_id!r} (not an id of "
                                 "--input)")
        if source != target:
            edges.append((position[source], position[target]))
        else:                       # a page linking to itself says nothing about similarity
            self_links += 1
    if not edges:
        raise UsageError(f"{path}: no link between two different documents"
                         + (f" (only {self_links} self-link(s))" if self_links else "") + "; LinkLearn learns from links")
    if self_links:
        # counted, as the library's Links counts those it drops
        _note(f"note: {path}: dropped {self_links} self-link(s): a document linking to itself says nothing "
              "about similarity")
    return Links.from_edges(np.asarray(edges, dtype=np.int64), len(ids))


def unique_ids(path, docs, what="--method linklearn needs"):
    """Every document has an id, and no two the same (the links name them)."""
    missing = [i for i, doc_id in enumerate(docs.ids) if doc_id is None]
    if missing:
        raise UsageError(f"{path}: {what} an id for every document (id<TAB>text, or "
                         f'"id" in .jsonl); document {missing[0] + 1} has none')
    seen = {}
    for i, doc_id in enumerate(docs.ids):
        if doc_id in seen:
            raise UsageError(f"{path}: id {doc_id!r} is used by documents {seen[doc_id] + 1} and {i + 1}")
        seen[doc_id] = i


def fit_linklearn(args, model_path, summary):
    """--method linklearn: the --input documents and the --links among them, fitted by
    learnsim.linklearn.recipe.fit_linklearn (term counts, a held-out share for early stopping (paper) or
    for the validation AvgP (bm25)); the learned weighting is saved with its vectoriser."""
    from ..fitting import fit_linklearn as _fit
    from ..linklearn.recipe import check_variant

    options = fit_options(args)
    # checked before the files are read (fit_linklearn meets the same declaration again)
    variant = check_variant(options, getattr(args, "variant", None) or DEFAULT_VARIANT, _FLAGS)
    check_input_file(args.links, "--links")

    docs = read_documents(args.input, encoding_errors=args.encoding_errors, quoting=args.quoting)
    note_unused_fields(docs, args.input, uses_metadata=False)
    unique_ids(args.input, docs)
    links = read_links(Path(args.links), docs.ids, args.encoding_errors)
    result = _fit(options, docs.texts, links, variant, summary, note=lambda message, info=False: _note(message),
                  flags=_FLAGS)
    from ..baseline import BaselineGain

    settings = result.details.settings
    vec_seconds, metric_seconds = result.details.vec_seconds, result.details.metric_seconds
    _save_model(fitted_model(result, args), model_path)
    report = None if summary.get("baseline_gain") is None else BaselineGain.from_dict(summary["baseline_gain"])
    if args.json:
        _print_json(result.to_dict())
        return 0
    use = "early stopping" if variant == "paper" else "the validation AvgP"
    detail = report.detail if report is not None else {}
    held = detail.get("held_out_documents", detail.get("held_out_articles"))
    judged = "" if held is None else f" ({held} of them held out to judge learned against baseline)"
    print(f"Fitted on {summary['documents']} documents with {summary['links']} links, {summary['features']} "
          f"terms: {summary['train_documents']} documents ({summary['train_links']} links) to learn from{judged}, "
          f"{summary['validation_documents']} ({summary['validation_links']} links) for {use}.")
    if variant == "paper":
        print(f"LinkLearn (paper 002's eq. 5, in-domain): learning rate {settings['learning_rate']:g}, best "
              f"validation AvgP {summary['validation_ap']:.3f} after {summary['best_iter']} of {summary['n_iter']} "
              "drawn documents.")
    else:
        params = ", ".join(f"{k} {v:.3g}" for k, v in summary["weighting"].items())
        print(f"LearnedBM25 (transferable): {params}; validation AvgP {summary['validation_ap']:.3f} "
              f"(thinned copies, sampled queries) after {summary['n_evaluations']} evaluations.")
        path = summary.get("shrinkage_path") or []
        if path:
            table = ", ".join(f"{lam:g}: {ap:.4f}" for lam, ap, _, _ in path)
            print(f"Moved {summary['shrinkage']:g} of the way from BM25's defaults to the search's point: the "
                  f"smallest share whose held-out AvgP is within one standard error of the best ({table}).")
    if report is not None:
        print(f"Against the baseline: {report.summary()}")
    from ._fit_film import _print_search_check

    _print_search_check(summary, result.pipeline, "the weighting")
    print(f"Fit in {summary['fit_seconds']:.2f} s (vectoriser {vec_seconds:.2f} s, weighting "
          f"{metric_seconds:.2f} s); saved {model_path}.")
    return 0
