"""``learnsim explain``: the words behind a learned metric and a pair's similarity."""
from __future__ import annotations

import copy
import re
import textwrap

from ._common import (_examples, _formatter, _load_pipeline, _positive_int, _print_json, _seed, _snippet,
                      _table, UsageError, _vectorize, _warn_empty_rows)

def register(commands):
    """Add the command's parser to ``commands``."""
    explain = commands.add_parser(
        "explain", formatter_class=_formatter, help="the words behind a learned metric and a pair's similarity",
        description=textwrap.dedent("""\
            Print, for each learned dimension (row l of the map L, y = L x; all of them or the
            --dimension ones), the words with the largest positive and negative weights: the
            FILM paper's Figure 5. With --pair, explain the similarity of two texts instead:
            their cosine in the learned space splits exactly into what each pair of words
            (one of each text), each word and each learned dimension adds. Works for the FILM
            and minimum-cluster-distortion models 'learnsim fit' writes; with LSI the weights
            are mapped back to the words."""),
        epilog=_examples("learnsim explain --model film.npz --dimension 0 --dimension 1",
                         "learnsim explain --model film.npz --top 20 --json > dimensions.json",
                         "learnsim explain --model film.npz --pair 'how do I learn python' "
                         "'what is the best way to learn python'"))
    explain.add_argument("--model", required=True, metavar="M.npz", help="model file written by 'learnsim fit'")
    explain.add_argument("--dimension", action="append", type=_seed, metavar="N", dest="dimensions",
                         help="a learned dimension to describe, from 0 (repeat for several; default: all, "
                              "or none with --pair)")
    explain.add_argument("--top", type=_positive_int, default=10, metavar="K",
                         help="words listed per sign and dimension, and per list of --pair (default: 10)")
    explain.add_argument("--pair", nargs=2, metavar=("TEXT_A", "TEXT_B"), default=None,
                         help="two texts whose similarity to explain")
    explain.add_argument("--json", action="store_true", help="print the explanation as JSON on stdout")
    explain.set_defaults(handler=run)
    return explain


def _word_space(vectorizer):
    """The names of the words and the map from word vectors to the model's inputs: the LSI
    basis of a vectoriser with LSI (so that weights are explained over words), else None."""
    import numpy as np
    if getattr(vectorizer, "components_", None) is None:
        return [str(t) for t in vectorizer.get_feature_names_out()], None
    return [str(t) for t in vectorizer.terms_], np.asarray(vectorizer.components_, dtype=np.float64)


def _word_vectors(vectorizer, texts):
    """The term vectors the model's inputs are made of (before any LSI projection)."""
    if getattr(vectorizer, "components_", None) is None:
        return _vectorize(vectorizer, texts)
    words_only = copy.copy(vectorizer)
    words_only.components_ = None       # the weighted, normalised vectors that LSI projects
    return _vectorize(words_only, texts)


def _word_list(entries, value):
    return [f"{e.feature} {value(e):+.4f}" for e in entries]


def _print_wrapped(label, items, width=100):
    """``label`` then the items, comma-separated, wrapped between items (never inside one)."""
    items = items or ["-"]
    lines, line = [], label
    for k, item in enumerate(items):
        piece = item + ("," if k < len(items) - 1 else "")
        if line != label and len(line) + 1 + len(piece) > width:
            lines.append(line)
            line = " " * len(label)
        line += ("" if line.endswith(" ") else " ") + piece
    lines.append(line)
    print("\n".join(lines))


def _print_dimensions(dimensions):
    for info in dimensions:
        scale = f" (scale {info.scale:.4g})" if info.scale is not None else ""
        print(f"\ndimension {info.dimension}{scale}")
        _print_wrapped("  + ", _word_list(info.positive, lambda e: e.weight))
        _print_wrapped("  - ", _word_list(info.negative, lambda e: e.weight))


def _print_pair(text_a, text_b, exp):
    print(f"A: {_snippet(text_a)}\nB: {_snippet(text_b)}")
    print(f"Cosine in the learned space {exp.cosine:.4f} = inner product {exp.inner_product:.4g} / "
          f"(|L a| {exp.norm_a:.4g} x |L b| {exp.norm_b:.4g}); learned distance {exp.distance:.4f}.")
    print("\nWhat adds to the cosine (each list sums to it exactly):")
    denom = exp.norm_a * exp.norm_b

    def to_cosine(value):
        return value / denom if denom > 0 else 0.0

    rows = [[p.feature_a, p.feature_b, f"{p.cosine_contribution:+.4f}"] for p in exp.word_pairs]
    print(_table(["word of A", "word of B", "contribution"], rows, align="<<>"))
    n_other = exp.n_words_a * exp.n_words_b - len(exp.word_pairs)
    if n_other:
        print(f"(the other {n_other} word pair{'s' if n_other > 1 else ''} add{'' if n_other > 1 else 's'} "
              f"{to_cosine(exp.omitted_word_pairs):+.4f})")
    print()
    _print_wrapped("words of A:  ", _word_list(exp.words_a, lambda e: e.cosine_contribution))
    _print_wrapped("words of B:  ", _word_list(exp.words_b, lambda e: e.cosine_contribution))
    dims = [f"{d.dimension} {d.cosine_contribution:+.4f}" for d in exp.dimensions]
    if exp.residual_contribution:
        dims.append(f"outside them {to_cosine(exp.residual_contribution):+.4f}")
    _print_wrapped("dimensions:  ", dims)


