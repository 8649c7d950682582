"""Texts, queries and ids that are not lists of str (red team, round 82). The client read them
with list(...): client.add({"t1": "text one", ...}) sent the dict's keys as the texts (and the
service stored them), client.search({"q": ...}) searched its keys, client.add(b"text") said
"texts[0] must be a str; got int" and client.search(None) was "'NoneType' object is not
iterable". Each is now a TypeError naming the argument and its type, and nothing is sent."""
from __future__ import annotations

import pytest

httpx = pytest.importorskip("httpx")

from learnsim.client import Client  # noqa: E402


@pytest.fixture
def client():
    sent = []

    def answer(request):
        sent.append(request)
        return httpx.Response(500, json={"error": "should not be sent", "code": "x"})

    with Client("http://learnsim.test", transport=httpx.MockTransport(answer), max_retries=0) as c:
        c.sent = sent
        yield c


@pytest.mark.parametrize("texts, what", [({"t1": "one", "t2": "two"}, "dict"), (b"one two", "bytes"),
                                         (None, "NoneType"), (5, "int"), (bytearray(b"x"), "bytearray")])
def test_add_refuses_texts_that_are_not_a_list_of_str(client, texts, what):
    with pytest.raises(TypeError, match=f"texts must be a list of str; got {what}"):
        client.add(texts)
    assert client.sent == []


@pytest.mark.parametrize("query, what", [({"q": "refund"}, "dict"), (b"refund", "bytes"), (None, "NoneType"),
                                         (3.5, "float")])
def test_search_refuses_a_query_that_is_not_a_str_or_a_list_of_str(client, query, what):
    with pytest.raises(TypeError, match=f"queries must be a str or a list of str; got {what}"):
        client.search(query)
    assert client.sent == []


@pytest.mark.parametrize("ids, what", [({"a": 1, "b": 2}, "dict"), (b"ab", "bytes"), (7, "int")])
def test_ids_that_are_not_a_list_are_refused(client, ids, what):
    with pytest.raises(TypeError, match=f"ids must be a list of str; got {what}"):
        client.add(["one", "two"], ids=ids)
    with pytest.raises(TypeError, match=f"ids must be a list of str; got {what}"):
        client.upsert(ids, ["one", "two"])
    assert client.sent == []


def test_lists_and_tuples_and_generators_are_still_sent(client):
    import json

    for texts in (["one", "two"], ("one", "two"), (t for t in ["one", "two"])):
        client.sent.clear()
        with pytest.raises(Exception):
            client.add(texts, ids=("a", "b"))        # the mock answers 500: what was sent is checked
        body = json.loads(client.sent[0].content)
        assert [d["text"] for d in body["documents"]] == ["one", "two"]
        assert [d["id"] for d in body["documents"]] == ["a", "b"]


@pytest.mark.parametrize("base_url, why", [(None, "got NoneType"), (b"http://127.0.0.1:8000", "got bytes"),
                                           ("127.0.0.1:8000", "http:// or https://"),
                                           ("ftp://127.0.0.1", "http:// or https://"),
                                           ("not a url", "http:// or https://"), ("http://", "no host")])
def test_a_base_url_that_is_not_an_http_address_is_refused_when_the_client_is_made(base_url, why):
    """Client(None) was made, base_url 'None', and every call then failed with ConnectionFailed
    'UnsupportedProtocol: Request URL is missing an http:// or https:// protocol' (b'http://...'
    was the URL "b'http://...'"): now a ValueError (a TypeError for a non-str) names base_url."""
    from learnsim.client import AsyncClient

    for cls in (Client, AsyncClient):
        with pytest.raises((TypeError, ValueError), match=f"base_url .*{why}"):
            cls(base_url)


def test_http_and_https_addresses_with_a_path_are_taken():
    for url in ("http://127.0.0.1:8000", "https://search.example/learnsim/", "HTTP://LOCALHOST:1", httpx.URL("http://x")):
        Client(url).close()
