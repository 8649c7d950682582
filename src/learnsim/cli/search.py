"""``learnsim search``: rank a corpus for queries with a fitted model."""
from __future__ import annotations

import json
import re
import sys
import textwrap


from ._common import (_add_encoding_errors, _add_quoting, _check_output_file, _examples, _formatter, _load_pipeline,
                      _note, _positive_int, _print_json, QUERY_LAYOUTS, is_stdout, read_documents, read_id_texts,
                      _snippet, _table, UsageError, _visible, _warn_empty_rows)

# Documents per query of a run file unless -k says otherwise: TREC's depth.
RUN_DEPTH = 1000

def register(commands):
    """Add the command's parser to ``commands``."""
    search = commands.add_parser(
        "search", formatter_class=_formatter, help="rank a corpus for queries with a learned similarity",
        description=textwrap.dedent("""\
            Rank the documents of a corpus for each query with the similarity the model was
            trained and validated for, and print the k closest:
              FILM: the cosine in the learned space, mixed with the input cosine when 'learnsim
                    fit --pairs' validated a weight (chosen for search: the recall@1 of the
                    held-out duplicates among all the texts);
              mcd, relative: the learned distance (lower is closer);
              LinkLearn: the inner product of the learned term weights.
            The output names the scoring ("scoring" in --json).

            input layouts (the corpus may be unlabelled; a --queries file has the same ones):
              id<TAB>text per line (.tsv; an optional header id<TAB>text)
                  q17<TAB>How do I learn Python quickly?
              one document per line (.txt without TABs)
                  How do I learn Python quickly?
              a header naming id and text (.csv, CSV-quoted)
                  q17,"How do I learn Python, quickly?"
              JSON Lines (.jsonl) with "text" and an optional "id"
                  {"id": "q17", "text": "How do I learn Python quickly?"}

            --run FILE writes a TREC run file instead of the hits: 'qid Q0 docid rank score tag'
            lines, scores descending (a distance negated), ranks from 1, the documents named by
            their ids (the corpus or index ids; the corpus may then also be SMART records, TREC
            SGML or BEIR's corpus.jsonl), the top 1000 of each query unless -k says otherwise.
            'learnsim evaluate --run FILE --qrels R' measures it, as trec_eval would.

            """) + QUERY_LAYOUTS,
        epilog=_examples("learnsim search --model model.npz --corpus docs.tsv --query 'space shuttle launch'",
                         "learnsim search --model model.npz --corpus docs.jsonl --query 'gpu driver' "
                         "--query 'hockey playoffs' -k 5",
                         "learnsim search --model model.npz --corpus docs.txt --queries queries.txt --json",
                         "learnsim search --index idx/ --query 'gpu driver' --filter topic=hardware --explain",
                         "learnsim search --index idx/ --query 'gpu driver' --filter 'year>=2020' --filter 'year<2024'",
                         "learnsim search --index idx/ --queries topics.tsv --run run.trec --run-tag mine"))
    search.add_argument("--model", metavar="M.npz", help="model file written by 'learnsim fit' (with --corpus)")
    search.add_argument("--corpus", metavar="FILE", help="documents to search (with --model)")
    search.add_argument("--index", metavar="DIR", help="an index built by 'learnsim index build' (instead of "
                                                       "--model and --corpus)")
    search.add_argument("--filter", action="append", metavar="FIELD=VALUE", default=None,
                        help="--index: only documents whose metadata FIELD equals VALUE (a JSON value or a "
                             "string; repeat a field for any of several values, several fields for all of them); "
                             "also FIELD!=VALUE, FIELD>VALUE, >=, <, <= (numbers with numbers, strings with "
                             "strings), a dotted FIELD for nested metadata (meta.year>=2020), or a JSON filter "
                             "('{\"$or\": [{\"year\": {\"$gte\": 2020}}, {\"draft\": true}]}'); repeated "
                             "options must all hold")
    search.add_argument("--explain", action="store_true",
                        help="--index: show the words (and word pairs) that add most to each hit's score (for a "
                             "distance: what each word changes from an empty document's distance, negative "
                             "bringing the hit closer)")
    source = search.add_mutually_exclusive_group(required=True)
    source.add_argument("--query", action="append", metavar="TEXT", help="a query (repeat for several)")
    source.add_argument("--queries", metavar="FILE", help="a file of queries (formats as --corpus)")
    search.add_argument("-k", "--k", type=_positive_int, default=None, metavar="K",
                        help=f"number of hits per query (default: 10; with --run {RUN_DEPTH})")
    search.add_argument("--run", metavar="FILE", default=None,
                        help="write a TREC run file (qid Q0 docid rank score tag) of the --queries, whose "
                             "records have ids (layouts above)")
    search.add_argument("--run-tag", metavar="TAG", default=None,
                        help="--run: the run's name, the last field of each line (default: learnsim)")
    search.add_argument("--json", action="store_true",
                        help="print [{query, scoring, higher_is_better, hits: [{rank, index, id, similarity | distance | "
                             "score | probability (re-ranked), text}]}] as JSON (--index: id, metadata, and explanation "
                             "with --explain)")
    _add_encoding_errors(search)
    _add_quoting(search)
    search.set_defaults(handler=run)
    return search


