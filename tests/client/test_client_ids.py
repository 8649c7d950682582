"""learnsim.client names the user a keyed search and its clicks count for (``X-Client-Id``, issue
45: a front end holding the key vouches for its users). It sent no such header and took none, so
a front end on the Python client had every user counted as the key's holder: one client, one
vote, and no promotion ever (it needs 5 clients)."""
from __future__ import annotations

import asyncio

import pytest

httpx = pytest.importorskip("httpx")

from learnsim.client import AsyncClient, Client  # noqa: E402

SEARCH = {"hits": [], "impression": "i1", "score": "similarity", "higher_is_better": True, "model_version": "v1"}


def _recording(kind, **options):
    seen = []

    def handler(request):
        seen.append(request.headers.get("X-Client-Id"))
        if request.url.path.endswith("/feedback"):
            return httpx.Response(201, json={"impression": "i1", "recorded": 1})
        return httpx.Response(200, json=SEARCH)

    cls = Client if kind == "sync" else AsyncClient
    client = cls("http://127.0.0.1", transport=httpx.MockTransport(handler), **options)
    return client, seen, (lambda value: value) if kind == "sync" else asyncio.run


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_copy_for_a_user_names_it_on_every_request(kind):
    client, seen, run = _recording(kind, api_key="k")
    alice = client.with_options(client_id="alice")
    run(alice.search("w001", k=3))
    run(alice.feedback("i1", ["d1"]))
    run(client.search("w001", k=3))
    run(alice.with_options(deadline=5).search("w001"))        # kept by a further copy
    assert seen == ["alice", "alice", None, "alice"]
    assert run(client.with_options(client_id=None).search("w001")) and seen[-1] is None


@pytest.mark.parametrize("value", ["", "a\nb", "a\r\nX-API-Key: x", "a\x00", 5, b"alice"])
def test_a_client_id_no_header_can_carry_is_refused(value):
    client, _, _ = _recording("sync", api_key="k")
    with pytest.raises(ValueError, match="client_id"):
        client.with_options(client_id=value)


def test_a_client_id_without_the_key_is_refused():
    # a service ignores X-Client-Id on a request without its key: the users would be one client
    client, _, _ = _recording("sync")
    with pytest.raises(ValueError, match="api_key"):
        client.with_options(client_id="alice")


def _raw_ids(kind, client_id):
    seen = []

    def handler(request):
        seen.append([v for k, v in request.headers.raw if k.lower() == b"x-client-id"])
        return httpx.Response(200, json=SEARCH)

    cls = Client if kind == "sync" else AsyncClient
    client = cls("http://127.0.0.1", api_key="k", transport=httpx.MockTransport(handler))
    run = (lambda value: value) if kind == "sync" else asyncio.run
    run(client.with_options(client_id=client_id).search("w001"))
    return seen


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("value", ["José", "用户-7", "Zoë O'Brien"])
def test_a_client_id_outside_ascii_is_sent_as_its_utf8(kind, value):
    """A user named "José" was taken by with_options, and every call then failed with httpx's
    UnicodeEncodeError ("'ascii' codec can't encode character '\\xe9'"), no ClientError: the
    id is now sent as its UTF-8 bytes (HTTP carries such bytes in a header; the service keeps
    each distinct sequence as a distinct user)."""
    assert _raw_ids(kind, value) == [[value.encode("utf-8")]]


@pytest.mark.parametrize("value", [" alice", "alice ", " "])
def test_a_client_id_with_a_space_at_an_end_is_refused(value):
    # HTTP drops the spaces around a header's value: " alice" reached the service as "alice",
    # the same user as "alice", without a word
    client, _, _ = _recording("sync", api_key="k")
    with pytest.raises(ValueError, match="client_id"):
        client.with_options(client_id=value)


def test_a_user_outside_ascii_searches_and_clicks_through_a_real_server(tmp_path, monkeypatch):
    """The bytes of "José" pass uvicorn's parser, and the service counts "José" and "Jose" as
    two users, each click recorded for its own search."""
    pytest.importorskip("fastapi")
    from index_models import corpus, model
    from serve_process import running_server

    from learnsim.feedback import FeedbackLog
    from learnsim.index import Index

    texts, _, ids, meta = corpus()
    Index.build(tmp_path / "idx", model("bm25"), texts[:40], ids[:40], meta[:40]).close()
    monkeypatch.setenv("LEARNSIM_IDS_TEST_KEY", "ids-key")
    with running_server(tmp_path / "idx", "--learn-from-clicks", "--api-key-env", "LEARNSIM_IDS_TEST_KEY",
                        seconds=60) as base:
        with Client(base, api_key="ids-key", deadline=30) as client:
            for n, who in enumerate(["José", "Jose"]):
                user = client.with_options(client_id=who)
                found = user.search(texts[n], k=3)
                assert user.feedback(found["impression"], [found["hits"][0]["id"]])["recorded"] == 1
    with FeedbackLog(tmp_path / "idx", readonly=True) as log:
        clients = [(imp["client"], len(imp["clicks"])) for imp in log.impressions()]
    assert len(clients) == 2 and clients[0][0] != clients[1][0] and [n for _, n in clients] == [1, 1]
