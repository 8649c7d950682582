"""A build into an empty folder the user made is written in place (learnsim.index._build): one
stopped outright (kill -9) while writing left a half-written folder that every later build refused
("is not empty", with overwrite "holds no index"). The marker written first lets the next build
remove what the stopped one wrote, and only that. The builds that stop are second processes that
kill themselves at a chosen step (no timing), bounded by subprocess timeouts."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import run_cli
from index_models import corpus, model

from learnsim.index import Index

SRC = str(Path(__file__).resolve().parents[2] / "src")
TESTS = str(Path(__file__).resolve().parents[1])

# a second process: builds texts 0..20 into the folder argv[1], and kills itself (SIGKILL, as
# kill -9) at the step argv[2]: "rows" while writing the rows (before the manifest), "versions"
# once the manifest is written
KILLED = textwrap.dedent("""
    import os, signal, sys
    sys.path[:0] = [sys.argv[3], sys.argv[4]]
    import learnsim.index.core as core
    import learnsim.index._versions as versions
    from index_models import corpus, model
    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)
    if sys.argv[2] == "rows":
        core.write_segment_of = die
    else:
        versions.record_build = die
    texts, _, ids, meta = corpus()
    core.Index.build(sys.argv[1], model("linklearn"), texts[:20], ids[:20], meta[:20])
""")


def _killed_build(path, step):
    run = subprocess.run([sys.executable, "-c", KILLED, str(path), step, SRC, TESTS], capture_output=True,
                         text=True, timeout=180)
    assert run.returncode == -signal.SIGKILL, run.stderr


def _interrupted(tmp_path, step="rows"):
    path = tmp_path / "idx"
    path.mkdir()            # the user's empty folder (perhaps a mount point)
    _killed_build(path, step)
    assert (path / "docs.sqlite").exists()      # it did write there
    return path


@pytest.mark.parametrize("overwrite", [False, True])
def test_a_build_recovers_the_folder_of_a_build_killed_while_writing(tmp_path, overwrite):
    texts, _, ids, _ = corpus()
    path = _interrupted(tmp_path)
    assert not (path / "manifest.json").exists()
    with Index.build(path, model("linklearn"), texts[20:40], ids[20:40], overwrite=overwrite) as index:
        assert len(index) == 20 and index.document(ids[25])[0] == texts[25]
        with pytest.raises(KeyError):
            index.document(ids[3])      # nothing of the killed build's documents
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]
    assert not (path / ".build-in-progress").exists()
    assert Index.verify_at(path)["ok"]


def test_only_what_the_killed_build_wrote_is_removed(tmp_path):
    """A file the user put in the folder since stays, and keeps it "not empty"."""
    texts, _, ids, _ = corpus()
    path = _interrupted(tmp_path)
    (path / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="not empty"):
        Index.build(path, model("linklearn"), texts[20:40], ids[20:40])
    assert [p.name for p in path.iterdir()] == ["notes.txt"] and (path / "notes.txt").read_text() == "mine"
    (path / "notes.txt").unlink()
    with Index.build(path, model("linklearn"), texts[20:40], ids[20:40]) as index:
        assert len(index) == 20


def test_a_build_killed_after_its_manifest_left_a_whole_index_which_is_kept(tmp_path):
    texts, _, ids, _ = corpus()
    path = _interrupted(tmp_path, "versions")
    with Index.open(path) as index:
        assert len(index) == 20 and index.document(ids[3])[0] == texts[3]
    with pytest.raises(FileExistsError, match="not empty"):
        Index.build(path, model("linklearn"), texts[20:40], ids[20:40])
    with Index.open(path) as index:
        assert len(index) == 20
    with Index.build(path, model("linklearn"), texts[20:40], ids[20:40], overwrite=True) as index:
        assert len(index) == 20 and index.document(ids[25])[0] == texts[25]
    assert not (path / ".build-in-progress").exists()


def test_the_command_line_builds_over_a_build_killed_while_writing(tmp_path):
    texts, _, ids, _ = corpus()
    path = _interrupted(tmp_path)
    model("linklearn").save(tmp_path / "model.npz")
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in zip(ids[20:40], texts[20:40])),
                    encoding="utf-8")
    code, _, err = run_cli(["index", "build", "--model", tmp_path / "model.npz", "--corpus", docs, "--out", path])
    assert code == 0, err
    with Index.open(path) as index:
        assert len(index) == 20 and index.document(ids[25])[0] == texts[25]


def test_an_open_or_a_verify_of_the_folder_says_a_build_was_stopped(tmp_path):
    """It said "holds no learnsim index (no manifest.json)", though the user sees index files there."""
    path = _interrupted(tmp_path)
    for call in (lambda: Index.open(path), lambda: Index.verify_at(path)):
        with pytest.raises(FileNotFoundError, match="a build of it was stopped before it was complete"):
            call()
    code, out, err = run_cli(["search", "--index", path, "--query", "w001"])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "build it again" in err