def _print_hits(args, corpus, queries, idx, values, scorer, reranker=None):
    """The k hits of every query, as JSON or one table per query, with the scoring named."""
    column = "probability" if reranker is not None else scorer.column
    results = []
    for qi, query in enumerate(queries):
        hits = [{"rank": r + 1, "index": int(i), "id": corpus.ids[i], column: float(v),
                 "text": _snippet(corpus.texts[i])}
                for r, (i, v) in enumerate(zip(idx[qi], values[qi]))]
        results.append({"query": query, "scoring": scorer.name + (" re-ranked" if reranker is not None else ""),
                        "higher_is_better": bool(reranker is not None or scorer.higher_is_closer), "hits": hits})
    if args.json:
        _print_json(results)
        return 0
    print(f"Scored by {scorer.description}" + (f"; its top {reranker.n_candidates} re-ranked by the learned pair "
                                               "model (its probability of a duplicate)" if reranker else "") + ".\n")
    for qi, res in enumerate(results):
        if qi:
            print()
        print(f"query {qi + 1}: {_visible(_snippet(res['query']))}")
        rows = [[h["rank"], f"{h[column]:.4f}", h["id"] if h["id"] is not None else f"#{h['index']}",
                 h["text"]] for h in res["hits"]]
        print(_table(["rank", column, "doc", "text"], rows, align=">><<", texts=(3,)) if rows else "(no document matches)")
    return 0


# longest first: ">=" before ">"
_COMPARISONS = ("!=", ">=", "<=", "==", "=", ">", "<")
# a JSON number, which json.loads fails to read only past Python's bound on an int's digits
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_OPERATOR = {"!=": "$nin", ">=": "$gte", "<=": "$lte", ">": "$gt", "<": "$lt"}


