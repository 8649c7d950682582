"""``learnsim serve`` crash test: every write the service acknowledged survives ``kill -9``.

What it does, in order:

1. fits a FILM pipeline on the synthetic corpus of ``bench_index.py`` (``learnsim.fit(texts,
   clusters=..., method="film", baseline_holdout=None)`` on its fitting corpus, ``--fit-docs``
   documents) and builds an index of ``--docs`` documents of that corpus (stream 0), once, in one
   directory that every round serves;
2. starts ``learnsim serve IDX --port 0`` as a subprocess (one process, as a user runs it; BLAS
   limited to ``--threads`` threads) and waits for ``GET /healthz``; the time from the start of
   the process to its first 200 is the (re)start time. Then one ``POST /v1/explain`` has it load
   its pipeline (searches use the index's query plan; without it the first write of each round
   would spend a second or more loading it, and short rounds would see no write acknowledged);
3. each of ``--rounds`` rounds: ``--clients`` concurrent clients (threads, one keep-alive httpx
   connection each) post batches of 1 to ``--batch`` new documents (``POST /v1/docs``) in a
   loop. Every document is unique: id ``r{round}c{client}n{i}``, a text of another stream of the
   synthetic corpus (one stream per round and client, so no text repeats) plus its id as a last
   word, metadata ``{"round": r, "client": c}``. A client counts a document as *acknowledged*
   only when its POST was answered 2xx (with the ids it posted); a POST that fails (the kill
   resets the connection) is not acknowledged: its documents may or may not be there. A seeded
   random moment after the clients start (uniform in ``--kill-after``, default 0.2-2.0 s) the
   server gets SIGKILL, and the clients stop;
4. restarts the server on the same directory (a start that fails, or an index that does not
   open, fails the run) and checks every document posted so far, of every round:

   * ``GET /v1/docs/{id}``: 200 with the same text and metadata for every acknowledged one;
   * searchable: a search of its own text with ``filter={"round": r, "client": c}`` (``POST
     /v1/search``, k = ``--k``) returns it, and one filtered search per (round, client) with
     k = 1000 returns every document of that client and round that ``GET`` finds (and none that
     it does not);
   * for information: how many are found at rank 1 by a search of their own text without the
     filter (k = 1);
   * the documents that are present without having been acknowledged (allowed: their POST was
     cut by the kill after the commit), which must be searchable too and stay present in later
     rounds; and the service's document count (``GET /v1/info``), which must be the built index
     plus every posted document that is present.

   *Lost* are the acknowledged documents missing, changed or not found by those searches;
5. after the last round, stops the server and opens the index in this process, checking every
   segment (``Index.open``, ``segment.check()``).

With ``--clicks`` (issue 45) the server runs with ``--learn-from-clicks`` (on 127.0.0.1, where
keyless learning is allowed; its log's byte bounds raised, ``--feedback-max-bytes 4G
--feedback-client-share 1``, since every request here is one client and the checks' own
searches are logged too) and, beside the document writers, ``--click-clients`` clients loop:
``GET /v1/search`` with the start of a text of the index (k = 10), then ``POST /v1/feedback``
clicking one or two of its hits with the answer's ``"impression"``. A click is *acknowledged*
only when that POST was answered 201 with ``"recorded"`` equal to the ids sent; a 503 (the log
busy) is counted, not acknowledged. After each restart ``/healthz`` must answer ``"ok"`` (not
``"degraded"``), and the log is read in this process (``FeedbackLog(IDX, readonly=True)``,
``check()``: its header and ``PRAGMA quick_check``): every acknowledged click, (impression,
clicked id), must be in it, and every click seen in an earlier check still. After the last
round the log is opened for writing as the server opens it and checked again. *Lost* are the
acknowledged clicks missing.

Per round it prints one line; at the end a summary (rounds, documents acknowledged, lost,
present without acknowledgement, restart times). The exit status is 1 when anything acknowledged
was lost, a restart failed, or anything else went wrong (a 5xx answer, a present document not
searchable, a document count that does not add up, a connection failure before the kill, a
damaged segment); 0 otherwise.

Everything is bounded: a fixed number of rounds, at most ``--max-per-client`` documents per client
and round, a timeout on every request (``--request-timeout``) and on every wait (server start
``--start-timeout``), and every server process is killed in a ``finally``. Only 127.0.0.1.

Usage::

    python benchmarks/serve_durability.py                              # 20 rounds, 4 clients
    python benchmarks/serve_durability.py --rounds 5 --clients 8 --json results/serve-durability.json
    python benchmarks/serve_durability.py --workdir /tmp/sd --keep     # keep the index afterwards
    python benchmarks/serve_durability.py --rounds 5 --clicks --json results/serve-durability-clicks.json

Needs fastapi, uvicorn and httpx (``pip install -e .[serve] httpx``; the test extra has all three).
About 3 minutes for 20 rounds on 2 cores, most of it the server's starts (each imports
scikit-learn to load the pipeline).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import queue
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_index as corpus_gen  # noqa: E402  (the synthetic corpus)

SWEEP_K = 1000          # the service's largest k: the per-(round, client) sweep returns them all
SEARCH_CHUNK = 100      # queries per POST /v1/search
_LOG_ERROR = re.compile(r"(?i)traceback|error|exception")
_SERVE_LINE = re.compile(r"serving .* \((\d+) documents\) on (http://127\.0\.0\.1:\d+)")


# ---------------------------------------------------------------------- the index
def build_index(path, docs=3000, seed=0, fit_docs=corpus_gen.FIT_DOCS, components=None):
    """Fit FILM on the synthetic fitting corpus and build an index of ``docs`` documents at
    ``path``; returns a dict with the timings and the pipeline."""
    import learnsim
    from learnsim.index import Index

    vocab = corpus_gen.vocabulary()
    fit_texts, topic, _, _ = corpus_gen.fitting_corpus(seed, vocab)
    options = {} if components is None else {"n_components": int(components)}
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipeline = learnsim.fit(fit_texts[:fit_docs], clusters=[int(t) for t in topic[:fit_docs]],
                                method="film", baseline_holdout=None, **options)
    fit_s = time.perf_counter() - start
    texts, _ = corpus_gen.corpus(docs, seed, vocab)
    start = time.perf_counter()
    Index.build(path, pipeline, texts, [f"d{i}" for i in range(len(texts))]).close()
    return {"docs": len(texts), "fit_docs": min(fit_docs, len(fit_texts)), "fit_s": fit_s,
            "build_s": time.perf_counter() - start, "pipeline": repr(pipeline)}


def client_texts(seed, vocab, round_, client, clients, n):
    """``n`` texts of the synthetic corpus for one client in one round, from their own seeded
    stream (streams 1, 2, ...; the index is stream 0): no text repeats across clients and rounds."""
    import numpy as np

    rng = np.random.default_rng([seed, 1 + round_ * clients + client, 0])
    tokens, offsets, _ = corpus_gen._chunk_tokens(n, rng)   # n documents only (corpus() makes 10,000)
    return corpus_gen.texts_of(tokens, offsets, vocab)


# ---------------------------------------------------------------------- the server
class StartFailed(Exception):
    """The server did not start (it stopped, or did not answer in time)."""


def server_env(threads):
    """The server's environment: BLAS and numba threads limited, this checkout's src first."""
    return corpus_gen._env(threads)


class ServerProcess:
    """``learnsim serve INDEX --port 0`` in a subprocess. The constructor only starts it (it never
    raises after the process exists): call :meth:`wait_ready`, and :meth:`kill` in a ``finally``."""

    def __init__(self, index, threads=1, extra_args=()):
        self.started = time.monotonic()
        self.proc = subprocess.Popen([sys.executable, "-m", "learnsim", "serve", str(index), "--port", "0",
                                      *extra_args],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, errors="replace", env=server_env(threads))
        self.lines = queue.Queue()
        self.log = []
        self.base = None
        self.documents = None
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.proc.stderr:
            self.log.append(line)
            self.lines.put(line)

    def log_tail(self, chars=3000):
        return "".join(self.log)[-chars:]

    def wait_ready(self, timeout):
        """Wait for the address on stderr, then for /healthz 200; returns the seconds from the
        start of the process. Raises StartFailed."""
        import httpx

        deadline = self.started + timeout
        while self.base is None:
            if self.proc.poll() is not None:
                self._drain()
                raise StartFailed(f"the server stopped with status {self.proc.returncode}: {self.log_tail()}")
            try:
                line = self.lines.get(timeout=0.1)
            except queue.Empty:
                line = ""
            found = _SERVE_LINE.search(line)
            if found:
                self.documents, self.base = int(found.group(1)), found.group(2)
            elif time.monotonic() > deadline:
                raise StartFailed(f"the server did not say where it listens within {timeout} s: {self.log_tail()}")
        while True:
            try:
                if httpx.get(self.base + "/healthz", timeout=2).status_code == 200:
                    return time.monotonic() - self.started
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None:
                self._drain()
                raise StartFailed(f"the server stopped with status {self.proc.returncode}: {self.log_tail()}")
            if time.monotonic() > deadline:
                raise StartFailed(f"the server did not answer /healthz within {timeout} s: {self.log_tail()}")
            time.sleep(0.05)

    def _drain(self):
        self._reader.join(5)

    def kill(self):
        """SIGKILL (if it still runs) and reap it; returns the wait status."""
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(30)
        finally:
            self._drain()
        return self.proc.returncode

    def stop(self):
        """SIGTERM, then SIGKILL after 15 s; returns the exit status."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                pass
        return self.kill()

    def errors_in_log(self):
        return [line.rstrip() for line in self.log if _LOG_ERROR.search(line)]


