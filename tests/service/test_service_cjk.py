"""Japanese and Chinese through the service (issue 44, part 2): UTF-8 end to end, a search of
text written without spaces finds its topic over HTTP, and the page marks the bigrams a hit
shares with the query as whole runs."""
from __future__ import annotations

import re
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

import learnsim  # noqa: E402
from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

BASE = "http://127.0.0.1"
TEXTS = ["東京の天気は晴れです", "明日の東京の天気は雨", "今日の天気予報を見た", "カレーライスの作り方",
         "美味しいカレーの作り方を教えて", "簡単な料理の作り方", "北京今天的天气很好", "明天上海天气下雨",
         "天气预报说明天晴天", "坐火车去北京", "火车站在哪里", "高铁比火车快"]
LABELS = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    path = tmp_path_factory.mktemp("cjk") / "idx"
    model = learnsim.fit(TEXTS, clusters=LABELS, baseline_holdout=None)
    Index.build(path, model, TEXTS, [f"d{i}" for i in range(len(TEXTS))]).close()
    return TestClient(create_app(path), raise_server_exceptions=False, base_url=BASE)


@pytest.mark.parametrize("query, topic", [("東京の天気", 0), ("カレーの作り方", 1), ("今天天气", 2), ("火车站", 3)])
def test_a_search_over_http_finds_the_topic_and_keeps_the_text(client, query, topic):
    response = client.get("/v1/search", params={"q": query, "k": 2})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    hits = response.json()["hits"]
    # and as JSON in a POST body, the same hits
    posted = client.post("/v1/search", json={"queries": [query], "k": 2})
    assert posted.status_code == 200, posted.text
    assert [h["id"] for h in posted.json()["results"][0]] == [h["id"] for h in hits]
    assert [LABELS[int(h["id"][1:])] for h in hits] == [topic, topic]
    assert all(h["text"] == TEXTS[int(h["id"][1:])] for h in hits)         # UTF-8 intact


def test_the_page_marks_shared_runs_whole(client):
    page = client.get("/", params={"q": "東京の天気"})
    assert page.status_code == 200 and "charset=utf-8" in page.headers["content-type"].lower()
    marks = re.findall(r"<mark>(.*?)</mark>", page.text)
    assert marks and any("天気" in m or "東京" in m for m in marks)
    # overlapping bigrams make one mark: no character is marked twice, the text reads as it is
    assert "東京の天気は晴れです" in re.sub(r"</?mark>", "", page.text)


def test_a_lone_character_is_explained_as_it_was_searched(client):
    """晴 alone is in no document's terms (晴れ, 晴天 are): the search reads it as the terms holding
    it, and the explanations of its hits, over JSON and on the page, are of that reading too: they
    sum to each hit's score and mark where the character stands."""
    posted = client.post("/v1/search", json={"queries": ["晴"], "k": 3, "explain": True})
    assert posted.status_code == 200, posted.text
    hits = posted.json()["results"][0]
    assert hits and any("晴" in h["text"] for h in hits)
    for h in hits:
        assert h["explanation"]["score"] == pytest.approx(h["score"], rel=1e-6, abs=1e-9)
    page = client.get("/", params={"q": "晴"})
    assert page.status_code == 200
    marks = re.findall(r"<mark>(.*?)</mark>", page.text)
    assert any("晴" in m for m in marks)


@pytest.fixture
def index_read_with_a_missing_analyser(tmp_path, monkeypatch):
    """An index whose model reads Japanese with fugashi (a stand-in segmenter, so that fugashi need
    not be installed), then a process where fugashi cannot be imported."""
    from learnsim.text import _tokenize

    def segment(run):
        return [(i, min(i + 2, len(run)), run[i:i + 2]) for i in range(0, len(run), 2)]

    monkeypatch.setattr(_tokenize, "_SEGMENTERS", {"fugashi": segment})
    path = tmp_path / "idx"
    model = learnsim.fit(TEXTS, clusters=LABELS, analyzer="fugashi", baseline_holdout=None)
    Index.build(path, model, TEXTS, [f"d{i}" for i in range(len(TEXTS))]).close()

    def missing():
        raise ImportError("analyzer='fugashi' needs fugashi and a UniDic dictionary: pip install fugashi unidic-lite")

    monkeypatch.setattr(_tokenize, "_SEGMENTERS", {})
    monkeypatch.setitem(_tokenize._ANALYZER_MODULES, "fugashi", ("fugashi", missing, "fugashi"))
    return path


def test_an_index_read_with_a_missing_analyser_is_503_naming_it(index_read_with_a_missing_analyser):
    # served where fugashi is missing, every request was 500 'internal error (ImportError)' (created
    # at once, the application's start raises the ImportError itself; 'learnsim serve' starts so)
    with pytest.raises(ImportError, match="pip install fugashi"):
        create_app(index_read_with_a_missing_analyser)
    app = create_app(index_read_with_a_missing_analyser, background=True)
    client = TestClient(app, raise_server_exceptions=False, base_url=BASE)
    for response in (client.get("/v1/search", params={"q": "東京の天気", "k": 2}),
                     client.post("/v1/search", json={"queries": ["東京の天気"], "k": 2}),
                     client.post("/v1/match", json={"text": "東京の天気"}),
                     client.get("/v1/info")):
        assert response.status_code == 503, response.text
        assert "pip install fugashi" in response.json()["error"]


def test_serve_refuses_an_index_read_with_a_missing_analyser(index_read_with_a_missing_analyser, monkeypatch):
    from conftest import run_cli

    from learnsim.cli import serve

    def listen(*args, **kwargs):    # it went on to listen: stopped here rather than serve on
        raise RuntimeError("listening")

    monkeypatch.setattr(serve, "_listen", listen)
    code, _out, err = run_cli(["serve", index_read_with_a_missing_analyser, "--port", "0"])
    assert code == 2 and "pip install fugashi" in err and "Traceback" not in err