def parse_filter(items):
    """--filter options -> one metadata filter (None for none).

    Parameters
    ----------
    items : list of str or None
        Each ``FIELD OP VALUE`` (OP one of ``=``, ``==``, ``!=``, ``>``, ``>=``, ``<``, ``<=``;
        FIELD a name or a dotted path) or a JSON filter object (``{"year": {"$gte": 2020}}``).

    Returns
    -------
    dict or None
        The filter of :meth:`learnsim.index.Index.search`: every option must hold, except
        that ``FIELD=VALUE`` options naming one field are any of their values (``topic=1
        --filter topic=2``, as before operators came).

    Notes
    -----
    For ``=`` and ``!=``, a VALUE that parses as a JSON number, bool or null matches that value
    or the same text as a string (the command line cannot tell topic=3 from topic="3"; quote it
    as JSON, topic='"3"', for the string alone): ``topic!=3`` is neither. For ``>``, ``>=``,
    ``<``, ``<=``, a VALUE that parses as a JSON number compares numbers; any other VALUE (a
    JSON string, '"2020"', among them) compares strings; true, false and null compare nothing
    and are a usage error.
    """
    if not items:
        return None
    from .._utils.inputs import loads

    equal, parts = {}, []
    for item in items:
        if item.lstrip().startswith("{"):
            try:
                parts.append(loads(item))
            except ValueError as exc:
                raise UsageError(f"--filter {item[:80]!r} is not a JSON object: {exc}") from None
            continue
        at = min((i for i in (item.find(c) for c in "=!<>") if i >= 0), default=-1)
        op = next((o for o in _COMPARISONS if item.startswith(o, at)), None) if at >= 0 else None
        field = item[:at].strip()
        if op is None or not field:
            raise UsageError(f"--filter expects FIELD=VALUE (or !=, >, >=, <, <=, or a JSON filter object); "
                             f"got {item!r}")
        value = item[at + len(op):]
        if not value.strip():
            # "year>$YEAR" with YEAR unset compared with the empty string and exited 0 (every document
            # with a year passed year>, none year=), as --out "$OUT" is refused
            raise UsageError(f"--filter {item!r}: no value after '{op}' (an unset shell variable?); to compare with "
                             f"the empty string, give it as JSON: {field}{op}'\"\"'")
        try:
            parsed = loads(value)
        except ValueError:      # not JSON (or too deep, or a key twice: not a scalar either)
            if _JSON_NUMBER.fullmatch(value.strip()):
                # an integer past Python's 4,300 digits, which compared as a string and exited 0
                # where one of 25 digits is refused as out of 64 bits
                raise UsageError(f"--filter {item[:80]!r}...: filter value of {field!r} must be a finite number "
                                 f"(an integer within 64 bits); got a number of {len(value.strip()):,} "
                                 "characters") from None
            parsed = value
        if isinstance(parsed, (list, dict)):
            parsed = value
        if op in ("=", "==", "!="):
            values = [parsed] if isinstance(parsed, str) else [parsed, value]
            if op == "!=":
                parts.append({field: {"$nin": values}})
            else:
                equal.setdefault(field, []).extend(values)
            continue
        if parsed is None or isinstance(parsed, bool):
            raise UsageError(f"--filter {item!r}: {op} compares numbers or strings, not {value.strip()}")
        parts.append({field: {_OPERATOR[op]: parsed}})
    return _all_of(([equal] if equal else []) + parts)


def _all_of(parts):
    """One filter that holds when every one of ``parts`` does: their keys side by side where no
    two share one (operators of one field merged into one object), else ``$and``, which would
    nest a JSON filter one level deeper."""
    merged = {}
    for part in parts:
        if not isinstance(part, dict):
            return {"$and": parts}   # check_filter names what is wrong
        for key, value in part.items():
            if key not in merged:
                merged[key] = value
            elif (isinstance(merged[key], dict) and isinstance(value, dict) and not key.startswith("$")
                  and all(op.startswith("$") for op in (*merged[key], *value)) and not set(merged[key]) & set(value)):
                merged[key] = {**merged[key], **value}
            else:
                return {"$and": parts}
    return merged


def _queries(args):
    """The queries of --query or --queries; one with no letter or digit (empty, or spaces and
    punctuation alone) has nothing to search for and would rank the collection arbitrarily: a
    UsageError naming it."""
    from .._utils.inputs import has_content

    if args.queries is not None:
        from ..exceptions import DocumentFormatError

        try:
            queries = read_documents(args.queries, encoding_errors=args.encoding_errors, quoting=args.quoting).texts
        except DocumentFormatError as exc:
            # the documents reader's words, 'contains no documents', named no query
            if not str(exc).endswith(": contains no documents"):
                raise
            raise UsageError(f"--queries {args.queries}: contains no queries (the file is empty, blank or a header "
                             "alone)") from None
        blank = next((n for n, q in enumerate(queries) if not has_content(q)), None)
        if blank is not None:
            raise UsageError(f"--queries {args.queries}: query {blank + 1} ({_snippet(queries[blank], 40)!r}) has no "
                             "letter or digit to search for")
        return queries
    queries = list(args.query)
    if any(not q.strip() for q in queries):
        raise UsageError("--query must not be empty")
    blank = next((q for q in queries if not has_content(q)), None)
    if blank is not None:
        raise UsageError(f"--query {_snippet(blank, 40)!r} has no letter or digit to search for")
    return queries


