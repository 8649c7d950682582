"""``learnsim serve`` under load (issue 15): 10,000 search requests from 50 concurrent clients
against a 100,000-document index, with writes going on, on this machine.

What it does, in order:

1. fits a pipeline on the synthetic linked corpus of ``bench_index.py`` (``--model film``: FILM
   from topic labels, dense rows; ``bm25``: LearnedBM25 from links, posting lists) and builds an
   index of ``--docs`` documents of that corpus;
2. starts ``learnsim serve IDX --port 0`` as a subprocess (one process, as a user runs it; BLAS
   and numba limited to ``--threads`` threads, by default the machine's cores) and waits for
   ``/healthz``;
3. *sequential*: ``--sequential`` queries from one client, one at a time (``GET /v1/search?q=&k=10``):
   the latency of a request on an idle server;
4. *load*: ``--requests`` searches from ``--clients`` concurrent clients (keep-alive connections,
   written and parsed by hand, ``--client aiohttp`` for aiohttp's), while a writer posts
   ``--write-batch`` new documents every ``--write-every`` seconds (``POST /v1/docs``, aiohttp):
   errors (any status but 200/201, any transport error), p50/p99 latency and requests per second
   of the searches, and of the writes; and the CPU seconds of the server and of this load
   generator over that time;
5. *in-process*: the same queries through ``Index.search`` in this process on the same index
   (with the documents the writer added), with as many BLAS threads: one at a time (p50, queries
   per second) and in lists of ``--clients`` queries (queries per second: what the service's
   batching of waiting searches gets at best). The service's overhead is reported as ratios:
   sequential HTTP p50 / in-process p50 (and the milliseconds HTTP adds), and in-process queries
   per second, one at a time and in lists, / served requests per second under load;
6. checks that every document whose POST was answered 201 is in the index and found by
   ``GET /v1/docs/{id}``.

The load generator runs in this process, on the same two cores as the server: its CPU is part of
what the server competes with, as it would be for clients on the same host (the hand-written
client costs about 0.1 ms of CPU a request, aiohttp's about ten times more). The exit status is 1
when any request failed or an acknowledged document is missing.

Usage::

    python benchmarks/bench_serve.py                          # 100k FILM documents, 10k requests, 50 clients
    python benchmarks/bench_serve.py --model bm25 --json results/serve-bm25.json
    python benchmarks/bench_serve.py --docs 10000 --requests 2000 --write-batch 0   # small, no writes
    python benchmarks/bench_serve.py --heavy 2        # and 2 clients posting heavy searches meanwhile
    python benchmarks/bench_serve.py --docs 10000 --requests 2000 --learn-from-clicks   # the click log's cost

Needs the serve extra and aiohttp (``pip install -e .[serve,bench]``).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path
from urllib.parse import urlencode

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_index as corpus_gen  # noqa: E402  (the synthetic corpus and queries)

K = 10


# the server's environment: BLAS and numba threads limited, this checkout's src first
_env = corpus_gen._env


def _ms(seconds):
    if not len(seconds):
        return {"n": 0}
    ms = 1e3 * np.asarray(seconds)
    return {"n": int(ms.size), "p50_ms": float(np.median(ms)), "p90_ms": float(np.percentile(ms, 90)),
            "p99_ms": float(np.percentile(ms, 99)), "max_ms": float(ms.max()), "mean_ms": float(ms.mean())}


def _cpu_s(pid=None):
    """CPU seconds (user + system) of process ``pid`` and of its descendants (the worker
    processes), or of this process."""
    if pid is None:
        import resource

        ru = resource.getrusage(resource.RUSAGE_SELF)
        return ru.ru_utime + ru.ru_stime
    stats = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(entry)] = (int(fields[1]), int(fields[11]) + int(fields[12]))   # ppid, ticks
    tree, total = {pid}, 0
    changed = True
    while changed:
        changed = False
        for p, (ppid, _) in stats.items():
            if ppid in tree and p not in tree:
                tree.add(p)
                changed = True
    for p in tree:
        total += stats.get(p, (0, 0))[1]
    return total / os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------- the server
class Server:
    """``learnsim serve`` in a subprocess on a port the system picks; ``base`` is its address."""

    def __init__(self, index, threads=1, extra=()):
        self.proc = subprocess.Popen([sys.executable, "-m", "learnsim", "serve", str(index), "--port", "0", *extra],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                     env=_env(threads))
        self.lines = queue.Queue()
        self.log = []
        threading.Thread(target=self._read, daemon=True).start()
        try:
            self._wait()
        except BaseException:
            self.stop()   # never leave a server behind
            raise

    def _wait(self):
        self.base = None
        deadline = time.monotonic() + 60
        while self.base is None:
            if self.proc.poll() is not None:
                raise SystemExit("the server stopped: " + "".join(self.log)[-2000:])
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                line = ""
            found = re.search(r"on (http://127\.0\.0\.1:\d+)", line)
            self.base = found.group(1) if found else None
            if time.monotonic() > deadline:
                raise SystemExit("the server did not start within 60 s")
        import urllib.request

        while True:
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise SystemExit("the server does not answer /healthz")
            time.sleep(0.05)

    def _read(self):
        for line in self.proc.stderr:
            self.log.append(line)
            self.lines.put(line)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


# ---------------------------------------------------------------------- the clients
async def _sequential(base, queries):
    import aiohttp

    times = []
    errors = 0
    async with aiohttp.ClientSession() as s:
        for q in queries:
            start = time.perf_counter()
            async with s.get(f"{base}/v1/search", params={"q": q, "k": K}) as r:
                await r.read()
                errors += r.status != 200
            times.append(time.perf_counter() - start)
    return times, errors


async def _load(base, queries, n_requests, n_clients, write_docs, write_batch, write_every, raw=True,
                heavy_clients=0, heavy_bodies=()):
    """``n_requests`` searches from ``n_clients`` tasks (one keep-alive connection each), a
    writer posting ``write_batch`` documents every ``write_every`` s, and ``heavy_clients`` tasks
    posting the ``heavy_bodies`` (``POST /v1/search``, cycled) back to back, until the searches end."""
    import aiohttp

    search_times, write_times, errors, acknowledged = [], [], [], []
    heavy_times = []
    counter = iter(range(n_requests))
    done = asyncio.Event()
    timeout = aiohttp.ClientTimeout(total=60)

    async def raw_client(c):
        # one keep-alive connection, requests written and answers parsed by hand: a tenth of
        # aiohttp's CPU a request, which on two shared cores is CPU the server gets back
        host, port = base.split("//", 1)[1].rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            for i in counter:
                target = "/v1/search?" + urlencode({"q": queries[i % len(queries)], "k": K})
                request = f"GET {target} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
                start = time.perf_counter()
                try:
                    writer.write(request)
                    status = int((await asyncio.wait_for(reader.readline(), 60)).split()[1])
                    length = None
                    while True:
                        line = await reader.readline()
                        if line in (b"\r\n", b"\n", b""):
                            break
                        name, _, value = line.partition(b":")
                        if name.strip().lower() == b"content-length":
                            length = int(value)
                    if length is None:
                        raise ValueError("an answer without Content-Length")
                    body = await reader.readexactly(length)
                except (OSError, ValueError, IndexError, asyncio.IncompleteReadError, asyncio.TimeoutError) as exc:
                    errors.append(f"search {type(exc).__name__}: {exc}")
                    return
                if status != 200:
                    errors.append(f"search {status}: {body[:200]!r}")
                else:
                    search_times.append(time.perf_counter() - start)
        finally:
            writer.close()

    async def client(c):
        conn = aiohttp.TCPConnector(limit=1)
        async with aiohttp.ClientSession(connector=conn, timeout=timeout) as s:
            for i in counter:
                q = queries[i % len(queries)]
                start = time.perf_counter()
                try:
                    async with s.get(f"{base}/v1/search", params={"q": q, "k": K}) as r:
                        body = await r.read()
                        if r.status != 200:
                            errors.append(f"search {r.status}: {body[:200]!r}")
                        else:
                            search_times.append(time.perf_counter() - start)
                except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
                    errors.append(f"search {type(exc).__name__}: {exc}")

    async def writer():
        async with aiohttp.ClientSession(timeout=timeout) as s:
            pos = 0
            while not done.is_set() and pos < len(write_docs):
                batch = write_docs[pos:pos + write_batch]
                pos += len(batch)
                start = time.perf_counter()
                try:
                    async with s.post(f"{base}/v1/docs", json={"documents": batch}) as r:
                        body = await r.read()
                        if r.status != 201:
                            errors.append(f"write {r.status}: {body[:200]!r}")
                        else:
                            write_times.append(time.perf_counter() - start)
                            acknowledged.extend(d["id"] for d in batch)
                except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
                    errors.append(f"write {type(exc).__name__}: {exc}")
                try:
                    await asyncio.wait_for(done.wait(), write_every)
                except asyncio.TimeoutError:
                    pass

    async def heavy(c):
        # requests as large as the service's budget allows: what they must not do is hold the
        # light searches behind them for longer than their own budget
        async with aiohttp.ClientSession(timeout=timeout) as s:
            i = c
            while not done.is_set():
                body = heavy_bodies[i % len(heavy_bodies)]
                i += 1
                start = time.perf_counter()
                try:
                    async with s.post(f"{base}/v1/search", json=body) as r:
                        answer = await r.read()
                        if r.status != 200:
                            errors.append(f"heavy {r.status}: {answer[:200]!r}")
                        else:
                            heavy_times.append(time.perf_counter() - start)
                except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
                    errors.append(f"heavy {type(exc).__name__}: {exc}")

    start = time.perf_counter()
    w = asyncio.ensure_future(writer()) if write_batch > 0 else None
    heavies = [asyncio.ensure_future(heavy(c)) for c in range(heavy_clients if heavy_bodies else 0)]
    await asyncio.gather(*((raw_client if raw else client)(c) for c in range(n_clients)))
    wall = time.perf_counter() - start
    done.set()
    if w is not None:
        await w
    await asyncio.gather(*heavies)
    return {"wall_s": wall, "search_times": search_times, "write_times": write_times, "errors": errors,
            "acknowledged": acknowledged, "heavy_times": heavy_times}


async def _check_present(base, ids):
    import aiohttp

    missing = []
    async with aiohttp.ClientSession() as s:
        for doc_id in ids:
            async with s.get(f"{base}/v1/docs/{doc_id}") as r:
                await r.read()
                if r.status != 200:
                    missing.append(doc_id)
    return missing


def _run(coro):
    """Run ``coro`` on uvloop where it is installed (the server's loop too), else asyncio's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coro)
    if hasattr(uvloop, "run"):   # uvloop >= 0.18
        return uvloop.run(coro)
    uvloop.install()
    return asyncio.run(coro)


