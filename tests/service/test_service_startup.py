"""The service's start in the background (issue 32, part 1: ``learnsim serve`` answered its first
request 7-22 s after its start on a 100,000-document index): ``create_app(background=True)``
returns once the index is opened; ``/healthz`` says 503 "starting" until every row and the query
plan are checked, then "ok"; requests wait for the check in the queue and are answered as a
service started at once answers them; the model loads in a thread of its own and the write
handle shares it; damage found on the way makes ``/healthz`` "degraded", naming the file, and
the requests that need the damaged file get 503 ``index_damaged``. The command starts this way.

Order and outcomes are asserted, never timings: the check is held on an event where a test
needs the service in its "starting" state."""
from __future__ import annotations

import shutil
import threading
import time
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model  # noqa: E402

from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

BASE = "http://127.0.0.1"
JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    root = tmp_path_factory.mktemp("startup")
    Index.build(root / "mcd", model("mcd"), texts, ids, meta).close()
    return root


@pytest.fixture
def fresh(built, tmp_path):
    path = tmp_path / "idx"
    shutil.copytree(built / "mcd", path)
    return path


def _client(path, **options):
    return TestClient(create_app(path, **options), raise_server_exceptions=False, base_url=BASE)


def _health(c, until, seconds=30):
    """The /healthz answers until one satisfies ``until`` (returned)."""
    deadline = time.monotonic() + seconds
    while True:
        r = c.get("/healthz")
        if until(r):
            return r
        assert time.monotonic() < deadline, (r.status_code, r.text)
        time.sleep(0.01)


def _flip(file, offset=-1):
    raw = bytearray(file.read_bytes())
    raw[offset] ^= 0xFF
    file.write_bytes(bytes(raw))


def test_starting_until_the_rows_are_checked_then_answered_as_at_once(built, fresh, monkeypatch):
    held, holding = threading.Event(), threading.Event()
    real = Index.warm

    def warm(self, *, search=True):
        if not search:          # the check /healthz waits for: held here
            holding.set()
            assert held.wait(30)
        return real(self, search=search)

    monkeypatch.setattr(Index, "warm", warm)
    c = _client(fresh, background=True)
    assert holding.wait(30)
    r = c.get("/healthz")
    assert r.status_code == 503 and r.json() == {"status": "starting"} and r.headers["retry-after"] == "1"
    # a search sent meanwhile waits for the check in the queue, then is answered
    texts, _, ids, _ = corpus()
    answer = {}
    thread = threading.Thread(target=lambda: answer.update(r=c.get("/v1/search", params={"q": texts[9], "k": 3})))
    thread.start()
    time.sleep(0.2)
    assert "r" not in answer
    held.set()
    thread.join(30)
    expected = _client(built / "mcd").get("/v1/search", params={"q": texts[9], "k": 3}).json()
    assert answer["r"].status_code == 200 and answer["r"].json() == expected
    assert _health(c, lambda r: r.status_code == 200).json() == {"status": "ok"}


def test_the_model_loads_in_the_background_and_the_writes_share_it(fresh):
    c = _client(fresh, background=True)
    _health(c, lambda r: r.status_code == 200)
    app = c.app
    r = c.post("/v1/docs", json={"documents": [{"id": "new", "text": "w001 w002 w003"}]}, headers=JSON)
    assert r.status_code == 201
    assert app.state.index._pipeline is not None and app.state.writer.index._pipeline is app.state.index._pipeline
    assert c.get("/v1/search", params={"q": "w001 w002 w003", "k": 1}).json()["hits"][0]["id"] == "new"
    explained = c.post("/v1/explain", json={"query": "w001 w002", "document": "w001 w003"}).json()
    assert explained["words"]
    assert "/v1/match" not in c.get("/openapi.json").json()["paths"]   # MCD: no duplicate rule