def _run_index(args):
    from .index import open_index

    if args.model is not None or args.corpus is not None:
        raise UsageError("--index replaces --model and --corpus; give either --index or both of them")
    index = open_index(args.index)
    try:
        return _print_index_search(args, index)
    finally:
        index.close()       # its database closed as the command ends, not by the interpreter's teardown


def _print_index_search(args, index):
    queries = _queries(args)
    results = _index_search(index, queries, args.k or 10, filter=parse_filter(args.filter), explain=args.explain)
    # a re-ranked search's score is the pair model's probability (as with --model --corpus)
    reranked = index.manifest.get("rerank") is not None
    column = "probability" if reranked else index.column
    out = [{"query": q, "scoring": index.scoring + (" re-ranked" if reranked else ""),
            "higher_is_better": bool(reranked or index.higher_is_closer),
            "hits": [dict({"rank": h["rank"], "id": h["id"], column: h["score"], "text": _snippet(h["text"]),
                           "metadata": h["metadata"]},
                          **{key: h[key] for key in ("first_stage_rank", "first_stage_score") if key in h},
                          **({"explanation": h["explanation"]} if args.explain else {}))
                     for h in hits]}
           for q, hits in zip(queries, results)]
    if args.json:
        _print_json(out)
        return 0
    how = (f"the top {index.manifest['rerank']} by {index.scoring}, re-ranked by the learned pair model "
           "(score: its probability of a duplicate)") if reranked else (
        f"{index.scoring}, {'higher' if index.higher_is_closer else 'lower'} is closer")
    print(f"Scored by {how} ({len(index)} documents in {args.index}).\n")
    for qi, res in enumerate(out):
        if qi:
            print()
        print(f"query {qi + 1}: {_visible(_snippet(res['query']))}")
        if reranked:
            rows = [[h["rank"], f"{h[column]:.4f}", h["first_stage_rank"], h["id"], h["text"]] for h in res["hits"]]
            table = _table(["rank", "probability", "first stage", "doc", "text"], rows, align=">>><<", texts=(4,))
        else:
            rows = [[h["rank"], f"{h[column]:.4f}", h["id"], h["text"]] for h in res["hits"]]
            table = _table(["rank", column, "doc", "text"], rows, align=">><<", texts=(3,))
        print(table if rows else "(no document matches)")
        if args.explain:
            for h in res["hits"]:
                print(f"  why {_visible(str(h['id']))}: {explanation_line(h['explanation'])}")
                if "rerank" in h["explanation"]:
                    print(f"    re-ranked: {rerank_line(h['explanation']['rerank'])}")
    return 0


def _index_search(index, queries, k, filter=None, explain=False, asked=True):
    """Index.search of the queries, k capped at the index's size (with a note where the user
    asked for that k: ``asked`` False for a default depth, capped quietly)."""
    wanted = k
    if k > len(index):
        k = max(len(index), 1)
    results = index.search(queries, k, filter=filter, explain=explain)
    if asked and wanted > len(index):
        _note_k_capped(wanted, len(index), "indexed", [len(hits) for hits in results], filter is not None)
    if filter is None and len(index):
        # no filter and documents to find: a query without hits has no word the model knows
        _note_unknown([q for q, hits in zip(queries, results) if not hits])
    elif len(index) and not all(results):
        _note_filtered_out(index, filter)
    return results


