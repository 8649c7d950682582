"""Which API keys a request can carry (``create_app(api_key=)``, ``learnsim serve --api-key-env``).

A key is compared with the ``X-API-Key`` or ``Authorization: Bearer`` header's value, and a
header cannot carry every string: HTTP drops the spaces around a value, no value may hold a
control character, and the server reads a header's bytes as Latin-1 (a UTF-8 key's bytes never
compared equal). A service started with such a key answered every write 401 whatever a client
sent, so it is refused at start instead."""
from __future__ import annotations

import re

# visible ASCII, spaces inside only: what every HTTP client sends, and the service reads, unchanged
_SENDABLE = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?")


def key_problem(key):
    """None when the str ``key`` can be sent in a header as it is, else why not (a phrase that
    never repeats the key)."""
    if _SENDABLE.fullmatch(key):
        return None
    if key != key.strip():
        why = "begins or ends with a space or a line break, which HTTP drops from a header's value"
    elif any(ord(ch) > 0x7e for ch in key):
        why = "holds a character outside ASCII, which a header does not carry as it is"
    else:
        why = "holds a control character (a tab, a line break), which no header may carry"
    return f"the API key {why}: every request would be refused (401); use letters, digits and punctuation"
