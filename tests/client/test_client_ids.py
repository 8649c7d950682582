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
