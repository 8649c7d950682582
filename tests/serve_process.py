"""``learnsim serve`` in a subprocess, for the tests that need a real server (the command itself,
the browser test): started on a port the system picks, stopped however the test ends."""
from __future__ import annotations

import contextlib
import queue
import re
import socket
import subprocess
import sys
import threading
import time


@contextlib.contextmanager
def running_server(index, *extra, seconds=20, with_process=False):
    """Yield the base address (``http://127.0.0.1:PORT``) of ``learnsim serve index --port 0``
    once it answers ``/healthz`` (``with_process``: and the Popen of the command, with the lines
    of its stderr so far in ``proc.log``); the server is terminated (killed if it must be) at the end."""
    import httpx

    # --port 0: the system picks a free port and the command tells it on stderr (no race)
    proc = subprocess.Popen([sys.executable, "-m", "learnsim", "serve", str(index), "--port", "0", *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = queue.Queue()
    proc.log = []
    reader = threading.Thread(target=lambda: [(lines.put(line), proc.log.append(line)) for line in proc.stderr],
                              daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + seconds
        base = None
        while base is None:
            assert proc.poll() is None, "the server stopped"
            try:
                line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                line = ""
            found = re.search(r"on (http://127\.0\.0\.1:\d+)", line)
            base = found.group(1) if found else None
            assert base or time.monotonic() < deadline, f"the server did not say where it listens within {seconds} s"
        while True:
            assert proc.poll() is None, "the server stopped"
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, f"the server did not answer within {seconds} s"
            time.sleep(0.1)
        yield (base, proc) if with_process else base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        reader.join(5)   # it ends at the end of stderr, which the server's exit closed
        proc.stderr.close()


@contextlib.contextmanager
def served_index(tmp_path_factory, name, kind="mcd", n=40):
    """Yield the base address of ``learnsim serve`` over an index of the first ``n`` documents of
    the test corpus under a ``kind`` model (tests/index_models.py), built in a fresh folder."""
    from index_models import corpus, model

    from learnsim.index import Index

    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp(name) / kind
    Index.build(path, model(kind), texts[:n], ids[:n], meta[:n]).close()
    with running_server(path) as address:
        yield address


def exchange(base, request, timeout=10):
    """Every byte the server at ``base`` sends for the raw ``request`` (bytes), read until it
    closes the connection (a request should say ``Connection: close``)."""
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return data
