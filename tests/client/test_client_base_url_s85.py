"""A base address with a query string (an address copied from the browser's bar,
``http://127.0.0.1:8000/?q=reset``): the client appended each route's path after it, inside the
query, so every call went to the search page ``/`` (search() raised "not JSON" with the page's
HTML, health() a BadRequest of HTML). It is refused when the client is made, naming the query."""
from __future__ import annotations

import pytest

httpx = pytest.importorskip("httpx")

from learnsim.client import AsyncClient, Client  # noqa: E402


@pytest.mark.parametrize("base", ["http://127.0.0.1:8000/?q=reset", "http://127.0.0.1:8000?x=1",
                                  "http://127.0.0.1:8000/?"])
def test_a_base_url_with_a_query_is_refused_naming_it(base):
    for cls in (Client, AsyncClient):
        with pytest.raises(ValueError, match="query"):
            cls(base)


def test_a_base_url_with_a_path_still_prefixes_every_route():
    seen = []

    def handler(request):
        seen.append(request.url.path)
        return httpx.Response(200, json={"status": "ok"})

    with Client("http://127.0.0.1:8000/learnsim/", transport=httpx.MockTransport(handler)) as client:
        assert client.health() == {"status": "ok"}
    assert seen == ["/learnsim/healthz"]
