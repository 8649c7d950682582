"""The lines of a judgements file, each bounded before it is split into its fields."""
from __future__ import annotations

import re
import unicodedata

#: The most characters a judgement line may hold: far more than a query id, a document id (a URL)
#: and a grade, yet a bound on the fields one line can make. decoded_lines bounds a line at 64 MiB,
#: and split into its words a 16 MiB line of 'xy xy ...' took 500 MB to be refused for its
#: 5,592,405 fields.
MAX_JUDGEMENT_LINE = 1 << 20


def bounded_lines(lines, path):
    """``(number, line)`` of ``lines``, a ValueError naming ``path`` and the line for one longer
    than :data:`MAX_JUDGEMENT_LINE` characters."""
    for number, line in lines:
        if len(line) > MAX_JUDGEMENT_LINE:
            raise ValueError(f"{path}, line {number}: {len(line):,} characters long, where a judgement line holds a "
                             f"query, a document and a grade (at most {MAX_JUDGEMENT_LINE:,} characters); is it a "
                             "judgements file?")
        yield number, line


#: The characters Python's str.split takes for blanks that C's isspace (trec_eval's sscanf) does
#: not: the no-break space, the ideographic space, the em space, the file separator... A judgement
#: line holding one reads two ways: 'q1\u00a0Q0\u00a0d1\u00a01' is four fields to ir_datasets (str.split)
#: and one to trec_eval; learnsim read it as four without a word.
#: (Every character str.isspace knows, less the six of C's isspace; a regular expression, as a
#: million-line file is searched line by line.)
_UNICODE_BLANK = re.compile("[\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")


def refuse_unicode_blanks(line, fields, where):
    """Refuse (a ValueError naming ``where`` and the character) a judgement ``line`` holding a
    Unicode blank that is not an ASCII one, unless every such blank lies inside one of its
    ``fields`` (an id split at tabs, as BEIR's csv reader reads it, keeps it); one between or at
    the edge of fields, which str.split and trec_eval read apart, is refused."""
    if _UNICODE_BLANK.search(line) is None:
        return
    # the blanks inside a field (fields stand in the line in their order) are the field's own
    kept, cursor = set(), 0
    for field in fields:
        start = line.find(field, cursor) if field else -1
        if start < 0:
            continue
        cursor = start + len(field)
        kept.update(range(start, cursor))
    at = next((m.start() for m in _UNICODE_BLANK.finditer(line) if m.start() not in kept), None)
    if at is None:
        return
    ch = line[at]
    name = unicodedata.name(ch, "a control character").lower()
    raise ValueError(f"{where}: column {at + 1} holds {name} (U+{ord(ch):04X}), a blank to Python's str.split "
                     "(ir_datasets) but not to trec_eval, so the line reads two ways; write a space or a tab "
                     "between fields")
