"""The checks of the arguments of :class:`learnsim.index.Index`'s methods: texts, ids, metadata
and k, each refused with an error naming the argument and the position."""
from __future__ import annotations

import numbers
import os
from collections.abc import Iterable

import numpy as np

from .._inputs import as_id, index_inputs, is_table, refuse_unordered, texts_of
from .._utils.callers import warn_outside
from .._utils.inputs import check_text
from ._store import MAX_ID_CHARS, check_metadata

__all__ = ["check_ids", "check_k", "check_metadatas", "check_texts", "doc_id", "ids_to_delete", "warn_unfindable"]


def check_texts(texts, what="texts", documents=False):
    """``texts`` as a list of str (the rules of tables, arrays and files: ``texts_of``), none
    holding a lone surrogate; a TypeError or ValueError naming ``what`` and the position.
    ``documents``: texts to store, with a warning where some hold no letter or digit
    (:func:`warn_unfindable`)."""
    if type(texts) is list and all(type(t) is str for t in texts):
        # the common case (a search's one query) without the rules for tables, arrays and files,
        # whose checks (abstract base classes, attribute tests) were 10-30 us of a search
        texts = _whole_characters(list(texts), what)
        if documents:
            warn_unfindable(texts, what)
        return texts
    if isinstance(texts, (bytes, bytearray, memoryview)):
        # iterated, bytes are their byte values: "query[0] must be a str; got int" named no problem
        raise TypeError(f"{what} must be text (str), not {type(texts).__name__}: decode it first, e.g. "
                        "value.decode('utf-8')")
    texts = texts_of(texts, what)
    if isinstance(texts, str):
        raise TypeError(f"{what} must be a list of str, not a single str (wrap it in a list)")
    try:
        texts = list(texts)
    except TypeError:
        raise TypeError(f"{what} must be a list of str; got {type(texts).__name__}") from None
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            # txtai's index([(id, text, tags), ...]) form, which a txtai user writes first
            hint = (" (txtai's (id, text, tags) tuples: pass the texts, ids= and metadata= as three lists)"
                    if isinstance(t, tuple) and documents else "")
            raise TypeError(f"{what}[{i}] must be a str; got {type(t).__name__}{hint}")
    texts = _whole_characters(texts, what)
    if documents:
        warn_unfindable(texts, what)
    return texts


def warn_unfindable(texts, what="texts"):
    """A warning where documents hold no letter or digit (empty, spaces, punctuation or emoji
    alone): stored, but no search can find them. ``learnsim index build`` and ``add`` refuse such a
    line and the service such a document (issue 45); a library call stores them and says so."""
    from .._utils.inputs import has_content

    blank = [i for i, t in enumerate(texts) if not has_content(t)]
    if blank:
        first = blank[0]
        # at the user's call of Index.build, add, update or upsert, under the decorators that
        # check and time them
        warn_outside(f"{len(blank)} of the {len(texts)} {what} have no letter or digit (first: {what}[{first}] = "
                     f"{texts[first][:40]!r}): they are stored, but no search can find them", UserWarning)


def _whole_characters(texts, what):
    """``texts``, none holding a lone surrogate (half of a UTF-16 pair: a query lost it silently
    in the tokenizer, a document was SQLite's codec error naming nothing); an ASCII text is
    looked at no further."""
    for i, t in enumerate(texts):
        if not t.isascii():
            check_text(t, f"{what}[{i}]")
    return texts


def check_ids(ids, n):
    """The ids of ``n`` texts to write: str or int (stored as str), None where the index numbers
    the document; none given twice."""
    if ids is None:
        return [None] * n
    if isinstance(ids, (str, int)):
        raise TypeError(f"ids must be a list of ids (str or int), not a single {type(ids).__name__}")
    refuse_unordered(ids, "ids", "ids")
    _refuse_shape(ids)
    ids = list(ids)
    if len(ids) != n:
        raise ValueError(f"got {len(ids)} ids for {n} texts")
    # str or int, stored as str (7 and "7" are one id); None: numbered by the index (its sequence
    # number), as when no ids are given at all
    ids = [_bounded(as_id(_whole_number(x, f"ids[{i}]"), f"ids[{i}]"), i) for i, x in enumerate(ids)]
    given = [x for x in ids if x is not None]
    if len(set(given)) != len(given):
        seen, dup = set(), None
        for x in given:
            if x in seen:
                dup = x
                break
            seen.add(x)
        raise ValueError(f"id {dup!r} is given twice")
    return ids


def _refuse_shape(ids):
    """A TypeError for a table given as ids (a DataFrame iterates as its column names: delete(df)
    looked up the id "id"), a ValueError for an array of ids that is not one-dimensional (each row
    was refused as "ids[0] ... got ndarray", naming no shape)."""
    if is_table(ids):
        raise TypeError(f"ids must be a list of ids, not a {type(ids).__name__} (its column names would be read): "
                        "pass its column of ids, e.g. df['id']")
    ndim = getattr(ids, "ndim", 1)
    if isinstance(ndim, int) and ndim != 1 and hasattr(ids, "shape"):
        raise ValueError(f"ids must be one-dimensional (one id per entry); got an array of shape {tuple(ids.shape)}")


def _whole_number(x, where):
    """``x``, unless an integer of more digits than an id has characters (as_id's str of one of
    over 4,300 digits is Python's own ValueError, which named no argument)."""
    if isinstance(x, numbers.Integral) and not isinstance(x, bool) and abs(int(x)) >= _TOO_MANY_DIGITS:
        raise ValueError(f"{where} is an integer of more than {MAX_ID_CHARS:,} digits; an id has at most "
                         f"{MAX_ID_CHARS:,} characters (MAX_ID_CHARS)")
    return x


