"""A long text of other letters than ASCII lowercased a piece at a time.

``str.lower`` and ``str.casefold`` of a text that is not ASCII build their result as four bytes a
character, up to three characters for each one read, before making it a str: for a 60 MB line
with one curly quote (a book brought as one document) about 240 MB beside the text and its
result, the peak of ``learnsim index build`` of it. Cut after a space, the pieces lowercase to
the same characters: case folding is of one character at a time, and lowercasing too but for
Greek's final sigma, whose rule looks back and ahead through letters and case-ignorable marks,
never through a space.

Only the standard library is imported here.
"""
from __future__ import annotations

__all__ = ["CHUNK", "lowered"]

# characters lowercased at a time (a longer text that is not ASCII is cut)
CHUNK = 1 << 20


def lowered(text, casefold=False):
    """``text.casefold()`` (``casefold``) or ``text.lower()``, a long text that is not ASCII a
    piece of about :data:`CHUNK` characters at a time, each cut after a space."""
    how = str.casefold if casefold else str.lower
    n = len(text)
    if n <= CHUNK or text.isascii():
        return how(text)
    parts, start = [], 0
    while start < n:
        end = start + CHUNK
        if end < n:
            cut = text.rfind(" ", start, end)
            if cut < 0:
                cut = text.find(" ", end)
            end = n if cut < 0 else cut + 1
        parts.append(how(text[start:end]))
        start = end
    return "".join(parts)
