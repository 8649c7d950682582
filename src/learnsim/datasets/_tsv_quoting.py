"""The lines of the ``id<TAB>text`` files of :func:`~learnsim.datasets.read_corpus` and
:func:`~learnsim.datasets.read_queries` under a ``quoting``, as the document readers take it.

``"auto"`` and ``"none"`` read plain TSV, a quote being text; ``"auto"`` refuses a field wholly in
CSV quotes with its quotes doubled (pandas' ``to_csv(sep="\\t")`` of a text holding a double
quote), naming both readings, with the message of :func:`learnsim.datasets.pairs.refuse_csv_quoted`:
read verbatim, the query or document kept its quotes doubled without a word. ``"csv"`` undoes
CSV quoting (a quoted field may hold TABs, doubled quotes and line breaks).
"""
from __future__ import annotations

import csv
import io
import re

from ._decode import DocumentFormatError
from .pairs import MAX_QUOTED_FIELD, check_quoting, refuse_csv_quoted

# lines end where decoded_lines ends them (\n, \r\n, \r): str.splitlines also ends one at a form
# feed, U+0085 or U+2028 inside a text, which cut a query in two and numbered later lines wrongly
_LINE_END = re.compile(r"\r\n|[\r\n]")


def tsv_lines(path, text, quoting="auto"):
    """``(line_number, line)`` of each non-blank line of the TSV ``text`` of the file ``path``, a
    byte-order mark opening a line dropped (files joined with cat). Under ``quoting="csv"`` a
    line is a record, its fields unquoted and joined by TABs, numbered by its first line."""
    check_quoting(quoting)
    if quoting == "csv":
        return _csv_records(path, text)
    lines = [(number, line.removeprefix("\ufeff")) for number, line in enumerate(_LINE_END.split(text), start=1)]
    lines = [(number, line) for number, line in lines if line.strip()]
    if quoting == "auto":
        for number, line in lines:
            if '""' in line:        # (no CSV-quoted field with a doubled quote holds none)
                refuse_csv_quoted(line.split("\t"), f"{path}, line {number}")
    return lines


def _csv_records(path, text):
    # the csv module's limit of a field is 128 KiB, below a long article's text (as in read_pairs)
    if csv.field_size_limit() < MAX_QUOTED_FIELD:
        csv.field_size_limit(MAX_QUOTED_FIELD)
    physical = (line.removeprefix("\ufeff") for line in io.StringIO(text, newline=""))
    reader = csv.reader(physical, delimiter="\t", quotechar='"', doublequote=True, strict=True)
    records, last_line = [], 0
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return records
        except csv.Error as exc:
            reason = str(exc).replace("\t", "TAB")
            raise DocumentFormatError(f"{path}, line {last_line + 1}: malformed quoting ({reason}); a field that "
                                      "starts with a double quote must end with one; quoting='none' (--quoting "
                                      "none) reads quotes as text") from None
        start, last_line = last_line + 1, reader.line_num
        line = "\t".join(fields)
        if line.strip():
            records.append((start, line))
