"""The part of ``learnsim fit`` that mcd and FILM share: read labelled documents or pairs and
print what was fitted on (the fitting itself is learnsim.fitting's and the methods' recipes')."""
from __future__ import annotations

from ._common import _note, _print_json, _read_clusters, _save_model
from ._pairs import _read_pairs


def read_supervision(args, summary):
    """(texts, labels, pairs): labelled documents (labels) or pairs (pairs); the other is None."""
    pairs = labels = None
    if getattr(args, "qrels", None) is not None or getattr(args, "clicks_from", None) is not None:
        from .._inputs import judgements_of

        if getattr(args, "clicks_from", None) is not None:
            # the click log as judgements: the index's documents, each query's clicks relevant
            from ..feedback import click_judgements
            from ._common import UsageError
            from .feedback import logged_clicks

            ids, doc_texts, impressions = logged_clicks(args.clicks_from)
            queries, qrels = click_judgements(impressions, random_state=args.seed)
            if not qrels:
                raise UsageError(f"{args.clicks_from}: the click log gives no judgement yet (a click on a result "
                                 "below an unclicked one)")
            texts, pairs, documents, counts = judgements_of(queries, qrels, list(zip(ids, doc_texts)))
        else:
            from ._common import read_id_texts, refuse_dash

            refuse_dash(args.qrels, "--qrels")
            queries = dict(zip(*read_id_texts(args.queries, "queries", args.encoding_errors, args.quoting)))
            # read once the qrels are: a pair judged twice is named before a long corpus is read
            def corpus():
                return list(zip(*read_id_texts(args.corpus, "documents", args.encoding_errors, args.quoting,
                                               read_before=args.queries)))
            info = {}
            qrels = _beir_qrels(args, queries, info)
            try:
                texts, pairs, documents, counts = judgements_of(queries, qrels, corpus, info=info)
            except ValueError as exc:
                if not str(exc).startswith(("no judgement names", f"{args.qrels}: no judgement names")):
                    raise
                _refuse_unjudged(args.qrels, qrels)
                if qrels is args.qrels:
                    raise
                # read here, the judgements are no file to judgements_of, whose error named it
                raise ValueError(f"{args.qrels}: {exc}; do the files name queries and documents by the same "
                                 "ids?") from None
            if info.get("numbering") == "position":
                _note(f"note: {args.qrels} numbers the queries by their position in {args.queries} (its numbers are "
                      "not all query ids), as Cranfield's cranqrel does")
        summary.update(documents=len(texts), corpus=int(documents.size), pairs=pairs.n_pairs,
                       duplicate_pairs=int(pairs.labels.sum()), judgements=counts)
        left = [f"{counts[k]} {what}" for k, what in (
            ("unknown_query", "judgement(s) naming a query not in --queries"),
            ("unknown_document", "judgement(s) naming a document not in --corpus"),
            ("queries_without_relevant", "query(ies) with no relevant document judged")) if counts[k]]
        if left:
            _note(f"note: left out {', '.join(left)}")
        return texts, labels, pairs
    if args.pairs is not None:
        data = _read_pairs(args.pairs, args.encoding_errors, args.columns, quoting=args.quoting)
        texts, pairs = data.texts, data.pairs
        # a pair of two identical texts holds a copy of its text (datasets.pairs._pair_indices): not one more text
        summary.update(documents=len(set(texts)), pairs=pairs.n_pairs, label_kind=data.kind)
        if not pairs.is_graded:
            summary.update(duplicate_pairs=int(pairs.labels.sum()))
    else:
        docs, labels, names, n_singletons = _read_clusters(args.input, args.encoding_errors, quoting=args.quoting)
        if n_singletons:
            _note(f"{n_singletons} label(s) with a single document are treated as unlabelled (-1)")
        texts = docs.texts
        summary.update(documents=len(docs), clustered_documents=int((labels >= 0).sum()),
                       clusters=len(names), single_document_labels=n_singletons)
    return texts, labels, pairs


def _beir_qrels(args, queries, info):
    """--qrels as judgements_of reads it: the path, or for a --beir folder its judgements read by
    query id alone, as BEIR's loader meets them with queries.jsonl (numbered by position, as
    Cranfield's qrels are, a split naming '1'..'6' beside queries '2'..'7' gave every judgement to
    its neighbour's query; a query the folder lacks is left out with a note, as trec_eval does)."""
    if getattr(args, "beir", None) is None:
        return args.qrels
    from ..datasets import read_qrels

    return read_qrels(args.qrels, query_ids=list(queries), numbering="id", unknown="keep",
                      encoding_errors=args.encoding_errors, info=info)


def _refuse_unjudged(path, qrels):
    """A ValueError where the judgements ``qrels`` (or the file ``path``) judge no document
    relevant: the error of judgements that meet no query or document ("do the files name queries
    and documents by the same ids?") sent a user whose every id met to look at the ids."""
    from ..datasets import read_qrels

    levels = [level for judged in (read_qrels(path) if qrels is path else qrels).values() for level in judged.values()]
    if levels and max(levels) < 1:
        raise ValueError(f"{path}: none of its {len(levels)} judgements is relevant: every grade is {max(levels)} or "
                         "below, and fit learns from relevant pairs (a grade of 1 or more, as trec_eval counts one)")