# ---------------------------------------------------------------------- the writers
class ClientLog:
    """What one client did in one round."""

    def __init__(self):
        self.attempted = []     # ids whose POST was sent (acknowledged or not)
        self.acknowledged = []  # ids whose POST was answered 2xx
        self.posts_ok = 0
        self.post_times = []
        self.statuses = []       # unexpected answers: (status, body)
        self.transport = []      # (seconds since the clients started, exception name, after the kill?)
        self.bad_ack = []        # 2xx answers that named other ids than the ones posted
        self.exhausted = False
        self.crashed = None      # an exception the client did not expect


def _guarded(loop, *args):
    """Run a client's ``loop(*args)``; an exception it did not expect goes to its log (the last
    argument) as a problem of the round, not to the thread's traceback."""
    log = args[-1]
    try:
        loop(*args)
    except Exception as exc:   # noqa: BLE001 - reported as a problem of the round
        log.crashed = f"{type(exc).__name__}: {exc}"


def _post_loop(base, r, c, texts, batch, rng, stop, killing, t0, timeout, log):
    import httpx

    i = 0
    with httpx.Client(base_url=base, timeout=timeout) as http:
        while not stop.is_set():
            if i >= len(texts):
                log.exhausted = True
                return
            n = min(rng.randint(1, batch), len(texts) - i)
            docs = []
            for j in range(i, i + n):
                doc_id = f"r{r}c{c}n{j}"
                docs.append({"id": doc_id, "text": f"{texts[j]} {doc_id}", "metadata": {"round": r, "client": c}})
            i += n
            ids = [d["id"] for d in docs]
            log.attempted.extend(ids)
            start = time.perf_counter()
            try:
                resp = http.post("/v1/docs", json={"documents": docs})
                body = resp.content
            except httpx.HTTPError as exc:
                log.transport.append((time.monotonic() - t0, type(exc).__name__, killing.is_set()))
                return   # the server is gone (or the connection broke): this client is done
            if 200 <= resp.status_code < 300:
                try:
                    answered = resp.json().get("ids")
                except ValueError:
                    answered = None
                if answered != ids:
                    log.bad_ack.append({"posted": ids, "answered": answered})
                log.acknowledged.extend(ids)
                log.posts_ok += 1
                log.post_times.append(time.perf_counter() - start)
            else:
                log.statuses.append((resp.status_code, body[:300].decode("utf-8", "replace")))
                time.sleep(0.05)