def _note_filtered_out(index, filter):
    """Say on stderr when a filtered search found nothing because no document passes the filter
    (a field no document holds, a value none has): "(no document matches)" alone left the query,
    the field and the value all suspect."""
    from ..index._store import check_filter

    if index._allowed(check_filter(filter)).any():
        return
    fields = ", ".join(sorted({str(k) for k in filter if not str(k).startswith("$")})) or "its fields"
    _note(f"no document of the {len(index)} in the index passes the filter (on {fields}): check the field's "
          "name and the value (compared whole, as written)")


def _note_unknown(queries, what="query"):
    """Say on stderr which queries no document matches because no word of theirs is in the
    model's vocabulary (their answer is empty, which alone would not say why)."""
    if not queries:
        return
    shown = ", ".join(repr(_snippet(q, 30)) for q in queries[:3])
    import unicodedata

    # a character standing alone is a term, but the same character inside a run of them is
    # only in its bigrams, unless the model was fitted with unigrams too
    lone = any(len(q.strip()) == 1 and unicodedata.name(q.strip(), "").startswith(
        ("CJK", "HIRAGANA", "KATAKANA", "HANGUL")) for q in queries)
    hint = " (a single CJK character is a word only for a model fitted with --cjk-unigrams)" if lone else ""
    _note(f"{len(queries)} {what}(s) have no word of the model's vocabulary (e.g. {shown}): "
          f"no document matches them{hint}")


def _index_run(index, query_ids, queries, k, filter=None, asked=True):
    """{query id: {document id: score}} of the index's search (higher better: a distance is
    negated, a re-ranked hit scores its probability), and the scoring in words."""
    reranked = index.manifest.get("rerank") is not None
    sign = 1.0 if reranked or index.higher_is_closer else -1.0
    results = _index_search(index, queries, k, filter=filter, asked=asked)
    run = {qid: {h["id"]: sign * float(h["score"]) for h in hits} for qid, hits in zip(query_ids, results)}
    # (the re-ranker re-scores max(k, its candidates): Index.search, as Pipeline.search)
    how = (f"the top {max(k, index.manifest['rerank'])} by {index.scoring} re-ranked by the learned pair model"
           if reranked else index.scoring)
    method, encoder = index.manifest.get("method"), index.manifest.get("encoder")
    if method:
        how += f" (the index's model: {method}" + (f" over the encoder {encoder}" if encoder else "") + ")"
    return run, how


def _note_k_capped(k, n, what, n_hits, filtered=False):
    """The note on a -k beyond the ``n`` documents: all of them are shown only where the scoring
    ranks them all; a lexical one ranks only the documents sharing a word with the query (and a
    filter keeps some), so 'showing all of them' above one hit of two was untrue. ``n_hits``:
    each query's hits (0 for a query with none, noted on its own)."""
    if all(h in (0, n) for h in n_hits):
        _note(f"-k {k} is more than the {n} {what} documents; showing all of them")
        return
    kept = "pass the filter and its scoring ranks" if filtered else "share a word with it (its scoring ranks no other)"
    low, high = min(h for h in n_hits if h), max(n_hits)
    _note(f"-k {k} is more than the {n} {what} documents; showing each query's documents that {kept}: "
          f"{low if low == high else f'{low} to {high}'} of them")


