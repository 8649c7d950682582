"""``learnsim serve``: an HTTP JSON service over an index (learnsim.service)."""
from __future__ import annotations

import argparse
import json
import os
import re
import textwrap
from pathlib import Path

from .._utils.net import is_loopback
from ._common import _examples, _formatter, _note, UsageError

_EXTRA = "learnsim serve needs fastapi and uvicorn: pip install learnsim[serve]"


def _whole_number(low, high, what):
    """An argparse type: a whole number in [low, high], else an error naming ``what``."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected {what} {low}..{high}, got {text!r}")
        return value
    return parse


_port = _whole_number(0, 65535, "a port number")


def _number(low, high, what, low_open=False):
    """An argparse type: a number in [low, high] ((low, high] with ``low_open``), else an error
    naming ``what``."""
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            value = None
        if value is None or not (low < value if low_open else low <= value) or not value <= high:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value
    return parse


_seconds = _number(0, 86400, "a number of seconds > 0", low_open=True)
_workers = _whole_number(1, 64, "a number of worker processes")
_rows = _whole_number(1, 10**9, "a number of impressions")
_pool = _whole_number(1, 1000, "a number of hits")
_ipv6_prefix = _whole_number(48, 64, "an IPv6 prefix length")


_share = _number(0, 1, "a share of the searches from 0 to 1")
_client_share = _number(0, 1, "a share of the log's bound in bytes, more than 0 and at most 1", low_open=True)


def _bytes(text):
    """--feedback-max-bytes: a number of bytes, or with K, M or G (1024-based): 256M."""
    units = {"": 1, "K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30}
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMG]?)(?:i?B)?\s*", text, flags=re.IGNORECASE)
    value = int(float(found.group(1)) * units[found.group(2).upper()]) if found else 0
    if not 4096 <= value <= 2 ** 50:
        raise argparse.ArgumentTypeError(f"expected a number of bytes of at least 4096 (K, M, G: 1024-based), "
                                         f"got {text!r}")
    return value
_days = _number(0, 36500, "a number of days > 0", low_open=True)


def register(commands):
    """Add the command's parser to ``commands``."""
    serve = commands.add_parser(
        "serve", formatter_class=_formatter, help="serve an index over HTTP (JSON)",
        description=textwrap.dedent("""\
            Serve the index at DIR over HTTP: search (GET/POST /v1/search), documents
            (GET /v1/docs/ID, GET /v1/docs/ID/similar), near-duplicates (POST /v1/match),
            explanations (POST /v1/explain), writes (POST /v1/docs, DELETE /v1/docs/ID,
            POST /v1/reindex), GET /v1/info and GET /healthz; the OpenAPI schema is at
            /openapi.json. Answers and errors are JSON ({"error": ..., "code": ...}).
            A search page for people is at / (it works without JavaScript, and loads
            nothing from outside this service).

            It listens on 127.0.0.1 (this machine only) unless --host says otherwise, and
            answers only requests whose Host header names that address (127.0.0.1,
            localhost, [::1]; --allowed-host adds names): a web page cannot reach it by DNS
            rebinding. Writes must be JSON (Content-Type: application/json) and are refused
            from another site's pages (a foreign Origin); no CORS headers are sent unless
            --cors-origin names an origin. With --api-key-env, writes need
            'Authorization: Bearer KEY' or 'X-API-Key: KEY' (reads stay open unless
            --protect-reads). Every request's work is bounded (k, queries, explanations:
            see learnsim.service.app) and stopped after --deadline seconds.
            Needs the serve extra: pip install learnsim[serve]."""),
        epilog=_examples("learnsim serve idx/",
                         "learnsim serve idx/ --port 8080 --read-only",
                         "LEARNSIM_KEY=s3cret learnsim serve idx/ --api-key-env LEARNSIM_KEY",
                         "learnsim serve idx/ --host 0.0.0.0 --allowed-host search.example.org "
                         "--api-key-env LEARNSIM_KEY --protect-reads",
                         "curl 'http://127.0.0.1:8000/v1/search?q=space+shuttle&k=5'"))
    serve.add_argument("index", metavar="DIR", help="an index directory ('learnsim index build')")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default: 127.0.0.1; 0.0.0.0 exposes it to the network)")
    serve.add_argument("--port", type=_port, default=8000, help="port to listen on (default: 8000)")
    serve.add_argument("--read-only", action="store_true", help="refuse every write (403)")
    serve.add_argument("--api-key-env", metavar="NAME",
                       help="the environment variable holding the API key that writes need")
    serve.add_argument("--protect-reads", action="store_true",
                       help="reads need the API key too (every route but /healthz, /openapi.json and its "
                            "page /docs, which shows the schema alone; the search page included); needs "
                            "--api-key-env")
    serve.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                       help="another name clients reach the service by (the Host header: a domain, an "
                            "address), besides those of --host; repeatable; '*' turns the check off")
    serve.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                       help="an origin (https://app.example.org) whose pages may call the API (CORS "
                            "headers) and write to it; repeatable; none by default")
    serve.add_argument("--deadline", type=_seconds, default=10.0, metavar="SECONDS",
                       help="a request still running after this long is stopped and answered 503 "
                            "(default: 10)")
    serve.add_argument("--workers", type=_workers, default=1, metavar="N",
                       help="worker processes sharing the port, each with its own handles on the index "
                            "(default: 1). More use more cores: Python runs one thread at a time in a "
                            "process. A worker's writes are durable and seen by the others at their next "
                            "read. Each listens on a socket of its own (SO_REUSEPORT, where the system has "
                            "it: the kernel spreads connections evenly); one that dies is restarted. Stop "
                            "them with Ctrl-C or SIGTERM to this process (on Linux a SIGKILL to it stops "
                            "them too)")
    clicks = serve.add_argument_group("learning from clicks (docs/feedback.md)")
    clicks.add_argument("--learn-from-clicks", action="store_true",
                        help="record each search answered (an impression, named in the answer) and the results "
                             "followed (POST /v1/feedback, the page's result links) in DIR/feedback.sqlite, for "
                             "'learnsim fit --method relative --clicks-from DIR'; feedback is a write (the API key "
                             "when one is set)")
    clicks.add_argument("--feedback-days", type=_days, default=None, metavar="DAYS",
                        help="keep the click log's records this many days (default: 90)")
    clicks.add_argument("--feedback-rows", type=_rows, default=None, metavar="N",
                        help="keep at most this many impressions, dropping the oldest (default: 1000000)")
    clicks.add_argument("--feedback-max-bytes", type=_bytes, default=None, metavar="BYTES",
                        help="the click log's bound in bytes (K, M, G: 1024-based; default: 256M); past it, or past a "
                             "client's share of it, clicks are refused (507); impressions are dropped (counted in "
                             "/v1/info) a quarter short of either, which clicks alone may use; impressions an hour "
                             "old that nobody clicked make room first")
    clicks.add_argument("--feedback-client-share", type=_client_share, default=None, metavar="SHARE",
                        help="the share of --feedback-max-bytes one client may hold (default: 0.1)")
    clicks.add_argument("--ipv6-prefix", type=_ipv6_prefix, default=None, metavar="BITS",
                        help="count a keyless IPv6 caller by its network of this many bits, 48 to 64 (default: 64): "
                             "a customer given a /56 or /48 is 256 or 65,536 /64s, as many clients, promotion "
                             "votes and shares of the log; 48 makes each /48 one client (one vote and one share "
                             "for everyone behind it)")
    clicks.add_argument("--allow-anonymous-learning", action="store_true",
                        help="learn from the clicks of anyone who reaches the service: --learn-from-clicks without "
                             "--api-key-env on an address other than this machine's is refused otherwise. Each "
                             "caller's address (an IPv6 address's /64, or its --ipv6-prefix network) counts as one "
                             "client, and anyone who can reach the service feeds what it learns and which model a "
                             "promotion serves")
    clicks.add_argument("--interleave", type=_share, default=0.0, metavar="SHARE",
                        help="with a candidate model staged ('learnsim index promote DIR --model M' stages one), "
                             "answer this share of single searches with a team-draft interleaving of the served "
                             "and the candidate ranking (default: 0); 'learnsim index promote' reads the outcome")
    clicks.add_argument("--interleave-pool", type=_pool, default=None, metavar="N",
                        help="the served model's hits the candidate re-ranks for an interleaved search "
                             "(default: 100)")
    serve.set_defaults(handler=run)
    return serve


