"""The one bad-bytes policy of every reader in learnsim.

A file with bytes that are not valid in its encoding (most often UTF-8 text cut in the middle
of a character, or a Latin-1 file read as UTF-8) is treated the same way by every reader,
through :func:`decoded_lines` (line by line) or :func:`read_text` (a whole file):

``encoding_errors="replace"`` (the default)
    the bad bytes become U+FFFD and, once the file is read, one
    :class:`UndecodableBytesWarning` names the file, counts the lines affected and gives the
    first of them;
``encoding_errors="strict"``
    the first such line raises :class:`DocumentFormatError` (a ``ValueError``) naming the file
    and the line.

The command line's ``--encoding-errors replace|strict`` is passed through as ``encoding_errors``.

Whatever the policy, a file that starts with a UTF-16 or UTF-32 byte-order mark is refused (it is
not UTF-8 text with a few bad bytes: read so, every other byte would be a NUL), as is one whose
first line is UTF-16 without that mark (a NUL at every other byte of it), and
:func:`decoded_lines` refuses a line longer than :data:`MAX_LINE_BYTES`.
"""
from __future__ import annotations

import codecs
import contextlib
import contextvars
import gzip
import json
import re
import sys
import zlib
from pathlib import Path

from .._utils.callers import warn_outside
from .._utils.inputs import DuplicateKeyError, JSONDepthError, LongIntegerError, TextError, loads as _strict_loads
from ..exceptions import DocumentFormatError, UndecodableBytesWarning  # noqa: F401  (defined there; importable here as in 0.1)
from ._open_input import open_input

__all__ = ["DocumentFormatError", "ENCODING_ERRORS", "ID_KEYS", "MAX_LINE_BYTES", "MAX_TEXT_BYTES", "UndecodableBytesWarning",
           "check_encoding_errors", "decoded_lines", "read_text"]


#: The accepted values of every reader's ``encoding_errors`` argument (and ``--encoding-errors``).
ENCODING_ERRORS = ("replace", "strict")
#: The fields that give a JSON record its id, the first present counting: "id", BEIR's "_id"
#: (corpus.jsonl, queries.jsonl), and the names TREC tools and ir_datasets write.
ID_KEYS = ("id", "_id", "docno", "doc_id", "query_id", "qid")

#: The longest line (in bytes, without its line end) :func:`decoded_lines` reads: far more than
#: any one document, record or pair of a text file, yet a bound on the memory a file without
#: line ends (a binary file, ``/dev/zero``, a whole corpus saved on one line) can take.
MAX_LINE_BYTES = 64 * 2**20

#: The largest file (in bytes, once decompressed) :func:`read_text` reads whole: a TREC or SGML
#: collection file is a few to a few hundred megabytes; a gzip bomb (a kilobyte that expands to
#: gigabytes) or ``/dev/zero`` is refused at this bound, naming it, before memory runs out.
MAX_TEXT_BYTES = 2**30

# the bytes read at a time: a line is gathered from such chunks, never read whole unbounded
_CHUNK_BYTES = 2**20

# longest first, so that a UTF-32 mark (which begins like a UTF-16 one) is named as such
_WIDE_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
              (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))


def check_encoding_errors(value):
    """Check an ``encoding_errors`` argument.

    Parameters
    ----------
    value : {"replace", "strict"}

    Returns
    -------
    str
        ``value``.

    Raises
    ------
    ValueError
        If ``value`` is not one of :data:`ENCODING_ERRORS`.

    Examples
    --------
    >>> from learnsim.datasets import check_encoding_errors
    >>> check_encoding_errors("strict")
    'strict'
    >>> check_encoding_errors("ignore")
    Traceback (most recent call last):
        ...
    ValueError: ...
    """
    if not isinstance(value, str) or value not in ENCODING_ERRORS:
        raise ValueError(f"encoding_errors must be 'replace' (bad bytes become U+FFFD, with a warning) "
                         f"or 'strict' (bad bytes are an error); got {value!r}")
    return value


# the encoding that set_default_encoding made the one the readers' UTF-8 default stands for: a
# context variable, so that it is the command's alone (a module-level value was seen by a reader
# the Python API ran in another thread meanwhile, 'ağaç' read as cp1254 'aÄŸaÃ§', and two
# commands in threads could leave it set once both had ended); a thread the command starts
# begins without it, so such a thread's reader is passed the encoding explicitly
_DEFAULT_ENCODING = contextvars.ContextVar("learnsim_default_encoding", default=None)


