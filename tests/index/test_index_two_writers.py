"""Two `learnsim index add` processes writing one index at once (two shells): their writes take
turns under the index's lock, so every document each acknowledged is there, the index verifies,
and an id both add is added once, the other told so in one line (exit 2), never written twice."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from index_models import corpus, model

from learnsim.index import Index

ROUNDS, PER_ADD = 3, 15


def _env():
    src = str(Path(__import__("learnsim").__file__).resolve().parents[1])
    return dict(os.environ, PYTHONPATH=os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))


def _corpus(path, ids, texts):
    path.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in zip(ids, texts)), encoding="utf-8")
    return path


@pytest.mark.slow
def test_two_processes_adding_at_once_lose_nothing(tmp_path):
    texts, _, ids, meta = corpus()
    path = tmp_path / "idx"
    Index.build(path, model("linklearn"), texts[:20], ids[:20], meta[:20]).close()
    env, expected = _env(), set(ids[:20])
    for r in range(ROUNDS):
        procs = []
        for w in ("a", "b"):
            new = [f"{w}{r}-{i}" for i in range(PER_ADD)]
            # the same texts in both: only the lock keeps their rows apart
            file = _corpus(tmp_path / f"{w}{r}.jsonl", new + [f"shared-{r}"], texts[20:20 + PER_ADD + 1])
            procs.append((new, subprocess.Popen([sys.executable, "-m", "learnsim", "index", "add", str(path),
                                                 "--corpus", str(file)], env=env, stdout=subprocess.PIPE,
                                                stderr=subprocess.PIPE, text=True)))
        outcomes = []
        for new, p in procs:
            out, err = p.communicate(timeout=300)
            outcomes.append((p.returncode, err))
            if p.returncode == 0:
                expected.update(new)
        # the id both gave: one add wrote it (and its other documents), the other wrote nothing
        assert sorted(code for code, _ in outcomes) == [0, 2], outcomes
        refused = next(err for code, err in outcomes if code == 2)
        assert f"'shared-{r}'" in refused and "already in the index" in refused
        assert len([line for line in refused.splitlines() if "error" in line]) == 1, refused
        expected.add(f"shared-{r}")
    report = Index.verify_at(path)
    assert report["ok"], report["damaged"]
    with Index.open(path) as idx:
        stored = {r[1] for batch in idx.store.live_rows() for r in batch}
        assert stored == expected and len(idx) == len(expected)
        assert {h["id"] for h in idx.search("w001 w002 w003", k=10 ** 6)} <= stored