# ---------------------------------------------------------------------- the run
def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="film", choices=["film", "bm25"])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--requests", type=int, default=10_000)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--queries", type=int, default=2_000, help="distinct queries, cycled")
    ap.add_argument("--sequential", type=int, default=500, help="queries of the one-client pass")
    ap.add_argument("--write-batch", type=int, default=10, help="documents a write posts (0: no writes)")
    ap.add_argument("--write-every", type=float, default=0.1, help="seconds between two writes")
    ap.add_argument("--workers", type=int, default=1, help="learnsim serve --workers (worker processes)")
    ap.add_argument("--client", choices=["raw", "aiohttp"], default="raw",
                    help="the searching clients: keep-alive connections parsed by hand (default), or aiohttp")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="BLAS and numba threads of the server and of the in-process searches "
                         "(default: the machine's cores, what an unset OpenBLAS takes)")
    ap.add_argument("--ann", default="exact",
                    help="Index.build's ann: 'exact' (default: the figures in benchmarks/README.md), 'auto' or a "
                         "backend of learnsim.ann (dense rows only)")
    ap.add_argument("--heavy", type=int, default=0,
                    help="clients posting heavy searches back to back during the load (0: none), "
                         "alternately --heavy-queries queries with k = --heavy-k, and "
                         "--heavy-explain-queries queries explained at k = --heavy-explain-k, n_top = "
                         "--heavy-n-top (the defaults: the largest of each that the service's budget takes)")
    ap.add_argument("--heavy-queries", type=int, default=25)
    ap.add_argument("--heavy-k", type=int, default=80)
    ap.add_argument("--heavy-explain-queries", type=int, default=5)
    ap.add_argument("--heavy-explain-k", type=int, default=20)
    ap.add_argument("--heavy-n-top", type=int, default=20)
    ap.add_argument("--learn-from-clicks", action="store_true",
                    help="serve with --learn-from-clicks: every search answered records an impression (an fsync)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--json", default=None)
    return ap.parse_args(argv)


