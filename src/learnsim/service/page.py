"""The search page of ``learnsim serve`` (``GET /``): HTML rendered on the server from what the
index returns, so that searching works without JavaScript (a form GET) and every piece of
document text passes through one escaping function (:func:`marked`).

Three views, each a GET with parameters a person can bookmark:

* ``/?q=TEXT&k=10``: the k best documents, each with its score, its text with the words that made
  the score marked (``<mark>``), the words and their contributions, and links to similar documents
  and, when the model has a duplicate rule, to near-duplicates;
* ``/?similar=ID``: the documents closest to document ID (itself excluded);
* ``/?duplicates=ID``: the documents the model's calibrated duplicate rule takes for near-
  duplicates of ID, with their probabilities.

Every score says what it is: a similarity (or a term-weight score) reads "similarity 0.81",
higher is closer; a distance reads "distance 1.03 lower is closer"; a re-ranked hit or a
near-duplicate shows the learned pair model's probability, "p = 0.93".

Which words are marked: for a similarity, the words whose contribution to the score is positive
(for FILM's learned part, the document words of positive word pairs too); for a distance model,
the document's words shared with the query. The explanation of a distance splits its square
against an empty document's (``Pipeline.explain``'s ``"closer_words"``): what each word changes,
negative bringing the hit closer, those first. ``fragment=1`` returns the results alone: the
page's script fetches them to search as one types.

:func:`gather` runs in the index's thread (it calls the index); the ``render_*`` functions run
anywhere (they see only plain data).
"""
from __future__ import annotations

import html
import json
import re
from urllib.parse import quote, urlencode

__all__ = ["gather", "explain_hits", "render_page", "render_results", "render_error", "marked"]

PAGE_K = 10
MAX_PAGE_K = 100
#: The parameters of the page's address: its form's, its links' and its script's (fragment=1).
PAGE_PARAMS = ("q", "k", "similar", "duplicates", "fragment")
#: The views of the page, of which an address names one.
_VIEWS = ("q", "similar", "duplicates")


def refused_params(items):
    """Why the page cannot show the address whose query parameters are ``items`` (name, value
    pairs, in order), or None: a parameter given twice (the framework keeps the last silently),
    one the page does not take (``filter`` and ``offset`` are the API's: ignored, the page showed
    unfiltered hits under a filtered address), or two views at once (one was dropped)."""
    seen = {}
    for name, value in items:      # one pass: thousands of names cost no more than a read
        if name in seen:
            return f"the parameter {name[:40]!r} is given more than once"
        if name not in PAGE_PARAMS:
            return (f"the page takes no parameter {name[:40]!r} (it takes {', '.join(PAGE_PARAMS[:4])}; "
                    "GET /v1/search takes filter and offset)")
        seen[name] = value
    views = [name for name in _VIEWS if (seen.get(name) or "").strip()]
    if len(views) > 1:
        return f"the page shows one view at a time; the address gives {' and '.join(views)}"
    return None


# text shown of a hit: long documents are cut, after marking, at this many characters
SHOWN_CHARS = 1200
# characters past SHOWN_CHARS read for the marks, so that a word across the cut is read whole
MARK_MARGIN = 200
WHY_WORDS = 6
# words (and word pairs) asked of an explanation: the marks cover more than the few listed
MARK_WORDS = 25


# --------------------------------------------------------------------------- the data
def _marks(pipeline, text, terms):
    """(start, end) of the words of ``text`` whose term is in ``terms``."""
    return [(a, b) for a, b, term in pipeline.term_spans(text) if term in terms]


def _terms_of(explanation, kind, query_terms):
    if kind == "distance":
        return set(query_terms)
    terms = {w["word"] for w in explanation.get("words", ()) if w["contribution"] > 0}
    terms |= {p["word_b"] for p in explanation.get("word_pairs", ()) if p["contribution"] > 0}
    # a bigram's words are marked one by one
    return {part for t in terms for part in str(t).split(" ")}


