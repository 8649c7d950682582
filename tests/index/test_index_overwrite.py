"""``Index.build(..., overwrite=True)``: the new index is written beside the old one and swapped
in once complete (learnsim.index._build), so a failed rebuild keeps the old index; two builds of
one path take turns; a handle open on the old index answers from the new one afterwards.
The second processes are bounded by subprocess timeouts."""
from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from index_models import corpus, model

from learnsim.index import Index

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _old_index(tmp_path):
    texts, _, ids, meta = corpus()
    path = tmp_path / "idx"
    Index.build(path, model("linklearn"), texts[:20], ids[:20], meta[:20]).close()
    return path, texts, ids


def _assert_old_kept(path, texts, ids):
    with Index.open(path) as index:
        assert len(index) == 20 and index.document(ids[3])[0] == texts[3]
    assert Index.verify_at(path)["ok"]
    # nothing of the failed build is left beside it
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def _full_disk(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("failing", ["sha256_file", "write_segment_of"])
def test_a_rebuild_that_fails_while_writing_keeps_the_old_index(tmp_path, monkeypatch, failing):
    """The old index was removed before the new files were written: a full disk there left none."""
    import learnsim.index.core as core

    path, texts, ids = _old_index(tmp_path)
    monkeypatch.setattr(core, failing, _full_disk)
    with pytest.raises(OSError, match="No space left"):
        Index.build(path, model("linklearn"), texts[20:40], ids[20:40], overwrite=True)
    monkeypatch.undo()
    _assert_old_kept(path, texts, ids)
    with Index.build(path, model("linklearn"), texts[20:40], ids[20:40], overwrite=True) as index:
        assert len(index) == 20 and index.document(ids[23])[0] == texts[23]
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_a_swap_that_fails_puts_the_old_index_back(tmp_path, monkeypatch):
    """Without an atomic exchange (not Linux): the second rename failing renames the old one back."""
    import learnsim.index._build as build

    path, texts, ids = _old_index(tmp_path)
    monkeypatch.setattr(build, "_exchange", lambda a, b: False)
    real_rename = os.rename

    def rename(src, dst):
        if Path(src).name.startswith(".idx.building-"):
            raise OSError(errno.EIO, "Input/output error")
        return real_rename(src, dst)

    monkeypatch.setattr(build.os, "rename", rename)
    with pytest.raises(OSError, match="Input/output"):
        Index.build(path, model("linklearn"), texts[20:40], ids[20:40], overwrite=True)
    monkeypatch.undo()
    _assert_old_kept(path, texts, ids)


@pytest.mark.parametrize("exchange", [True, False])
def test_a_crash_between_the_renames_is_recovered_by_the_next_build(tmp_path, monkeypatch, exchange):
    """A build killed after moving the old index aside left it at .<name>.old-*: the next build puts
    it back first, and the leftovers of the killed one are removed."""
    import learnsim.index._build as build

    path, texts, ids = _old_index(tmp_path)
    os.rename(path, tmp_path / ".idx.old-deadbeef")
    (tmp_path / ".idx.building-1-cafe").mkdir()
    if not exchange:
        monkeypatch.setattr(build, "_exchange", lambda a, b: False)
    with pytest.raises(FileExistsError, match="not empty"):     # the old one is back, and not replaced
        Index.build(path, model("linklearn"), texts[20:40], ids[20:40])
    _assert_old_kept(path, texts, ids)
    with Index.build(path, model("linklearn"), texts[20:40], ids[20:40], overwrite=True) as index:
        assert len(index) == 20
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]


def test_the_embedding_cache_keeps_the_name_of_the_index(tmp_path, monkeypatch):
    """The cache of an encoder model is named after the index (<index>.embeddings): the rebuild in
    the hidden folder reads and fills the index's own cache, none named after that folder."""
    from encoder_fakes import register_sentence_encoder
    from learnsim.pipeline import Pipeline
    from learnsim.text import encoders
    from learnsim.text.encoders import encoded_text_count

    cls = register_sentence_encoder(monkeypatch)
    pipeline = Pipeline.from_encoder(cls("/fake/fake-sentence-encoder").fit())
    texts, _, ids, _ = corpus()
    path = tmp_path / "idx"
    Index.build(path, pipeline, texts[:30], ids[:30]).close()
    monkeypatch.setattr(encoders, "_MEMO", {})                 # as in a new process
    start = encoded_text_count()
    with Index.build(path, pipeline, texts[:30], ids[:30], overwrite=True) as index:
        assert len(index) == 30 and index.search(texts[4], k=1)[0]["id"] == ids[4]
    assert encoded_text_count() - start == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx", "idx.embeddings"]


# in a process of its own, each build from the model of the one before (model() is cached) as
# a user rebuilding in a loop would; a few rounds, as whether the stale plan answered depended on
# the timing of the first search's threads
HANDLE = textwrap.dedent("""
    import json, sys
    sys.path[:0] = [sys.argv[2], sys.argv[3]]
    from index_models import corpus, model
    from learnsim.index import Index
    texts, _, ids, meta = corpus()
    path = sys.argv[1]
    rounds = []
    for r in range(4):
        a, b = (0, 20) if r % 2 else (20, 40)
        with Index.open(path) as old:
            old.search(texts[3], k=1)
            Index.build(path, model("linklearn"), texts[a:b], ids[a:b], overwrite=True).close()
            rounds.append({"hits": [h["id"] for h in old.search(texts[a + 3], k=5)], "n": len(old), "want": ids[a + 3],
                           "of": ids[a:b]})
    with Index.open(path) as old:
        Index.build(path, model("linklearn"), texts[20:40], ids[20:40], overwrite=True).close()
        old.add(["one more text after the rebuild"], ids=["late"])
    print(json.dumps(rounds))
""")


