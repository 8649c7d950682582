"""Writes of ``learnsim serve`` that the disk refuses part-way (a full disk, a file-size limit).
POST /v1/reindex writes its segment with numpy, whose short write is an OSError with no number
("6288 requested and 5104 written"): it was a 500 "internal error (OSError)", and the exception
left the application (uvicorn then dropped the connection). A document write the disk refused
was a 503 index_damaged with /healthz degraded until a restart
(tests/index/test_index_disk_refusal_s83.py). Now both are 503 with Retry-After saying the index
cannot be written, /healthz stays ok, searches go on, and the writes are taken once the disk
takes them.

The disk is made to refuse in a child process by its file-size limit (RLIMIT_FSIZE; Python
ignores SIGXFSZ, so a write past it fails)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("resource")
pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model  # noqa: E402

from learnsim.index import Index  # noqa: E402

CHILD = r"""
import json, os, resource, sys, warnings
warnings.simplefilter("ignore")
from fastapi.testclient import TestClient
from learnsim.service import create_app
path = sys.argv[1]
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
out = {}
with TestClient(create_app(path), raise_server_exceptions=False, base_url="http://127.0.0.1") as c:
    # files of at most 40 KiB: the texts of a segment of the whole collection (56 KB) are not
    resource.setrlimit(resource.RLIMIT_FSIZE, (40 * 1024, hard))
    answers = []
    docs = {"documents": [{"id": f"q{i}", "text": "w001 w002 " + "z" * 3000} for i in range(8)]}
    r = c.post("/v1/docs", json=docs)
    answers.append(["add", r.status_code, r.headers.get("retry-after"), r.json()])
    r = c.post("/v1/reindex", json={})
    answers.append(["reindex", r.status_code, r.headers.get("retry-after"), r.json()])
    out["health"] = c.get("/healthz").json()
    out["search"] = c.get("/v1/search", params={"q": "w001", "k": 2}).status_code
    resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    r = c.post("/v1/docs", json={"documents": docs["documents"][:2]})
    answers.append(["add after", r.status_code, None, r.json()])
    r = c.post("/v1/reindex", json={})
    answers.append(["reindex after", r.status_code, None, r.json()])
    out["answers"] = answers
    out["found"] = c.get("/v1/docs/q1").status_code
print(json.dumps(out))
"""


def test_writes_the_disk_refuses_are_503_and_taken_once_it_can(tmp_path):
    texts, _, ids, meta = corpus()
    path = tmp_path / "mcd"
    Index.build(path, model("mcd"), texts, ids, meta).close()
    run = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    refused = [a for a in out["answers"] if "after" not in a[0]]
    assert any(status != 201 for _, status, _, _ in refused), out["answers"]      # the limit refused something
    for what, status, retry, body in refused:
        if what == "add" and status == 201:
            continue
        assert status == 503 and retry == "1", (what, status, body)
        assert "cannot be written" in body["error"] and body["code"] == 503, (what, body)
    assert out["health"]["status"] == "ok", out["health"]
    assert out["search"] == 200
    later = {what: (status, body) for what, status, _, body in out["answers"] if "after" in what}
    assert later["add after"][0] in (200, 201) or "already" in later["add after"][1]["error"], later
    assert later["reindex after"][0] == 200, later
    assert out["found"] == 200
    with Index.open(path) as index:
        report = index.verify()
    assert report["ok"], report