def gather(index, *, q=None, k=PAGE_K, similar=None, duplicates=None, info=True, explain=True, loading=False):
    """Everything a view shows, from ``index`` (in the index's thread): ``hits`` (each with
    ``marks`` and ``explanation``), the ``source`` document of a similar or duplicates view, the
    index's ``info`` and what the model can do. ``explain=False``: the hits without their
    explanations and marks, which :func:`explain_hits` adds (the service, a few hits a call).

    Examples
    --------
    A tiny index in a temporary directory:

    >>> import os, tempfile
    >>> import learnsim
    >>> from learnsim.index import Index
    >>> from learnsim.service.page import gather
    >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
    ...          "refund for a double charge", "app crashes on start", "crash after the update"]
    >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])   # too few to check: the strongest baseline, warns
    >>> index = Index.build(os.path.join(tempfile.mkdtemp(), "index"), model, texts,
    ...                     ids=["a", "b", "c", "d", "e", "f"])
    >>> data = gather(index, q="I forgot my password", k=1)
    >>> data["kind"], data["scoring"], data["info"]["documents"]
    ('term_weights', 'BM25', 6)
    >>> hit = data["hits"][0]
    >>> hit["id"], hit["text"], hit["marks"]      # the query's words in the hit, marked
    ('b', 'forgot my password', [(0, 6), (10, 18)])
    >>> index.close()
    """
    from ._loading import can_match
    from ._scores import _rule_warnings

    # ``loading``: the model loads in the background; what the page says of it comes from the
    # manifests meanwhile (the index's method, the model file's parts), not a wait for the load
    out = {"q": q, "k": k, "similar": similar, "duplicates": duplicates, "kind": index.kind,
           "scoring": index.scoring, "column": index.column, "can_match": can_match(index, loading),
           "method": index.manifest.get("method") if loading else index.pipeline.method, "hits": None,
           "source": None}
    if info:
        out["info"] = index.info()
        out["info"]["last_comparison"] = last_comparison(index)
    if q:
        out["hits"] = index.search(q, k)
    elif similar is not None or duplicates is not None:
        doc_id = similar if similar is not None else duplicates
        text, meta = index.document(doc_id)    # KeyError: an unknown id (404)
        out["source"] = {"id": doc_id, "text": text, "metadata": meta, "marks": []}
        if similar is not None:
            hits = index.more_like(doc_id, k)
        elif not out["can_match"]:
            hits = []
        else:
            # the document itself is its own best match: ask for one more and leave it out
            hits = [h for h in index.match(text, k + 1) if h["id"] != doc_id][:k]
            # what /v1/match's "warnings" and learnsim match say of the rule (an old auto kNN rule)
            out["rule_warnings"] = _rule_warnings(index.pipeline)
            for rank, h in enumerate(hits):
                h["rank"] = rank + 1
        out["hits"] = hits
    if explain and out["hits"]:
        explain_hits(index, out, out["hits"])
    return out


def last_comparison(index):
    """The comparison last recorded on a model version (a promotion's evidence, or a refused
    one's), with its ``version``; None when none was."""
    from ..index import IndexFormatError

    try:
        versions = index.versions()
    except (IndexFormatError, OSError) as exc:
        # the search and the page go on; what was asked about says it cannot be read (not None:
        # that would read as "never compared")
        return {"version": None, "status": None, "better": None, "damaged": True,
                # the server's paths are none of a client's business: the index's name is enough
                "reason": "the model versions cannot be read: "
                          + " ".join(str(exc).replace(str(index.path), index.path.name).split())[:300]}
    found = [v for v in versions if v.get("comparison")]
    if not found:
        return None
    v = max(found, key=lambda v: (v["comparison"].get("time") or 0, v["version"]))
    return dict(v["comparison"], version=v["version"], status=v["status"])


