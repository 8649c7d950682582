"""``learnsim match``: duplicate detection with the matching rule a FILM model validated."""
from __future__ import annotations

import textwrap

from ._common import (_add_encoding_errors, _add_quoting, _examples, _formatter, _load_pipeline, _note, _positive_int,
                      _print_json, read_documents, _snippet, _table, UsageError, _vectorize,
                      _warn_empty_rows)

PAIRS_LAYOUTS = """\
pairs layouts (one pair per line, TAB-separated; an optional header line):
  text_a<TAB>text_b
      How do I learn Python?<TAB>What is the best way to learn Python?
  label<TAB>text_a<TAB>text_b                 (label 1 = duplicate, 0 = not)
      1<TAB>How do I learn Python?<TAB>What is the best way to learn Python?
  label<TAB>text_a<TAB>text_b<TAB>pair_id     (the Quora sample layout)
      1<TAB>How do I learn Python?<TAB>What is the best way to learn Python?<TAB>17
  a header naming the columns (text_a/text_b/label, question1/question2/is_duplicate, ...)
  any other, with --columns label=0,text_a=3,text_b=4 (0-based fields or header names)
  (.csv and .jsonl too: learnsim.datasets.read_pairs)
  quotes: .tsv/.txt are plain TSV, a text may start with " (kept verbatim); .csv is
  CSV-quoted; --quoting csv|none overrides (auto: by extension; the Quora files are quoted)"""


def register(commands):
    """Add the command's parser to ``commands``."""
    match = commands.add_parser(
        "match", formatter_class=_formatter, help="decide which pairs of texts are duplicates",
        description=textwrap.dedent("""\
            Decide duplicates with the duplicate rule 'learnsim fit --method film --pairs'
            chose on held-out pairs (--matcher): a threshold on the pair's similarity (the
            input cosine mixed with the cosine in FILM's learned space, or the input cosine
            alone when learning did not beat it), the learned pair classifier, or the paper's
            pairwise kNN rule (mutual nearest neighbours among the texts given), each with a
            calibrated probability.

            --pairs FILE: one line per pair, a probability and a decision for each.
            --corpus FILE: every pair of near-duplicates within a collection. Each document's
            --neighbours nearest documents are scored block by block (never a documents x
            documents matrix) and the pairs the rule calls duplicates are listed, most
            probable first (the classifier decides among the nearest by the model's search
            similarity; the kNN rule looks at least at its own k neighbours).

            """) + PAIRS_LAYOUTS + textwrap.dedent("""

            corpus layouts (as 'learnsim search'):
              id<TAB>text per line (.tsv)      q17<TAB>How do I learn Python?
              one document per line (.txt)     How do I learn Python?
              a header id,text (.csv)          q17,"How do I learn Python?"
              JSON Lines (.jsonl)              {"id": "q17", "text": "How do I learn Python?"}"""),
        epilog=_examples("learnsim match --model film.npz --pairs pairs.tsv",
                         "learnsim match --model film.npz --pairs quora.tsv --json > decisions.json",
                         "learnsim match --model film.npz --pairs sts.tsv --columns text_a=5,text_b=6",
                         "learnsim match --model film.npz --corpus questions.tsv --neighbours 20",
                         "learnsim match --index idx/ --text 'How can I learn Python fast?'"))
    match.add_argument("--model", metavar="M.npz",
                       help="a FILM model fitted on pairs by 'learnsim fit --method film --pairs'")
    match.add_argument("--index", metavar="DIR", help="an index of such a model ('learnsim index build'), with --text")
    source = match.add_mutually_exclusive_group(required=True)
    source.add_argument("--pairs", metavar="FILE", help="pairs of texts to decide (layouts above)")
    source.add_argument("--corpus", metavar="FILE", help="a collection to list the near-duplicate pairs of")
    source.add_argument("--text", action="append", metavar="TEXT",
                        help="--index: a new text to find the near-duplicates of in the index (repeat for several)")
    match.add_argument("--columns", metavar="SPEC", default=None,
                       help="--pairs: which 0-based fields hold what, e.g. label=0,text_a=3,text_b=4")
    match.add_argument("--neighbours", "--neighbors", type=_positive_int, default=10, metavar="K",
                       dest="neighbours", help="--corpus: nearest documents scored per document (default: 10)")
    match.add_argument("--json", action="store_true", help="print the decisions as JSON on stdout")
    _add_encoding_errors(match)
    _add_quoting(match)
    match.set_defaults(handler=run)
    return match