class ClickLog:
    """What one click client did in one round (``--clicks``)."""

    def __init__(self):
        self.searches = 0        # searches answered 200
        self.no_impression = 0   # ... with "impression": null (the log dropped it: allowed, counted)
        self.attempted = []      # (impression, doc id) of every click POST sent
        self.acknowledged = []   # ... answered 201 with "recorded" = the ids sent
        self.refused_busy = 0    # 503 (the log busy): not acknowledged, allowed
        self.statuses = []       # unexpected answers: (route, status, body)
        self.transport = []      # (seconds since the clients started, exception name, after the kill?)
        self.bad_ack = []        # 201 answers that recorded another count
        self.crashed = None


def _click_loop(base, queries, k, limit, rng, stop, killing, t0, timeout, log):
    import httpx

    with httpx.Client(base_url=base, timeout=timeout) as http:
        for _ in range(limit):
            if stop.is_set():
                return
            try:
                resp = http.get("/v1/search", params={"q": rng.choice(queries), "k": k})
            except httpx.HTTPError as exc:
                log.transport.append((time.monotonic() - t0, type(exc).__name__, killing.is_set()))
                return
            if resp.status_code != 200:
                log.statuses.append(("search", resp.status_code, resp.text[:300]))
                time.sleep(0.05)
                continue
            body = resp.json()
            log.searches += 1
            impression, hits = body.get("impression"), [h["id"] for h in body.get("hits", [])]
            if impression is None:
                log.no_impression += 1
                continue
            if not hits:
                continue
            clicked = rng.sample(hits, min(len(hits), rng.randint(1, 2)))
            pairs = [(impression, doc_id) for doc_id in clicked]
            log.attempted.extend(pairs)
            try:
                resp = http.post("/v1/feedback", json={"impression": impression, "clicked": clicked})
            except httpx.HTTPError as exc:
                log.transport.append((time.monotonic() - t0, type(exc).__name__, killing.is_set()))
                return
            if resp.status_code == 201:
                try:
                    recorded = resp.json().get("recorded")
                except ValueError:
                    recorded = None
                if recorded != len(clicked):
                    log.bad_ack.append({"clicked": clicked, "recorded": recorded})
                log.acknowledged.extend(pairs)
            elif resp.status_code == 503:
                log.refused_busy += 1
                time.sleep(0.05)
            else:
                log.statuses.append(("feedback", resp.status_code, resp.text[:300]))
                time.sleep(0.05)


def write_round(server, r, *, clients, batch, kill_delay, texts, seed, timeout, click_clients=0, click_queries=(),
                click_limit=1000):
    """Clients post until the server is killed ``kill_delay`` s after they start; returns their
    logs and what happened to the server. With ``click_clients``, that many more clients search
    ``click_queries`` and click (``--clicks``)."""
    stop, killing = threading.Event(), threading.Event()
    logs = [ClientLog() for _ in range(clients)]
    click_logs = [ClickLog() for _ in range(click_clients)]
    t0 = time.monotonic()
    threads = [threading.Thread(target=_guarded, daemon=True,
                                args=(_post_loop, server.base, r, c, texts[c], batch, random.Random(f"{seed}-{r}-{c}"), stop,
                                      killing, t0, timeout, logs[c]))
               for c in range(clients)]
    threads += [threading.Thread(target=_guarded, daemon=True,
                                 args=(_click_loop, server.base, click_queries, 10, click_limit,
                                       random.Random(f"{seed}-{r}-click{c}"), stop, killing, t0, timeout,
                                       click_logs[c]))
                for c in range(click_clients)]
    for t in threads:
        t.start()
    died_before_kill = None
    try:
        while time.monotonic() - t0 < kill_delay:
            if server.proc.poll() is not None:
                died_before_kill = server.proc.returncode
                break
            time.sleep(min(0.01, max(0.0, kill_delay - (time.monotonic() - t0))))
    finally:
        killing.set()
        status = server.kill()
        stop.set()
        hung = 0
        for t in threads:
            t.join(timeout + 5)
            hung += t.is_alive()
    return {"logs": logs, "click_logs": click_logs, "killed_at_s": time.monotonic() - t0, "wait_status": status,
            "died_before_kill": died_before_kill, "hung_clients": hung, "log_errors": server.errors_in_log()}