def read_corpus_option(args, texts, summary):
    """(texts, documents): with --corpus, the texts with the corpus' texts they lack appended and
    the corpus' positions in them (the collection a model fitted on pairs searches); else (texts,
    None)."""
    import numpy as np
    if getattr(args, "clicks_from", None) is not None:
        return texts, np.arange(summary["corpus"])
    if getattr(args, "corpus", None) is None:
        return texts, None
    if getattr(args, "qrels", None) is not None:
        # the judgements' texts: the corpus first, then the queries
        return texts, np.arange(summary["corpus"])
    from ..fitting import with_corpus
    from ._common import UsageError, read_id_texts

    _, corpus = read_id_texts(args.corpus, "documents", args.encoding_errors, args.quoting)
    if not corpus:
        raise UsageError(f"{args.corpus} holds no document")
    n_before = len(texts)
    texts, documents = with_corpus(texts, corpus)
    # the corpus' texts the pairs lack are more texts; the pairs' copies (read_supervision) are not
    summary.update(documents=summary["documents"] + len(texts) - n_before, corpus=int(documents.size))
    return texts, documents


def baseline_holdout(args):
    """The share of the supervision ``fit`` keeps back to check learned against baseline
    (--baseline-holdout; None when the user turned the check off)."""
    from ..baseline import DEFAULT_HOLDOUT

    value = getattr(args, "baseline_holdout", None)
    if value == "none":
        return None
    return DEFAULT_HOLDOUT if value is None else value


def analysis_option(args):
    """FitOptions' analyzer and cjk_unigrams of --language, --analyzer and --cjk-unigrams."""
    from ..text import resolve_analysis
    from ._common import UsageError

    try:
        return resolve_analysis(args.language, args.analyzer, args.cjk_unigrams)
    except (ValueError, ImportError) as exc:
        reads = {"sudachi": "Japanese", "fugashi": "Japanese", "jieba": "Chinese"}.get(args.analyzer)
        if reads is not None and args.language is not None and str(exc).startswith("analyzer="):
            # the library's words (analyzer='jieba', language='ja') are Python's keywords
            from ..text import analyzer_for_language

            try:
                own = analyzer_for_language(args.language)
            except (ValueError, ImportError):
                own = None
            others = {"sudachi": "--analyzer sudachi or fugashi", "fugashi": "--analyzer sudachi or fugashi",
                      "jieba": "--analyzer jieba", "cjk": "the default analyzer (leave --analyzer out)"}
            raise UsageError(f"--analyzer {args.analyzer} reads {reads}, not --language {args.language}: leave "
                             "--language out" + (f", or read {args.language} with {others[own]}" if own in others
                                                 else "")) from None
        raise UsageError(f"--language/--analyzer: {exc}") from None


def fit_options(args, mcd=None):
    """The :class:`learnsim.fitting.FitOptions` of ``learnsim fit``'s flags (the one place where
    flag names meet the library's option names); ``mcd``: MinimumClusterDistortion's settings."""
    from .._fit_common import check_stem_language
    from ..fitting import FitOptions
    from ._common import UsageError

    try:
        check_stem_language(args.language, args.stem, args.stop_words, cli=True)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return FitOptions(random_state=args.seed, weighting=args.weighting, norm=None if args.no_norm else FitOptions.norm,
                      stop_words=args.stop_words, stem=args.stem, lsi=args.lsi, paper=args.paper,
                      mcd=dict(mcd or {}), n_components=args.n_components, svd_rank=args.svd_rank,
                      max_iter=args.max_iter, learning_rate=args.learning_rate,
                      validation_fraction=args.validation_fraction, baseline_holdout=baseline_holdout(args),
                      variant=args.variant, matcher=args.matcher, rerank=not getattr(args, "no_rerank", False),
                      encoder=getattr(args, "encoder_model", None), language=args.language, **analysis_option(args))


def print_held_out(summary):
    """What the search check held out, in one line: 'Held out: 240 held-out queries ...' said it twice."""
    if summary.get("held_out"):
        print(f"Checked on {summary['held_out']}.")


def print_baseline(report):
    """The human line of the learned-against-baseline report (learnsim.baseline)."""
    if report is not None:
        print(f"Against the baseline: {report.summary()}.")


_ANALYSERS = {"sudachi": "Japanese as SudachiPy words", "fugashi": "Japanese as fugashi (MeCab) words",
              "jieba": "Chinese as jieba words", "words": "text without spaces as whole runs"}


def _analysis_words(vectorizer):
    """', Japanese as SudachiPy words of sudachidict-core 20261015' for an analyser other than the
    default bigrams: --language ja takes SudachiPy where it is installed, else fugashi, and the
    report named neither."""
    said = _ANALYSERS.get(getattr(vectorizer, "analyzer", None))
    if said is None:
        return ""
    dictionary = getattr(vectorizer, "dictionary_", None)
    if isinstance(dictionary, dict) and dictionary.get("name"):
        said += f" of {dictionary['name']}{' ' + str(dictionary['version']) if dictionary.get('version') else ''}"
    return f", {said}"