def check_encoding(encoding):
    """The canonical name of the text encoding ``encoding`` (``"cp1254"`` for ``"CP-1254"``).

    Raises ``ValueError`` naming it where Python knows no such codec, where it is no text
    encoding (``"base64"``, ``"rot13"``), or where it does not write ASCII as ASCII (UTF-16,
    UTF-32, EBCDIC's ``cp037``): the readers find line ends, TABs, commas and quotes as ASCII
    bytes, and such a file read so would be split in the middle of its characters.
    """
    try:
        info = codecs.lookup(encoding)
    except (LookupError, TypeError):
        raise ValueError(f"unknown encoding {encoding!r} (give a name Python's codecs know: utf-8, cp1254, "
                         "cp1253, cp1250, cp1255, cp1256, latin-1, shift_jis, gb18030, ...)") from None
    if not getattr(info, "_is_text_encoding", True):
        raise ValueError(f"encoding {encoding!r} is not a text encoding (give one such as utf-8 or cp1254)")
    ascii_bytes = '\n\r\t,"#abcXYZ019 '
    try:
        same = ascii_bytes.encode(info.name) == ascii_bytes.encode("ascii")
    except UnicodeError:
        same = False
    if not same and info.name != "utf-8-sig":
        raise ValueError(f"encoding {encoding!r} does not write ASCII as ASCII bytes, which learnsim's readers "
                         f"need to find line ends and separators; convert the file to UTF-8 first, e.g. "
                         f"iconv -f {encoding} -t UTF-8 FILE > FILE-utf8")
    return info.name


def set_default_encoding(encoding):
    """Make ``encoding`` (or None: UTF-8) the encoding in which every reader that is asked for
    its default, UTF-8, decodes files, in the current thread (or asyncio task) alone; return the
    previous one (``set_default_encoding(previous)`` restores it). The command line's
    ``--encoding`` sets it for the run of one command, whose readers are the user's files' (a
    model or an index is no text file these read)."""
    if encoding is not None:
        check_encoding(encoding)
    previous = _DEFAULT_ENCODING.get()
    _DEFAULT_ENCODING.set(encoding)
    return previous