def explain_hits(index, data, hits):
    """Add the ``explanation`` and the ``marks`` to ``hits`` (some of ``data["hits"]``) of the
    view ``data``: what the query (or the source document) and each hit share.

    Examples
    --------
    >>> import os, tempfile
    >>> import learnsim
    >>> from learnsim.index import Index
    >>> from learnsim.service.page import explain_hits, gather
    >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
    ...          "refund for a double charge", "app crashes on start", "crash after the update"]
    >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])   # too few to check: the strongest baseline, warns
    >>> index = Index.build(os.path.join(tempfile.mkdtemp(), "index"), model, texts,
    ...                     ids=["a", "b", "c", "d", "e", "f"])
    >>> data = gather(index, q="I forgot my password", k=2, explain=False)
    >>> "marks" in data["hits"][0]
    False
    >>> explain_hits(index, data, data["hits"][:1])      # the first hit only
    >>> data["hits"][0]["marks"], "explanation" in data["hits"][0], "marks" in data["hits"][1]
    ([(0, 6), (10, 18)], True, False)
    >>> index.close()
    """
    p = index.pipeline
    # the query as the search read it (a lone 猫 as the terms holding it), so that an explanation
    # sums to the hit's score
    against = index.read_query(data["q"]) if data["q"] else data["source"]["text"]
    # read once a page (the service explains its hits in pieces), as the tokenizer reads it: the
    # spans of a long source document cost seconds, and where they could not be given no hit
    # was marked
    read = data.get("_against_terms")
    if read is None or read[0] != against:
        read = data["_against_terms"] = (against, set(p.terms(against)))
    terms = read[1]
    statistics = index.statistics or None   # read from disk once, not per hit
    for h in hits:
        h["explanation"] = p.explain(against, h["text"], n_top=MARK_WORDS, statistics=statistics)
        if "first_stage_rank" in h and p.rerank is not None:
            h["explanation"]["rerank"] = dict(p.rerank.explain(against, h["text"], n_top=MARK_WORDS),
                                              first_stage_rank=h["first_stage_rank"], rank=h["rank"])
        # the page shows the first SHOWN_CHARS of a hit: its words are marked there (a word that
        # runs past the margin is cut there and left unmarked). A whole long text cost up to
        # 0.7 s for 200,000 characters where reading changes their length (Tokenizer.spans)
        h["marks"] = _marks(p, h["text"][:SHOWN_CHARS + MARK_MARGIN], _terms_of(h["explanation"], index.kind, terms))


# --------------------------------------------------------------------------- HTML
# characters HTML forbids in a page (a parse error; U+0000 read by a browser as U+FFFD, or
# dropped): a C0 control other than whitespace, DEL, a C1 control. A query or a document may hold
# them (GET /?q=w001%00 put a raw U+0000 into the page); shown as U+FFFD, one for one, so that the
# marks' offsets into the text still hold
_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")


def _e(value):
    return _FORBIDDEN.sub("\ufffd", html.escape(str(value), quote=True))


def marked(text, marks, limit=SHOWN_CHARS):
    """``text`` as HTML: escaped, the spans ``marks`` in ``<mark>``, cut at ``limit`` characters.

    Examples
    --------
    >>> from learnsim.service.page import marked
    >>> marked("a <b> & c", [(2, 5)])
    'a <mark>&lt;b&gt;</mark> &amp; c'
    >>> marked("password reset", [(0, 8)], limit=10)
    '<mark>password</mark> r&hellip;'

    Overlapping spans (the character bigrams of Japanese or Chinese text) make one mark:

    >>> marked("東京の天気", [(0, 2), (1, 3), (3, 5)])
    '<mark>東京の</mark><mark>天気</mark>'
    """
    out, pos = [], 0
    cut = len(text) > limit
    text = text[:limit]
    spans = []
    for a, b in sorted(marks):
        if spans and a < spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], b)
        else:
            spans.append([a, b])
    for a, b in spans:
        if a < pos or a >= len(text):
            continue
        b = min(b, len(text))
        out.append(_e(text[pos:a]))
        out.append(f"<mark>{_e(text[a:b])}</mark>")
        pos = b
    out.append(_e(text[pos:]))
    if cut:
        out.append("&hellip;")
    return "".join(out)


def _link(**params):
    return "/?" + urlencode({k: v for k, v in params.items() if v is not None})


