"""``learnsim serve`` against its own OpenAPI schema (issue 30): schemathesis (the 4.x command
line, in a subprocess) sends requests generated from ``/openapi.json`` to a real server on
127.0.0.1, with every check (``--checks all``: statuses and content types documented, schema-valid
requests accepted and invalid ones refused, ``Allow`` headers, the API key enforced where the
schema says so, no 5xx), and must find nothing.

Bounded and deterministic: a fixed seed, at most ``EXAMPLES`` cases an operation, the examples,
coverage and fuzzing phases (no stateful phase), one worker, a timeout on each request (60 s: a
write of 1,000 documents on a loaded 2-core machine took over 20 s once, an error) and on the
run, and no "too slow" health check (generating the filters' nested schema on a loaded machine
failed it once: a timing, not a finding); the server is a copy of a small index and is stopped at the end. Two runs: a FILM index
with a duplicate rule (so ``POST /v1/match`` is tested) and writes behind a key, and an MCD index
with ``--protect-reads`` (fewer cases: the same routes, the key on each). About 150 s in all on
this 2-core machine, the two index builds included (the operator filters' schema, nested three
deep, is most of it); each run is stopped after 480 s, room for a machine three times busier.

Two settings, both in the config file written here and in ``schemathesis_hooks.py``: a 413 (a
body, query or text over its size bound) counts as refusing schema-invalid data, as 400 and 422
do; and the search budget (queries x k, explain only for small k), which ties fields together
as no JSON Schema can, leaves generated requests over it out (the server's 422 for them is
tested in ``test_service_hostile.py``).

Run alone: ``python -m pytest -q tests/test_service_schema.py``.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
pytest.importorskip("schemathesis", reason="needs schemathesis (in the test extra)")

from serve_process import running_server  # noqa: E402
from index_models import corpus, model, near_duplicate  # noqa: E402

from learnsim.index import Index  # noqa: E402

KEY = "schema-test-key"
KEY_ENV = "LEARNSIM_SCHEMA_TEST_KEY"
EXAMPLES = 25
SEED = 1
TESTS = Path(__file__).resolve().parents[1]
CONFIG = """\
[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429", "5XX"]
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    root = tmp_path_factory.mktemp("schema")
    dup = near_duplicate(texts[100], seed=100)
    Index.build(root / "film", model("film_pairs"), texts + [dup], ids + ["dup100"],
                meta + [{"topic": meta[100]["topic"]}]).close()
    Index.build(root / "mcd", model("mcd"), texts, ids, meta).close()
    return root


def _schemathesis():
    exe = Path(sys.executable).with_name("schemathesis")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "schemathesis.cli"]


@pytest.mark.parametrize("name, extra, examples, keyed", [
    ("film", (), EXAMPLES, True),
    # with the click log on: POST /v1/feedback is in the schema, and every search records
    ("mcd", ("--protect-reads", "--learn-from-clicks"), EXAMPLES // 3, True),
    # no key at all, learning from clicks (on this machine's address alone: issue 45)
    ("mcd", ("--learn-from-clicks",), EXAMPLES // 4, False)],
    ids=["film-writes", "protect-reads", "keyless-clicks"])
def test_schemathesis_finds_nothing(built, tmp_path, monkeypatch, name, extra, examples, keyed):
    index = tmp_path / "idx"
    shutil.copytree(built / name, index)   # the run adds and deletes documents
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    monkeypatch.setenv(KEY_ENV, KEY)
    env = dict(os.environ, SCHEMATHESIS_HOOKS="schemathesis_hooks",
               PYTHONPATH=os.pathsep.join([str(TESTS)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    key_args = ("--api-key-env", KEY_ENV) if keyed else ()
    with running_server(index, *key_args, *extra, seconds=60) as base:
        cmd = [*_schemathesis(), "--config-file", str(config), "--no-color", "run", f"{base}/openapi.json",
               "--checks", "all", "--max-examples", str(examples), "--seed", str(SEED),
               "--phases", "examples,coverage,fuzzing", "--workers", "1", "--no-shrink",
               "--request-timeout", "60", "--suppress-health-check", "too_slow", *(("--header", f"X-API-Key: {KEY}") if keyed else ()),
               "--output-truncate", "true"]
        done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=480)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-6000:]
    assert " passed" in out and "failure" not in out.split("SUMMARY")[-1].lower(), out[-3000:]
