"""Why two distinct ids of a collection are one id to its judgements and run files, for the error
that refuses them (:func:`learnsim.datasets.trec.check_distinct_ids`)."""
from __future__ import annotations

import unicodedata


def one_id_reason(first, other):
    """``"'a' and 'b' are one id ... (why)"`` for two ids that
    :func:`learnsim._utils.inputs.id_by_value` reads as one: an all-digit id without its leading
    zeros (``'007'`` and ``'7'``), or an id beyond ASCII in Unicode NFC (``'café'`` typed
    precomposed and with a combining accent). The second kind print alike, so they are written
    with escapes: 'café' and 'café' named nothing to tell apart.

    Examples
    --------
    >>> from learnsim.datasets._id_reading import one_id_reason
    >>> one_id_reason("007", "7")
    "'007' and '7' are one id to judgements and run files (an all-digit id is read without its leading zeros)"
    >>> print(one_id_reason("caf\\u00e9", "cafe\\u0301").split(" (")[0])
    'caf\\xe9' and 'cafe\\u0301' are one id to judgements and run files
    """
    a, b = str(first)[:40], str(other)[:40]
    if a.isascii() and b.isascii():
        return (f"{a!r} and {b!r} are one id to judgements and run files (an all-digit id is read without its "
                "leading zeros)")
    if unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b):
        return (f"{ascii(a)} and {ascii(b)} are one id to judgements and run files (an id beyond ASCII is compared in "
                "Unicode NFC, where they are the same text: one is written with a combining character)")
    return f"{ascii(a)} and {ascii(b)} are one id to judgements and run files"


def judged_again(path, rows, again, normalise, query_numbered):
    """The error of a pair judged again with another level: ``again`` is ``(line, query, doc,
    grade, earlier)`` as read (``doc`` normalised), ``rows`` the file's judgements read again
    with each document as written (``(query as written, doc as written, grade, line)``). The
    earlier line and the two forms are named where the file writes the document two ways: 'café'
    precomposed and with a combining accent were named as one 'café' judged again, where the
    file showed two ids. ``query_numbered``: the queries are numbered by position (no query
    test)."""
    from .._utils.inputs import short_repr

    number, query, doc, grade, earlier = again
    first = mine = None
    for q, written, g, n in rows:
        if n > number:
            break
        if normalise(written) != doc or not (query_numbered or normalise(q) == query):
            continue
        if n == number:
            mine = written
        elif first is None and g == earlier:
            first = (written, n)
    text = (f"{path}, line {number}: query {short_repr(query)}, document {short_repr(doc)} judged again with level "
            f"{grade} (earlier {earlier}")
    if first is None:
        return text + ")"
    if mine is None or mine == first[0]:
        return text + f", line {first[1]})"
    return (f"{path}, line {number}: query {short_repr(query)}, document {ascii(mine)} judged again with level "
            f"{grade} (earlier {earlier}, line {first[1]}, as {ascii(first[0])}: {one_id_reason(first[0], mine)})")