# ---------------------------------------------------------------------- the checks
def _get_docs(base, ids, timeout):
    import httpx

    out = {}
    with httpx.Client(base_url=base, timeout=timeout) as http:
        for doc_id in ids:
            resp = http.get("/v1/docs/" + quote(doc_id, safe=""))
            if resp.status_code == 200:
                body = resp.json()
                out[doc_id] = (body.get("text"), body.get("metadata"))
            elif resp.status_code == 404:
                out[doc_id] = None
            else:
                out[doc_id] = ("error", resp.status_code, resp.text[:300])
    return out


def _search(http, queries, k, filter=None):
    body = {"queries": queries, "k": k}
    if filter is not None:
        body["filter"] = filter
    resp = http.post("/v1/search", json=body)
    if resp.status_code != 200:
        raise RuntimeError(f"POST /v1/search answered {resp.status_code}: {resp.text[:300]}")
    return [[h["id"] for h in hits] for hits in resp.json()["results"]]


def verify(base, docs, acknowledged, seen_present, *, k=10, timeout=30.0, workers=4):
    """Check every posted document (``docs``: id -> (round, client, text)) on the server at
    ``base``. ``seen_present``: ids found in an earlier check (updated here)."""
    import httpx

    ids = list(docs)
    chunks = [ids[i::workers] for i in range(workers)]
    got = {}
    with ThreadPoolExecutor(workers) as pool:
        for part in pool.map(lambda ch: _get_docs(base, ch, timeout), chunks):
            got.update(part)
    errors = [f"GET /v1/docs/{i} answered {v[1]}: {v[2]}" for i, v in got.items() if isinstance(v, tuple) and v[0] == "error"]
    present = {i for i, v in got.items() if v is not None and not (isinstance(v, tuple) and v[0] == "error")}
    missing, changed = [], []
    for doc_id in dict.fromkeys(acknowledged):
        r, c, text = docs[doc_id]
        if doc_id not in present:
            missing.append(doc_id)
        elif got[doc_id] != (text, {"round": r, "client": c}):
            changed.append({"id": doc_id, "got": got[doc_id]})
    # searches: own text within the (round, client) filter, one sweep per (round, client), own
    # text without a filter (rank 1, for information)
    groups = {}
    for doc_id in ids:
        r, c, _ = docs[doc_id]
        groups.setdefault((r, c), []).append(doc_id)
    found_filtered, swept, rank1 = set(), set(), set()
    phantoms = []
    with httpx.Client(base_url=base, timeout=timeout) as http:
        for (r, c), members in groups.items():
            flt = {"round": r, "client": c}
            live = [i for i in members if i in present]
            for a in range(0, len(live), SEARCH_CHUNK):
                part = live[a:a + SEARCH_CHUNK]
                queries = [docs[i][2] for i in part]
                for doc_id, hit_ids in zip(part, _search(http, queries, k, flt)):
                    if doc_id in hit_ids:
                        found_filtered.add(doc_id)
                for doc_id, hit_ids in zip(part, _search(http, queries, 1)):
                    if hit_ids and hit_ids[0] == doc_id:
                        rank1.add(doc_id)
            if live:
                hit_ids = set(_search(http, [docs[live[0]][2]], SWEEP_K, flt)[0])
                swept |= hit_ids
                phantoms += sorted(hit_ids - present)
        info = http.get("/v1/info")
        documents = info.json().get("documents") if info.status_code == 200 else None
        if info.status_code != 200:
            errors.append(f"GET /v1/info answered {info.status_code}: {info.text[:300]}")
    not_searchable = sorted(i for i in present if i not in found_filtered or i not in swept)
    acked = set(acknowledged)
    lost = sorted(set(missing) | {d["id"] for d in changed} | (set(not_searchable) & acked))
    unacked_present = sorted(present - acked)
    vanished = sorted(seen_present - present)
    seen_present |= present
    return {"checked": len(acked), "present": len(present), "lost": lost, "missing": sorted(missing),
            "changed": changed, "not_searchable": not_searchable,
            "not_searchable_unacknowledged": sorted(set(not_searchable) - acked),
            "unacknowledged_present": unacked_present, "vanished": vanished, "phantoms": phantoms,
            "rank1": len(rank1 & acked), "documents": documents, "errors": errors}


def check_on_disk(path):
    """Open the index in this process and check every segment; returns (documents, error)."""
    from learnsim.index import Index

    try:
        with Index.open(path) as idx:
            for seg in idx.segments:
                seg.check()
            return len(idx), None
    except Exception as exc:   # noqa: BLE001 - reported, not raised
        return None, f"{type(exc).__name__}: {exc}"


def read_click_log(index, writable=False):
    """Open the index's click log in this process (read only, or for writing as the server opens
    it), check it (header and ``PRAGMA quick_check``) and read its clicks; returns
    ((impression, doc id) set, impressions, error)."""
    from learnsim.feedback import FeedbackLog

    try:
        with FeedbackLog(index, readonly=not writable) as log:
            log.check()
            clicks, impressions = set(), 0
            for imp in log.impressions():
                impressions += 1
                clicks.update((imp["id"], c["doc_id"]) for c in imp["clicks"])
            return clicks, impressions, None
    except Exception as exc:   # noqa: BLE001 - reported, not raised
        return set(), None, f"{type(exc).__name__}: {exc}"