class _RememberTexts:
    """The model's vectoriser, which tells the duplicate rule the texts it transformed last (the
    pair classifier scores texts, not vectors)."""

    def __init__(self, vectorizer, rule):
        self._vectorizer, self._rule = vectorizer, rule

    def transform(self, texts):
        self._rule._texts = list(texts)
        return self._vectorizer.transform(texts)

    def __getattr__(self, name):
        return getattr(self._vectorizer, name)


def load_matcher(path):
    """The vectoriser, metric and duplicate rule (:class:`DuplicateRule`) of a model file, or a
    UsageError."""
    return _load_rule(path)[1:]


def _load_rule(path):
    """(pipeline, vectoriser, metric, DuplicateRule) of a model file."""
    pipeline = _load_pipeline(path)
    matcher = pipeline.matcher
    if matcher is None:
        raise UsageError(f"{path} holds no validated duplicate rule ({pipeline.method} "
                         "model); fit one with 'learnsim fit --method film --pairs FILE --model M.npz'")
    # the rule lives in the library (learnsim.pipeline uses it); imported here, as numpy is in this
    # module: 'learnsim --help' and a refused option import every command's module
    from ..matching._duplicates import DuplicateRule

    rule = DuplicateRule(matcher, pipeline.match_rule)
    return pipeline, _RememberTexts(pipeline.vectorizer, rule), pipeline.metric, rule


def _decide_pairs(args, vectorizer, matcher):
    from ._pairs import parse_columns, read_text_pairs

    columns = parse_columns(args.columns) if args.columns is not None else None
    pairs = read_text_pairs(args.pairs, columns=columns, encoding_errors=args.encoding_errors, quoting=args.quoting,
                            graded=matcher.graded)
    # the readers keep a pair with an empty text (a missing cell of a table: NaN, null); it got a
    # decision, "different" (P 0.219) even for two empty texts, and only the note on texts with
    # no word of the vocabulary, which named no line
    empty = [pairs.lines[i] for i in range(len(pairs)) if not pairs.texts_a[i].strip() or not pairs.texts_b[i].strip()]
    if empty:
        _note(f"{args.pairs}: {len(empty)} pair(s) hold an empty text (first: line {empty[0]}); an empty text has no "
              "word to compare, so what such a pair is given says nothing of it")
    texts, idx = pairs.collection()
    X = _vectorize(vectorizer, texts)
    _warn_empty_rows(X, "text", texts, distinct=True)     # a copy of a text is not one more
    score, proba, decision = matcher.decide(idx, X, texts)
    if matcher.graded:
        return _score_pairs(args, pairs, score, matcher)
    rows = []
    for i in range(len(pairs)):
        row = {"line": pairs.lines[i], "id": pairs.ids[i], "text_a": pairs.texts_a[i], "text_b": pairs.texts_b[i],
               "score": float(score[i]), "probability": float(proba[i]), "duplicate": bool(decision[i])}
        if matcher.kind == "threshold":
            row["similarity"] = float(score[i])
        if pairs.labels is not None:
            row["label"] = bool(pairs.labels[i])
        rows.append(row)
    result = {"model": str(args.model), "matcher": matcher.name, "rule": matcher.title(), "higher_is_better": True,
              "threshold": matcher.threshold_, "input_weight": matcher.input_weight_, "n_pairs": len(rows),
              "n_duplicates": int(decision.sum()), "pairs": rows}
    if args.json:
        _print_json(result)
        return 0
    print(f"{result['n_duplicates']} of {len(rows)} pairs are duplicates ({matcher.describe()}).\n")
    table = [[r["line"], _shown_probability(r["probability"], r["duplicate"]), "duplicate" if r["duplicate"] else "different",
              _snippet(r["text_a"], 40), _snippet(r["text_b"], 40)] for r in rows]
    print(_table(["line", "P(dup)", "decision", "text a", "text b"], table, align=">><<<", texts=(3, 4)))
    return 0


def _shown_probability(p, duplicate):
    """P(dup) to three decimals on the side of 0.5 of the decision: a pair just under the cut
    (0.4997) printed as '0.500  different'."""
    return "0.499" if not duplicate and p >= 0.4995 else f"{p:.3f}"