def ended_as_baseline(summary):
    """Whether the search check replaced the learned model by the strongest baseline (the model
    saved is BM25, say): what was learned (its metric, its own check against Euclid or the input
    cosine) is then no part of the model, and the output does not describe it. Relative's "W = 1"
    is its own fall-back, kept by the search check, and not this."""
    return summary.get("model") not in (None, "learned") and summary.get("model") == summary.get("strongest_baseline")


def _language_clause(summary, args, texts):
    """'; their language is not recognised ...: ... read them as English ...; --language names
    their language' where the texts' language was left to detection and fell back to English
    (Georgian, Amharic): the fit said nothing of it, and evaluate called the reading 'English
    stop words dropped, Porter stems' as of an English collection."""
    if texts is None or getattr(args, "language", None) is not None or summary.get("encoder"):
        return ""
    from ..text._described import describe_unrecognised

    own = getattr(args, "stem", None) or getattr(args, "stop_words", None) == "auto"
    checked = getattr(args, "baseline_holdout", None) != "none"
    if ended_as_baseline(summary):
        readers = "the model (a baseline) reads them"
    elif checked:
        readers = "the baselines it was checked against read them" + (
            ", and so does its vectoriser (--stem, --stop-words auto)" if own else "")
    elif own:
        readers = "its vectoriser (--stem, --stop-words auto) reads them"
    else:
        return ""       # nothing read them by a language: no stop words, no stems, no baseline
    said = describe_unrecognised(texts, readers=readers)
    return "" if said is None else f"; {said}"


def print_fitted_on(summary, args, vectorizer, pairs, features=True, texts=None):
    """The first line of the human output: the supervision and the features (``features``
    False: a model that ended as a baseline, whose terms are its own, not the learner's), and,
    with ``texts``, a clause where their language was not recognised."""
    import numpy as np
    language = _language_clause(summary, args, texts)
    if not features and summary.get("encoder"):
        # a model that ended as a baseline: the encoder the fit learned on was one of them
        features = f"the baselines include the cosine over {summary['features']} dimensions of the encoder " \
                   f"{summary['encoder']}"
    elif not features:
        features = None
    elif summary.get("encoder"):
        features = f"{summary['features']} dimensions of the encoder {summary['encoder']}"
    else:
        features = (f"{summary['features']} features ({summary['weighting']}"
                    f"{', LSI' if vectorizer.n_components_ else ''}{_analysis_words(vectorizer)})")
    features = "" if features is None else f", {features}"
    if pairs is not None and pairs.is_graded:
        scores = np.asarray(pairs.scores)
        print(f"Fitted on {summary['pairs']} graded pairs (the labels read as scores, {scores.min():g} to "
              f"{scores.max():g}) of "
              f"{summary['documents']} distinct texts{features}{language}.")
    elif summary.get("judgements"):
        counts = summary["judgements"]
        grades = np.unique(np.asarray(pairs.grades)[np.asarray(pairs.grades) > 0])
        print(f"Fitted on {counts['relevant']} relevant judgements (grades {', '.join(f'{g:g}' for g in grades)}) and "
              f"{counts['not_relevant']} not relevant, of {counts['queries']} queries over a corpus of "
              f"{summary['corpus']} documents{features}{language}.")
    elif pairs is not None:
        n_relevant = summary["duplicate_pairs"]
        kinds = (f"{n_relevant} labelled 1: duplicates, or a query and a relevant document" if n_relevant == summary["pairs"]
                 else f"{n_relevant} duplicates")
        if summary.get("label_kind") == "binary":
            # a file's label column may be read either way (learnsim._inputs.read_pairs_either): say which
            kinds += "; the labels read as 1 = duplicate, 0 = not"
        corpus = f", a corpus of {summary['corpus']} documents among them" if summary.get("corpus") else ""
        print(f"Fitted on {summary['pairs']} pairs ({kinds}) of {summary['documents']} distinct texts{corpus}"
              f"{features}{language}.")
    else:
        print(f"Fitted on {summary['documents']} documents ({summary['clustered_documents']} in "
              f"{summary['clusters']} clusters){features}{language}.")


def fitted_model(result, args):
    """The pipeline ``learnsim fit`` saves: the fit's, with --language recorded in its vectoriser
    (learnsim evaluate reads the baselines in it, as the fit's check did)."""
    from .._fit_common import record_language

    return record_language(result.pipeline, getattr(args, "language", None))


def save_and_summarise(result, model_path, args):
    """Save the fitted pipeline (a :class:`learnsim.fitting.FitResult`'s); with --json print the
    report and return True (the command is done), else False (the caller prints its lines)."""
    _save_model(fitted_model(result, args), model_path)
    if args.json:
        _print_json(result.to_dict())
        return True
    return False