def verify_clicks(base, index, attempted, acknowledged, seen, *, timeout=30.0):
    """Check the click log of the server at ``base`` (serving ``index``): /healthz not degraded,
    the log opens and checks in this process, every acknowledged click in it, every click seen
    in an earlier check (``seen``, updated here) still there."""
    import httpx

    errors = []
    try:
        resp = httpx.get(base + "/healthz", timeout=timeout)
        health = resp.json() if resp.status_code == 200 else None
        if resp.status_code != 200 or health.get("status") != "ok":
            errors.append(f"/healthz answered {resp.status_code}: {resp.text[:300]}")
        resp = httpx.get(base + "/v1/info", timeout=timeout)
        damage = (resp.json().get("learn_from_clicks") or {}).get("damage") if resp.status_code == 200 else None
        if resp.status_code != 200 or damage:
            errors.append(f"/v1/info answered {resp.status_code}, click log damage {damage!r}")
    except (httpx.HTTPError, ValueError) as exc:
        errors.append(f"/healthz or /v1/info: {type(exc).__name__}: {exc}")
    in_log, impressions, error = read_click_log(index)
    if error:
        errors.append(f"the click log does not open or check in process: {error}")
    acked = set(acknowledged)
    lost = sorted(acked - in_log)
    vanished = sorted(seen - in_log)
    seen |= in_log & set(attempted)
    return {"checked": len(acked), "found": len(acked & in_log), "lost": lost, "vanished": vanished,
            "unacknowledged_present": len((set(attempted) - acked) & in_log), "log_clicks": len(in_log),
            "log_impressions": impressions, "errors": errors}


# ---------------------------------------------------------------------- the run
def warm_up(base, text, timeout, notes):
    """Have the service load its pipeline (a search uses the index's query plan only; the first
    write would load the pipeline, taking a second or more): ``POST /v1/explain``. Returns the
    seconds it took (None, with a note, when it did not answer 200)."""
    import httpx

    start = time.monotonic()
    try:
        resp = httpx.post(base + "/v1/explain", json={"query": text, "document": text}, timeout=timeout)
        ok = resp.status_code == 200
        why = f"answered {resp.status_code}: {resp.text[:200]}"
    except httpx.HTTPError as exc:
        ok, why = False, f"{type(exc).__name__}: {exc}"
    if not ok:
        notes.append(f"the warm-up (POST /v1/explain) {why}")
        return None
    return time.monotonic() - start