class _Decoder:
    """Decodes the lines of one file under one bad-bytes policy and remembers what it replaced.

    Every reader goes through this class, so that a file with bytes that are not valid in its
    encoding is treated the same way everywhere: ``"strict"`` raises a
    :class:`DocumentFormatError` naming the file and the first bad line; ``"replace"`` puts
    U+FFFD in place of the bad bytes and, once the file is read, :meth:`warn` issues one
    :class:`UndecodableBytesWarning` counting the lines affected.
    """

    def __init__(self, where, encoding_errors="replace", encoding="utf-8", hint=None):
        self.where = where
        self.errors = check_encoding_errors(encoding_errors)
        canonical = check_encoding(encoding)
        if canonical == "utf-8" and _DEFAULT_ENCODING.get() is not None:
            # the command line's --encoding: every reader a command runs asks for its default,
            # UTF-8, and reads the user's files in the encoding the user named instead
            encoding = _DEFAULT_ENCODING.get()
            canonical = check_encoding(encoding)
        self.encoding = encoding
        # the name users know, so that messages say "not UTF-8 text" whatever the spelling
        self.encoding_name = "UTF-8" if canonical in ("utf-8", "utf-8-sig") else encoding
        self.utf8 = canonical in ("utf-8", "utf-8-sig")
        self.hint = hint
        self.n_lines = 0
        self.first_line = None
        # whether a line held a character beyond ASCII that is valid UTF-8: a file with none, and
        # bad bytes, is no UTF-8 text with a cut character but text in a single-byte code page
        self.beyond_ascii = False
        # in another encoding: the lines with bytes beyond ASCII, and those of them that are valid
        # UTF-8 (-1 from the first that is not: no more are looked at); all of them so, the file is
        # UTF-8 given a code page by mistake ('ağaç' read as cp1254 'aÄŸaÃ§' without a word)
        self.wide_lines = self.utf8_lines = 0
        # read as UTF-8, the code pages of Chinese, Japanese and Korean that read every bad line
        # looked at (the first _DOUBLE_BYTE_LINES) cleanly as such text; None: none looked at
        self.double_byte, self.double_byte_lines = None, 0

    def _look_at_double_byte(self, raw):
        if self.utf8 and self.double_byte_lines < _DOUBLE_BYTE_LINES and self.double_byte != ():
            self.double_byte = _double_byte_codecs(raw, self.double_byte)
            self.double_byte_lines += 1

    def decode(self, raw, number):
        """Text of the line ``raw`` (bytes), which is line ``number`` of the file."""
        if not self.utf8 and self.utf8_lines >= 0 and not raw.isascii():
            self._count_utf8(raw)
        try:
            text = raw.decode(self.encoding)
            if self.utf8 and not self.beyond_ascii and not raw.isascii():
                self.beyond_ascii = True
            return text
        except UnicodeDecodeError as exc:
            self._look_at_double_byte(raw)
            if self.errors == "strict":
                hint = f"; {self.hint}" if self.hint else ""
                if self.double_byte:
                    hint += f"; {_double_byte_hint(self.double_byte, Path(self.where).name)}"
                elif self.utf8 and not self.beyond_ascii and not _utf8_beyond_ascii(raw):
                    hint += f"; {_CODE_PAGE_HINT.format(name=Path(self.where).name)}"
                raise DocumentFormatError(
                    f"{self.where}, line {number}: not {self.encoding_name} text ({exc.reason} at byte "
                    f"{exc.start}){hint}; pass encoding_errors='replace' (--encoding-errors replace) "
                    "to read it with U+FFFD in place of the bad bytes") from None
            self.n_lines += 1
            if self.first_line is None:
                self.first_line = number
            if self.utf8 and not self.beyond_ascii and _utf8_beyond_ascii(raw):
                self.beyond_ascii = True
            return raw.decode(self.encoding, errors="replace")

    def _count_utf8(self, raw):
        """Count the line ``raw`` (bytes beyond ASCII), read in another encoding than UTF-8, and
        whether it is valid UTF-8."""
        self.wide_lines += 1
        try:
            raw.decode("utf-8")
            self.utf8_lines += 1
        except UnicodeDecodeError:
            self.utf8_lines = -1

    def decode_text(self, raw):
        """Whole text of ``raw`` (bytes); lines are split on ``\\n`` bytes to name and count them,
        which is exact for UTF-8 and the single-byte encodings."""
        if not self.utf8:
            # line by line from one byte beyond ASCII to the next, each line copied alone (a
            # TREC file of hundreds of MB split whole took as much again), until one is no UTF-8
            at = _BEYOND_ASCII.search(raw)
            while at is not None and self.utf8_lines >= 0:
                start, end = raw.rfind(b"\n", 0, at.start()) + 1, raw.find(b"\n", at.start())
                end = len(raw) if end < 0 else end
                self._count_utf8(raw[start:end])
                at = _BEYOND_ASCII.search(raw, end)
        try:
            return raw.decode(self.encoding)
        except UnicodeDecodeError:
            self.wide_lines = self.utf8_lines = 0       # counted again line by line
        return "\n".join(self.decode(line, number)
                         for number, line in enumerate(raw.split(b"\n"), start=1))

    def check_start(self, first):
        """Refuse a read of a file whose first bytes ``first`` (its first line) are a UTF-16 or
        UTF-32 byte-order mark (no UTF-8 text starts with the byte FF or FE), or UTF-16 text
        without one. In another encoding (--encoding cp1254) too: a code page reads any byte, so
        such a file was read one character a byte, a NUL between its letters, without a word;
        there a mark counts only with a NUL beside it (a code page's text has none), so that a
        Latin-1 file opening with 'ÿþ' is read as before."""
        # what learnsim was to read the file as, in the message
        reads = ("reads UTF-8" if self.utf8 else
                 f"was asked to read it as {self.encoding} (encoding={self.encoding!r}, --encoding {self.encoding})")
        path = Path(self.where)
        if first.startswith(_GZIP_MAGIC):
            # gzip data under a text file's name (corpus.jsonl.gz saved as corpus.jsonl), or
            # compressed twice: read as text, a note of undecodable bytes and an error about the
            # first line's layout ('invalid JSON', 'no TAB separator'), two lines naming no gzip
            if not path.name.lower().endswith(".gz"):
                raise DocumentFormatError(_gzip_unnamed(path))
            raise DocumentFormatError(f"{path}: decompressed, still gzip-compressed data (compressed twice?); "
                                      f"decompress it once more: gunzip -c {path.name} | gunzip > "
                                      f"{Path(path.stem).stem}-text{Path(path.stem).suffix}")
        for magic, kind in _CONTAINERS:
            if first.startswith(magic) and _binary(first[len(magic):]):
                # a zip, a Parquet table, a NumPy array under a text name: its bytes were read as
                # lines of U+FFFD and refused for their layout
                raise DocumentFormatError(f"{path}: not text but a {kind} file; it is read as text (UTF-8, one "
                                          f"record a line){_container_hint(kind)}")
        for bom, name in _WIDE_BOMS:
            # a first line of letters beyond ASCII alone (Greek's αβγ, B1 03 B2 03 ...) has no NUL
            # before its line end, but a control byte a code page's text never holds
            if first.startswith(bom) and (self.utf8 or _CONTROL.search(first, len(bom)) is not None):
                raise DocumentFormatError(
                    f"{path}: the file is {name} text (it starts with a {name} byte-order mark) and learnsim "
                    f"{reads}; convert it first, e.g. iconv -f {name} -t UTF-8 {path.name} > "
                    f"{path.stem}-utf8{path.suffix}")
        # in a code page, where a NUL is never text, a first line of letters beyond Latin-1
        # (Turkish 'ğ' is 1F 01) still shows the NULs of its ASCII at every other byte
        name = _wide_without_bom(first, loose=not self.utf8)
        if name is not None:
            # read as UTF-8, each character's NUL byte made a line of its own ("line 4: no TAB
            # separator; got '\x00'"), which named nothing of the encoding
            nul = "three of every four bytes" if name.startswith("UTF-32") else "every other byte"
            raise DocumentFormatError(
                f"{path}: the file looks like {name} text without a byte-order mark ({nul} of its first "
                f"line is NUL) and learnsim {reads}; convert it first, e.g. iconv -f {name} -t UTF-8 "
                f"{path.name} > {path.stem}-utf8{path.suffix}")

    def warn(self, stacklevel=3):
        """Issue the one warning of the file, if a line had bad bytes, at the first line of code
        outside learnsim (a reader called through another, load_quora_pairs through read_pairs,
        named learnsim's line)."""
        if self.wide_lines and self.utf8_lines == self.wide_lines:
            warn_outside(UserWarning(
                f"{self.where}: every line with bytes beyond ASCII ({self.wide_lines}) is valid UTF-8 text, which "
                f"{self.encoding} reads as other letters (UTF-8's 'ç' as {'ç'.encode('utf-8').decode(self.encoding, 'replace')!r}); "
                f"the file is likely UTF-8: leave out encoding={self.encoding!r} (--encoding {self.encoding})"),
                UserWarning, stacklevel=stacklevel - 1)
        if self.n_lines:
            hint = f" ({self.hint})" if self.hint else ""
            if self.double_byte:
                hint += f"; {_double_byte_hint(self.double_byte, Path(self.where).name)}"
            elif self.utf8 and not self.beyond_ascii:
                hint += f"; no line holds a UTF-8 character beyond ASCII, so {_CODE_PAGE_HINT.format(name=Path(self.where).name)}"
            warn_outside(UndecodableBytesWarning(
                f"{self.where}: {self.n_lines} line(s) are not {self.encoding_name} text (first: line "
                f"{self.first_line}); their bad bytes became U+FFFD{hint}. Pass "
                "encoding_errors='strict' (--encoding-errors strict) to refuse such a file."),
                UndecodableBytesWarning, stacklevel=stacklevel - 1)


