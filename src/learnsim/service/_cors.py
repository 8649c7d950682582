"""CORS for the pages ``learnsim serve --cors-origin`` names: what their scripts can read.

- A preflight the service refuses (a method, a header or an origin it does not allow) is a JSON
  error naming what was refused, as every refusal is (Starlette's is the text "Disallowed CORS
  headers").
- An answer to an allowed page carries ``Access-Control-Allow-Origin`` whoever made it. The checks
  in front of the framework (:class:`learnsim.service._guard._BodyLimit`: the key's 401, the
  Content-Type's 415, the body bound's 413, ...) answer before the CORS layer sees the request, and
  without the header a browser hides the answer from the page: its script saw "Failed to fetch"
  where the service said "this write needs the API key".
"""
from __future__ import annotations

from starlette.middleware.cors import CORSMiddleware

from ._http import _error

METHODS = ("GET", "POST", "PUT", "DELETE")
# X-Client-Id: a front end holding the key names its user with it (docs/feedback.md)
HEADERS = ("Authorization", "X-API-Key", "Content-Type", "X-Client-Id")


class ServiceCORS(CORSMiddleware):
    """Starlette's CORS layer, refusing a preflight with the service's JSON error."""

    def __init__(self, app, origins):
        super().__init__(app, allow_origins=list(origins), allow_methods=list(METHODS), allow_headers=list(HEADERS),
                         max_age=600)

    def preflight_response(self, request_headers):
        response = super().preflight_response(request_headers)
        if response.status_code < 400:
            return response
        failures = bytes(response.body).decode("utf-8", "replace").removeprefix("Disallowed CORS ")
        headers = {name: value for name, value in response.headers.items()
                   if name.lower() not in ("content-length", "content-type")}
        return _error(400, f"the CORS preflight asks for what this service does not allow: its {failures} "
                           f"(methods {', '.join(METHODS)}; request headers {', '.join(HEADERS)}; the origins "
                           "learnsim serve --cors-origin names)", headers)


def readable_by(scope, origins, send):
    """``send``, made to add ``Access-Control-Allow-Origin`` (and ``Vary: Origin``) to an answer
    that lacks it when the request's one ``Origin`` is among ``origins`` (lower case, no trailing
    "/"); ``send`` itself otherwise."""
    given = [value for name, value in scope.get("headers", ()) if name == b"origin"]
    if len(given) != 1 or given[0].decode("latin-1").rstrip("/").lower() not in origins:
        return send
    origin = given[0]

    async def with_origin(message):
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", ()))
            if not any(name.lower() == b"access-control-allow-origin" for name, _ in headers):
                headers += [(b"access-control-allow-origin", origin), (b"vary", b"Origin")]
                message = dict(message, headers=headers)
        await send(message)

    return with_origin