def build(args, work):
    import learnsim
    from learnsim.index import Index

    vocab = corpus_gen.vocabulary()
    fit_texts, topic, links, df = corpus_gen.fitting_corpus(args.seed, vocab)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if args.model == "film":
            pipeline = learnsim.fit(fit_texts, clusters=[int(t) for t in topic], method="film", baseline_holdout=None)
        else:
            pipeline = learnsim.fit(fit_texts, links=links, variant="bm25")
    texts, _ = corpus_gen.corpus(args.docs, args.seed, vocab)
    start = time.perf_counter()
    # built anew every run: a run writes to it
    Index.build(work / "idx", pipeline, texts, [f"d{i}" for i in range(len(texts))], overwrite=True,
                ann=args.ann).close()
    build_s = time.perf_counter() - start
    queries = corpus_gen.make_queries(args.queries, args.seed, vocab, df)
    # the writer's documents: another stream of the same corpus, never in the index before
    new, _ = corpus_gen.corpus(min(100_000, args.requests * 2), args.seed, vocab, stream=1)
    writes = [{"id": f"w{i}", "text": t, "metadata": {"source": "writer"}} for i, t in enumerate(new)]
    return queries, writes, build_s, repr(pipeline)


def in_process(path, queries, batch):
    """The same queries through Index.search in this process: one at a time (times, wall), and
    in lists of ``batch`` as the service batches waiting searches (wall)."""
    from learnsim.index import Index

    with Index.open(path) as idx:
        idx.warm()
        for q in queries[:50]:
            idx.search(q, K)   # warm: the page cache
        times = []
        start = time.perf_counter()
        for q in queries:
            t = time.perf_counter()
            idx.search(q, K)
            times.append(time.perf_counter() - t)
        wall = time.perf_counter() - start
        start = time.perf_counter()
        for i in range(0, len(queries), batch):
            idx.search(queries[i:i + batch], K)
        batched_wall = time.perf_counter() - start
        return times, wall, batched_wall, len(idx)