def _check_analyser(index):
    """Refuse, before listening, an index whose query plan reads text with an analyser this
    machine lacks (fugashi, SudachiPy, jieba): served, it answered every search 500 (503 now),
    where the command line can say at once what to install. Reading a query of one kana loads
    the plan and its tokenizer, as the first search would (an index without a plan reads with
    its model, loaded in the background)."""
    index.read_query("\u3042")


# the options of the click log, which only --learn-from-clicks keeps (option, dest)
_CLICK_LOG_OPTIONS = (("--feedback-days", "feedback_days"), ("--feedback-rows", "feedback_rows"),
                      ("--feedback-max-bytes", "feedback_max_bytes"), ("--feedback-client-share", "feedback_client_share"),
                      ("--ipv6-prefix", "ipv6_prefix"), ("--allow-anonymous-learning", "allow_anonymous_learning"),
                      ("--interleave-pool", "interleave_pool"))


def run(args):
    """Serve ``args.index`` until interrupted; returns the exit status."""
    # as search and index info say it (the service's own open said "holds no learnsim index (no
    # manifest.json)" of a path that is not there), before the options are weighed
    folder = Path(args.index)
    if not folder.exists():
        raise UsageError(f"{folder} does not exist (build an index with 'learnsim index build')")
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a directory (build an index with 'learnsim index build')")
    api_key = None
    if args.api_key_env is not None:
        api_key = os.environ.get(args.api_key_env)
        if not api_key:
            raise UsageError(f"--api-key-env {args.api_key_env}: that environment variable is not set (or empty)")
        from ..service._keys import key_problem

        if key_problem(api_key):
            raise UsageError(f"--api-key-env {args.api_key_env}: {key_problem(api_key)}")
    if args.protect_reads and api_key is None:
        raise UsageError("--protect-reads needs --api-key-env (the key that reads would need)")
    for name in args.allowed_host:
        # compared with the Host header's name, its port left out: a URL, a port or a blank is a
        # name no request can carry (every request would be a 421)
        if name != "*" and not re.fullmatch(r"\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?", name):
            raise UsageError(f"--allowed-host: a host name or address (no scheme, port or path), or '*'; got {name!r}")
    if args.learn_from_clicks and args.read_only:
        raise UsageError("--learn-from-clicks records feedback, a write: not with --read-only")
    if args.interleave and not args.learn_from_clicks:
        raise UsageError("--interleave needs --learn-from-clicks (its outcome is read from the click log)")
    if args.learn_from_clicks and api_key is None and not args.allow_anonymous_learning and not is_loopback(args.host):
        raise UsageError(f"--learn-from-clicks on --host {args.host} without --api-key-env: anyone who reaches it "
                         "would feed what it learns and promotes; give a key, or --allow-anonymous-learning to accept "
                         "that (each address one client)")
    if not args.learn_from_clicks:
        # each said nothing and did nothing without it (--feedback-days 5 served as if not given)
        given = [option for option, dest in _CLICK_LOG_OPTIONS if getattr(args, dest) not in (None, False)]
        if given:
            raise UsageError(f"{', '.join(given)}: the options of the click log need --learn-from-clicks (only it "
                             "keeps one)")
    # the defaults, set here so that an option given without --learn-from-clicks is told apart
    args.feedback_days = 90.0 if args.feedback_days is None else args.feedback_days
    args.feedback_rows = 1_000_000 if args.feedback_rows is None else args.feedback_rows
    args.interleave_pool = 100 if args.interleave_pool is None else args.interleave_pool
    if args.learn_from_clicks:
        _check_feedback_log(args)
    try:   # imported here: 'import learnsim' and 'learnsim --help' must not need them
        import fastapi  # noqa: F401
        import uvicorn
    except ImportError:
        raise UsageError(_EXTRA) from None
    from ..service import create_app
    from ..service._connections import guarded_protocol, raise_open_files_limit
    from ..service.app import OPTIONS_VARIABLE

    # connections each hold a file descriptor: the usual soft limit of 1,024 let a thousand idle
    # ones stop the service (learnsim.service._connections)
    raise_open_files_limit()

    # background: the service listens as soon as the index is opened; the check of its rows and
    # the model's load (scikit-learn's import) follow, /healthz answering 503 "starting" until
    # the rows are checked (on a 100,000-document index the start took 3-20 s before)
    options = {"read_only": args.read_only, "api_key_env": args.api_key_env, "deadline_s": args.deadline,
               "host": args.host, "allowed_hosts": args.allowed_host, "cors_origins": args.cors_origin,
               "protect_reads": args.protect_reads, "background": True,
               "learn_from_clicks": args.learn_from_clicks, "feedback_max_days": args.feedback_days,
               "feedback_max_rows": args.feedback_rows, "interleave": args.interleave,
               "interleave_pool": args.interleave_pool, "feedback_max_bytes": args.feedback_max_bytes,
               "feedback_client_share": args.feedback_client_share,
               "feedback_ipv6_prefix": 64 if args.ipv6_prefix is None else args.ipv6_prefix,
               "allow_anonymous_learning": args.allow_anonymous_learning}
    if args.workers == 1:
        try:
            app = create_app(args.index, api_key=api_key, **{k: v for k, v in options.items() if k != "api_key_env"})
        except ValueError as exc:
            if "CORS origin" not in str(exc):
                raise
            raise UsageError(f"--cors-origin: {exc}") from None
        n_docs = len(app.state.index)
        _check_analyser(app.state.index)
    else:
        # each worker process opens the index itself: check here that it opens, before forking
        from ..index import Index

        with Index.open(args.index) as idx:
            n_docs = len(idx)
            _check_analyser(idx)
        for origin in args.cors_origin:
            if not re.fullmatch(r"https?://[^/\s]+", origin.rstrip("/")):
                raise UsageError(f"--cors-origin: a CORS origin is scheme://host[:port] (no path); got {origin!r}")
        app = _WORKER_APP
        # dictionary_checked: the open above warned of a dictionary other than the fitted one
        os.environ[OPTIONS_VARIABLE] = json.dumps(dict(options, index=os.path.abspath(args.index),
                                                       dictionary_checked=True))
    # worker processes: each listens on a socket of its own on the port (SO_REUSEPORT), where the
    # kernel spreads new connections evenly; this one only holds the port (bound, not listening)
    reuse_port = args.workers > 1 and _reuse_port_supported()
    sock = _listen(args.host, args.port, reuse_port=reuse_port)
    port = sock.getsockname()[1]   # the one the system chose for --port 0
    host = f"[{args.host}]" if ":" in args.host else args.host
    _note(f"serving {args.index} ({n_docs} documents) on http://{host}:{port}"
          + (" (read-only)" if args.read_only else "")
          + (" recording clicks" + (f", interleaving {args.interleave:.0%} of searches" if args.interleave else "")
             if args.learn_from_clicks else "")
          + (f" with {args.workers} worker processes" if args.workers > 1 else "")
          + f"; search page: http://{host}:{port}/; Ctrl-C stops")
    if not is_loopback(args.host):
        _note(f"--host {args.host}: other machines can reach this service"
              + ("" if api_key else "; writes are open to them (see --api-key-env, --read-only)")
              + ("" if args.allowed_host else "; it answers only requests naming it by this address in their Host "
                                              "header (--allowed-host NAME adds the names clients use)"))
    config = uvicorn.Config(app, workers=args.workers, factory=args.workers > 1, http=guarded_protocol(), **_CONFIG)
    status = 0
    try:
        if args.workers == 1:
            uvicorn.Server(config).run(sockets=[sock])
        elif reuse_port:
            status = _run_reuse_port_workers(args.workers, args.host, port)
        else:
            _run_workers(config, sock)
    finally:
        sock.close()
    return status


