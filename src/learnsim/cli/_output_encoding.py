"""Standard output whose encoding cannot write every character (PYTHONIOENCODING=ascii, a C locale
with Python's UTF-8 mode off), and the text arguments such a locale leaves undecoded.

A character that stdout cannot write was a UnicodeEncodeError half-way through the output
("error: 'ascii' codec can't encode character '\\xe9'", exit 2): it is written as a \\uXXXX escape
instead (surrogate pairs above U+FFFF), with one note on stderr. JSON (written with its characters
as they are) stays JSON, with the same strings: its non-ASCII characters stand only inside strings,
where \\uXXXX is JSON's own escape. An error handler the user chose (PYTHONIOENCODING=ascii:replace)
is kept."""
from __future__ import annotations

import codecs
import io
import sys

_HANDLER = "learnsim.cli.escape"
# characters of three planes: an encoding that writes these writes all (UTF-8/16/32, GB 18030)
_PROBE = "\u00e9\u6771\U0001f600"
_noted = []


def _escape(exc):
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for ch in exc.object[exc.start:exc.end]:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF and _surrogateescape[-1]:
            return _undecoded(exc)
        if code > 0xFFFF:
            code -= 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            out.append(f"\\u{code:04x}")
    if not _noted:
        _noted.append(True)
        try:
            print(f"learnsim: note: standard output's encoding ({exc.encoding}) cannot write some characters: they "
                  "are written as \\uXXXX escapes (PYTHONIOENCODING=utf-8 writes them as they are)", file=sys.stderr)
        except (OSError, ValueError):
            pass
    return "".join(out), exc.end


# whether the stream's own handler was surrogateescape (a C locale): bytes a path or an argument
# brought in undecoded are written back as they were, as that handler does
_surrogateescape = [False]


def _undecoded(exc):
    return codecs.lookup_error("surrogateescape")(exc)


# the encoding of the stdout that :func:`escape_unencodable_stdout` switched to escapes, while it is
_escaping = []


def as_written(text):
    """``text`` as stdout will write it: each character its encoding cannot write as its \\uXXXX
    escape. A table measures its columns on this, not on the characters: an escaped id ('\\u00fc1',
    7 columns) measured as 2 pushed the rest of its row 5 columns right of the header's."""
    if not _escaping or text.isascii():
        return text
    encoding = _escaping[-1]
    try:
        text.encode(encoding)
        return text
    except (UnicodeEncodeError, LookupError):
        pass
    out = []
    for ch in text:
        try:
            ch.encode(encoding)
            out.append(ch)
        except UnicodeEncodeError:
            code = ord(ch)
            if 0xDC80 <= code <= 0xDCFF and _surrogateescape[-1]:
                out.append("?")         # an undecoded byte, written back as the byte: one column
            elif code > 0xFFFF:
                code -= 0x10000
                out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
            else:
                out.append(f"\\u{code:04x}")
        except LookupError:
            out.append(ch)
    return "".join(out)


codecs.register_error(_HANDLER, _escape)


def escape_unencodable_stdout():
    """Switch stdout to the escaping handler where its encoding cannot write every character and
    its handler would fail; returns what undoes it (for callers of main() in-process)."""
    stream = sys.stdout
    if not isinstance(stream, io.TextIOWrapper) or stream.errors not in ("strict", "surrogateescape"):
        return lambda: None
    try:
        _PROBE.encode(stream.encoding)
        return lambda: None
    except (UnicodeEncodeError, LookupError):
        pass
    old = stream.errors
    try:
        stream.reconfigure(errors=_HANDLER)
    except (AttributeError, ValueError, OSError):
        return lambda: None
    _surrogateescape.append(old == "surrogateescape")
    _escaping.append(stream.encoding)

    def restore():
        _surrogateescape.pop()
        _escaping.pop()
        try:
            stream.reconfigure(errors=old)
        except (AttributeError, ValueError, OSError):
            pass
    return restore


# the options whose values are texts the command searches or explains (not file names: those keep
# the bytes the file system knows them by)
_TEXT_OPTIONS = {"query": "--query", "pair": "--pair"}


def decode_text_arguments(args):
    """Text arguments (--query, --pair) that a non-UTF-8 locale left as undecoded bytes (lone
    surrogates U+DC80-U+DCFF: 'café' as 'caf\\udcc3\\udca9', which matched nothing, exit 0)
    decoded as UTF-8; bytes that are not UTF-8 either are a UsageError naming the option."""
    import os

    from ..exceptions import UsageError

    for dest, option in _TEXT_OPTIONS.items():
        values = getattr(args, dest, None)
        if not isinstance(values, list):
            continue
        fixed = []
        for value in values:
            if isinstance(value, str) and any("\udc80" <= ch <= "\udcff" for ch in value):
                try:
                    value = os.fsencode(value).decode("utf-8")
                except (UnicodeError, ValueError):
                    raise UsageError(f"{option} {value.encode('ascii', 'backslashreplace').decode()!r}: the text is "
                                     "not valid UTF-8 (the terminal's or locale's encoding is another: set "
                                     "LANG=C.UTF-8 or type the text in UTF-8)") from None
            fixed.append(value)
        setattr(args, dest, fixed)
    return args