def main(argv=None):
    args = parse(argv)
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        raise SystemExit("bench_serve.py needs aiohttp: pip install -e .[bench]") from None
    os.environ.update({k: v for k, v in _env(args.threads).items() if k.endswith("_NUM_THREADS")})
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="bench-serve-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        print(f"fitting {args.model} and indexing {args.docs} documents ...", flush=True)
        queries, writes, build_s, pipeline = build(args, work)
        print(f"built in {build_s:.1f} s: {pipeline}", flush=True)
        extra = (("--workers", str(args.workers)) if args.workers > 1 else ()) + \
            (("--learn-from-clicks",) if args.learn_from_clicks else ())
        server = Server(work / "idx", args.threads, extra)
        try:
            asyncio.run(_sequential(server.base, queries[:100]))   # warm the server
            seq_times, seq_errors = asyncio.run(_sequential(server.base, queries[:args.sequential]))
            print(f"sequential: {_ms(seq_times)}", flush=True)
            cpu0 = (_cpu_s(server.proc.pid), _cpu_s())
            heavy_bodies = [{"queries": queries[:args.heavy_queries], "k": args.heavy_k},
                            {"queries": queries[-args.heavy_explain_queries:], "k": args.heavy_explain_k, "explain": True,
                             "n_top": args.heavy_n_top}]
            load = _run(_load(server.base, queries, args.requests, args.clients, writes,
                              args.write_batch, args.write_every, raw=args.client == "raw",
                              heavy_clients=args.heavy, heavy_bodies=heavy_bodies))
            cpu = (_cpu_s(server.proc.pid) - cpu0[0], _cpu_s() - cpu0[1])
            missing = asyncio.run(_check_present(server.base, load["acknowledged"]))
        finally:
            server.stop()
        from threadpoolctl import threadpool_limits   # numpy is loaded: its BLAS is limited here

        with threadpool_limits(args.threads):
            inproc_times, inproc_wall, batched_wall, n_final = in_process(
                work / "idx", queries[:max(args.sequential, 1000)], args.clients)
        search = _ms(load["search_times"])
        rps = len(load["search_times"]) / load["wall_s"]
        inproc = _ms(inproc_times)
        inproc_qps = len(inproc_times) / inproc_wall
        batched_qps = len(inproc_times) / batched_wall
        result = {
            "model": args.model, "docs": args.docs, "pipeline": pipeline, "build_s": build_s,
            "requests": args.requests, "clients": args.clients, "threads": args.threads, "workers": args.workers,
            "write_batch": args.write_batch, "write_every_s": args.write_every,
            "heavy": {"clients": args.heavy, "queries": args.heavy_queries, "k": args.heavy_k,
                      "explain_queries": args.heavy_explain_queries, "explain_k": args.heavy_explain_k, "n_top": args.heavy_n_top,
                      "answered": _ms(load["heavy_times"])},
            "sequential": dict(_ms(seq_times), errors=seq_errors),
            "load": {"search": search, "requests_per_s": rps, "wall_s": load["wall_s"],
                     "errors": len(load["errors"]), "first_errors": load["errors"][:5],
                     "writes": _ms(load["write_times"]), "documents_written": len(load["acknowledged"]),
                     "acknowledged_missing": len(missing),
                     # where the two cores went: the server's and this load generator's CPU
                     "server_cpu_s": cpu[0], "client_cpu_s": cpu[1],
                     "server_cpu_ms_per_request": 1e3 * cpu[0] / max(1, len(load["search_times"]) + len(load["write_times"])),
                     "client_cpu_ms_per_request": 1e3 * cpu[1] / max(1, len(load["search_times"]) + len(load["write_times"]))},
            "in_process": dict(inproc, queries_per_s=inproc_qps, batched_queries_per_s=batched_qps,
                               batch=args.clients, documents=n_final),
            # the service's cost: what HTTP adds to one request on an idle server, and the
            # throughput of Index.search in lists of as many queries as there are clients (what
            # the service's batching gets at best) over the served requests per second
            "overhead": {"sequential_p50_ratio": _ms(seq_times)["p50_ms"] / inproc["p50_ms"],
                         "sequential_p50_added_ms": _ms(seq_times)["p50_ms"] - inproc["p50_ms"],
                         "throughput_ratio": inproc_qps / rps,
                         "batched_throughput_ratio": batched_qps / rps},
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        }
        _report(result)
        if args.json:
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps(result, indent=2))
        bad = result["load"]["errors"] + result["load"]["acknowledged_missing"] + seq_errors
        return 1 if bad else 0
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