def _path_segment(doc_id):
    """``doc_id`` as one segment of a link's path: encoded wholly (``/`` too), and an id of dots
    alone as ``%2E`` (learnsim.client's doc_path does the same): a browser removes a ``.`` or
    ``..`` segment before following the link, so ``/v1/docs/..`` led to ``/v1/``."""
    doc_id = str(doc_id)
    return "%2E" * len(doc_id) if doc_id and set(doc_id) == {"."} else quote(doc_id, safe="")


def _why(explanation, kind):
    if not explanation:
        return ""
    if kind == "distance" and "closer_words" in explanation:
        out = _why_distance(explanation)
    else:
        words = explanation.get("words", ())[:WHY_WORDS]
        if kind == "distance":
            total = f"squared distance {explanation.get('squared_distance', 0.0):.4g}"
        else:
            total = f"score {explanation.get('score', 0.0):.4f}"
        parts = ", ".join(f"<span class=\"w\">{_e(w['word'])}</span> {w['contribution']:+.3f}" for w in words)
        out = f'<p class="why">{total} = {parts or "no shared words"}</p>'
    rerank = explanation.get("rerank")
    if rerank:
        moved = rerank["first_stage_rank"] - rerank["rank"]
        where = (f"up from {rerank['first_stage_rank']}" if moved > 0 else
                 f"down from {rerank['first_stage_rank']}" if moved < 0 else "kept its place")
        features = ", ".join(f"{_e(f['feature'])} {f['contribution']:+.2f}" for f in rerank["features"][:WHY_WORDS])
        out += f'<p class="why rerank">re-ranked {where}: {features}</p>'
    return out


def _why_distance(explanation):
    """A distance's explanation: its square as the empty document's plus what each word changes,
    the words that bring the hit closer (negative) first."""
    squared, reference = explanation.get("squared_distance", 0.0), explanation.get("reference_squared_distance", 0.0)
    words = explanation["closer_words"][:WHY_WORDS]
    parts = ", ".join(f'<span class="w">{_e(w["word"])}</span> {w["contribution"]:+.3f}' for w in words)
    rest = squared - reference - sum(w["contribution"] for w in words)
    if abs(rest) > 5e-4:
        parts += f"{', ' if parts else ''}other words {rest:+.3f}"
    return (f'<p class="why" title="the squared distance split against an empty document\'s: a negative number '
            f'brings the hit closer, a positive one pushes it away">squared distance {squared:.4g} = '
            f'{reference:.4g} for an empty document, {parts or "no word"} '
            f'<span class="legend">(negative: brings it closer)</span></p>')


def _metadata(meta):
    if not meta:
        return ""
    items = "".join(f"<dt>{_e(k)}</dt><dd>{_e(json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v)}</dd>"
                    for k, v in meta.items())
    return f'<dl class="meta">{items}</dl>'


def _hit(h, data):
    doc_id = h["id"]
    links = [f'<a class="similar" href="{_e(_link(similar=doc_id))}">similar documents</a>']
    if data.get("impression") and data.get("click_links"):
        # learn_from_clicks: following the result records a click (a redirect: no script needed)
        follow = "/click?" + urlencode({"i": data["impression"], "d": doc_id})
        links.insert(0, f'<a class="open" href="{_e(follow)}">open</a>')
    if data["can_match"]:
        links.append(f'<a class="duplicates" href="{_e(_link(duplicates=doc_id))}">near-duplicates</a>')
    links.append(f'<a class="json" href="/v1/docs/{_e(_path_segment(doc_id))}">JSON</a>')
    if "probability" in h:
        value = f'<span class="score" title="probability of a duplicate">p = {h["probability"]:.3f}</span>'
    elif "first_stage_rank" in h:
        value = (f'<span class="score" title="re-ranked: the learned pair model\'s probability of a duplicate '
                 f'(first stage: rank {int(h["first_stage_rank"])})">p = {h["score"]:.3f}</span>')
    elif data["kind"] == "distance":
        value = (f'<span class="measure">distance</span><span class="score" title="{_e(data["scoring"])}: lower is '
                 f'closer">{h["score"]:.4f}</span><span class="direction">lower is closer</span>')
    else:
        name = "similarity" if data["column"] == "similarity" else "score"
        value = (f'<span class="measure">{name}</span><span class="score" title="{_e(data["scoring"])}: higher is '
                 f'closer">{h["score"]:.4f}</span>')
    return (f'<li class="hit" data-id="{_e(doc_id)}">'
            f'<div class="head"><span class="rank">{int(h["rank"])}</span>{value}'
            f'<span class="doc-id">{_e(doc_id)}</span></div>'
            f'<p class="text">{marked(h["text"], h.get("marks", ()))}</p>'
            f'{_why(h.get("explanation"), data["kind"])}{_metadata(h.get("metadata"))}'
            f'<p class="links">{" &middot; ".join(links)}</p></li>')


