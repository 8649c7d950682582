"""A redirect (a proxy sending http:// to https://, a base_url without the prefix it serves
under) was raised as ClientError "307: Temporary Redirect", naming neither where it pointed nor
what to do; the client follows none (as httpx), so the error now names the Location and says to
give base_url that address. Not retried."""
from __future__ import annotations

import asyncio

import pytest

httpx = pytest.importorskip("httpx")

from learnsim.client import AsyncClient, Client, ClientError  # noqa: E402


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_is_an_error_naming_where_it_points(status):
    seen = []

    def redirect(request):
        seen.append(request.url.path)
        return httpx.Response(status, headers={"Location": "https://search.example.org/healthz"})

    with Client("http://search.example.org", transport=httpx.MockTransport(redirect)) as client:
        with pytest.raises(ClientError) as caught:
            client.health()
    assert caught.value.status == status and seen == ["/healthz"]
    assert "https://search.example.org/healthz" in str(caught.value) and "base_url" in str(caught.value)

    async def run():
        async with AsyncClient("http://search.example.org", transport=httpx.MockTransport(redirect)) as client:
            await client.health()

    with pytest.raises(ClientError, match="base_url"):
        asyncio.run(run())


def test_a_service_json_error_under_a_3xx_keeps_its_message():
    def odd(request):
        return httpx.Response(304, json={"error": "its own words", "code": 304})

    with Client(transport=httpx.MockTransport(odd)) as client:
        with pytest.raises(ClientError, match="its own words"):
            client.health()