def _score_pairs(args, pairs, score, matcher):
    """A model fitted on graded pairs: the predicted similarity of each pair (higher: more similar)."""
    rows = []
    for i in range(len(pairs)):
        row = {"line": pairs.lines[i], "id": pairs.ids[i], "text_a": pairs.texts_a[i], "text_b": pairs.texts_b[i],
               "score": float(score[i])}
        if pairs.scores is not None:
            row["gold_score"] = float(pairs.scores[i])
        rows.append(row)
    result = {"model": str(args.model), "matcher": matcher.name, "rule": matcher.title(), "graded": True,
              "higher_is_better": True, "n_pairs": len(rows), "pairs": rows}
    if args.json:
        _print_json(result)
        return 0
    print(f"Predicted similarity of {len(rows)} pairs ({matcher.describe()}; higher is more similar, on the "
          "scale of the scores the model was fitted on).\n")
    table = [[r["line"], f"{r['score']:.3f}", _snippet(r["text_a"], 40), _snippet(r["text_b"], 40)] for r in rows]
    print(_table(["line", "score", "text a", "text b"], table, align=">><<", texts=(2, 3)))
    return 0


def near_duplicate_pairs(matcher, X, k):
    """(i, j, similarity) with i < j for the pairs among each row's k nearest rows whose matcher
    score reaches its threshold, by blocks of rows."""
    H = matcher._collection(X)        # the rows whose inner product is the matcher's pair score
    found = {}
    for i, j, s in _nearest_rows(H, k, "match: scoring the nearest documents"):
        if s >= matcher.threshold_:
            found[(min(i, j), max(i, j))] = float(s)
    return sorted(((i, j, s) for (i, j), s in found.items()), key=lambda t: (-t[2], t[0], t[1]))


def candidate_pairs(H, k):
    """(n, 2) array of the pairs i < j where j is among i's k nearest rows of H by inner product
    (or i among j's), by blocks of rows."""
    import numpy as np
    found = {(min(i, j), max(i, j)) for i, j, _ in _nearest_rows(H, k, "match: finding the nearest documents")}
    return np.array(sorted(found), dtype=np.int64).reshape(-1, 2)


def _nearest_rows(H, k, desc):
    """(i, j, inner product) for each j among row i's k nearest other rows of H, block by block,
    so that no n x n matrix is held."""
    import numpy as np
    from .._utils.progress import progress
    from ._common import _block_rows

    n = H.shape[0]
    k = min(k, n - 1)
    step = _block_rows(n)
    for start in progress(range(0, n, step), desc=desc):
        S = H[start:start + step] @ H.T
        S = S.toarray() if hasattr(S, "toarray") else np.asarray(S)
        rows = np.arange(S.shape[0])
        S[rows, start + rows] = -np.inf
        top = np.argpartition(-S, k - 1, axis=1)[:, :k] if k < n - 1 else np.argsort(-S, axis=1)[:, :k]
        for r, neighbours in enumerate(top):
            for j in neighbours:
                yield start + r, int(j), S[r, j]


def _rule_duplicates(matcher, pipeline, X, texts, k):
    """(i, j, score, probability) of the near-duplicates by a kNN or classifier rule: the pairs
    among each document's k nearest (in FILM's space for the kNN rule, at least its k; by the
    model's search similarity for the classifier) that the rule calls duplicates."""
    if matcher.kind == "knn":
        from sklearn.preprocessing import normalize

        # the rule's own neighbours: the cosine in its embedding, at least its k of them
        idx = candidate_pairs(normalize(matcher.matcher._collection(X)), max(k, matcher.matcher.k_))
    else:
        idx = candidate_pairs(pipeline.make_scorer().rows(X), k)
    if idx.shape[0] == 0:
        return []
    # the rule's features built once for the candidates' scores, probabilities and decisions
    score, proba, keep = matcher.decide(idx, X, texts)
    # exact copies first (duplicates with certainty, whatever their score), then by the score
    copy = matcher.copies(idx[keep], X, texts).tolist()
    found = sorted(((int(i), int(j), float(s), c, float(p))
                    for (i, j), s, c, p in zip(idx[keep], score[keep], copy, proba[keep])),
                   key=lambda t: (not t[3], -t[2], t[0], t[1]))
    return [(i, j, s, p) for i, j, s, _, p in found]


