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
- **Clients** (issue 45). The per-client caps of the refit
  (:func:`learnsim.feedback.click_comparisons`) and the one-client-one-vote of a promotion
  (:func:`learnsim.feedback.promotion_evidence`) need to know who searched, from what a caller
  cannot choose freely. A request that carries the API key is its holder's: ``"key"``, or the
  user it names with ``X-Client-Id`` (a front end holding the key vouches for its users). Any
  other request is its address: the connection's peer (recorded by :class:`Peer` before
  ``X-Forwarded-For`` is applied, so a caller cannot name another address), an IPv6 address
  taken by its /64 (one host's network, whose addresses it may rotate freely), and every
  loopback address (127.0.0.0/8, ``::1``, an IPv4-mapped loopback one) as *one* client: any
  local user can bind any 127.x address as its source, so all the callers of this machine are
  one client (a service for several local users needs the key and ``X-Client-Id``). The log
  keeps only a keyed pseudonym of either. Without the key, and on a service with no key, the header
  is ignored: anyone could otherwise give each click a new name and slip under the caps. On a
  service with a key whose searches are open, a search without the key is answered and not
  logged (``dropped.keyless``): no click can name it, and such impressions, from ten addresses,
  filled the log's bound and crowded out the key holder's.
- **Bounded, never in the way** (issue 45). The log is bounded in bytes, in all and per client
  (:class:`learnsim.feedback.FeedbackLog`). A search waits at most :data:`IMPRESSION_WAIT_S`
  for its impression: a log that is busy, locked by another connection (a purge, a backup; the
  log waits :data:`BUSY_TIMEOUT_S` for a lock), damaged or full drops the impression, and the
  search is answered with ``"impression": null``. Drops are counted by reason (``/v1/info``)
  and logged at most once a minute. A click waits at most :data:`CLICK_WAIT_S` for the log,
  then is refused (503 with ``Retry-After``; 507 past a bound in bytes): a click is answered
  201 only once it is durable in a log found undamaged after its commit.
- **Interleaving.** When the index has a staged candidate model (``learnsim index versions``)
  and ``interleave`` > 0, that share of single searches (``GET /v1/search`` and the page) is
  answered by a team-draft merge (:func:`learnsim.feedback.team_draft`) of the served ranking
  and the candidate's, logged with each result's team; one whose impression is not logged
  whatever the log (another site's, a page past the first, one without the key on a keyed
  service) is not: it would show the candidate's picks for no evidence. The candidate ranks the served model's
  first ``pool`` hits (100), re-scored with its own similarity: a click-trained candidate
  reorders what the served model finds, and one search costs one search plus one re-scoring of
  ``pool`` texts. ``learnsim index promote`` reads the outcome (:func:`promotion_evidence`).
  An interleaved answer names both versions (``"model_version"``, the served one whose scores
  its hits carry, and ``"candidate_version"``), read after its search, which loads a promotion
  or a rollback made since: read before, a switch labelled one version's ranking with the other.
"""
from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import logging
import os
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np

from ..feedback._log import CLICK_RESERVE, FeedbackLogError, LogBusy, LogDamaged, LogFormatError, LogTooNew
from ..index import IndexFormatError
from ..index._versions import VERSIONS_DIR, VERSIONS_FILE
from ._connections import ipv4_inside
from ._served_log import ServedLog
from ._worker import Busy, IndexWorker

__all__ = ["ClickRecorder", "Peer", "LOOPBACK", "IPV6_PREFIXES", "MAX_CLIENT_ID", "IMPRESSION_WAIT_S", "CLICK_WAIT_S", "BUSY_TIMEOUT_S"]

log = logging.getLogger("learnsim.service")

#: Characters of an ``X-Client-Id`` kept as they are; a longer one is kept as its SHA-256.
MAX_CLIENT_ID = 200
#: Seconds a search waits for its impression to be written; past them it is answered without.
IMPRESSION_WAIT_S = 0.25
#: Seconds a click waits for the log's thread before 503.
CLICK_WAIT_S = 1.0
#: Seconds the log waits for a lock another connection holds (then the write gives up).
BUSY_TIMEOUT_S = 0.05
#: At most one warning about dropped impressions in this many seconds.
DROP_WARNING_S = 60.0
# the ASGI scope's key of the connection's own address (Peer)
PEER = "learnsim.peer"


class Peer:
    """ASGI middleware, the outermost of the service: keeps the connection's own address in the
    scope (``"learnsim.peer"``), what a client is counted by, then applies uvicorn's proxy
    headers as uvicorn would (``X-Forwarded-Proto`` and ``-For`` from the addresses of
    ``FORWARDED_ALLOW_IPS``, default 127.0.0.1). ``learnsim serve`` runs uvicorn with its own
    proxy headers off, so that the address recorded is the one a caller cannot choose: on a
    service on 127.0.0.1 every caller is local and could name any address in
    ``X-Forwarded-For``."""

    def __init__(self, app):
        self.app = app
        try:
            from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
        except ImportError:     # pragma: no cover - served by another server
            self.proxied = app
        else:
            self.proxied = ProxyHeadersMiddleware(app, os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1"))

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and PEER not in scope:
            scope[PEER] = scope.get("client")
        await self.proxied(scope, receive, send)


#: What every loopback peer is counted as (127.0.0.0/8, ::1, an IPv4-mapped loopback address).
LOOPBACK = "loopback"


#: The IPv6 prefixes ``--ipv6-prefix`` takes: a /64 (one host's network) to a /48 (one site's).
IPV6_PREFIXES = range(48, 65)


def _network(host, ipv6_prefix=64):
    """The address a client is counted by: every loopback address one name (:data:`LOOPBACK`),
    any other IPv4 address itself (an IPv4-mapped, 6to4, Teredo or NAT64 IPv6 one as its IPv4 address),
    any other IPv6 address its network of ``ipv6_prefix`` bits (default /64);
    anything else (a Unix socket, a test client) as given."""
    try:
        address = ipaddress.ip_address(str(host).split("%", 1)[0])
    except ValueError:
        return str(host)
    # the host's IPv4 address where the IPv6 one carries it (mapped, 6to4, Teredo): by /64, one
    # IPv4 address's 6to4 /48 alone was 65,536 clients, enough votes for any promotion
    if ipv4_inside(address) is not None:
        address = ipv4_inside(address)
    # any local user can bind any of 127.0.0.0/8 (and ::1) as its source address without
    # privileges: counted one by one, one process would be as many clients as it likes
    if address.is_loopback:
        return LOOPBACK
    if address.version == 6:
        return str(ipaddress.IPv6Network((address, ipv6_prefix), strict=False))
    return str(address)


class ClickRecorder:
    """The service's click log, its writing thread and the interleaving state (module notes)."""

    def __init__(self, root, *, max_days, max_rows, interleave, pool, seed, max_pending, timeout_s,
                 max_bytes=None, client_share=None, ipv6_prefix=64):
        if isinstance(ipv6_prefix, bool) or ipv6_prefix not in IPV6_PREFIXES:
            raise ValueError(f"the IPv6 prefix clients are counted by must be a whole number from 48 to 64; "
                             f"got {ipv6_prefix!r}")
        # (a /56 or /48 is one customer's: by /64 it was 256 or 65,536 clients, votes and shares)
        self.ipv6_prefix = int(ipv6_prefix)
        if not 0.0 <= float(interleave) <= 1.0:
            raise ValueError(f"interleave must be a share of the searches in [0, 1]; got {interleave!r}")
        if isinstance(pool, bool) or int(pool) != pool or not 1 <= pool <= 1000:
            raise ValueError(f"the interleaving pool must be a whole number from 1 to 1000; got {pool!r}")
        bounds = {name: value for name, value in (("max_bytes", max_bytes), ("client_share", client_share))
                  if value is not None}
        # its write-ahead files watched too (_served_log): one removed took acknowledged clicks with it
        self.log = ServedLog(root, max_days=max_days, max_rows=max_rows, busy_timeout=BUSY_TIMEOUT_S, **bounds)
        # the log's writes (an fsync each) in a thread of their own: a search never waits behind a
        # document write, nor a document write behind a burst of searches' impressions
        self.worker = IndexWorker(self.log, max_pending, timeout_s)
        self.dropped = Counter()         # impressions dropped here, by reason (the log counts its bounds')
        self._unreported, self._reported_at = Counter(), None
        self._log_counted = Counter()    # the log's own counts already put into _unreported
        # every page checked once, in the log's thread, before its first write (0.1 s for 100 MB)
        self.worker.submit(self._check)
        self.interleave, self.pool = float(interleave), int(pool)
        self._coin = np.random.default_rng(seed)      # the event loop's: which searches interleave
        self._draft = np.random.default_rng(None if seed is None else seed + 1)   # the index thread's
        self._candidate = None                        # (key, served, candidate, pipeline) once loaded
        self._staged = (None, None)                   # (versions.json's stat, newest candidate or None)
        self._lock = threading.Lock()

    def close(self):
        self.worker.close()
        self.log.close()

    # ------------------------------------------------------------------ health
    def _check(self, feedback_log):
        try:
            feedback_log.check()
        except FeedbackLogError as exc:
            log.error("the click log: %s; searches are answered without impressions, clicks refused (503)", exc)

    @property
    def damage(self):
        """None, or what is wrong with the log (it takes no more writes)."""
        return self.log.damage

    def check_damage(self):
        """The damage of the log, looked for now (its file's header: a stat and 100 bytes; its
        write-ahead files: a stat each)."""
        try:
            self.log.check_header(rescue=False)
        except FeedbackLogError:
            pass        # LogDamaged, or LogTooNew (a newer learnsim stamped it): either is self.log.damage
        if self.log.rescue_pending:
            # the removed WAL's records copied into the log's file, in the log's thread
            try:
                self.worker.submit(lambda feedback_log: feedback_log.rescue())
            except (Busy, RuntimeError):
                pass        # the close's own checkpoint copies it
        return self.log.damage

    def counts(self):
        """What ``/v1/info`` tells of the log: its bounds, the impressions dropped, the damage."""
        # (a copy of the log's counts first: its thread may add a key meanwhile)
        dropped = self.dropped + Counter(dict(self.log.dropped))
        return {"retention_days": self.log.max_days, "retention_rows": self.log.max_rows,
                "max_bytes": self.log.max_bytes, "client_share": self.log.client_share,
                "click_reserve": CLICK_RESERVE, "evicted_impressions": self.log.evicted,
                "dropped_impressions": sum(dropped.values()), "dropped": dict(sorted(dropped.items())),
                "damage": self.log.damage}

    def _drop(self, reason, n, counted=False):
        """``n`` impressions not written: counted (unless the log ``counted`` them), and logged
        at most once every DROP_WARNING_S seconds, with what was dropped since the last line."""
        if n <= 0:
            return
        if counted:
            # the log counted them by the bound each would have crossed ("client_bytes",
            # "total_bytes"): the line names those, as /v1/info does (it said "bytes_bound", a
            # reason /v1/info never shows); a copy first, as counts() takes it
            seen = Counter(dict(self.log.dropped))
            self._unreported.update(seen - self._log_counted)
            self._log_counted = seen
        else:
            self.dropped[reason] += n
            self._unreported[reason] += n
        if not self._unreported:
            return
        now = time.monotonic()
        if self._reported_at is None or now - self._reported_at >= DROP_WARNING_S:
            self._reported_at = now
            what = ", ".join(f"{k} {v}" for k, v in sorted(self._unreported.items()))
            log.warning("%d impressions were not logged (%s); their searches were answered without one "
                        "(/v1/info: learn_from_clicks.dropped; at most one such line a minute)",
                        sum(self._unreported.values()), what)
            self._unreported.clear()

    # ------------------------------------------------------------------ who
    @staticmethod
    def client_of(scope, authorized, ipv6_prefix=64):
        """The client a search or a click is counted for (module notes): with the API key its
        holder (``"key"``) or the ``X-Client-Id`` it names, else the connection's address (its
        network of ``ipv6_prefix`` bits for IPv6). ``authorized``: the request carries the key of
        a service that has one."""
        if authorized:
            for name, value in scope.get("headers", ()):
                if name == b"x-client-id" and value:
                    if len(value) <= MAX_CLIENT_ID:
                        return "id:" + value.decode("latin-1")
                    # the whole id names the user: cut to its start, long ids sharing one (a
                    # tenant's URL) were one client; its digest keeps what is held short
                    return "idh:" + hashlib.sha256(value).hexdigest()
            return "key"
        peer = scope[PEER] if PEER in scope else scope.get("client")
        return "addr:" + _network(peer[0], ipv6_prefix) if peer else "addr:unknown"

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
        if newest["version"] == served:
            # versions.json read before the promotion's manifest that now serves it: no candidate
            return None
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

        if self.candidate(idx) is None:
            return None         # (a stat and a cached version: no search of the pool for nothing)
        hits = idx.search(query, max(k, self.pool), filter=conditions)
        # the versions as the search saw them: it loads a promotion or a rollback made since,
        # and the served version read before it labelled the new version's ranking with the old
        found = self.candidate(idx)
        if not hits or found is None:
            return None
        served_version, candidate_version, pipeline = found
        closeness = np.asarray(pipeline.similarity([query], [h["text"] for h in hits])[0])
        order = np.argsort(-closeness, kind="stable")     # ties keep the served order
        served_ids = [h["id"] for h in hits[:k]]
        ids, teams = team_draft(served_ids, [hits[i]["id"] for i in order], k, self._draft)
        by_id = {h["id"]: h for h in hits}
        merged = [dict(by_id[doc_id], rank=rank + 1) for rank, doc_id in enumerate(ids)]
        return merged, teams, interleaved_model(served_version, candidate_version)

    # ------------------------------------------------------------------ writes
    async def impressions(self, items, *, timeout=IMPRESSION_WAIT_S):
        """Log ``(query, ids shown, model, client, teams)`` items; their ids, None for each one
        not written (module notes: dropped and counted, never an error, never a wait past
        ``timeout``). The impressions of a batch, and those of searches waiting together, are
        written in one transaction (one fsync): under load the log's writes keep up with the
        searches (IndexWorker batches calls of one key). A ValueError: an item the log does not
        take (nothing written)."""
        items = list(items)
        if not items:
            return []
        if self.log.damage is not None:
            self._drop("too_new" if isinstance(self.log.refusal(), LogTooNew) else "damaged", len(items))
            return [None] * len(items)
        try:
            future = self.worker.submit(_write_impressions, key="impressions", queries=items)
        except (Busy, RuntimeError):      # the queue is full, or the service is stopping
            self._drop("queue_full", len(items))
            return [None] * len(items)
        try:
            tokens = await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(future)), timeout)
        except asyncio.TimeoutError:
            # withdrawn if it had not started; one that started may still be written, unnamed
            future.cancel()
            self._drop("slow", len(items))
            return [None] * len(items)
        failed = next((t for t in tokens if isinstance(t, FeedbackLogError)), None)
        if failed is not None:
            if isinstance(failed, LogDamaged):
                log.error("the click log: %s; searches are answered without impressions, clicks refused (503)", failed)
            self._drop("busy" if isinstance(failed, LogBusy) else "damaged" if isinstance(failed, LogDamaged)
                       else "too_new" if isinstance(failed, LogTooNew) else "failed", len(items))
            return [None] * len(items)
        self._drop("bounds", sum(t is None for t in tokens), counted=True)
        return tokens

    async def clicks(self, impression, clicked, *, dwell=None, relevance=None, client=None, timeout=CLICK_WAIT_S):
        """Record clicks (:meth:`FeedbackLog.record_clicks`) once durable; waits at most ``timeout``
        for the log's thread (then TimedOut), and raises what the log raised."""
        if self.log.damage is not None:
            raise self.log.refusal()
        try:
            return await self.worker.call(lambda log: log.record_clicks(impression, clicked, dwell=dwell,
                                                                        relevance=relevance, client=client),
                                          timeout=timeout)
        except LogFormatError as exc:
            # the impression's row is damaged (edited under the service): the log's fault, not the
            # caller's (a ValueError too, it was answered 422), and said without the log's full path
            raise LogDamaged(str(exc).replace(str(self.log.path), self.log.path.name)) from None


def _write_impressions(feedback_log, batch):
    """The log's thread: the impressions of the searches waiting together; a failure of the log
    is returned for each (raised, IndexWorker would retry each search's own, each meeting the
    same lock for BUSY_TIMEOUT_S), a bad item raised (each search then gets its own answer)."""
    try:
        return feedback_log.record_impressions(batch)
    except FeedbackLogError as exc:
        return [exc] * len(batch)
