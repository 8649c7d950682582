"""The whole-request deadline of :class:`~learnsim.client.Client`: what bounds every socket
operation of a call by the time left to it.

httpx's timeouts bound each read, not a request: a server that sends its answer (its head or
its body) a byte at a time, each byte within the read timeout, keeps a call waiting for as long
as it likes. httpcore reads a request's timeouts once per phase (the head, then the body), so
shrinking them when a try starts is not enough either. The deadline of the running call is
therefore kept in a context variable (each thread, each task its own), and the network backend
of the client's connection pools is wrapped (:func:`bound_sockets`) so that each connect, read
and write of a socket waits at most the time left before it, and fails with a timeout at once
when none is left. The answer's stream is wrapped too (:func:`clocked`), so that a transport
that is not httpx's own HTTP one (``httpx.MockTransport``, another library's) is still stopped
between two pieces of an answer.

:class:`~learnsim.client.AsyncClient` needs none of this: it cancels the whole call (see
``AsyncClient._send``). This module imports httpx and httpcore: it is imported when a client is
made, not with :mod:`learnsim.client`.
"""
from __future__ import annotations

import contextvars
import time

import httpcore
import httpx

__all__ = ["CLOCK_SLACK_S", "WRITE_PIECE", "current", "left", "past", "bound_sockets", "clocked"]

# a socket timeout set to the time left fires at the deadline, give or take the rounding of the
# clocks: a failure this close to the deadline is the deadline's
CLOCK_SLACK_S = 0.01
# a write is sent in pieces of at most this many bytes, each with the time left then: a server
# that reads slowly cannot hold one write (httpcore's loop of sends under one timeout) much past
# the deadline
WRITE_PIECE = 16 * 1024

# the deadline (time.monotonic()) of the call running in this thread or task; None: no deadline
_DEADLINE = contextvars.ContextVar("learnsim_client_deadline", default=None)


def current():
    """The context variable holding the running call's deadline (``set`` it around a try)."""
    return _DEADLINE


def left(deadline):
    """Seconds left before ``deadline`` (a ``time.monotonic()``); None for no deadline."""
    return None if deadline is None else deadline - time.monotonic()


def past(deadline):
    """Whether ``deadline`` has come (within :data:`CLOCK_SLACK_S`)."""
    return deadline is not None and deadline - time.monotonic() <= CLOCK_SLACK_S


def _bounded(timeout, error):
    """``timeout`` cut to the time left to the running call; raises ``error`` (an httpcore
    timeout, which httpx turns into its own) when none is left."""
    seconds = left(_DEADLINE.get())
    if seconds is None:
        return timeout
    if seconds <= 0:
        raise error("the client's deadline has passed")
    return seconds if timeout is None else min(timeout, seconds)


class _BoundedStream:
    """An httpcore network stream whose every operation waits at most the time left."""

    def __init__(self, stream):
        self._stream = stream

    def read(self, max_bytes, timeout=None):
        return self._stream.read(max_bytes, _bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer, timeout=None):
        # in pieces: httpcore sends one buffer in a loop of sends, each with the same timeout
        view = memoryview(buffer)
        for start in range(0, len(view), WRITE_PIECE):
            self._stream.write(bytes(view[start:start + WRITE_PIECE]), _bounded(timeout, httpcore.WriteTimeout))

    def close(self):
        self._stream.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        return _BoundedStream(self._stream.start_tls(ssl_context, server_hostname,
                                                     _bounded(timeout, httpcore.ConnectTimeout)))

    def get_extra_info(self, info):
        return self._stream.get_extra_info(info)

    def __getattr__(self, name):
        # whatever else a later httpcore asks of a stream
        return getattr(self._stream, name)


class _BoundedBackend:
    """An httpcore network backend whose connections and streams wait at most the time left."""

    def __init__(self, backend):
        self._backend = backend

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        return _BoundedStream(self._backend.connect_tcp(host, port, _bounded(timeout, httpcore.ConnectTimeout),
                                                        local_address, socket_options))

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        return _BoundedStream(self._backend.connect_unix_socket(path, _bounded(timeout, httpcore.ConnectTimeout),
                                                                socket_options))

    def sleep(self, seconds):
        self._backend.sleep(seconds)

    def __getattr__(self, name):
        return getattr(self._backend, name)


def bound_sockets(client):
    """Wrap the network backend of each httpcore pool under the ``httpx.Client`` ``client`` (its
    transport and those of its proxies, when they are httpx's HTTP ones) so that every socket
    operation waits at most the time left to the running call; returns how many were wrapped.

    httpx offers no way in to its pools' backend: this reaches ``transport._pool`` and
    ``pool._network_backend`` (the same since httpx 0.18 and httpcore 0.13), and leaves alone
    what does not have them (another transport: then :func:`clocked` and the timeouts shrunk at
    each try are the bound). ``tests/client/test_client_deadline.py`` fails if this stops
    working (a server sending its head a byte at a time)."""
    transports = [getattr(client, "_transport", None), *getattr(client, "_mounts", {}).values()]
    wrapped = 0
    for transport in transports:
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if backend is None:
            continue
        if not isinstance(backend, _BoundedBackend):
            pool._network_backend = _BoundedBackend(backend)
        wrapped += 1
    return wrapped


class _Clocked(httpx.SyncByteStream):
    """An answer's stream that stops (``httpx.ReadTimeout``) between two pieces once the deadline
    has passed."""

    def __init__(self, stream, deadline):
        self._stream, self._deadline = stream, deadline

    def __iter__(self):
        for chunk in self._stream:
            if past(self._deadline):
                raise httpx.ReadTimeout("the client's deadline passed while the answer was coming")
            yield chunk

    def close(self):
        self._stream.close()


def clocked(response, deadline):
    """Make the streamed ``httpx.Response`` ``response`` stop between two pieces of its body once
    ``deadline`` has passed (its ``stream`` is wrapped)."""
    if deadline is not None:
        response.stream = _Clocked(response.stream, deadline)
    return response
