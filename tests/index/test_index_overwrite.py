"""``Index.build(..., overwrite=True)``: a handle open on the old index answers from the new one
afterwards."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from index_models import corpus, model

from learnsim.index import Index

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _old_index(tmp_path):
    texts, _, ids, meta = corpus()
    path = tmp_path / "idx"
    Index.build(path, model("linklearn"), texts[:20], ids[:20], meta[:20]).close()
    return path, texts, ids


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