def _corpus_ranking(pipeline, texts, queries, k):
    """(idx, values, scorer, reranker): the k best corpus documents of each query under the
    model's search rule, as 'learnsim search --corpus' ranks them; values are the scorer's
    (a distance for the distance models) or the re-ranker's probabilities."""
    asked = k
    k = min(k, len(texts))
    # the corpus' own vocabulary and statistics for the lexical part (Pipeline notes, issue 32)
    found = pipeline.searcher(list(texts))
    scorer = found.scorer
    _warn_empty_rows(found.documents, "corpus document", texts)
    reranker = pipeline.rerank
    depth = min(max(k, reranker.n_candidates), len(texts)) if reranker is not None else k
    queries = found.read_lone_characters(list(queries))     # as an index's search reads them
    idx, values, blank = found.top_k_blank(queries, depth)
    blank = blank.tolist()
    _note_unknown([q for q, b in zip(queries, blank) if b])
    # as Index.search and Pipeline.search: no hits rather than k documents scoring alike
    idx = [[] if b else row for row, b in zip(idx, blank)]
    values = [[] if b else row for row, b in zip(values, blank)]
    if asked > len(texts):
        _note_k_capped(asked, len(texts), "corpus", [min(len(row), k) for row in idx])
    if reranker is not None:
        from ..pipeline import rerank_hits

        found = [rerank_hits(reranker, q, [{"i": int(i), "score": float(v)} for i, v in zip(idx[qi], values[qi])],
                             [texts[i] for i in idx[qi]])[:k] for qi, q in enumerate(queries)]
        idx = [[h["i"] for h in hits] for hits in found]
        values = [[h["score"] for h in hits] for hits in found]
    return idx, values, scorer, reranker


def _corpus_run(pipeline, ids, texts, query_ids, queries, k):
    """{query id: {document id: score}} of the model's search of the corpus (higher better: a
    distance is negated, a re-ranked hit scores its probability), and the scoring in words."""
    idx, values, scorer, reranker = _corpus_ranking(pipeline, texts, queries, k)
    sign = 1.0 if reranker is not None or scorer.higher_is_closer else -1.0
    run = {qid: {ids[i]: sign * float(v) for i, v in zip(idx[qi], values[qi])} for qi, qid in enumerate(query_ids)}
    how = scorer.description + (f"; its top {reranker.n_candidates} re-ranked by the learned pair model"
                                if reranker is not None else "")
    return run, how


def _write_run(args):
    """search --run: the queries' hits as a TREC run file, and a one-line summary (or JSON)."""
    if args.queries is None:
        raise UsageError("--run needs --queries FILE: a run names each query by its id")
    if args.explain:
        raise UsageError("--explain shows hits; a run file has none of it (leave out --run or --explain)")
    if not args.run_tag or any(c.isspace() for c in args.run_tag):
        raise UsageError(f"--run-tag {args.run_tag!r}: a tag is one word (a run file separates its fields by blanks)")
    out = _check_output_file(args.run, "--run", inputs=[args.queries, args.index, getattr(args, "corpus", None),
                                                         getattr(args, "model", None)], example="run.txt")
    query_ids, queries = read_id_texts(args.queries, "queries", args.encoding_errors, args.quoting)
    if args.index is not None:
        from .index import open_index

        if args.model is not None or args.corpus is not None:
            raise UsageError("--index replaces --model and --corpus; give either --index or both of them")
        from ..datasets.trec import check_distinct_ids

        index = open_index(args.index)
        # the index keeps "007" and "7" apart; a run file and the judgements read both as "7"
        check_distinct_ids(index.live_documents()[0], f"the index {args.index}")
        # TREC's depth by default, quietly capped at a smaller collection (an asked-for -k is noted)
        k = args.k or max(min(RUN_DEPTH, len(index)), 1)
        # (on an index with no document left the depth is 1, which no -k of the user's asked for)
        run, how = _index_run(index, query_ids, queries, k, filter=parse_filter(args.filter),
                              asked=args.k is not None)
    else:
        if args.model is None or args.corpus is None:
            raise UsageError("give --model M.npz and --corpus FILE, or --index DIR")
        if args.filter:
            raise UsageError("--filter needs --index (build one with 'learnsim index build')")
        ids, texts = read_id_texts(args.corpus, "documents", args.encoding_errors, args.quoting,
                                   read_before=args.queries)
        k = args.k or min(RUN_DEPTH, len(texts))
        run, how = _corpus_run(_load_pipeline(args.model), ids, texts, query_ids, queries, k)
    to_stdout = is_stdout(out)
    try:
        n_lines = _write_run_to_stdout(run, args.run_tag) if to_stdout else _write_run_file(out, run, args.run_tag)
    except OSError as exc:      # a full disk, a device: named, as the file the error is about
        raise UsageError(f"--run {out}: cannot write it ({exc.strerror or exc})") from None
    summary = {"run": str(out), "tag": args.run_tag, "queries": len(run), "lines": n_lines, "k": k, "scoring": how}
    if to_stdout:
        # the run is stdout (--run /dev/stdout): the summary was its last line, read by trec_eval
        _note(json.dumps(summary) if args.json else f"wrote {n_lines} run lines to standard output, scored by {how}")
    elif args.json:
        _print_json(summary)
    else:
        # a model that scores by shared words ranks only the documents sharing one (as the
        # baselines of 'learnsim evaluate' do): fewer than k lines for such a query
        depth = (f"the top {k} documents of {len(run)} queries (tag {args.run_tag})" if n_lines == k * len(run) else
                 f"at most the top {k} documents of each of {len(run)} queries (tag {args.run_tag}; a query has "
                 "fewer where fewer documents share a word with it)")
        print(f"Wrote {n_lines} lines to {out}: {depth}, scored by {how}.")
    return 0