def _direction(data, hits):
    """Which way the scores shown go, for the summary line."""
    if any("first_stage_rank" in h for h in hits):
        return " (re-ranked by the learned pair model: p, its probability of a duplicate)"
    return " (lower is closer)" if data["kind"] == "distance" else " (higher is closer)"


def render_results(data):
    """The results part of the page (what ``fragment=1`` returns).

    Examples
    --------
    The data of a view, as :func:`gather` returns it:

    >>> from learnsim.service.page import render_results
    >>> data = {"q": "my password", "k": 10, "similar": None, "duplicates": None, "kind": "distance",
    ...         "scoring": "learned distance", "column": "distance", "can_match": False,
    ...         "method": "MinimumClusterDistortion", "source": None, "info": {"documents": 6},
    ...         "hits": [{"rank": 1, "id": "b", "score": 0.25, "text": "forgot my password",
    ...                   "metadata": None, "marks": [(7, 9), (10, 18)]}]}
    >>> html = render_results(data)
    >>> print(html[:html.index("<ol")])
    <p class="summary">1 document for &ldquo;<bdi>my password</bdi>&rdquo;, by learned distance (lower is closer).</p>
    >>> '<p class="text">forgot <mark>my</mark> <mark>password</mark></p>' in html
    True
    >>> '<span class="measure">distance</span>' in html and '<span class="direction">lower is closer</span>' in html
    True
    """
    hits = data["hits"]
    if hits is None:
        return ('<p class="summary">Type words above: the collection is searched with the learned similarity '
                f'({_e(data["scoring"])}).</p>')
    parts = []
    src = data["source"]
    if data["q"]:
        what = "document" if len(hits) == 1 else "documents"
        parts.append(f'<p class="summary">{len(hits)} {what} for &ldquo;<bdi>{_e(data["q"])}</bdi>&rdquo;, '
                     f'by {_e(data["scoring"])}{_direction(data, hits)}.</p>')
    elif data["similar"] is not None:
        parts.append(f'<p class="summary">Documents closest to <span class="doc-id">{_e(src["id"])}</span>, '
                     f'by {_e(data["scoring"])}{_direction(data, hits)}:</p><blockquote class="source">{marked(src["text"], ())}</blockquote>')
    else:
        if not data["can_match"]:
            parts.append(f'<p class="summary">This {_e(data["method"])} model has no duplicate rule (only a FILM '
                         'fitted on labelled pairs has one): see similar documents instead.</p>')
        else:
            parts.append(f'<p class="summary">Near-duplicates of <span class="doc-id">{_e(src["id"])}</span> '
                         f'by the model\'s calibrated duplicate rule:</p>'
                         + "".join(f'<p class="none">{_e(w)}</p>' for w in data.get("rule_warnings", ()))
                         + f'<blockquote class="source">{marked(src["text"], ())}</blockquote>')
    if not hits:
        # the page searches without a filter: a query of a non-empty collection without hits
        # has no word the model knows (every document would have scored the same)
        why = (" None of the query's words is in the model's vocabulary."
               if data["q"] and (data.get("info") or {}).get("documents") else "")
        parts.append(f'<p class="none">No documents.{why}</p>')
    else:
        parts.append('<ol class="hits">' + "".join(_hit(h, data) for h in hits) + "</ol>")
    return "".join(parts)


