"""The kill test: a process adding documents to an index is killed with SIGKILL at random
moments, 20 times over the same index; every add it acknowledged survives, is found by search,
and no torn segment is ever read.

The child writes each id only after ``Index.add`` returned (its acknowledgement); the parent kills
it 0.05-1 s after it is ready, reads what it wrote, and starts the next run on the same index
(which first finishes what the killed one left). Each child also compacts every few adds, so
kills land in compactions too. Bounded in time: each run is killed, the whole test takes well
under a minute.
"""
from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from index_models import corpus, model

from learnsim.index import Index

RUNS = 20
UPSERT_POOL = 30
# seconds a child may take to open the index and load its pipeline
READY_TIMEOUT = 30.0

# The children are forked by a launcher that imported learnsim and loaded a model once (the
# imports take a second or more each; the index itself is opened by each child after the fork).
# A child writes "ready", then each id once Index.add returned (its acknowledgement), to its own
# file with single write() calls: what a write put in the file survives the kill of the process.
# In "upsert" mode the ids come from a pool of UPSERT_POOL, and each line is "id batch".
LAUNCHER = textwrap.dedent("""
    import os, random, sys
    import learnsim
    from learnsim.index import Index

    path, model, mode, pool = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    learnsim.load(model)

    def work(run, acks):
        fd = os.open(acks, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        rng = random.Random(run)
        idx = Index.open(path)
        idx.pipeline
        os.write(fd, b"ready\\n")
        batch = 0
        while True:
            if mode == "add":
                ids = [f"r{run}-b{batch}-{j}" for j in range(3)]
            else:       # upsert: ids of a small pool, so most replace a live document
                ids = [f"u{j:02d}" for j in rng.sample(range(pool), 3)]
            texts = [" ".join(f"w{rng.randrange(400):03d}" for _ in range(rng.randint(8, 30))) + f" w{run:03d}"
                     for _ in ids]
            metas = [{"uid": i, "run": run, "batch": batch} for i in ids]
            if mode == "add":
                idx.add(texts, ids, metas)
                os.write(fd, "".join(f"{i}\\n" for i in ids).encode())     # acknowledged: add returned
            else:
                idx.upsert(texts, ids, metas)
                os.write(fd, "".join(f"{i} {batch}\\n" for i in ids).encode())
            batch += 1
            if batch % 7 == 0:
                idx.compact()

    for line in sys.stdin:
        run, acks = line.split()
        pid = os.fork()
        if pid == 0:
            try:
                work(int(run), acks)
            finally:
                os._exit(3)
        print(pid, flush=True)
        print(os.waitpid(pid, 0)[1], flush=True)
""")


def _read_line(proc, deadline):
    fd = proc.stdout.fileno()
    while time.monotonic() < deadline:
        if select.select([fd], [], [], 0.01)[0]:
            return proc.stdout.readline()
    return None


def _run_child(launcher, run, acks, rng, err):
    """Fork a child, kill it with SIGKILL a random moment after it is ready; returns the ids it
    acknowledged (whole lines only)."""
    launcher.stdin.write(f"{run} {acks}\n".encode())
    launcher.stdin.flush()
    deadline = time.monotonic() + READY_TIMEOUT
    pid = int(_read_line(launcher, deadline))
    kill_at = None
    try:
        while True:
            now = time.monotonic()
            if kill_at is not None and now >= kill_at:
                os.kill(pid, signal.SIGKILL)
                break
            if select.select([launcher.stdout.fileno()], [], [], 0.005)[0]:
                err.seek(0)
                pytest.fail(f"run {run}: the child stopped by itself (wait status {launcher.stdout.readline()!r}):\n"
                            f"{err.read().decode(errors='replace')[-3000:]}")
            if kill_at is None:
                if now > deadline:
                    pytest.fail(f"run {run}: the child was not ready after {READY_TIMEOUT} s")
                if acks.exists() and acks.read_bytes().startswith(b"ready\n"):
                    kill_at = time.monotonic() + rng.uniform(0.05, 1.0)
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        raise
    status = _read_line(launcher, time.monotonic() + 30)
    assert status is not None and os.WIFSIGNALED(int(status)) and os.WTERMSIG(int(status)) == signal.SIGKILL
    lines = acks.read_bytes().split(b"\n")[:-1]     # a line cut by the kill has no newline: not acknowledged
    assert lines[0] == b"ready"
    return [line.decode() for line in lines[1:]]