#: What the messages about bad bytes add where no line holds UTF-8 beyond ASCII: the file is text in
#: a single-byte code page (cp1254 Turkish, cp1253 Greek, ...), every letter beyond ASCII of it lost
#: as U+FFFD, not UTF-8 with a cut character
_CODE_PAGE_HINT = ("the file is likely in a single-byte code page (Windows' cp1250 Central European, cp1252 "
                   "Western, cp1253 Greek, cp1254 Turkish, cp1255 Hebrew, cp1256 Arabic and Urdu, or an ISO-8859 "
                   "one), its letters beyond ASCII lost; convert it to UTF-8 first, e.g. iconv -f CP1254 -t UTF-8 "
                   "{name} > utf8-{name}, or read it as it is with encoding='cp1254' (--encoding cp1254)")


#: The code pages of Chinese, Japanese and Korean text, the users' names for them: such a file read
#: as UTF-8 lost every letter to U+FFFD, and the note about it named none ('learnsim fit' learned
#: from the garbage of a GBK file, 60 lines of it, after a note naming no encoding). cp932 is
#: Shift_JIS as Windows (and Excel's "CSV") writes it: Python's shift_jis cannot read its circled
#: digits or extension kanji (①, 髙), and a note naming shift_jis alone had that option lose them.
_DOUBLE_BYTE_CODECS = (("gb18030", "Simplified Chinese: GBK, GB2312"), ("big5", "Traditional Chinese"),
                       ("cp932", "Japanese: Shift_JIS as Windows writes it"), ("shift_jis", "Japanese"),
                       ("euc_jp", "Japanese"), ("euc_kr", "Korean"))
_DOUBLE_BYTE_LINES = 20     # the bad lines looked at: each narrows the code pages that read them all
# Han, kana, Hangul, and the punctuation and full-width forms of their texts
_CJK_LETTER = re.compile("[\u3000-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]")


def _common_text(codec, wide):
    """Whether ``wide`` (the characters beyond ASCII of a line ``codec`` read) is such text as the
    code page's users write: a Hebrew, Greek or Arabic line of a single-byte code page reads as
    rare Han characters in GB18030 or Big5, and a cut UTF-8 character as one. Chinese: eight in
    ten Han characters among the common ones (GB2312's first level, Big5's frequent block) or
    punctuation; Japanese: kana among them; Korean: Hangul, half of them."""
    if codec in ("gb18030", "big5"):
        leads = (0xB0, 0xD7) if codec == "gb18030" else (0xA4, 0xC6)
        common = 0
        for c in wide:
            try:
                lead = c.encode("gb2312" if codec == "gb18030" else "big5")[0]
            except UnicodeEncodeError:
                continue
            common += leads[0] <= lead <= leads[1] or 0xA1 <= lead <= 0xA3
        return common >= 0.8 * len(wide)
    if codec in ("cp932", "shift_jis", "euc_jp"):
        return sum("\u3040" <= c <= "\u30ff" for c in wide) >= 0.15 * len(wide)
    return sum("\uac00" <= c <= "\ud7af" for c in wide) >= 0.5 * len(wide)


def _double_byte_codecs(raw, among=None):
    """The codecs of :data:`_DOUBLE_BYTE_CODECS` (of ``among``) that read the line ``raw`` without
    an error as Chinese, Japanese or Korean text: four such characters at least, nine in ten of
    those beyond ASCII (GBK's bytes read as Big5 make eight in ten, as GB18030 reads Big5's
    half), and such text as the code page's users write (:func:`_common_text`)."""
    found = []
    for codec, _what in _DOUBLE_BYTE_CODECS:
        if among is not None and codec not in among:
            continue
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError:
            continue
        wide = [c for c in text if ord(c) > 127]
        if len(wide) >= 4 and sum(_CJK_LETTER.match(c) is not None for c in wide) >= 0.9 * len(wide) and \
                _common_text(codec, wide):
            found.append(codec)
    return tuple(found)


def _double_byte_hint(names, name):
    """What the messages about bad bytes add where :func:`_double_byte_codecs` found ``names``."""
    said = ", ".join(f"--encoding {codec} ({dict(_DOUBLE_BYTE_CODECS)[codec]})" for codec in names)
    return (f"its lines read cleanly as Chinese, Japanese or Korean text in "
            f"{'the code page' if len(names) == 1 else 'one of the code pages'} {', '.join(names)}: read it with "
            f"{said} (encoding='{names[0]}'), or convert it first, e.g. iconv -f {names[0].upper().replace('_', '-')} "
            f"-t UTF-8 {name} > utf8-{name}")