def _report(r):
    s, L = r["sequential"], r["load"]
    print(f"\n{r['model']} index of {r['docs']} documents, {r['workers']} server process(es) with {r['threads']} "
          f"BLAS threads; {r['clients']} clients, {r['requests']} searches, "
          f"writes of {r['write_batch']} documents every {r['write_every_s']} s")
    print(f"  sequential (1 client):   p50 {s['p50_ms']:.2f} ms   p99 {s['p99_ms']:.2f} ms")
    ls = L["search"]
    print(f"  under load: searches     p50 {ls.get('p50_ms', float('nan')):.2f} ms   p99 {ls.get('p99_ms', float('nan')):.2f} ms"
          f"   max {ls.get('max_ms', float('nan')):.1f} ms   {L['requests_per_s']:.0f} requests/s   errors {L['errors']}")
    print(f"  CPU under load: server {L['server_cpu_s']:.1f} s ({L['server_cpu_ms_per_request']:.2f} ms a request), "
          f"load generator {L['client_cpu_s']:.1f} s ({L['client_cpu_ms_per_request']:.2f} ms), in {L['wall_s']:.1f} s")
    lw = L["writes"]
    if lw["n"]:
        print(f"  under load: writes       p50 {lw['p50_ms']:.2f} ms   p99 {lw['p99_ms']:.2f} ms   "
              f"{L['documents_written']} documents acknowledged, {L['acknowledged_missing']} missing afterwards")
    i = r["in_process"]
    print(f"  in-process Index.search: p50 {i['p50_ms']:.2f} ms   {i['queries_per_s']:.0f} queries/s one at a time, "
          f"{i['batched_queries_per_s']:.0f} queries/s in lists of {i['batch']}")
    o = r["overhead"]
    print(f"  overhead: one request {o['sequential_p50_ratio']:.2f}x in-process (+{o['sequential_p50_added_ms']:.2f} ms); "
          f"in-process throughput {o['throughput_ratio']:.2f}x served one at a time, "
          f"{o['batched_throughput_ratio']:.2f}x in lists")
    h = r["heavy"]
    if h["clients"]:
        a = h["answered"]
        print(f"  heavy clients: {h['clients']} posting {h['queries']} queries at k={h['k']} and {h['explain_queries']} "
              f"explained at k={h['explain_k']}, n_top={h['n_top']} alternately: {a['n']} answered"
              + (f", p50 {a['p50_ms']:.1f} ms, max {a['max_ms']:.1f} ms" if a["n"] else ""))
    for e in L["first_errors"]:
        print("  error:", e)


if __name__ == "__main__":
    sys.exit(main())
