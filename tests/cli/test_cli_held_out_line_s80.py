"""The fit's line of what its search check held out said 'held out' twice ('Held out: 240 held-out
queries searching 1000 documents; ...'), a FILM or adapter fit on pairs or judgements alike."""
from __future__ import annotations

import contextlib
import io
from types import SimpleNamespace

from learnsim.cli._fit_text import print_held_out

HELD = ("240 held-out queries searching 1000 documents; 120 have relevant documents no training pair names (40 "
        "only such), 200 have some a training pair names (warm); 90 documents held out with their pairs")


def _printed(function, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        function(*args)
    return out.getvalue()


def test_the_held_out_line_says_held_out_once():
    line = _printed(print_held_out, {"held_out": HELD}).strip()
    assert line.lower().count("held out") + line.lower().count("held-out") == 2     # the check's, the documents'
    assert line.startswith("Checked on 240 held-out queries searching 1000 documents")
    assert _printed(print_held_out, {}) == ""


def test_the_film_report_prints_it_so():
    from learnsim.cli._fit_film import _print_search

    pipeline = SimpleNamespace(scoring="the input cosine", scorer=SimpleNamespace(description="the cosine"))
    out = _printed(_print_search, {"triplets": 10, "held_out": HELD}, pipeline, SimpleNamespace(matcher=None))
    assert "Held out: 240 held-out" not in out and "Checked on 240 held-out queries" in out
