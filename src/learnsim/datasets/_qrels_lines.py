"""The lines of a judgements file, each bounded before it is split into its fields."""
from __future__ import annotations

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