def run_rounds(index, *, rounds=20, clients=4, batch=5, kill_after=(0.2, 2.0), seed=0, k=10,
               max_per_client=1000, request_timeout=30.0, start_timeout=60.0, threads=1, log=print,
               after=None, clicks=False, click_clients=2, click_queries=None):
    """The crash test on the index at ``index`` (built with :func:`build_index`); returns the
    summary (``summary["ok"]`` says whether it passed). ``after(base, docs, acknowledged)``, when
    given, is called with the last server still running, after its checks (the tests use it).
    ``clicks``: serve with ``--learn-from-clicks`` and have ``click_clients`` clients search
    ``click_queries`` (default: the starts of the index's first 200 texts) and click."""
    vocab = corpus_gen.vocabulary()
    extra_args = ()
    click = {"attempted": [], "acknowledged": [], "seen": set(), "lost": set(), "searches": 0,
             "no_impression": 0, "refused_busy": 0, "last": None, "on_disk": None}
    if clicks:
        extra_args = ("--learn-from-clicks", "--feedback-max-bytes", "4G", "--feedback-client-share", "1")
        if click_queries is None:
            click_queries = [" ".join(t.split()[:20]) for t in corpus_gen.corpus(200, seed, vocab)[0]]
    else:
        click_clients = 0
    rng = random.Random(seed)
    docs, acknowledged, seen_present = {}, [], set()
    rows, problems, notes, restarts, lost_ever, warm_s = [], [], [], [], set(), []
    base_docs = None

    warm_text = " ".join(vocab[500:530])

    def start():
        server = ServerProcess(index, threads, extra_args)
        try:
            seconds = server.wait_ready(start_timeout)
            warm_s.append(warm_up(server.base, warm_text, request_timeout, notes))
        except BaseException:
            server.kill()
            raise
        return server, seconds

    server = None
    try:
        try:
            server, first_start = start()
        except StartFailed as exc:
            problems.append(f"the first start failed: {exc}")
            return _summary(rows, problems, notes, restarts, None, acknowledged, lost_ever, None, None, warm_s,
                            click if clicks else None)
        base_docs = server.documents
        for r in range(rounds):
            texts = [client_texts(seed, vocab, r, c, clients, max_per_client) for c in range(clients)]
            delay = rng.uniform(*kill_after)
            w = write_round(server, r, clients=clients, batch=batch, kill_delay=delay, texts=texts, seed=seed,
                            timeout=request_timeout, click_clients=click_clients, click_queries=click_queries,
                            click_limit=max_per_client)
            server = None
            row = {"round": r, "kill_after_s": round(delay, 3), "killed_at_s": round(w["killed_at_s"], 3)}
            attempted = acked = posts = 0
            statuses, transport_early, bad_ack, post_times = [], [], [], []
            for c, cl in enumerate(w["logs"]):
                for doc_id in cl.attempted:
                    docs[doc_id] = (r, c, f"{texts[c][int(doc_id.rsplit('n', 1)[1])]} {doc_id}")
                acknowledged += cl.acknowledged
                attempted += len(cl.attempted)
                acked += len(cl.acknowledged)
                posts += cl.posts_ok
                post_times += cl.post_times
                statuses += cl.statuses
                bad_ack += cl.bad_ack
                transport_early += [t for t in cl.transport if not t[2]]
                if cl.crashed:
                    problems.append(f"round {r}: client {c} stopped on an unexpected error: {cl.crashed}")
                if cl.exhausted:
                    notes.append(f"round {r}: client {c} posted all its {max_per_client} documents before the kill "
                                    "(raise --max-per-client)")
            if clicks:
                c_att = c_ack = 0
                for c, cl in enumerate(w["click_logs"]):
                    click["attempted"] += cl.attempted
                    click["acknowledged"] += cl.acknowledged
                    c_att += len(cl.attempted)
                    c_ack += len(cl.acknowledged)
                    for key in ("searches", "no_impression", "refused_busy"):
                        click[key] += getattr(cl, key)
                    statuses += cl.statuses
                    bad_ack += cl.bad_ack
                    transport_early += [t for t in cl.transport if not t[2]]
                    if cl.crashed:
                        problems.append(f"round {r}: click client {c} stopped on an unexpected error: {cl.crashed}")
                row.update(clicks_attempted=c_att, clicks_acknowledged=c_ack)
                if c_ack == 0:
                    notes.append(f"round {r}: no click was acknowledged before the kill")
            row.update(posts_ok=posts, attempted=attempted, acknowledged=acked,
                       unacknowledged_attempts=attempted - acked,
                       post_p50_ms=round(1e3 * statistics.median(post_times), 2) if post_times else None)
            if w["died_before_kill"] is not None:
                problems.append(f"round {r}: the server stopped by itself (status {w['died_before_kill']}) "
                                f"before the kill")
            elif w["wait_status"] != -signal.SIGKILL:
                problems.append(f"round {r}: the server's wait status was {w['wait_status']}, not SIGKILL")
            if w["hung_clients"]:
                problems.append(f"round {r}: {w['hung_clients']} clients did not stop")
            if statuses:
                problems.append(f"round {r}: {len(statuses)} POSTs answered non-2xx, e.g. {statuses[:3]}")
            if transport_early:
                problems.append(f"round {r}: {len(transport_early)} connection failures before the kill, "
                                f"e.g. {transport_early[:3]}")
            if bad_ack:
                problems.append(f"round {r}: {len(bad_ack)} 2xx answers named other ids, e.g. {bad_ack[:2]}")
            if acked == 0:
                notes.append(f"round {r}: nothing was acknowledged before the kill")
            if w["log_errors"]:
                problems.append(f"round {r}: the killed server logged errors: {w['log_errors'][:5]}")
            # restart on the same directory, then check every round so far
            try:
                server, restart_s = start()
            except StartFailed as exc:
                problems.append(f"round {r}: the restart failed: {exc}")
                row["restart_s"] = None
                rows.append(row)
                log(_round_line(row))
                break
            restarts.append(restart_s)
            row["restart_s"] = round(restart_s, 3)
            row["warm_up_s"] = None if warm_s[-1] is None else round(warm_s[-1], 3)
            try:
                v = verify(server.base, docs, acknowledged, seen_present, k=k, timeout=request_timeout)
            except Exception as exc:   # noqa: BLE001 - a failed check is a finding
                problems.append(f"round {r}: the check failed: {type(exc).__name__}: {exc}")
                rows.append(row)
                log(_round_line(row))
                break
            expected_docs = base_docs + v["present"]
            lost_ever.update(v["lost"])
            row.update(checked=v["checked"], lost=len(v["lost"]), rank1=v["rank1"],
                       unacknowledged_present=len(v["unacknowledged_present"]), documents=v["documents"],
                       documents_at_start=server.documents, expected_documents=expected_docs)
            for key, what in (("lost", "acknowledged documents lost"), ("missing", "acknowledged and missing"),
                              ("changed", "acknowledged with another text or metadata"),
                              ("not_searchable_unacknowledged", "present (unacknowledged) but not searchable"),
                              ("vanished", "present in an earlier check and gone now"),
                              ("phantoms", "found by search and not by GET"), ("errors", "errors while checking")):
                if v[key]:
                    problems.append(f"round {r}: {len(v[key])} {what}: {v[key][:5]}")
            if v["documents"] != expected_docs or server.documents != expected_docs:
                problems.append(f"round {r}: the service counts {v['documents']} documents ({server.documents} at "
                                f"its start), expected {base_docs} built + {v['present']} posted and present")
            row["unacknowledged_present_ids"] = v["unacknowledged_present"][-20:]
            if clicks:
                cv = verify_clicks(server.base, index, click["attempted"], click["acknowledged"], click["seen"],
                                   timeout=request_timeout)
                click["lost"].update(cv["lost"])
                click["last"] = cv
                row.update(clicks_checked=cv["checked"], clicks_found=cv["found"], clicks_lost=len(cv["lost"]),
                           clicks_unacknowledged_present=cv["unacknowledged_present"], log_clicks=cv["log_clicks"],
                           log_impressions=cv["log_impressions"])
                for key, what in (("lost", "acknowledged clicks lost"),
                                  ("vanished", "clicks present in an earlier check and gone now"),
                                  ("errors", "errors while checking the clicks")):
                    if cv[key]:
                        problems.append(f"round {r}: {len(cv[key])} {what}: {cv[key][:5]}")
            rows.append(row)
            log(_round_line(row))
        if server is not None:
            if after is not None:
                after(server.base, dict(docs), list(acknowledged))
            errors = server.errors_in_log()
            status = server.stop()
            server = None
            if errors:
                problems.append(f"the last server logged errors: {errors[:5]}")
            if status not in (0, -signal.SIGTERM):
                problems.append(f"the last server exited with status {status} on SIGTERM")
    finally:
        if server is not None:
            server.kill()
    on_disk, disk_error = check_on_disk(index)
    if disk_error:
        problems.append(f"the index does not open or check in process: {disk_error}")
    elif on_disk != base_docs + len(seen_present):
        problems.append(f"the index holds {on_disk} documents in process, expected {base_docs} + {len(seen_present)}")
    if clicks:
        # the log opened for writing, as a server opens it, after the last one stopped
        in_log, impressions, error = read_click_log(index, writable=True)
        click["on_disk"] = {"clicks": len(in_log), "impressions": impressions, "error": error}
        if error:
            problems.append(f"the click log does not open for writing or check in process: {error}")
        else:
            gone = set(click["acknowledged"]) - in_log
            click["lost"].update(gone)
            if gone:
                problems.append(f"{len(gone)} acknowledged clicks missing from the log after the last stop: "
                                f"{sorted(gone)[:5]}")
    return _summary(rows, problems, notes, restarts, first_start, acknowledged, lost_ever, seen_present, on_disk, warm_s,
                    click if clicks else None)


