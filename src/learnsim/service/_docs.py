"""``/docs``: the API's interactive documentation (Swagger UI) served by the service itself.

FastAPI's own ``/docs`` page loads Swagger UI from a CDN: on a machine without internet it is a
blank page, and a page that runs scripts from elsewhere is one more thing a user has to trust.
Here the page, its start-up script and Swagger UI's files all come from this service, under the
same Content-Security-Policy as the search page (no inline script, nothing loaded from
elsewhere). Swagger UI's files are those of the ``fastapi-offline`` package (part of the
``serve`` extra; Swagger UI 5, which reads the OpenAPI 3.1 schema FastAPI writes); without it,
``/docs`` answers a JSON 404 that says what to install.

The documentation shows only what ``/openapi.json`` shows, so, like the schema, it needs no key
(``_guard._OPEN_PATHS``); "Try it out" sends the key a user types in its Authorize box.
"""
from __future__ import annotations

from starlette.responses import HTMLResponse, Response

from ._http import _fail

__all__ = ["add_docs_routes", "docs_assets"]

_FILES = {"swagger-ui-bundle.js": "text/javascript; charset=utf-8", "swagger-ui.css": "text/css; charset=utf-8",
          "favicon.png": "image/png"}
# Swagger UI sets element styles from its script and shows icons as data: URIs
_HEADERS = {"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                                       "connect-src 'self'; img-src 'self' data:; form-action 'self'; "
                                       "base-uri 'none'; frame-ancestors 'none'",
            "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>learnsim API</title>
<link rel="icon" type="image/png" href="/docs/static/favicon.png">
<link rel="stylesheet" href="/docs/static/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/static/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>
"""
_INIT = """window.ui = SwaggerUIBundle({url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis], layout: "BaseLayout"});
"""


def docs_assets():
    """The folder of Swagger UI's files (a ``importlib.resources`` Traversable), or None where
    ``fastapi-offline`` is not installed."""
    import importlib.resources
    import importlib.util

    if importlib.util.find_spec("fastapi_offline") is None:
        return None
    folder = importlib.resources.files("fastapi_offline") / "static"
    return folder if all((folder / name).is_file() for name in _FILES) else None


def add_docs_routes(app):
    """Add ``GET /docs``, ``/docs/init.js`` and ``/docs/static/{name}`` to ``app`` (left out of the
    schema)."""
    cache = {}

    def assets():
        folder = docs_assets()
        if folder is None:
            raise _fail(404, "the API documentation page needs Swagger UI's files: pip install fastapi-offline "
                             "(part of learnsim[serve]); the schema itself is at /openapi.json")
        return folder

    @app.get("/docs", include_in_schema=False)
    async def docs_page():
        assets()
        return HTMLResponse(_PAGE, headers=_HEADERS)

    @app.get("/docs/init.js", include_in_schema=False)
    async def docs_init():
        return Response(_INIT, media_type="text/javascript; charset=utf-8", headers=_HEADERS)

    @app.get("/docs/static/{name}", include_in_schema=False)
    async def docs_file(name: str):
        if name not in _FILES:
            raise _fail(404, f"no file {name[:80]!r}")
        if name not in cache:
            cache[name] = (assets() / name).read_bytes()
        return Response(cache[name], media_type=_FILES[name], headers=_HEADERS)