def _copy_pairs(texts, k):
    """(i, j) with i < j of the exact copies among ``texts`` (the same text, holding more than
    white space), each document paired with at most its k next copies (copies are each other's
    nearest documents: as many as the k nearest scored)."""
    import numpy as np
    groups = {}
    for i, text in enumerate(texts):
        if str(text).strip():
            groups.setdefault(text, []).append(i)
    pairs = [(g[a], g[b]) for g in groups.values() if len(g) > 1
             for a in range(len(g)) for b in range(a + 1, min(len(g), a + 1 + k))]
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


def _threshold_duplicates(matcher, X, texts, k):
    """((i, j, similarity), ...) and their probabilities, of the near-duplicates by a threshold
    rule: the pairs among each document's k nearest that reach the threshold, and every exact
    copy with probability 1 (DuplicateRule.copies, as --pairs and Pipeline.match give it; a
    copy got the threshold's probability, and copies of a text without a term of the model, a
    zero vector, or under an infinite threshold were left out), copies first."""
    import numpy as np
    m = matcher.matcher
    found = {(i, j): s for i, j, s in near_duplicate_pairs(m, X, k)}
    copies = _copy_pairs(texts, k)
    if copies.shape[0]:
        for (i, j), s in zip(copies.tolist(), m.pair_score(copies, X=X).tolist()):
            found[(i, j)] = float(s)
    is_copy = {tuple(p) for p in copies.tolist()}
    ranked = sorted(((i, j, s, (i, j) in is_copy) for (i, j), s in found.items()),
                    key=lambda t: (not t[3], -t[2], t[0], t[1]))
    scores = np.array([t[2] for t in ranked], dtype=np.float64)
    # the matcher's own probability: on the side of 0.5 of its decision (--pairs gives the same)
    proba = m._proba_from_decision(scores) if ranked else scores
    proba[[t[3] for t in ranked]] = 1.0
    return [t[:3] for t in ranked], proba


def _list_corpus_duplicates(args, vectorizer, matcher, pipeline):
    import numpy as np
    if matcher.graded:
        raise UsageError(f"{args.model} was fitted on graded pairs: it predicts a similarity score, not duplicates; "
                         "score pairs with --pairs FILE")
    docs = read_documents(args.corpus, encoding_errors=args.encoding_errors, quoting=args.quoting, unique_ids=True)
    if len(docs) < 2:
        raise UsageError(f"{args.corpus}: one document; near-duplicates need two or more")
    X = _vectorize(vectorizer, docs.texts)
    _warn_empty_rows(X, "corpus document", docs.texts)
    if matcher.kind == "threshold":
        found, proba = _threshold_duplicates(matcher, X, docs.texts, args.neighbours)
    else:
        ranked = _rule_duplicates(matcher, pipeline, X, docs.texts, args.neighbours)
        found, proba = [t[:3] for t in ranked], np.array([t[3] for t in ranked])

    def doc_id(i):
        return docs.ids[i] if docs.ids[i] is not None else f"#{i}"

    rows = []
    for (i, j, s), p in zip(found, proba):
        row = {"index_a": i, "index_b": j, "id_a": docs.ids[i], "id_b": docs.ids[j], "score": s,
               "probability": float(p), "text_a": _snippet(docs.texts[i]), "text_b": _snippet(docs.texts[j])}
        if matcher.kind == "threshold":
            row["similarity"] = s
        rows.append(row)
    # the neighbours scored, as said: the kNN rule looks at least at its own k, and no document
    # has more than the others (it said 'each document's 1000 nearest' of 60 documents)
    scored = min(max(args.neighbours, matcher.matcher.k_) if matcher.kind == "knn" else args.neighbours, len(docs) - 1)
    result = {"model": str(args.model), "matcher": matcher.name, "documents": len(docs),
              "neighbours": scored, "threshold": matcher.threshold_, "input_weight": matcher.input_weight_,
              "n_pairs": len(rows), "pairs": rows}
    if args.json:
        _print_json(result)
        return 0
    print(f"{len(rows)} near-duplicate pair(s) among {len(docs)} documents (each document's "
          f"{scored} nearest scored; {matcher.describe()}).")
    if rows:
        print()
        table = [[doc_id(r["index_a"]), doc_id(r["index_b"]), f"{r['probability']:.3f}",
                  _snippet(docs.texts[r["index_a"]], 40), _snippet(docs.texts[r["index_b"]], 40)] for r in rows]
        print(_table(["doc a", "doc b", "P(dup)", "text a", "text b"], table, align="<<><<", texts=(3, 4)))
    return 0


