"""The fields of an index's manifest that a reader relies on, checked as a writer writes them,
for :meth:`learnsim.index.Index.open` and ``learnsim index verify`` alike.

A sealed manifest can still hold what no writer wrote (edited and sealed again by hand, or by a
learnsim of a later format): a sequence number past SQLite's 64-bit integers was Python's own
OverflowError at open (a traceback on the command line), and a folder name with ``..`` or an
absolute path made the index read the query plan or statistics of another folder (and a
reindex remove that folder as its old one), as did a statistics name of ``../../other/idf``.
"""
from __future__ import annotations

# SQLite's INTEGER, in which every sequence number is compared
MAX_SEQ = 2 ** 63 - 1
# the most first-stage candidates a re-ranking index reads (Index._rerank_depth's bound)
MAX_RERANK = 10_000

_REQUIRED = (("segments", list), ("covered_seq", int), ("kind", str), ("dtype", str), ("model_sha256", str),
             ("statistics_seq", int))
_SEQUENCE_NUMBERS = ("covered_seq", "statistics_seq", "generation")
_FOLDERS = ("statistics_dir", "plan_dir")


def invalid_field(m):
    """``(key, why)`` of the first field of the manifest ``m`` (a dict) that is not what a writer
    writes, else None."""
    for key, kind in _REQUIRED:
        if not isinstance(m.get(key), kind):
            return key, "missing or of another type"
    for key in _SEQUENCE_NUMBERS:
        v = m.get(key)
        if key in m and (isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_SEQ):
            return key, f"{_shown(v)}, not a whole number from 0 to 2**63-1"
    for key in _FOLDERS:
        v = m.get(key)
        if v is not None and not _plain(v):
            return key, f"{_shown(v)}, not a plain folder name inside the index"
    names = m.get("statistics", [])
    if not isinstance(names, list) or not all(_file_name(x) for x in names):
        return "statistics", f"{_shown(names)}, not a list of plain file names"
    for key in ("statistics_sha256", "plan_sha256"):
        if isinstance(m.get(key), dict) and not all(_file_name(x) for x in m[key]):
            return key, f"{_shown(sorted(m[key]))}, not plain file names"
    v = m.get("rerank")
    if v is not None and (isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_RERANK):
        # (a search refused it, but verify, info and every write took it)
        return "rerank", f"{_shown(v)}, not the re-ranker's number of candidates (1 to {MAX_RERANK})"
    if not isinstance(m.get("higher_is_closer", True), bool):
        return "higher_is_closer", f"{_shown(m['higher_is_closer'])}, not true or false"
    return None


def _plain(name):
    """Whether ``name`` is a plain name of a file or folder inside its folder (no path, no dot
    folder)."""
    return isinstance(name, str) and bool(name) and not name.startswith(".") and "/" not in name and "\\" not in name


def _file_name(name):
    """Whether ``name`` names a file inside its folder (a dot file too: a plan's checksums are
    of every file its folder held)."""
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\\" not in name


def _shown(v):
    text = repr(v)
    return text if len(text) <= 60 else text[:60] + "..."
