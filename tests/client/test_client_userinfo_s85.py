"""A base address with a user and password (``http://u:secret@127.0.0.1:8000``): the client took
it and showed the password in its repr, its ``base_url`` and the message of every error that names
the address ("no answer from http://u:secret@..."). Now, as httpx shows a URL, the password is
"[secure]" wherever the client shows the address, while the requests still carry it (httpx sends
the userinfo as Basic auth: a proxy in front of the service may ask for it); the service's own key
is ``api_key``."""
from __future__ import annotations

import asyncio

import pytest

httpx = pytest.importorskip("httpx")

from learnsim.client import AsyncClient, Client, ClientError, ConnectionFailed  # noqa: E402

SECRET = "s3cr3t-pw"
BASE = f"http://alice:{SECRET}@127.0.0.1:8000"


def test_the_password_is_not_in_the_repr_nor_the_base_url():
    for cls in (Client, AsyncClient):
        client = cls(BASE)
        assert SECRET not in repr(client) and SECRET not in client.base_url
        assert "alice:[secure]@127.0.0.1:8000" in client.base_url
        assert SECRET not in repr(client.with_options(deadline=5))


def test_the_password_is_not_in_an_error_and_is_still_sent():
    seen = []

    def broken(request):
        seen.append(request.headers.get("Authorization"))
        raise httpx.ConnectError(f"refused {request.url}", request=request)

    with Client(BASE, transport=httpx.MockTransport(broken), max_retries=0) as client:
        with pytest.raises(ConnectionFailed) as caught:
            client.health()
    assert SECRET not in str(caught.value) and SECRET not in repr(caught.value)
    assert "[secure]" in str(caught.value)
    # the requests still carry the userinfo, as Basic auth (httpx's way)
    assert seen and seen[0] == httpx.BasicAuth("alice", SECRET).auth_flow(
        httpx.Request("GET", "http://x")).__next__().headers["Authorization"]

    def not_json(request):
        return httpx.Response(200, content=b"<html>")

    async def run():
        async with AsyncClient(BASE, transport=httpx.MockTransport(not_json), max_retries=0) as client:
            with pytest.raises(ClientError) as caught:
                await client.health()
        return caught.value

    error = asyncio.run(run())
    assert SECRET not in str(error)


@pytest.mark.parametrize("base", [f"ftp://alice:{SECRET}@127.0.0.1", f"http://alice:{SECRET}@:8000/?q=1",
                                  f"http://alice:{SECRET}@127.0.0.1:8000/?q=1"])
def test_a_refused_base_url_does_not_echo_its_password(base):
    with pytest.raises(ValueError) as caught:
        Client(base)
    assert SECRET not in str(caught.value)