def test_a_handle_open_on_the_old_index_answers_from_the_new_one(tmp_path):
    """A handle open on the old index kept its query plan (query-1, as the new one's is named,
    with the old statistics): its searches ranked the new rows with the old idf."""
    path, texts, ids = _old_index(tmp_path)
    tests = str(Path(__file__).resolve().parents[1])
    run = subprocess.run([sys.executable, "-c", HANDLE, str(path), SRC, tests], capture_output=True, text=True,
                         timeout=180)
    assert run.returncode == 0, run.stderr
    for got in json.loads(run.stdout):
        assert got["n"] == 20 and set(got["hits"]) <= set(got["of"])
        assert got["hits"][0] == got["want"], got
    with Index.open(path) as index:
        assert len(index) == 21 and index.document("late")[0] == "one more text after the rebuild"
        assert index.search(texts[23], k=1)[0]["id"] == ids[23]
    assert Index.verify_at(path)["ok"]


# a second process: builds the index at argv[1] from texts argv[2]..argv[3] of the corpus
BUILDER = textwrap.dedent("""
    import sys
    sys.path[:0] = [sys.argv[5], sys.argv[6]]
    import learnsim.index._integrity as integrity
    integrity.LOCK_WAIT_S = float(sys.argv[4])
    from index_models import corpus, model
    from learnsim.exceptions import IndexBusyError
    from learnsim.index import Index
    texts, _, ids, meta = corpus()
    a, b = int(sys.argv[2]), int(sys.argv[3])
    try:
        Index.build(sys.argv[1], model("linklearn"), texts[a:b], ids[a:b], meta[a:b], overwrite=True).close()
    except IndexBusyError as exc:
        print(exc, file=sys.stderr)
        sys.exit(2)
""")


def _builder(path, start, stop, wait):
    tests = str(Path(__file__).resolve().parents[1])
    return subprocess.Popen([sys.executable, "-c", BUILDER, str(path), str(start), str(stop), str(wait), SRC, tests],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_build_waits_for_another_build_of_the_same_path_or_fails_clearly(tmp_path):
    from learnsim.index._integrity import Lock

    path, texts, ids = _old_index(tmp_path)
    with Lock(tmp_path / ".idx.build-lock"):        # another build of idx holds it
        child = _builder(path, 20, 40, 0.5)
        _, err = child.communicate(timeout=120)
        (tmp_path / ".idx.build-lock").unlink()     # as that build does once done
    assert child.returncode == 2, err
    assert "another build of it" in err and "nothing was changed" in err and "Traceback" not in err
    _assert_old_kept(path, texts, ids)


def test_two_builds_of_one_path_at_once_leave_one_whole_index(tmp_path):
    path, texts, ids = _old_index(tmp_path)
    children = [_builder(path, 20, 45, 60), _builder(path, 45, 60, 60)]
    for child in children:
        _, err = child.communicate(timeout=180)
        assert child.returncode == 0, err
    with Index.open(path) as index:
        got = sorted(index.document(i)[0] for i in ids[20:60] if _has(index, i))
    assert got in (sorted(texts[20:45]), sorted(texts[45:60]))
    assert Index.verify_at(path)["ok"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]


def _has(index, doc_id):
    try:
        index.document(doc_id)
    except KeyError:
        return False
    return True


def test_a_writer_waiting_on_a_lock_file_replaced_meanwhile_takes_the_new_one(tmp_path):
    """A rebuild swaps in a folder with a lock file of its own (and a build removes its lock once
    done): a writer that waited on the old file got a lock that excluded nobody, and wrote beside
    a writer holding the new one."""
    import threading

    from learnsim.index._integrity import Lock

    path = tmp_path / "lock"
    entered, release = threading.Event(), threading.Event()

    def waiter():
        with Lock(path, wait=30):
            entered.set()
            release.wait(30)

    first = Lock(path).__enter__()
    thread = threading.Thread(target=waiter)
    thread.start()
    # the waiter opens the old file and polls it (every 20 ms) before it is replaced
    time.sleep(0.3)
    path.unlink()
    with Lock(path):
        first.__exit__(None, None, None)
        assert not entered.wait(0.5), "the waiter took the lock of a removed file"
    assert entered.wait(30)
    release.set()
    thread.join(30)


@pytest.mark.parametrize("existing", [False, True])
def test_a_first_build_that_fails_leaves_nothing_a_build_refuses(tmp_path, monkeypatch, existing):
    """A first build failing while writing (a full disk) left a folder with no manifest, which
    every later build refused: "not empty", and with overwrite "holds no index"."""
    import learnsim.index.core as core

    texts, _, ids, _ = corpus()
    path = tmp_path / "idx"
    if existing:
        path.mkdir()        # an empty folder given: written in place, emptied again
    monkeypatch.setattr(core, "write_segment_of", _full_disk)
    with pytest.raises(OSError, match="No space left"):
        Index.build(path, model("linklearn"), texts[:20], ids[:20])
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == (["idx"] if existing else [])
    assert not existing or not any(path.iterdir())
    with Index.build(path, model("linklearn"), texts[:20], ids[:20]) as index:
        assert len(index) == 20
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]