def _header(data):
    info = data.get("info") or {}
    n, stale, deleted = info.get("documents", 0), info.get("added_since_statistics", 0), info.get("deleted", 0)
    freshness = ("statistics up to date" if not stale else
                 f"{stale} documents added since the statistics were computed (reindex refreshes them)")
    version = info.get("model_version")
    last = info.get("last_comparison")
    compared = ""
    if last:
        # issue 34: which version serves and what the last comparison of a candidate found
        compared = (f' &middot; <span class="comparison">last comparison (version {last["version"]}): '
                    f'{_e(" ".join(str(last.get("reason") or "recorded").split())[:200])}</span>')
    return (f'<p class="model">Model: <b>{_e(data["method"])}</b>, {_e(data["scoring"])}'
            + (f' &middot; <span class="version">version {int(version)}</span>' if version is not None else "")
            + f' &middot; <span class="size">{n:,} documents</span> &middot; <span class="staleness">{_e(freshness)}</span>'
            + (f" &middot; {deleted} deleted, not yet compacted" if deleted else "") + compared + "</p>")


def _isolated(text):
    """``text`` between the isolates FSI and PDI (U+2068, U+2069) where it is not ASCII: in the
    page's title, where no element can isolate it, a right-to-left override (U+202E) in a query
    would reorder the words after it too."""
    return text if text.isascii() else "\u2068" + text + "\u2069"


def _shell(title, body, q="", k=PAGE_K):
    return ("<!doctype html>\n"
            '<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_e(title)}</title>"
            '<link rel="stylesheet" href="/static/page.css"></head><body>'
            '<header><h1><a href="/">learnsim</a></h1>'
            '<form id="search" action="/" method="get" role="search">'
            f'<input id="q" name="q" type="search" value="{_e(q)}" placeholder="Search the collection" '
            'aria-label="query" autocomplete="off" autofocus>'
            f'<input type="hidden" name="k" value="{int(k)}"><button type="submit">Search</button></form>'
            f"</header>{body}"
            '<footer>JSON API: <a href="/docs">/docs</a>, <a href="/openapi.json">/openapi.json</a> (GET /v1/search?q=...)</footer>'
            '<script src="/static/page.js" defer></script></body></html>')


def render_page(data):
    """The whole page of a view.

    Examples
    --------
    The data of a view, as :func:`gather` returns it:

    >>> from learnsim.service.page import render_page
    >>> data = {"q": "my password", "k": 10, "similar": None, "duplicates": None, "kind": "distance",
    ...         "scoring": "learned distance", "column": "distance", "can_match": False,
    ...         "method": "MinimumClusterDistortion", "source": None, "info": {"documents": 6},
    ...         "hits": [{"rank": 1, "id": "b", "score": 0.25, "text": "forgot my password",
    ...                   "metadata": None, "marks": [(7, 9), (10, 18)]}]}
    >>> html = render_page(data)
    >>> html.startswith("<!doctype html>"), "<title>my password - learnsim</title>" in html
    (True, True)
    >>> '<span class="size">6 documents</span>' in html
    True
    """
    title = f"{_isolated(data['q'])} - learnsim" if data["q"] else "learnsim"
    body = f'{_header(data)}<main id="results" aria-live="polite">{render_results(data)}</main>'
    return _shell(title, body, data["q"] or "", data["k"])


def render_error(message, q="", k=PAGE_K):
    """A page that says what was wrong with the request.

    Examples
    --------
    >>> from learnsim.service.page import render_error
    >>> html = render_error("k must be <= 100", q="password", k=500)
    >>> '<p class="error">k must be &lt;= 100</p>' in html, 'value="password"' in html
    (True, True)
    """
    return _shell("learnsim: error", f'<main id="results"><p class="error">{_e(message)}</p></main>', q or "", k)