class _CutCharacter(Exception):
    pass


def _single_bad_byte(exc):
    """A codec error handler: a bad byte alone becomes U+FFFD; a cut UTF-8 character (a lead byte
    and continuation bytes, then no more: ``\xe2\x80``) stops the decoding."""
    if exc.end - exc.start > 1:
        raise _CutCharacter
    return "\ufffd", exc.end


codecs.register_error("learnsim-single-bad-byte", _single_bad_byte)


_BEYOND_ASCII = re.compile(rb"[\x80-\xff]")


def _utf8_beyond_ascii(raw):
    """Whether the bytes ``raw`` are UTF-8 beyond ASCII: a valid character, or one cut short (two or
    more of its bytes left), which a single-byte code page's letters never make."""
    if raw.isascii():
        return False
    try:
        text = raw.decode("utf-8", errors="learnsim-single-bad-byte")
    except _CutCharacter:
        return True
    return any(ord(c) > 127 and c != "\ufffd" for c in text)


def _wide_without_bom(first, loose=False):
    """"UTF-16LE" or "UTF-16BE" where the bytes ``first`` (a file's first line) are text of
    mostly ASCII characters in UTF-16 without a byte-order mark: a NUL at every odd (LE) or even
    (BE) position and at no other, which no UTF-8 text has ("UTF-32LE" or "UTF-32BE": NULs at
    three of every four positions); else None. ``loose``: a NUL at half
    of those positions or more, and at no other, is enough."""
    sample = first[:256]
    if len(sample) < 4:
        return None
    # UTF-32 of ASCII: three NULs to each character's byte (read as UTF-8, a one-document-a-line
    # file became documents 'h\x00\x00\x00e\x00...' without a word); before UTF-16, whose test
    # its NULs at even positions fail
    lanes = [sample[i::4] for i in range(4)]
    if len(sample) >= 8 and 0 not in lanes[0] and all(lane.count(0) == len(lane) for lane in lanes[1:]):
        return "UTF-32LE"
    if len(sample) >= 8 and 0 not in lanes[3] and all(lane.count(0) == len(lane) for lane in lanes[:3]):
        return "UTF-32BE"
    even, odd = sample[0::2], sample[1::2]
    enough = (lambda n, of: 2 * n >= len(of)) if loose else (lambda n, of: n == len(of))
    if enough(odd.count(0), odd) and 0 not in even:
        return "UTF-16LE"
    if enough(even.count(0), even) and 0 not in odd:
        return "UTF-16BE"
    return None


# a byte no text in a single-byte code page holds (a NUL, the C0 controls but TAB, LF, CR): beside
# a UTF-16 or UTF-32 mark, the mark's text
_CONTROL = re.compile(b"[\x00-\x08\x0b\x0c\x0e-\x1f]")
# the first bytes of the container formats a user may hand where a text file is read (a table
# exported by pandas or Hugging Face datasets, an archive): what each is
_GZIP_MAGIC = b"\x1f\x8b"
# how much of a file's start refuse_container looks at for a NUL (git's test of a binary file)
_HEAD_BYTES = 8192
_CONTAINERS = ((b"PAR1", "Parquet"), (b"PK\x03\x04", "zip (or .xlsx, .docx)"), (b"\x93NUMPY", "NumPy .npy"),
               (b"SQLite format 3\x00", "SQLite"), (b"\x89HDF\r\n", "HDF5"), (b"ARROW1", "Arrow"))


def _gzip_unnamed(path):
    """The error of gzip-compressed data in a file whose name does not end in .gz."""
    path = Path(path)
    return (f"{path}: not text but gzip-compressed data, and its name does not end in .gz (the files read "
            f"compressed); name it {path.name}.gz, or decompress it: gunzip -c {path.name} > "
            f"{path.stem}-text{path.suffix}")


def _container_hint(kind):
    return ("; write it as a TSV first, e.g. pandas.read_parquet(path).to_csv('out.tsv', sep='\\t', index=False)"
            if kind == "Parquet" else "")