def _summary(rows, problems, notes, restarts, first_start, acknowledged, lost, seen_present, on_disk, warm_s=(),
             click=None):
    acked = set(acknowledged)
    summary = {
        "rounds": len(rows), "acknowledged": len(acked),
        "attempted": sum(r["attempted"] for r in rows),
        "lost": len(lost), "lost_ids": sorted(lost)[:100],
        "checked_last": rows[-1].get("checked") if rows else None,
        "unacknowledged_present": len(seen_present - acked) if seen_present is not None else None,
        "unacknowledged_attempts": sum(r["unacknowledged_attempts"] for r in rows),
        "rank1_last": rows[-1].get("rank1") if rows else None,
        "first_start_s": first_start,
        "restart_s": {"n": len(restarts), "min": min(restarts, default=None),
                      "median": statistics.median(restarts) if restarts else None,
                      "max": max(restarts, default=None), "all": [round(x, 3) for x in restarts]},
        "warm_up_s": [None if x is None else round(x, 3) for x in warm_s],
        "documents_on_disk": on_disk, "problems": problems, "notes": notes, "per_round": rows,
    }
    if click is not None:
        acked, last = set(click["acknowledged"]), click["last"] or {}
        summary["clicks"] = {
            "acknowledged": len(acked), "attempted": len(set(click["attempted"])),
            "found": last.get("found"),
            "lost": len(click["lost"]), "lost_clicks": [list(x) for x in sorted(click["lost"])[:100]],
            "unacknowledged_present": last.get("unacknowledged_present"),
            "searches": click["searches"], "searches_without_impression": click["no_impression"],
            "refused_busy": click["refused_busy"], "log_clicks_last": last.get("log_clicks"),
            "log_impressions_last": last.get("log_impressions"), "log_on_disk": click["on_disk"],
        }
    summary["ok"] = not problems and not lost and not (click and click["lost"])
    return summary


def _round_line(row):
    line = (f"round {row['round']:2d}: killed at {row['killed_at_s']:.2f} s; {row['posts_ok']} POSTs answered, "
            f"{row['acknowledged']} documents acknowledged, {row['unacknowledged_attempts']} not")
    if row.get("restart_s") is None:
        return line + "; RESTART FAILED"
    line += f"; restart {row['restart_s']:.2f} s (+ pipeline {row['warm_up_s'] or float('nan'):.2f} s)"
    if "checked" in row:
        line += (f"; checked {row['checked']}: lost {row['lost']}, rank 1 {row['rank1']}, "
                 f"present unacknowledged {row['unacknowledged_present']}, {row['documents']} documents")
    if "clicks_acknowledged" in row:
        line += f"; clicks {row['clicks_acknowledged']} acknowledged, {row['clicks_attempted'] - row['clicks_acknowledged']} not"
        if "clicks_checked" in row:
            line += (f", checked {row['clicks_checked']}: lost {row['clicks_lost']}, present unacknowledged "
                     f"{row['clicks_unacknowledged_present']}")
    return line