def _learned_use(pipeline):
    """(the commands that use the learned dimensions, the sentence saying which do not and what
    they use instead, or None): a FILM fitted on pairs may keep its metric and fall back in both
    search (to BM25 or the tf.idf cosine) and match (to a threshold on the input cosine), and an
    explanation of dimensions that neither uses, with no word of it, read as the model's reasons."""
    rule = getattr(pipeline, "search_rule", None)
    lam = getattr(rule, "lexical_weight", None)
    # the lexical part alone, or the dense part all input cosine: the learned cosine weighs 0
    search = rule is None or not (lam == 1.0 or (not lam and rule.input_weight == 1.0))
    # a re-ranker kept re-scores search's top hits by the pair model, which may read FILM's cosine:
    # not said to be unused
    search = search or getattr(pipeline, "rerank", None) is not None
    match_rule = getattr(pipeline, "match_rule", None)
    matcher = getattr(match_rule, "matcher", None)
    # the input cosine and the classifiers (regressors) without FILM's cosine use no learned dimension
    match = match_rule is None or not (matcher in ("cosine", "classifier", "regression") or (
        matcher == "threshold" and getattr(pipeline.matcher, "input_weight_", None) == 1.0))
    used = [name for name, uses in (("search", search), ("match", match)) if uses]
    if len(used) == 2:
        return used, None
    instead = {"search": f"scores by {pipeline.scorer.description}",
               "match": f"decides duplicates by the {match_rule.describe() if match_rule else ''}"}
    if not used:
        return used, ("Neither 'learnsim search' nor 'learnsim match' uses these learned dimensions (the "
                      f"rules the fit chose on held-out data do not): search {instead['search']}, and match "
                      f"{instead['match']}. What follows is what was learned, not what the model uses")
    unused = "match" if used == ["search"] else "search"
    return used, (f"'learnsim {unused}' does not use these learned dimensions (the rule the fit chose on "
                  f"held-out data does not): it {instead[unused]}; 'learnsim {used[0]}' uses them")


# Han, kana, Hangul and Thai: the scripts the default analyser ("cjk") cuts into character bigrams
_SPACELESS = re.compile("[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def _terms(vectorizer, names):
    """"N words", or, where the default analyser cut text without spaces into character bigrams,
    "N terms (M of them character bigrams)": a Japanese model's "41095 words" were mostly bigrams."""
    if getattr(vectorizer, "analyzer", None) != "cjk":
        return f"{len(names)} words"
    bigrams = sum(1 for name in names if _SPACELESS.search(str(name)))
    if not bigrams:
        return f"{len(names)} words"
    return (f"{len(names)} terms ({bigrams} of them character bigrams or single characters of Chinese, Japanese, "
            "Korean or Thai text)")


def run(args):
    from ..evaluation.explain import explain_pair, n_learned_dimensions, top_features

    pipeline = _load_pipeline(args.model)
    if pipeline.method == "baseline":
        # a fit that kept its baseline holds the baseline's term weights (a LinkLearn or BM25
        # object): explained as a metric, it was refused as "LinkLearn is not a linear metric",
        # naming a method the user never fitted
        raise UsageError(f"{args.model}: the model is the {pipeline.scoring} baseline (the fit kept it: what it "
                         "learned did not beat it), which has no learned dimensions to explain")
    vectorizer, metric = pipeline.vectorizer, pipeline.metric
    try:
        n_dims = n_learned_dimensions(metric)
    except TypeError as exc:
        raise UsageError(f"{args.model}: cannot explain this model: {exc}") from None
    names, projection = _word_space(vectorizer)
    used, unused_note = _learned_use(pipeline)
    result = {"model": str(args.model), "metric": type(metric).__name__, "n_dimensions": n_dims,
              "n_words": len(names), "lsi_components": vectorizer.n_components_, "used_by": used}
    if unused_note is not None:
        result["note"] = unused_note
    dimensions = []
    if args.dimensions is not None or args.pair is None:
        dimensions = top_features(metric, names, args.top, args.dimensions, projection=projection)
        result["dimensions"] = [d.to_dict() for d in dimensions]
    explanation = None
    if args.pair is not None:
        text_a, text_b = args.pair
        if not text_a.strip() or not text_b.strip():
            raise UsageError("--pair texts must not be empty")
        X = _word_vectors(vectorizer, [text_a, text_b])
        _warn_empty_rows(X, "--pair text", [text_a, text_b])
        explanation = explain_pair(metric, X[0], X[1], names, args.top, projection=projection)
        result["pair"] = {"text_a": text_a, "text_b": text_b, **explanation.to_dict()}
    if args.json:
        _print_json(result)
        return 0
    lsi = f", explained over the words through {vectorizer.n_components_} LSI dimensions" \
        if projection is not None else ""
    print(f"{result['metric']}: {n_dims} learned dimensions over {_terms(vectorizer, names)}{lsi}.")
    if unused_note is not None:
        print(textwrap.fill(unused_note + ".", 100))
    _print_dimensions(dimensions)
    if explanation is not None:
        print()
        _print_pair(text_a, text_b, explanation)
    return 0