def test_damaged_rows_found_at_the_start_make_it_degraded(fresh):
    segment = next((fresh / "segments").iterdir())
    _flip(segment / "dense.npy")
    c = _client(fresh, background=True)       # the open reads the headers only: it starts
    health = _health(c, lambda r: r.json().get("status") != "starting")
    assert health.status_code == 200 and health.json()["status"] == "degraded"
    assert f"segments/{segment.name}/dense.npy is damaged" in health.json()["damage"]
    assert str(fresh) not in health.json()["damage"]
    r = c.get("/v1/search", params={"q": "w001 w002", "k": 3})
    assert r.status_code == 503 and r.json()["code"] == "index_damaged" and "dense.npy" in r.json()["error"]
    assert c.get("/v1/docs/d1").status_code == 200          # what is intact is still served


def test_a_damaged_model_found_at_the_start_makes_it_degraded(fresh):
    _flip(fresh / "model.npz", 100)
    c = _client(fresh, background=True)
    health = _health(c, lambda r: r.json().get("status") == "degraded")
    assert "model.npz is damaged" in health.json()["damage"]
    # a search needs no model (the query plan); a write does, and is refused
    assert c.get("/v1/search", params={"q": "w001 w002", "k": 3}).status_code == 200
    r = c.post("/v1/docs", json={"documents": [{"id": "new", "text": "w001"}]}, headers=JSON)
    assert r.status_code == 503 and r.json()["code"] == "index_damaged"
    assert c.get("/v1/docs/new").status_code == 404


def test_a_missing_index_is_still_an_error_at_once(tmp_path):
    with pytest.raises(FileNotFoundError, match="holds no learnsim index"):
        create_app(tmp_path / "nothing", background=True)


def test_the_command_starts_the_service_in_the_background(built, monkeypatch):
    import learnsim.service
    from learnsim.cli import main

    seen = {}

    class Stop(Exception):
        pass

    def fake(path, **options):
        seen.update(options)
        raise Stop

    monkeypatch.setattr(learnsim.service, "create_app", fake)
    with pytest.raises(Stop):
        main(["serve", str(built / "mcd"), "--port", "0"])
    assert seen["background"] is True


@pytest.mark.parametrize("family", ["mcd", "film_pairs"])
def test_the_page_the_schema_and_info_answer_while_the_model_loads(built, tmp_path, monkeypatch, family):
    """/, /openapi.json and /v1/info read the pipeline, whose load holds a lock: they waited for
    the whole load (the schema in the event loop, the page and info in the reads' thread, holding
    up the searches queued behind them), though none needs the model. They answer while it
    loads, as they answer once it is there; /v1/info says the model is loading."""
    from learnsim.index import _versions

    path = tmp_path / family
    if family == "mcd":
        shutil.copytree(built / "mcd", path)
    else:       # a model with a duplicate rule: the schema lists POST /v1/match
        texts, _, ids, meta = corpus()
        Index.build(path, model(family), texts, ids, meta).close()
    expected = _client(path)
    schema, page = expected.get("/openapi.json").json(), expected.get("/")
    held, holding = threading.Event(), threading.Event()
    real = _versions.load_model

    def load_model(*args, **kwargs):
        holding.set()
        assert held.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(_versions, "load_model", load_model)
    c = _client(path, background=True)
    try:
        assert holding.wait(30)
        answers = {}

        def ask():
            for name in ("/", "/openapi.json", "/v1/info", "/v1/search?q=w001+w002&k=3"):
                answers[name] = c.get(name)

        asking = threading.Thread(target=ask, daemon=True)
        asking.start()
        asking.join(30)
        assert not held.is_set() and len(answers) == 4, sorted(answers)     # answered with the load held
        assert all(r.status_code == 200 for r in answers.values()), {n: r.status_code for n, r in answers.items()}
        assert answers["/openapi.json"].json() == schema
        assert ("/v1/match" in schema["paths"]) == (family == "film_pairs")
        assert answers["/"].text == page.text
        info = answers["/v1/info"].json()
        assert info["model"] == "loading" and info["pipeline"] is None
        assert info["method"] == expected.get("/v1/info").json()["method"]
    finally:
        held.set()
    _health(c, lambda r: r.status_code == 200)
    info = c.get("/v1/info").json()
    assert info["model"] == "loaded" and info["pipeline"] == expected.get("/v1/info").json()["pipeline"]
