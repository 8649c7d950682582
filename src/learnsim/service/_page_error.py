"""The search page's own answers to a request refused before it reaches the page's route (by
:class:`learnsim.service._guard._BodyLimit`): a person's browser shows the JSON API's
``{"error": ..., "code": 400}`` as raw text, so ``GET /`` is answered the page's HTML error page,
with the same status and the page's headers; every other route keeps its JSON."""
from __future__ import annotations

from fastapi.responses import HTMLResponse

from . import page

#: The headers of the page and its files: they load nothing from anywhere but this service, and
#: run no inline script.
PAGE_HEADERS = {"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
                                           "connect-src 'self'; img-src 'self'; form-action 'self'; "
                                           "base-uri 'none'; frame-ancestors 'none'",
                "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


def page_refusal(scope, status, message):
    """The page's HTML error page refusing ``scope`` (``status``, ``message``) where it asks for
    the page (``GET /``; a HEAD is a GET by then), or None. The search box is left empty: the
    query could not be read as sent (it is not UTF-8), and a box holding it with U+FFFD in
    place of its bad bytes would search for what the user never wrote."""
    if scope.get("path") != "/" or scope.get("method") != "GET":
        return None
    return HTMLResponse(page.render_error(message), status_code=int(status), headers=PAGE_HEADERS)