def _write_run_file(path, run, tag):
    """write_trec_run into a file beside ``path``, moved into place once whole (as write_output
    does): written in place, a full disk half-way left the first queries of a run that reads as
    complete (trec_eval evaluates it without a word), over the run that was there. A path that is
    not a regular file (/dev/null, a pipe) is written as it is."""
    import contextlib
    import os
    import tempfile
    from pathlib import Path

    from ..datasets import write_trec_run

    path = Path(path)
    if path.exists() and not path.is_file():
        return write_trec_run(path, run, tag=tag)
    if path.is_symlink():
        path = path.resolve()       # its target is written and the link kept
    if path.exists():
        mode = path.stat().st_mode & 0o7777
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask       # what open(path, "w") gave: mkstemp's file is private (0600)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        os.chmod(tmp, mode)
        n_lines = write_trec_run(tmp, run, tag=tag)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return n_lines


def _write_run_to_stdout(run, tag):
    """write_trec_run through stdout itself: opened again by its name, /dev/stdout redirected to a
    file was truncated there (a '>>' file lost what it held) and written from its start, where
    stdout's own next line then wrote over the run's first ones."""
    import tempfile
    from pathlib import Path

    from ..datasets import write_trec_run

    with tempfile.TemporaryDirectory() as folder:
        n_lines = write_trec_run(Path(folder) / "run.txt", run, tag=tag)
        sys.stdout.write((Path(folder) / "run.txt").read_text(encoding="utf-8"))
    sys.stdout.flush()
    return n_lines


def explanation_line(e, n_words=6):
    """One line: the words that add most, with their contributions, and what the other words add
    (the numbers shown sum to the score); then the largest word pairs, another split of the same
    total. A distance (lower is closer) is split against an empty document: its squared
    distance = the empty document's + each word's change, a negative change bringing the hit
    closer (``Pipeline.explain``'s ``"closer_words"``), most negative first.

    Examples
    --------
    >>> from learnsim.cli.search import explanation_line
    >>> explanation_line({"score": 0.5, "words": [{"word": "password", "contribution": 0.4}], "rest": 0.1})
    'score 0.5000 = password +0.400, other words +0.100'
    >>> e = {"score": 0.8, "squared_distance": 0.64, "reference_squared_distance": 1.0, "rest": 0.0,
    ...      "words": [], "closer_words": [{"word": "password", "contribution": -0.5},
    ...                                    {"word": "reset", "contribution": 0.14}], "closer_rest": 0.0}
    >>> explanation_line(e)
    'distance 0.8000 (lower is closer): squared 0.6400 = empty document 1.0000, password -0.500, reset +0.140 (negative brings the hit closer)'

    A model over a sentence encoder: the lexical part's words, then the dense part (one number):

    >>> explanation_line({"score": 0.7, "words": [{"word": "rice", "contribution": 0.2}], "rest": 0.0,
    ...                   "lexical": 0.2, "dense": 0.5})
    'score 0.7000 = rice +0.200, dense part +0.500'
    """
    if "closer_words" in e:
        return _distance_line(e, n_words)
    total = e.get("squared_distance", e.get("score"))
    what = "squared distance" if "squared_distance" in e else "score"
    shown = e.get("words", [])[:n_words]
    words = ", ".join(f"{w['word']} {w['contribution']:+.3f}" for w in shown)
    dense = e.get("dense") or 0.0       # a sentence encoder's part: one number, no words
    rest = total - sum(w["contribution"] for w in shown) - dense     # the words not shown
    pairs = ", ".join(f"{p['word_a']}~{p['word_b']} {p['contribution']:+.3f}"
                      for p in e.get("word_pairs", [])[:3] if "word_a" in p)
    return (f"{what} {total:.4f} = " + (words or ("(no word)" if not dense else ""))
            + (f", other words {rest:+.3f}" if abs(rest) > 5e-4 else "")
            + ((", " if words or abs(rest) > 5e-4 else "") + f"dense part {dense:+.3f}" if dense else "")
            + (f" (largest word pairs: {pairs})" if pairs else ""))