def _check_feedback_log(args):
    """The click log opens (a damaged one is a one-line error here, before any worker starts)."""
    from ..feedback import FeedbackLog

    if not Path(args.index).is_dir():
        return      # the index's own check says what is wrong
    bounds = {name: value for name, value in (("max_bytes", args.feedback_max_bytes),
                                              ("client_share", args.feedback_client_share)) if value is not None}
    try:
        FeedbackLog(args.index, max_days=args.feedback_days, max_rows=args.feedback_rows, **bounds).close()
    except (ValueError, OSError) as exc:
        raise UsageError(f"--learn-from-clicks: {exc}") from None


def _run_workers(config, sock):
    """uvicorn's supervisor of worker processes sharing ``sock`` (its signature changed in 0.30)."""
    import inspect

    import uvicorn
    from uvicorn.supervisors import Multiprocess

    if "target" in inspect.signature(Multiprocess.__init__).parameters:
        Multiprocess(config, target=uvicorn.Server(config).run, sockets=[sock]).run()
    else:
        Multiprocess(config, sockets=[sock]).run()


# uvicorn.Config's options. h11 refuses request heads over 16 KiB with a bare 400: let a long
# query through to the application, which answers 413 JSON over its own bound
# Its proxy headers are off: the application applies them itself (learnsim.service._feedback.Peer)
# once it has kept the connection's own address, which a caller cannot choose (issue 45)
# uvicorn's access log is at info, under the "warning" level set here: never shown, but each
# request still paid for the call on the event loop (2 % of its time): off
_CONFIG = {"log_level": "warning", "h11_max_incomplete_event_size": 256 * 1024, "proxy_headers": False,
           "access_log": False}
