"""Learning from clicks in ``learnsim serve --learn-from-clicks`` (issue 34): the impressions
and clicks a served index records, and the searches it interleaves with a candidate model.

- **Impressions.** Every search answered (``GET`` and ``POST /v1/search``, the page) is logged in
  ``feedback.sqlite`` beside the index (:class:`learnsim.feedback.FeedbackLog`: WAL,
  ``synchronous=FULL``, one transaction a record) *before* it is answered, and the answer names
  it (``"impression"``): a click that names it always finds it.
- **Clicks.** ``POST /v1/feedback`` (``{"impression", "clicked": [ids], "dwell", "relevance"}``)
  and the page's result links (``/click?i=IMPRESSION&d=ID``, a redirect: no JavaScript needed)
  record them. Both are writes: the API key when one is set, JSON only, the Origin check
  (:mod:`learnsim.service._guard`); an impression takes at most
  :data:`learnsim.feedback._log.MAX_CLICKS` clicks.
- **Clients.** The per-client caps of the refit (:func:`learnsim.feedback.click_comparisons`)
  need to know who searched. A client is its address, kept only as a keyed pseudonym; a request
  that carries the API key may name its user with ``X-Client-Id`` (a front end that holds the
  key vouches for its users). Without the key the header is ignored: anyone could otherwise
  give each of their clicks a new name and slip under the cap.
- **Interleaving.** When the index has a staged candidate model (``learnsim index versions``)
  and ``interleave`` > 0, that share of single searches (``GET /v1/search`` and the page) is
  answered by a team-draft merge (:func:`learnsim.feedback.team_draft`) of the served ranking
  and the candidate's, logged with each result's team. The candidate ranks the served model's
  first ``pool`` hits (100), re-scored with its own similarity: a click-trained candidate
  reorders what the served model finds, and one search costs one search plus one re-scoring of
  ``pool`` texts. ``learnsim index promote`` reads the outcome (:func:`promotion_evidence`).
"""
from __future__ import annotations

import logging
import threading
from pathlib import Path

import numpy as np

from ..feedback import FeedbackLog
from ..index import IndexFormatError
from ..index._versions import VERSIONS_DIR, VERSIONS_FILE
from ._worker import IndexWorker

__all__ = ["ClickRecorder", "MAX_CLIENT_ID"]

log = logging.getLogger("learnsim.service")

#: Characters of an ``X-Client-Id`` kept.
MAX_CLIENT_ID = 200


class ClickRecorder:
    """The service's click log, its writing thread and the interleaving state (module notes)."""

    def __init__(self, root, *, max_days, max_rows, interleave, pool, seed, max_pending, timeout_s):
        if not 0.0 <= float(interleave) <= 1.0:
            raise ValueError(f"interleave must be a share of the searches in [0, 1]; got {interleave!r}")
        if isinstance(pool, bool) or int(pool) != pool or not 1 <= pool <= 1000:
            raise ValueError(f"the interleaving pool must be a whole number from 1 to 1000; got {pool!r}")
        self.log = FeedbackLog(root, max_days=max_days, max_rows=max_rows)
        # the log's writes (an fsync each) in a thread of their own: a search never waits behind a
        # document write, nor a document write behind a burst of searches' impressions
        self.worker = IndexWorker(self.log, max_pending, timeout_s)
        self.interleave, self.pool = float(interleave), int(pool)
        self._coin = np.random.default_rng(seed)      # the event loop's: which searches interleave
        self._draft = np.random.default_rng(None if seed is None else seed + 1)   # the index thread's
        self._candidate = None                        # (key, served, candidate, pipeline) once loaded
        self._staged = (None, None)                   # (versions.json's stat, newest candidate or None)
        self._lock = threading.Lock()

    def close(self):
        self.worker.close()
        self.log.close()

    # ------------------------------------------------------------------ who
    @staticmethod
    def client_of(scope, authorized):
        """The client a search or a click is counted for (module notes): the ``X-Client-Id`` of
        a request with the key, else the address."""
        if authorized:
            for name, value in scope.get("headers", ()):
                if name == b"x-client-id" and value:
                    return "id:" + value.decode("latin-1")[:MAX_CLIENT_ID]
        client = scope.get("client")
        return "addr:" + str(client[0]) if client else None

    # ------------------------------------------------------------------ interleaving
    def wants_interleaving(self):
        return self.interleave > 0.0 and self._coin.random() < self.interleave

    def candidate(self, idx):
        """(served version, candidate version, pipeline) of the newest staged candidate, or None;
        in the index's thread (it reads the versions file, and loads the model once)."""
        newest = self._newest_candidate(idx)
        if newest is None:
            return None
        served = int(idx.model_version)
        key = (served, newest["version"], newest["sha256"])
        with self._lock:
            if self._candidate is None or self._candidate[0] != key:
                try:
                    pipeline = idx.version_pipeline(newest["version"])
                except Exception as exc:     # noqa: BLE001 - a candidate that cannot load is not served
                    # the served ranking stays whole: the searches are answered as usual, not 503
                    log.warning("not interleaving: candidate version %s cannot be loaded: %s", newest["version"], exc)
                    pipeline = None
                self._candidate = (key, served, newest["version"], pipeline)
            if self._candidate[3] is None:
                return None
            return self._candidate[1:]

    def _newest_candidate(self, idx):
        """The newest staged version (a dict), or None; versions.json read again only when it
        changed (its stat), not at every interleaved search."""
        file = Path(idx.path) / VERSIONS_DIR / VERSIONS_FILE
        try:
            st = file.stat()
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            return None         # an index never staged into has no candidate
        if self._staged[0] != stamp:
            try:
                staged = [v for v in idx.versions() if v["status"] == "candidate"]
            except (IndexFormatError, ValueError, OSError) as exc:    # IndexDamagedError is one
                # damaged: nothing to interleave, and the search is answered as usual; the damage is
                # reported where the versions are what was asked (/v1/info, the page, the CLI)
                log.warning("not interleaving: the model versions cannot be read: %s", exc)
                staged = []
            self._staged = (stamp, max(staged, key=lambda v: v["version"]) if staged else None)
        return self._staged[1]

    def interleaved(self, idx, query, k, conditions):
        """(hits, teams, model) of a search answered by a team draft of the served ranking and the
        candidate's, or None when there is no candidate (in the index's thread)."""
        from ..feedback import interleaved_model, team_draft

        found = self.candidate(idx)
        if found is None:
            return None
        served_version, candidate_version, pipeline = found
        hits = idx.search(query, max(k, self.pool), filter=conditions)
        if not hits:
            return None
        closeness = np.asarray(pipeline.similarity([query], [h["text"] for h in hits])[0])
        order = np.argsort(-closeness, kind="stable")     # ties keep the served order
        served_ids = [h["id"] for h in hits[:k]]
        ids, teams = team_draft(served_ids, [hits[i]["id"] for i in order], k, self._draft)
        by_id = {h["id"]: h for h in hits}
        merged = [dict(by_id[doc_id], rank=rank + 1) for rank, doc_id in enumerate(ids)]
        return merged, teams, interleaved_model(served_version, candidate_version)

    # ------------------------------------------------------------------ writes
    async def impressions(self, items, *, timeout=None):
        """Log ``(query, ids shown, model, client, teams)`` items; their ids. The impressions of a
        batch, and those of searches waiting together, are written in one transaction (one fsync):
        under load the log's writes keep up with the searches (IndexWorker batches calls of one key)."""
        return await self.worker.call(lambda log, batch: log.record_impressions(batch), key="impressions",
                                      queries=list(items), timeout=timeout)

    async def clicks(self, impression, clicked, *, dwell=None, relevance=None, client=None, timeout=None):
        return await self.worker.call(lambda log: log.record_clicks(impression, clicked, dwell=dwell,
                                                                    relevance=relevance, client=client),
                                      timeout=timeout)