def _bounded(x, i):
    if x is not None and len(x) > MAX_ID_CHARS:
        raise ValueError(f"ids[{i}] has {len(x):,} characters; an id has at most {MAX_ID_CHARS:,} (MAX_ID_CHARS, "
                         f"as over HTTP): {x[:40]!r}...")
    return x


_TOO_MANY_DIGITS = 10 ** MAX_ID_CHARS


# what each call that looks documents up by id says to do instead of a missing id (NaN, None):
# add's remedy, None (the index numbers the document), means nothing here
_LOOKUP_REMEDIES = {
    "get": "get looks documents up by their ids (a str or an int): leave it out (get(filter=...) selects "
           "by metadata)",
    "delete": "delete takes the ids (a str or an int) of documents in the index: leave it out",
    "update": "update replaces documents by their ids (a str or an int): leave it out (add and upsert write "
              "new ones)",
    "document": "document looks a document up by its id (a str or an int)",
    "more_like": "more_like starts from a document of the index, named by its id (a str or an int)",
}


def doc_id(doc_id, where="id", call="document"):
    """An id to look up: any str as given (an unknown one is a KeyError), an int as its str.
    A str holding a lone surrogate is a ValueError (TextError) naming ``where``, as in add: it
    reached SQLite, whose codec raised a UnicodeEncodeError naming nothing; None is a TypeError
    (it was looked up as the id None, a KeyError) and NaN a ValueError, each naming what ``call``
    (a key of _LOOKUP_REMEDIES) takes; an int of more digits than an id has
    characters a ValueError naming ``where`` (its str, past 4,300 digits, was Python's own
    ValueError, naming no argument; no id is stored under one)."""
    if isinstance(doc_id, str):
        if not doc_id.isascii():
            check_text(doc_id, where)
        return doc_id
    remedy = _LOOKUP_REMEDIES[call]
    if doc_id is None:
        raise TypeError(f"{where} must be a str or an int; got None ({remedy})")
    return as_id(_whole_number(doc_id, where), where, missing=remedy)


class CheckedMetadata(list):
    """Metadata checked by ``check_metadata`` as it is made, with each entry's JSON text
    (``texts``), which :func:`check_metadatas` takes rather than checking the entries again: the
    seam by which the command line checks each record once, where it can name the file and line
    (``where(i)`` names entry i), and the index does not check it a second time."""

    def __init__(self, metadata, where):
        super().__init__(metadata)
        self.texts = [check_metadata(m, where(i)) for i, m in enumerate(self)]


def check_metadatas(metadata, n):
    """The metadata of ``n`` texts, each checked and written as JSON (``check_metadata``)."""
    if metadata is None:
        return [None] * n
    if type(metadata) is CheckedMetadata and len(metadata) == len(metadata.texts) == n:
        return list(metadata.texts)
    if isinstance(metadata, dict):
        raise TypeError("metadata must be a list with one dict (or None) per text")
    metadata = list(metadata)
    if len(metadata) != n:
        raise ValueError(f"got {len(metadata)} metadata entries for {n} texts")
    return [check_metadata(m, f"metadata[{i}]") for i, m in enumerate(metadata)]


def check_k(k):
    """``k`` as an int >= 1 (numpy integers too), else a ValueError."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer; got {k!r}")
    return int(k)


def ids_to_delete(ids, call="delete"):
    """The ids of a delete (or of ``call``, get or update, which look documents up alike): one
    id (a str or an int) or a list of them, none given twice."""
    single = isinstance(ids, str) or (isinstance(ids, numbers.Integral) and not isinstance(ids, bool))
    if not single and (isinstance(ids, (bytes, bytearray, dict, float, bool)) or ids is None
                       or not isinstance(ids, Iterable)):
        # a bytes object iterates as its byte values (b"a" deleted the id "97"), a dict as its
        # keys: neither is a list of ids
        raise TypeError(f"ids must be an id (a str or an int) or a list of them; got {type(ids).__name__}")
    if not single:
        _refuse_shape(ids)
    ids = [ids] if single else list(ids)
    # a str as given (an unknown one is missing), one holding a lone surrogate refused by name
    ids = [doc_id(x, f"ids[{i}]", call) for i, x in enumerate(ids)]
    seen = set()
    for x in ids:
        if x in seen:
            raise ValueError(f"id {x!r:.80} is given twice")
        seen.add(x)
    return ids


def update_arguments(ids, texts, metadata, text, columns):
    """(ids, texts, metadata) of ``Index.update``: the forms of ``build``, or ``update(ids,
    metadata=...)`` without texts, whose texts are None (each document keeps its own, read by the
    write); texts without metadata (none given, none in a table's columns): metadata None, each
    document keeping its own, as chromadb's ``update(ids, documents=...)``."""
    own = is_table(ids) or isinstance(ids, os.PathLike) or hasattr(ids, "texts")
    if texts is None and text is None and columns is None and metadata is not None and not own:
        ids = ids_to_delete(ids, "update")
        if isinstance(metadata, dict) and len(ids) == 1:
            metadata = [metadata]
        return ids, None, check_metadatas(metadata, len(ids))
    if texts is None and own:
        texts, ids = ids, None      # a table, a file or a Documents: its own ids
    texts, ids, metadata = index_inputs(texts, ids, metadata, text=text, columns=columns, need_ids=True)
    texts = check_texts(texts, documents=True)
    ids = check_ids(ids, len(texts))
    if None in ids:
        raise ValueError("update needs the ids of the documents to replace")
    return ids, texts, None if metadata is None else check_metadatas(metadata, len(texts))