def _distance_line(e, n_words):
    """explanation_line of a distance: the squared distance as the empty document's plus the
    words' changes (what brings the hit closer first)."""
    total, reference = e["squared_distance"], e["reference_squared_distance"]
    shown = e["closer_words"][:n_words]
    words = ", ".join(f"{w['word']} {w['contribution']:+.3f}" for w in shown)
    rest = total - reference - sum(w["contribution"] for w in shown)     # the words not shown
    pairs = ", ".join(f"{p['word_a']}~{p['word_b']} {p['contribution']:+.3f}"
                      for p in e.get("closer_word_pairs", [])[:3] if p["contribution"] < 0)
    return (f"distance {e['score']:.4f} (lower is closer): squared {total:.4f} = empty document {reference:.4f}"
            + (f", {words}" if words else ", (no word)")
            + (f", other words {rest:+.3f}" if abs(rest) > 5e-4 else "")
            + " (negative brings the hit closer" + (f"; closest word pairs: {pairs}" if pairs else "") + ")")


def rerank_line(e, n_features=5):
    """One line: where the re-ranker moved the hit, and the features that moved it most."""
    moved = e["first_stage_rank"] - e["rank"]
    where = (f"up from {e['first_stage_rank']}" if moved > 0 else f"down from {e['first_stage_rank']}" if moved < 0
             else "kept its place")
    shown = ", ".join(f"{f['feature']} {f['contribution']:+.2f}" for f in e["features"][:n_features])
    return f"{where}; probability {e['probability']:.3f} (decision {e['decision']:+.2f} = {shown}, ...)"


def run(args):
    if args.run is not None:
        args.run_tag = "learnsim" if args.run_tag is None else args.run_tag
        return _write_run(args)
    if args.run_tag is not None:
        raise UsageError("--run-tag names a run file's run: it goes with --run FILE")
    if args.index is not None:
        return _run_index(args)
    if args.model is None or args.corpus is None:
        raise UsageError("give --model M.npz and --corpus FILE, or --index DIR")
    given = [flag for flag, value in (("--filter", args.filter), ("--explain", args.explain)) if value]
    if given:   # the options given: "--filter and --explain need" answered a user who gave --explain alone
        raise UsageError(f"{' and '.join(given)} need{'s' if len(given) == 1 else ''} --index (build one with "
                         "'learnsim index build')")

    pipeline = _load_pipeline(args.model)
    corpus = read_documents(args.corpus, encoding_errors=args.encoding_errors, quoting=args.quoting, unique_ids=True)
    queries = _queries(args)
    idx, values, scorer, reranker = _corpus_ranking(pipeline, corpus.texts, queries, args.k or 10)
    return _print_hits(args, corpus, queries, idx, values, scorer, reranker)