def report(s):
    rs = s["restart_s"]
    print(f"\n{s['rounds']} rounds: {s['acknowledged']} documents acknowledged of {s['attempted']} posted; "
          f"lost {s['lost']}")
    if s["checked_last"] is not None:
        print(f"  present without acknowledgement: {s['unacknowledged_present']} "
              f"(of {s['unacknowledged_attempts']} posted without a 2xx answer)")
        print(f"  found at rank 1 by their own text without a filter: {s['rank1_last']} of {s['checked_last']}")
    if rs["n"]:
        print(f"  restarts: {rs['n']}, min {rs['min']:.2f} s, median {rs['median']:.2f} s, max {rs['max']:.2f} s "
              f"(first start {s['first_start_s']:.2f} s)")
    warm = [x for x in s["warm_up_s"] if x is not None]
    if warm:
        print(f"  pipeline load after a start (POST /v1/explain): median {statistics.median(warm):.2f} s, "
              f"max {max(warm):.2f} s")
    if s["documents_on_disk"] is not None:
        print(f"  index in process afterwards: {s['documents_on_disk']} documents, every segment checked")
    c = s.get("clicks")
    if c is not None:
        print(f"  clicks: {c['acknowledged']} acknowledged (201) of {c['attempted']} posted; found {c['found']}, "
              f"lost {c['lost']}; present without acknowledgement {c['unacknowledged_present']}")
        print(f"    {c['searches']} searches answered ({c['searches_without_impression']} without an impression), "
              f"{c['refused_busy']} clicks refused busy (503)")
        disk = c["log_on_disk"]
        if disk and not disk["error"]:
            print(f"    click log in process afterwards (opened for writing, quick_check ok): {disk['clicks']} clicks, "
                  f"{disk['impressions']} impressions")
    for n in s["notes"]:
        print(f"  note: {n}")
    for p in s["problems"]:
        print(f"  PROBLEM: {p}")
    print("  OK" if s["ok"] else "  FAILED")


def _pair(text):
    a, _, b = text.partition(",")
    try:
        lo, hi = float(a), float(b)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LOW,HIGH seconds, got {text!r}") from None
    if not 0 <= lo <= hi:
        raise argparse.ArgumentTypeError(f"expected 0 <= LOW <= HIGH, got {text!r}")
    return lo, hi


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--batch", type=int, default=5, help="most documents a POST holds (1..batch, at random)")
    ap.add_argument("--kill-after", type=_pair, default=(0.2, 2.0), metavar="LOW,HIGH",
                    help="seconds after the clients start when the server is killed (uniform)")
    ap.add_argument("--docs", type=int, default=3000, help="documents of the built index")
    ap.add_argument("--fit-docs", type=int, default=corpus_gen.FIT_DOCS, help="documents FILM is fitted on")
    ap.add_argument("--components", type=int, default=None, help="FILM dimensions (default: FILM's)")
    ap.add_argument("--k", type=int, default=10, help="k of the filtered search of a document's own text")
    ap.add_argument("--max-per-client", type=int, default=1000, help="documents a client may post in a round")
    ap.add_argument("--request-timeout", type=float, default=30.0)
    ap.add_argument("--start-timeout", type=float, default=60.0)
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads of the server")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir", default=None, help="where the index is built (default: a temporary directory)")
    ap.add_argument("--keep", action="store_true", help="keep --workdir's index afterwards")
    ap.add_argument("--clicks", action="store_true",
                    help="serve with --learn-from-clicks and have --click-clients clients search and click; every "
                         "click answered 201 must be in the click log after the restart")
    ap.add_argument("--click-clients", type=int, default=2, help="clients that search and click (with --clicks)")
    ap.add_argument("--json", default=None, help="write the summary here")
    args = ap.parse_args(argv)
    if args.clicks and args.click_clients < 1:
        ap.error("--click-clients must be >= 1")
    if args.rounds < 1 or args.clients < 1 or args.batch < 1 or args.max_per_client < 1:
        ap.error("--rounds, --clients, --batch and --max-per-client must be >= 1")
    if not 1 <= args.max_per_client <= SWEEP_K:
        ap.error(f"--max-per-client must be <= {SWEEP_K} (the sweep's k)")
    return args


def main(argv=None):
    args = parse(argv)
    try:
        import fastapi  # noqa: F401
        import httpx  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise SystemExit(f"serve_durability.py needs fastapi, uvicorn and httpx ({exc}): pip install -e .[serve]")
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(args.threads))
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="serve-durability-"))
    work.mkdir(parents=True, exist_ok=True)
    index = work / "idx"
    try:
        if index.exists():
            shutil.rmtree(index)
        print(f"fitting FILM and indexing {args.docs} documents in {index} ...", flush=True)
        built = build_index(index, args.docs, args.seed, args.fit_docs, args.components)
        print(f"built in {built['fit_s']:.1f} + {built['build_s']:.1f} s: {built['pipeline']}", flush=True)
        summary = run_rounds(index, rounds=args.rounds, clients=args.clients, batch=args.batch,
                             kill_after=args.kill_after, seed=args.seed, k=args.k,
                             max_per_client=args.max_per_client, request_timeout=args.request_timeout,
                             start_timeout=args.start_timeout, threads=args.threads, clicks=args.clicks,
                             click_clients=args.click_clients)
        summary.update(index=built, settings={k: v for k, v in vars(args).items() if k not in ("json", "workdir")},
                       machine={"cpus": os.cpu_count(), "python": platform.python_version()})
        report(summary)
        if args.json:
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps(summary, indent=2, default=str))
        return 0 if summary["ok"] else 1
    finally:
        if not (args.workdir and args.keep):
            shutil.rmtree(index if args.workdir else work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
