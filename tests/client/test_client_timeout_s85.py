"""``timeout`` as httpx takes it (a number, an ``httpx.Timeout``, a tuple, None) is taken; one no
socket can wait (0, a negative number, NaN, infinity, True) was taken too, and failed each call
later deep in the send (or never bounded it), and a str failed with "'<' not supported between
instances of 'float' and 'str'". They are refused when the client is made, naming ``timeout``."""
from __future__ import annotations

import math

import pytest

httpx = pytest.importorskip("httpx")

from learnsim.client import AsyncClient, Client  # noqa: E402


def _ok(request):
    return httpx.Response(200, json={"status": "ok"})


@pytest.mark.parametrize("timeout", [5, 2.5, None, httpx.Timeout(5.0), httpx.Timeout(5.0, connect=1.0),
                                     httpx.Timeout(None), (1, 2), (1, 2, 3), (1, 2, 3, 4)])
def test_the_timeouts_httpx_takes_are_taken(timeout):
    with Client(timeout=timeout, transport=httpx.MockTransport(_ok)) as client:
        assert client.health() == {"status": "ok"}


@pytest.mark.parametrize("timeout", [0, -1, -0.5, math.nan, math.inf, True, "5", {"read": 5}, (1, -2),
                                     httpx.Timeout(5.0, read=-1), httpx.Timeout(math.nan), (5,), ()])
def test_a_timeout_no_socket_can_wait_is_refused_naming_it(timeout):
    for cls in (Client, AsyncClient):
        with pytest.raises((TypeError, ValueError), match="timeout"):
            cls(timeout=timeout)
