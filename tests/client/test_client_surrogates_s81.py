"""learnsim.client given a lone surrogate (half of a UTF-16 pair, as a string decoded with
'surrogateescape' or a JSON "\\ud800" holds) in a query, a text or an id raised httpx's bare
"UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud800' in position 5: surrogates not
allowed", naming no argument (a NaN names its place: "the request['documents'][0]['metadata']['a']"),
the service refuses the same in a body as a 400 naming it. Now a ValueError naming the argument's
place and the character; nothing is sent."""
from __future__ import annotations

import asyncio

import pytest

httpx = pytest.importorskip("httpx")

from learnsim.client import AsyncClient, Client  # noqa: E402


def _client(kind):
    sent = []

    def handler(request):
        sent.append(request)
        return httpx.Response(500, json={"error": "nothing should have been sent", "code": 500})

    cls = Client if kind == "sync" else AsyncClient
    client = cls("http://127.0.0.1", transport=httpx.MockTransport(handler), max_retries=0)
    return client, sent, (lambda value: value) if kind == "sync" else asyncio.run


CALLS = [
    (lambda c: c.search("w001 \ud800", k=3), "q", "U+D800"),
    (lambda c: c.search(["w001", "w002 \udc00"], k=3), "queries'][1]", "U+DC00"),
    (lambda c: c.add(["w001", "w002 \udfff"]), "documents'][1]['text']", "U+DFFF"),
    (lambda c: c.add(["w001"], metadata=[{"k\ud800": 1}]), "metadata", "U+D800"),
    (lambda c: c.match("w001 \ud800"), "text", "U+D800"),
    (lambda c: c.document("a\ud800"), "id", "U+D800"),
    (lambda c: c.more_like("a\udc00", k=2), "id", "U+DC00"),
    (lambda c: c.delete("a\udc00"), "id", "U+DC00"),
]


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("call,where,char", CALLS, ids=[f"call{i}" for i in range(len(CALLS))])
def test_a_lone_surrogate_is_refused_naming_its_place(kind, call, where, char):
    client, sent, run = _client(kind)
    with pytest.raises(ValueError, match="surrogate") as refused:
        run(call(client))
    message = str(refused.value)
    assert where in message and char in message, message
    assert "codec can't encode" not in message, message
    assert sent == []


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_lone_surrogate_in_a_filter_is_refused_naming_it(kind):
    client, sent, run = _client(kind)
    for call in (lambda c: c.search("w001", filter={"lang": "a\ud800"}),
                 lambda c: c.more_like("d1", filter={"lang": ["b", "\udc00"]})):
        with pytest.raises(ValueError, match="filter.*lone surrogate"):
            run(call(client))
    assert sent == []
