"""An API key no HTTP request can carry as it is: a space at either end (HTTP drops the spaces
around a header's value), a control character (no header may hold one) or a character outside
ASCII (a header's bytes are read as Latin-1, so a UTF-8 key never compared equal). The service
started with one and answered every write 401, whatever key a client sent: now it refuses to
start (create_app's ValueError; ``learnsim serve`` exit 2, one line naming the variable), and the
client refuses such a key when it is made (it raised UnicodeEncodeError, or "no answer", at the
first request)."""
from __future__ import annotations

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

UNSENDABLE = ["sekrit ", " sekrit", "sekrit\n", "sek\trit", "sek\x01rit", "sekr\u00eft", "\u5bc6\u94a5"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("keychars") / "bm25"
    Index.build(path, model("bm25"), texts[:20], ids[:20], meta[:20]).close()
    return path


@pytest.mark.parametrize("key", UNSENDABLE)
def test_create_app_refuses_a_key_no_request_can_carry(built, key):
    with pytest.raises(ValueError, match="api_key"):
        create_app(built, api_key=key)


def test_a_key_of_visible_ascii_with_inner_spaces_is_served_and_matched(built):
    key = "s3cr-t key_~!"
    c = TestClient(create_app(built, api_key=key), raise_server_exceptions=False, base_url="http://127.0.0.1")
    headers = {"Content-Type": "application/json"}
    assert c.post("/v1/reindex", content=b"{}", headers=headers).status_code == 401
    assert c.post("/v1/reindex", content=b"{}", headers={**headers, "X-API-Key": key}).status_code == 200
    assert c.post("/v1/reindex", content=b"{}",
                  headers={**headers, "Authorization": f"Bearer {key}"}).status_code == 200


@pytest.mark.parametrize("key", ["sekrit ", "sekr\u00eft"])
def test_serve_refuses_a_key_no_request_can_carry_in_one_line(built, key, monkeypatch, capsys):
    from learnsim.cli import main

    monkeypatch.setenv("LEARNSIM_S85_KEY", key)
    # --read-only with --learn-from-clicks is refused after the key is read: without the key's
    # check the command stops there (its own line), never serving
    assert main(["serve", str(built), "--api-key-env", "LEARNSIM_S85_KEY", "--read-only", "--learn-from-clicks"]) == 2
    err = capsys.readouterr().err.strip()
    assert "LEARNSIM_S85_KEY" in err and "\n" not in err and "Traceback" not in err, err
    assert key not in err     # the key itself is never printed


@pytest.mark.parametrize("key", UNSENDABLE)
def test_the_client_refuses_a_key_no_request_can_carry(key):
    from learnsim.client import AsyncClient, Client

    for cls in (Client, AsyncClient):
        with pytest.raises(ValueError, match="api_key"):
            cls("http://127.0.0.1:9", api_key=key)