def _binary(first):
    """Whether the bytes ``first`` (a file's first line) are no text: a NUL or another control
    byte, or no UTF-8 (a container's magic followed by text, an id 'PAR1', is text)."""
    if b"\x00" in first or _CONTROL.search(first) is not None:
        return True
    try:
        first.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def refuse_container(path, what, how):
    """A ValueError where ``path`` opens as a container format, not text: read as lines, a
    Parquet file's bytes made judgements of its garbage and an error naming none of it (the first
    line's "query" 'PAR1\x00...' among no queries). ``how`` says what text the reader reads."""
    gzipped = Path(path).name.lower().endswith(".gz")
    if not Path(path).is_file():
        # a pipe (<(zcat qrels.gz)) is read once: its head read here was gone for the reader, whose
        # second opening waited for a writer that had left; the reader opens it (and a device)
        return
    try:
        with (gzip.open if gzipped else open)(path, "rb") as handle:
            head = handle.read(_HEAD_BYTES)
    except (OSError, EOFError, zlib.error):
        return      # the reader opens it and names the problem
    if not gzipped and head.startswith(_GZIP_MAGIC):
        # a download saved without its .gz, still compressed: read as text its bytes were a line of
        # one field, refused as no layout beside a note of undecodable bytes, naming no gzip
        raise ValueError(_gzip_unnamed(path))
    for magic, kind in _CONTAINERS:
        if head.startswith(magic):
            raise ValueError(f"{path}: not text but a {kind} file; {what} are read from text, {how}"
                             f"{_container_hint(kind)}")
    nul = head.find(b"\x00")
    first = head.split(b"\n", 1)[0]
    wide = any(head.startswith(bom) for bom, _ in _WIDE_BOMS) or _wide_without_bom(first, loose=True) is not None
    if nul >= 0 and not wide:
        # UTF-16 and UTF-32 text (NULs among ASCII) are left to the decoder, which names them; any
        # other NUL is no text of any encoding read here: a file of bytes was a judgement of
        # garbage, or a layout error, beside a note of undecodable bytes
        raise ValueError(f"{path}: not text: byte {nul + 1:,} is NUL, which no text file holds (a binary file?); "
                         f"{what} are read from text, {how}")


def json_array_hint(value):
    """What to add to the error of a JSON Lines line that is a JSON array's: a line ``[`` or
    opening ``[{`` (a file of one array, pretty-printed or not), or a list of objects; or a
    pretty-printed object's: a line ``{``. Read as
    lines, its error said what the line was not ("Expecting value at column 2", "got list"), not
    what the file is."""
    if isinstance(value, str):
        if value.strip() == "{":
            # one object written over several lines (json.dump(indent=2), jq without -c)
            return ("; the file looks like JSON written over several lines (pretty-printed), not JSON Lines (one "
                    "object a line): write it so, e.g. jq -c . in.json > out.jsonl")
        opens = value.strip() == "[" or value.lstrip().startswith("[{")
    else:
        opens = isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)
    return ("; the file looks like a JSON array of records, not JSON Lines (one object a line): write it so, e.g. "
            "jq -c '.[]' in.json > out.jsonl") if opens else ""


def json_record(line, where, invalid="invalid JSON"):
    """The JSON value of one line of a JSON Lines file (``where``: "FILE, line N"), or a
    :class:`DocumentFormatError` naming ``where`` and the problem: invalid JSON (``invalid``
    and the parser's reason), nesting deeper than :data:`learnsim._utils.inputs.MAX_JSON_DEPTH`
    levels, a key given twice in one object (learnsim._utils.inputs), or an integer of more
    digits than Python converts (``sys.get_int_max_str_digits()``; the message names the
    field). Every JSON Lines reader of learnsim reads its lines here."""
    # a byte-order mark opening a line: files joined with cat, each opening with its own (the
    # parser refuses it, "Unexpected UTF-8 BOM")
    line = line.removeprefix("\ufeff")
    try:
        return _strict_loads(line)
    except json.JSONDecodeError as exc:
        # some of the parser's messages end in "at" ("Invalid control character at"), which read
        # "... at at column 12"; a raw control character is named, as an editor does not show it
        said = f"{exc.msg.removesuffix(' at')} at column {exc.colno}"
        if exc.msg.startswith("Invalid control character") and exc.pos < len(line):
            said = (f"a raw control character {line[exc.pos]!r} inside a string at column {exc.colno}; JSON "
                    "writes it escaped")
        raise DocumentFormatError(f"{where}: {invalid} ({said}){json_array_hint(line)}") from None
    except (JSONDepthError, DuplicateKeyError, TextError) as exc:
        raise DocumentFormatError(f"{where}: {exc}") from None
    except LongIntegerError:
        # Python will not convert an integer of more than sys.get_int_max_str_digits() digits
        # (quadratic time): the message names the file, the line and the field
        raise DocumentFormatError(f"{where}: {_long_integer(line)}") from None


def _has_zero_float(value):
    """Whether the JSON value ``value`` holds the float 0.0 anywhere (the only value an underflowing
    number reads as)."""
    if isinstance(value, float):
        return value == 0.0
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return any(_has_zero_float(item) for item in items)


class _Underflow(float):
    """A JSON number that reads as 0.0 though its digits are not all zero (``1e-400``), its literal kept."""


def _underflow_literal(digits):
    value = float(digits)
    if value == 0.0 and re.search(r"[1-9]", re.split(r"[eE]", digits)[0]):
        tiny = _Underflow(digits)
        tiny.literal = digits
        return tiny
    return value


def _path_to(value, test, at=()):
    """The path (keys and positions) to the first item of the JSON value ``value`` that ``test``
    takes, or None."""
    if test(value):
        return at
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _path_to(item, test, at + (key,))
        if found is not None:
            return found
    return None