def _match_index(args):
    from .index import open_index, require_duplicate_rule

    if args.model is not None or args.pairs is not None or args.corpus is not None:
        raise UsageError("--index takes --text only (the model is the index's)")
    index = open_index(args.index)
    texts = list(args.text)
    if any(not t.strip() for t in texts):
        raise UsageError("--text must not be empty")
    from .._utils.inputs import has_content

    blank = next((t for t in texts if not has_content(t)), None)
    if blank is not None:
        raise UsageError(f"--text {blank[:40]!r} has no letter or digit to match")
    require_duplicate_rule(index)
    try:
        found = [index.match(t, k=args.neighbours) for t in texts]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if index.pipeline.match_rule is not None and getattr(index.pipeline.match_rule, "graded", False):
        return _score_index(args, texts, found)
    if len(index):
        from .search import _note_unknown

        # a text without duplicates may have no word the model knows: then no document is near it
        # at all, which 'no near-duplicate among its nearest' alone would not say (search --index
        # says it of such a query the same way: it finds no document)
        lonely = [t for t, hits in zip(texts, found) if not hits]
        searched = index.search(lonely, 1) if lonely else []
        _note_unknown([t for t, hits in zip(lonely, searched) if not hits], "--text")
        # search weighs the index's own words, the duplicate rule the fit's: a text of words the
        # fit never saw (Russian against a model fitted on English pairs) is found by search yet
        # compared with nothing, and "no near-duplicate" left out why
        found_by_search = [t for t, hits in zip(lonely, searched) if hits]
        if found_by_search:
            _warn_empty_rows(_vectorize(index.pipeline.vectorizer, found_by_search), "--text", found_by_search)
    scored = min(args.neighbours, len(index))      # not 'its 100000 nearest' of 60 documents
    return _print_per_text(args, texts, found, "duplicates", "probability", "probability",
                           lambda text: f"text {text}", f"  no near-duplicate among its {scored} nearest documents")


def _similarity(hit):
    """The hit's similarity under search's first stage (a re-ranked hit's score is the
    re-ranker's probability; its similarity is kept as first_stage_score)."""
    return hit.get("first_stage_score", hit["score"])


def _score_index(args, texts, found):
    """--index with a model fitted on graded pairs: the k nearest documents by predicted score."""
    return _print_per_text(args, texts, found, "matches", "predicted_score", "score",
                           lambda text: f"text {text} (predicted score of its {args.neighbours} nearest documents; "
                                        "higher is more similar)", None, higher_is_better=True)


def _print_per_text(args, texts, found, key, value, column, heading, empty, higher_is_better=None):
    """--index: each text's hits (``found``) as JSON, or a table per text of rank, ``value``
    (headed ``column``), doc and text; ``empty``: the line for a text without hits (None: an
    empty table)."""
    flag = {} if higher_is_better is None else {"higher_is_better": higher_is_better}
    out = [dict({"text": t}, **flag, **{key: [{"rank": h["rank"], "id": h["id"], value: h[value],
                                               "similarity": _similarity(h), "text": _snippet(h["text"])}
                                              for h in hits]})
           for t, hits in zip(texts, found)]
    if args.json:
        _print_json(out)
        return 0
    for i, res in enumerate(out):
        if i:
            print()
        print(heading(f"{i + 1}: {_snippet(res['text'])}"))
        if not res[key] and empty is not None:
            print(empty)
            continue
        print(_table(["rank", column, "doc", "text"],
                     [[h["rank"], f"{h[value]:.3f}", h["id"], h["text"]] for h in res[key]], align=">><<", texts=(3,)))
    return 0


def run(args):
    if args.index is not None or args.text is not None:
        if args.index is None:
            raise UsageError("--text needs --index DIR (for pairs of texts use --pairs FILE)")
        return _match_index(args)
    if args.model is None:
        raise UsageError("give --model M.npz (or --index DIR with --text)")
    pipeline, vectorizer, _, matcher = _load_rule(args.model)
    if matcher.never_duplicate():
        _note(matcher.never_duplicate())
    if args.pairs is not None:
        return _decide_pairs(args, vectorizer, matcher)
    if args.columns is not None:
        _note("--columns applies to --pairs only; ignored with --corpus")
    return _list_corpus_duplicates(args, vectorizer, matcher, pipeline)