def _kill_runs(tmp_path, path, mode, runs=RUNS):
    """RUNS children writing to the index at ``path`` in ``mode``, each killed; the acknowledged
    lines of each run, in order."""
    script = tmp_path / "launcher.py"
    script.write_text(LAUNCHER, encoding="utf-8")
    model_file = tmp_path / "model.npz"
    model("mcd").save(model_file)
    rng = random.Random(12345)
    acknowledged = []
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    with open(tmp_path / "children.err", "w+b") as err:
        launcher = subprocess.Popen([sys.executable, str(script), str(path), str(model_file), mode, str(UPSERT_POOL)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=env)
        try:
            for run in range(runs):
                acknowledged.append(_run_child(launcher, run, tmp_path / f"acks-{run}", rng, err))
        finally:
            launcher.stdin.close()
            try:
                launcher.wait(timeout=30)
            except subprocess.TimeoutExpired:
                launcher.kill()
                launcher.wait()
            launcher.stdout.close()
    assert launcher.returncode == 0
    return acknowledged


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix" or not hasattr(signal, "SIGKILL"), reason="needs POSIX and SIGKILL")
def test_every_acknowledged_add_survives_kill_9_at_random_moments(tmp_path):
    started = time.monotonic()
    texts, _, ids, meta = corpus()
    path = tmp_path / "index"
    Index.build(path, model("mcd"), texts[:20], ids[:20], [dict(m, uid=i) for m, i in zip(meta, ids)][:20])
    acknowledged = [doc_id for run in _kill_runs(tmp_path, path, "add") for doc_id in run]
    assert len(acknowledged) == len(set(acknowledged))
    # the children got work done between the kills (most runs acknowledged something)
    assert len(acknowledged) >= 2 * RUNS, len(acknowledged)

    idx = Index.open(path)
    for seg in idx.segments:             # no torn segment: every array is whole and valid
        seg.check()
    assert len(idx) >= 20 + len(acknowledged)
    got = {}
    for doc_id in acknowledged:
        text, meta_ = idx.document(doc_id)
        assert meta_["uid"] == doc_id
        got[doc_id] = text
        assert [h["id"] for h in idx.search(text, k=3, filter={"uid": doc_id})] == [doc_id]
    # searching its own text finds each one first (distance 0, to rounding)
    order = list(got)
    for doc_id, hits in zip(order, idx.search([got[i] for i in order], k=1)):
        assert hits[0]["id"] == doc_id or hits[0]["text"] == got[doc_id]
        assert hits[0]["score"] <= 1e-6
    # every document SQLite holds is searched (those committed by an add that was killed before it
    # returned too: scored from their texts at open), and the index still takes writes
    stored = [r[1] for batch in idx.store.live_rows() for r in batch]
    assert len(idx) == len(stored) >= 20 + len(acknowledged)
    assert {h["id"] for h in idx.search("w001", k=10**6)} == set(stored)
    unacknowledged = sorted(set(stored) - set(acknowledged) - set(ids[:20]))
    for doc_id in unacknowledged:
        assert idx.search(idx.document(doc_id)[0], k=1)[0]["score"] <= 1e-6
    assert idx.add(["w001 w002 w003"], ["after"]) == ["after"]
    idx.compact()
    reopened = Index.open(path)
    assert reopened.info()["segments"] == 1 and len(reopened) == len(idx)
    assert reopened.search("w001 w002 w003", k=1)[0]["id"] == "after"
    assert time.monotonic() - started < 120


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix" or not hasattr(signal, "SIGKILL"), reason="needs POSIX and SIGKILL")
def test_every_acknowledged_upsert_survives_kill_9_with_one_live_document_per_id(tmp_path):
    # upserts of ids from a small pool, most replacing a live document: after the kills, each id
    # has exactly one live document, holding the last acknowledged text of it, or the text of the
    # one upsert after it that the kill interrupted once it had committed (never an older one)
    started = time.monotonic()
    texts, _, _, _ = corpus()
    path = tmp_path / "index"
    seeded = [f"u{j:02d}" for j in range(0, UPSERT_POOL, 2)]       # half the pool is there at first
    Index.build(path, model("mcd"), texts[:len(seeded)], seeded,
                [{"uid": i, "run": -1, "batch": 0} for i in seeded]).close()
    runs = _kill_runs(tmp_path, path, "upsert", runs=RUNS // 2)
    last, in_flight = {}, {}
    for run, lines in enumerate(runs):
        batch = -1
        for line in lines:
            doc_id, b = line.split()
            last[doc_id] = (run, int(b))
            batch = int(b)
        in_flight[run] = batch + 1          # the batch the kill may have cut after its commit
    assert sum(map(len, runs)) >= 2 * len(runs)
    idx = Index.open(path)
    for seg in idx.segments:
        seg.check()
    live = [r[1] for rows in idx.store.live_rows() for r in rows]
    assert len(live) == len(set(live)) == len(idx)          # one live document per id
    for doc_id, (run, batch) in last.items():
        text, meta = idx.document(doc_id)
        assert meta["uid"] == doc_id
        got = (meta["run"], meta["batch"])
        assert got == (run, batch) or (got[0] >= run and got[1] == in_flight[got[0]]), (doc_id, got, (run, batch))
        assert [h["id"] for h in idx.search(text, k=5, filter={"uid": doc_id})] == [doc_id]
    assert idx.upsert(["w001 w002"], ["u00"]) == {"added": 0, "updated": 1}
    assert time.monotonic() - started < 120


def test_a_rebuild_that_fails_while_vectorising_keeps_the_old_index(tmp_path, monkeypatch):
    """Index.build(overwrite=True) removed the index there before vectorising the new texts: a
    text the pipeline refused, an encoder failing or Ctrl-C in the longest step left no index."""
    import learnsim.index.core as core

    texts, _, ids, meta = corpus()
    path = tmp_path / "idx"
    Index.build(path, model("linklearn"), texts[:20], ids[:20], meta[:20]).close()

    def failing(pipeline, texts):
        raise KeyboardInterrupt

    monkeypatch.setattr(core, "_collection", failing)
    with pytest.raises(KeyboardInterrupt):
        Index.build(path, model("linklearn"), texts[20:40], ids[20:40], overwrite=True)
    monkeypatch.undo()
    with Index.open(path) as index:
        assert len(index) == 20 and index.document(ids[3])[0] == texts[3]
    assert Index.verify_at(path)["ok"]
    with Index.build(path, model("linklearn"), texts[20:40], ids[20:40], overwrite=True) as index:
        assert len(index) == 20 and index.document(ids[23])[0] == texts[23]