def refuse_underflow(obj, line, where, part=False):
    """Refuse a number of the JSON value ``obj``, parsed from the JSON ``line``, that Python's json
    reads as 0.0 though it is not zero (``1e-400``, below the smallest float): a metadata value
    ``score>0`` left out, a pair's label 1e-400 read as 0. The index refuses, as it stores none
    exactly, an integer beyond 64 bits; such a number is refused the same way, as a
    :class:`DocumentFormatError` naming ``where`` and the field. ``part``: ``obj`` holds some of
    the line's top-level keys (a record's metadata), looked for there only. Only a value holding
    0.0 is read again (with its literals), so other lines cost nothing."""
    if not _has_zero_float(obj):
        return
    again = json.loads(line.removeprefix("\ufeff"), parse_float=_underflow_literal)
    if part and isinstance(again, dict) and isinstance(obj, dict):
        again = {key: again[key] for key in obj if key in again}
    at = _path_to(again, lambda v: isinstance(v, _Underflow))
    if at is not None:
        value = again
        for key in at:
            value = value[key]
        field = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in at).lstrip(".")
        raise DocumentFormatError(f"{where}: {field!r} is {value.literal}, a number too small for a float (it "
                                  "would read as 0.0); give it as a string, or as 0")


def _long_integer(line):
    """What to say of the JSON ``line`` that holds an integer too long for Python to read."""
    limit = sys.get_int_max_str_digits()

    class Long(str):
        pass

    def find(value, at):
        if isinstance(value, Long):
            return at, len(value.lstrip("-"))
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for key, item in items:
            found = find(item, at + ([key] if isinstance(key, str) else [f"[{key}]"]))
            if found:
                return found
        return None

    # read again, the long integers kept as their digits, only to say where the first one is
    value = json.loads(line, parse_int=lambda digits: Long(digits) if len(digits.lstrip("-")) > limit else 0)
    at, n_digits = find(value, []) or ([], 0)
    field = ".".join(at).replace(".[", "[")
    if len(at) == 1 and at[0] in ID_KEYS:
        return (f'the id "{field}" is too long: an integer of {n_digits} digits (at most {limit}); give '
                "such an id as a JSON string")
    return (f"{'the integer ' + repr(field) if field else 'an integer'} is too long: {n_digits} digits "
            f"(at most {limit})")


def _raw_lines(handle, where):
    """Yield ``(line_number, raw)`` of a binary file, ``raw`` the bytes of one line with its line
    end: ``\\n``, ``\\r\\n`` or a lone ``\\r`` (Python's universal newlines; pandas reads
    them the same), or none on the last line. Reads :data:`_CHUNK_BYTES` at a time and refuses
    a line longer than :data:`MAX_LINE_BYTES`, so that memory stays bounded whatever the file."""
    number = 0
    pending, size = [], 0       # the pieces of a line whose end is not read yet
    carry = b""
    while True:
        chunk = handle.read(_CHUNK_BYTES)
        if not chunk:
            break
        if carry:
            chunk, carry = carry + chunk, b""
        if chunk.endswith(b"\r"):
            # a CR at the end of a chunk may be the first half of a CRLF: its line ends
            # only once the next byte is known
            chunk, carry = chunk[:-1], b"\r"
        lines = chunk.splitlines(keepends=True)
        tail = lines.pop() if lines and not lines[-1].endswith((b"\n", b"\r")) else b""
        for raw in lines:
            if pending:
                raw = b"".join(pending) + raw
                pending, size = [], 0
            if len(raw) > MAX_LINE_BYTES and len(raw.rstrip(b"\r\n")) > MAX_LINE_BYTES:
                _too_long(where, number + 1)
            number += 1
            yield number, raw
        if tail:
            if size + len(tail) > MAX_LINE_BYTES:
                _too_long(where, number + 1)
            pending.append(tail)
            size += len(tail)
    if pending or carry:
        yield number + 1, b"".join(pending) + carry


@contextlib.contextmanager
def _opened(path, gzipped):
    """``path`` opened in binary (decompressed when ``gzipped``) through :func:`open_input`:
    a named pipe is waited on for a bounded time and a device is refused."""
    with open_input(path) as raw:
        if not gzipped:
            yield raw
        else:
            with gzip.GzipFile(fileobj=raw, mode="rb") as handle:
                yield handle


def _bytes_text(n):
    """A bound in bytes as a message says it: MiB where it is a whole number of them."""
    return f"{n // 2**20} MiB" if n % 2**20 == 0 else f"{n} bytes"


def _too_long(where, number):
    bound = _bytes_text(MAX_LINE_BYTES)
    raise DocumentFormatError(
        f"{where}, line {number}: longer than {bound} without a line end (the most a line may hold); is it a "
        "text file with one record per line?")