# a worker process builds its application from the environment (app_from_environment)
_WORKER_APP = "learnsim.service.app:app_from_environment"


def _reuse_port_supported():
    import socket

    return hasattr(socket, "SO_REUSEPORT") and os.name == "posix"


def _run_reuse_port_workers(n, host, port):
    """Run ``n`` worker processes, each on its own SO_REUSEPORT socket on (host, port), until a
    SIGINT or SIGTERM (passed on to them: they finish what is queued, writes included), and
    restart one that dies, with a line on stderr.

    Why not uvicorn's supervisor: its workers share one listening socket, and the first to wake
    takes most of a burst of connections (35 of 50 keep-alive clients to one of two workers in
    ``benchmarks/bench_serve.py``: their requests wait on one core while the other idles); the
    kernel spreads connections over SO_REUSEPORT sockets by their addresses (23-27 of 50 typically)."""
    import multiprocessing
    import signal
    import time

    ctx = multiprocessing.get_context("spawn")
    stopping = []

    def start(i):
        proc = ctx.Process(target=_reuse_port_worker, args=(host, port, os.getpid()), name=f"learnsim-serve-{i}",
                           daemon=False)
        proc.start()
        return proc

    def stop(signum, frame):
        stopping.append(signum)

    old = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    procs = [start(i) for i in range(n)]
    restarts = []
    status = 0
    try:
        while not stopping:
            for i, proc in enumerate(procs):
                if not proc.is_alive() and not stopping:
                    now = time.monotonic()
                    restarts = [t for t in restarts if now - t < 60] + [now]
                    if len(restarts) > 2 * n:
                        # a worker that cannot start (the index removed, the port taken) would
                        # be restarted forever: stop instead
                        _note(f"worker processes stopped {len(restarts)} times within a minute; stopping")
                        stopping.append(None)
                        status = 1
                        break
                    _note(f"worker process {proc.pid} stopped (exit status {proc.exitcode}); starting another")
                    procs[i] = start(i)
            time.sleep(0.2)
    finally:
        for proc in procs:
            if proc.is_alive():
                proc.terminate()   # SIGTERM: uvicorn's graceful shutdown
        for proc in procs:
            proc.join(30)
            if proc.is_alive():
                proc.kill()
                proc.join(5)
        for sig, handler in old.items():
            signal.signal(sig, handler)
    return status


def _reuse_port_worker(host, port, parent):
    """One worker process: its own listening socket on the port, and uvicorn on it; it gets a
    SIGTERM when the supervisor ``parent`` dies, even by SIGKILL (Linux), so that no worker is
    left holding the port."""
    import signal

    import uvicorn

    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):   # not Linux: Ctrl-C or SIGTERM to the supervisor stops them
        pass
    if os.getppid() != parent:   # it died before the call above
        return

    from ..service._connections import guarded_protocol

    sock = _listen(host, port, reuse_port=True)
    # listening at once, before the application loads (seconds): the kernel spreads the first
    # connections over every worker's socket, where they wait to be accepted
    sock.listen(2048)
    try:
        uvicorn.Server(uvicorn.Config(_WORKER_APP, factory=True, http=guarded_protocol(), **_CONFIG)).run(sockets=[sock])
    finally:
        sock.close()


def _listen(host, port, reuse_port=False):
    """A socket bound to (host, port): bound here, not by uvicorn, so that an address in use is a
    one-line error (uvicorn logs it and exits with 3). ``reuse_port``: with SO_REUSEPORT, which
    other sockets of this user may share (the worker processes')."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise UsageError(f"--host {host}: {exc.strerror or exc}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock
