"""A write of documents the disk refuses part-way (a full disk, a file-size limit). SQLite rolls
the transaction back itself when its COMMIT fails so; the store's ROLLBACK then raised "cannot
rollback - no transaction is active" in place of that error, and the write was an
IndexDamagedError ("docs.sqlite is damaged: SQLite cannot use it"): a served index said it was
damaged (503 index_damaged, /healthz degraded) and refused every write until a restart, where
``learnsim index verify`` found it intact. Now the write is an OSError saying the index cannot be
written, nothing of it is kept, and the index takes writes again once the disk does.

The disk is made to refuse in a child process by its file-size limit (RLIMIT_FSIZE; Python
ignores SIGXFSZ, so a write past it fails with EFBIG)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

resource = pytest.importorskip("resource")

from index_models import corpus, model  # noqa: E402

from learnsim.index import Index  # noqa: E402

CHILD = r"""
import json, os, resource, sys
from learnsim.index import Index
from learnsim.exceptions import IndexDamagedError
path = sys.argv[1]
index = Index.open(path)
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
sizes = [os.path.getsize(os.path.join(path, f)) for f in os.listdir(path) if os.path.isfile(os.path.join(path, f))]
resource.setrlimit(resource.RLIMIT_FSIZE, (max(sizes) + 64 * 1024, hard))
written, errors = [], []
for j in range(300):
    ids = [f"n{j}-{i}" for i in range(5)]
    try:
        index.add([f"w001 w{j % 400:03d} " + "y" * 3000 for _ in ids], ids=ids)
        written += ids
    except IndexDamagedError as exc:
        errors.append(["damaged", str(exc)])
    except OSError as exc:
        errors.append(["oserror", str(exc)])
    if len(errors) >= 3:
        break
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
after = []
try:
    index.add(["w001 w002 written once the disk takes it"], ids=["late-1"])
    after.append("late-1")
except Exception as exc:
    errors.append(["after", f"{type(exc).__name__}: {exc}"])
print(json.dumps({"written": written, "errors": errors, "after": after}))
"""


def test_a_write_the_disk_refuses_part_way_is_no_damage_and_the_index_writes_again(tmp_path):
    texts, _, ids, meta = corpus()
    path = tmp_path / "mcd"
    Index.build(path, model("mcd"), texts[:40], ids[:40], meta[:40]).close()
    run = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["errors"], "the file-size limit refused no write"
    for kind, message in out["errors"]:
        assert kind == "oserror", (kind, message)
        assert "cannot be written" in message and "damaged" not in message, message
    assert out["after"] == ["late-1"], out["errors"]
    index = Index.open(path)
    try:
        # what was acknowledged is there, what was refused is not, and the files are intact
        assert len(index) == 40 + len(out["written"]) + 1
        assert index.document("late-1")[0] == "w001 w002 written once the disk takes it"
        assert index.document(out["written"][-1])[0].startswith("w001 w")
        with pytest.raises(KeyError):
            index.document(f"n{len(out['written']) // 5}-0")       # the first refused write
        report = index.verify()
        assert report["ok"] and not report["damaged"], report
    finally:
        index.close()


def test_a_reindex_the_disk_refuses_part_way_is_one_line_and_leaves_the_index_as_it_was(tmp_path):
    """numpy's short write of a segment ("6288 requested and 5104 written") is an OSError with no
    number: learnsim index reindex under a file-size limit ended in a traceback (exit 1). Now one
    line naming the file and what the disk did, exit 2, and the index as it was."""
    texts, _, ids, meta = corpus()
    path = tmp_path / "mcd"
    Index.build(path, model("mcd"), texts, ids, meta).close()

    def limited():
        # files of at most 40 KiB: the texts of a segment of the whole collection (56 KB) are not
        resource.setrlimit(resource.RLIMIT_FSIZE, (40 * 1024, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    run = subprocess.run([sys.executable, "-m", "learnsim", "index", "reindex", str(path)], capture_output=True,
                         text=True, timeout=300, preexec_fn=limited)
    assert run.returncode == 2, run.stderr[-2000:]
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert "the disk took part of a write" in lines[0] and ".npy" in lines[0], lines[0]
    with Index.open(path) as index:
        assert len(index) == len(texts) and index.verify()["ok"]