def decoded_lines(path, *, encoding_errors="replace", encoding="utf-8", keepends=False, hint=None,
                  counts=None):
    """Yield ``(line_number, line)`` of a plain or gzipped text file under the bad-bytes policy.

    This is the one place where the readers decode files (see :class:`_Decoder`).

    Parameters
    ----------
    path : path-like
    encoding_errors : {"replace", "strict"}, default="replace"
        ``"replace"``: bytes that are not valid ``encoding`` become U+FFFD and, after the last
        line, one :class:`UndecodableBytesWarning` names the file and counts the lines
        affected. ``"strict"``: the first such line raises :class:`DocumentFormatError`.
    encoding : str, default="utf-8"
    keepends : bool, default=False
        Keep the line end (for a ``csv`` reader); else it is removed.
    hint : str, optional
        Added to the error and the warning (e.g. which encoding the file is likely to be in).
    counts : dict, optional
        Receives ``"undecodable_lines"``: the number of lines whose bytes were replaced.

    Raises
    ------
    DocumentFormatError
        If the file cannot be read (a broken gzip stream), starts with a UTF-16 or UTF-32
        byte-order mark (read as UTF-8), holds a line longer than :data:`MAX_LINE_BYTES`
        (64 MiB; the message names the line) or, with ``encoding_errors="strict"``, bytes
        that are not ``encoding`` text.

    Notes
    -----
    A line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (the line end of old Mac files), as
    in Python's universal newlines, and lines are numbered so. The file is read in chunks and
    a line may hold at most :data:`MAX_LINE_BYTES` bytes, so that a file without line ends
    cannot take unbounded memory. A UTF-8 byte-order mark at the start of the file (or of a line:
    files joined with ``cat``, each opening with its own) is
    dropped. A file ending in ``.gz`` is decompressed.

    Examples
    --------
    >>> import os, tempfile
    >>> from learnsim.datasets import decoded_lines
    >>> path = os.path.join(tempfile.mkdtemp(), "notes.txt")
    >>> with open(path, "w", encoding="utf-8") as f:
    ...     _ = f.write("first line\\nsecond line\\n")
    >>> list(decoded_lines(path))
    [(1, 'first line'), (2, 'second line')]
    """
    path = Path(path)
    decoder = _Decoder(path, encoding_errors, encoding, hint)
    # any case, as the readers tell a file's type ("DOCS.TSV.GZ" was read as its gzip bytes)
    gzipped = path.name.lower().endswith(".gz")
    try:
        with _opened(path, gzipped) as handle:
            for number, raw in _raw_lines(handle, path):
                if number == 1:
                    decoder.check_start(raw)
                line = decoder.decode(raw, number)
                if line.startswith("\ufeff"):
                    # a byte-order mark some editors write, and one opening each file of several
                    # joined with cat: kept on a later line, it became part of that line's id or
                    # label ('\ufeffd2', a second cluster 'b'), where the JSON Lines and qrels
                    # readers already dropped it
                    line = line.lstrip("\ufeff")
                if not keepends:
                    line = line[:-2] if line.endswith("\r\n") else line.rstrip("\r\n")
                yield number, line
    except (FileNotFoundError, IsADirectoryError, DocumentFormatError):
        raise
    except (OSError, EOFError, zlib.error) as exc:
        raise DocumentFormatError(f"{path} could not be read ({exc}); is the file complete and "
                                  f"{'gzip-compressed' if gzipped else 'plain text'}?") from None
    if counts is not None:
        counts["undecodable_lines"] = decoder.n_lines
    decoder.warn()


def read_text(path, *, encoding_errors="replace", encoding="utf-8", hint=None, counts=None):
    """Whole text of a plain or gzipped file under the bad-bytes policy.

    Parameters
    ----------
    path : path-like
        A file; one ending in ``.gz`` is decompressed.
    encoding_errors, encoding, hint, counts
        As in :func:`decoded_lines`.

    Returns
    -------
    str
        The text with its line ends as in the file (a UTF-8 byte-order mark is dropped).

    Raises
    ------
    DocumentFormatError
        If the file cannot be read (a broken gzip stream, a Unix ``.Z`` file), is longer than
        :data:`MAX_TEXT_BYTES` (decompressed), starts with a UTF-16 or UTF-32 byte-order mark
        (read as UTF-8) or, with ``encoding_errors="strict"``, is not ``encoding`` text.

    Examples
    --------
    >>> import os, tempfile
    >>> from learnsim.datasets import read_text
    >>> path = os.path.join(tempfile.mkdtemp(), "notes.txt")
    >>> with open(path, "w", encoding="utf-8") as f:
    ...     _ = f.write("first line\\nsecond line\\n")
    >>> read_text(path)
    'first line\\nsecond line\\n'
    """
    path = Path(path)
    decoder = _Decoder(path, encoding_errors, encoding, hint)
    if path.suffix == ".Z":
        raise DocumentFormatError(f"{path}: Unix compress (.Z) files are not supported; uncompress them "
                                  "(or recompress with gzip) first")
    try:
        with _opened(path, path.suffix.lower() == ".gz") as handle:
            chunks, size = [], 0
            while True:
                chunk = handle.read(min(16 * _CHUNK_BYTES, MAX_TEXT_BYTES + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if size > MAX_TEXT_BYTES:
                    raise DocumentFormatError(f"{path}: longer than {_bytes_text(MAX_TEXT_BYTES)}"
                                              + (" once decompressed" if path.suffix.lower() == ".gz" else "")
                                              + ", the most a whole-file reader reads; split it into smaller files")
            raw = b"".join(chunks)
            del chunks
    except (FileNotFoundError, IsADirectoryError, DocumentFormatError):
        raise
    except (OSError, EOFError, zlib.error) as exc:
        raise DocumentFormatError(f"{path} could not be read ({exc})") from None
    decoder.check_start(raw[:256])
    text = decoder.decode_text(raw)
    if counts is not None:
        counts["undecodable_lines"] = decoder.n_lines
    decoder.warn(stacklevel=2)
    return text.removeprefix("\ufeff")
