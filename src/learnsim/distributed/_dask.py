"""What every module of :mod:`learnsim.distributed` needs from Dask: the import with the
extra's name, a collection of texts as a bag, a tree reduction of delayed values, and a compute
on the caller's client. Dask is imported here, inside functions, and nowhere below this package.
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping

__all__ = ["require", "as_bag", "partition_items", "tree_reduce", "compute", "check_split_every"]

# partial results combined at a time (dask.bag's reduction default is 8 as well)
SPLIT_EVERY = 8


def require(module="dask"):
    """Import ``module`` (a part of Dask), or raise an ImportError that names the extra."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"learnsim.distributed needs Dask ({module} is missing): "
                          "pip install learnsim[dask]") from None


def as_bag(texts, name="texts"):
    """``texts`` as a ``dask.bag.Bag``: a Bag, or a Dask dataframe column (a Series), else a TypeError.

    The items are checked where each partition is read (on the workers): a partition holding
    something other than str raises a TypeError naming the partition and the position.
    """
    db = require("dask.bag")
    if isinstance(texts, db.Bag):
        return texts
    module = type(texts).__module__ or ""
    if module.startswith("dask") and type(texts).__name__ == "Series" and hasattr(texts, "to_bag"):
        return texts.to_bag()
    if isinstance(texts, (str, bytes)):
        raise TypeError(f"{name} must be a dask.bag.Bag of str, not a single {type(texts).__name__}")
    hint = " (make one with dask.bag.from_sequence(texts, npartitions=...))" if isinstance(texts, (list, tuple)) else ""
    if module.startswith("dask") and type(texts).__name__ == "DataFrame":
        # the whole frame where its text column is meant: name the columns that hold text
        columns = [str(c) for c, kind in getattr(texts, "dtypes", {}).items()
                   if str(kind) in ("object", "string") or str(kind).startswith("string")]
        picks = " or ".join(f"frame[{c!r}]" for c in columns[:3]) or "frame['<column>']"
        hint = f" (a whole Dask dataframe: give its text column, {picks})"
    raise TypeError(f"{name} must be a dask.bag.Bag of str or a Dask dataframe column; "
                    f"got {type(texts).__name__}{hint}")


def partition_items(partition, what, number):
    """A partition's items as a list, or a TypeError naming the partition (``number``) for one
    that is a str, bytes or a mapping (``what``: "texts", "ids"). A partition is iterated:
    one str was its characters, each a text (or an id), and a dict its keys, without a word said."""
    if isinstance(partition, (str, bytes, bytearray, Mapping)):
        where = f"partition {number}" if what == "texts" else f"partition {number} of {what}"
        raise TypeError(f"{where} is a {type(partition).__name__}, not a sequence of {what}: a partition is read "
                        f"item by item (one str would be its characters); give each partition as a list")
    return list(partition)


def check_split_every(split_every):
    if isinstance(split_every, bool) or not isinstance(split_every, int) or split_every < 2:
        raise ValueError(f"split_every must be an int >= 2; got {split_every!r}")
    return split_every


def tree_reduce(parts, combine, split_every=SPLIT_EVERY):
    """One delayed value combining the delayed ``parts`` by ``combine(list) -> value``, ``split_every``
    at a time, level by level (a tree: no task ever holds more than ``split_every`` partial
    results). The order of ``parts`` is kept, so ``combine`` may rely on it (offsets of rows)."""
    dask = require("dask")
    # every task of learnsim.distributed has a key of its own (impure delayed): a new computation
    # never resubmits a key of an earlier one that the scheduler may still be releasing
    parts = list(parts)
    if not parts:
        raise ValueError("nothing to reduce: the collection has no partitions")
    combine_d = dask.delayed(combine)
    while len(parts) > 1:
        parts = [combine_d(parts[i:i + split_every]) if len(parts[i:i + split_every]) > 1 else parts[i]
                 for i in range(0, len(parts), split_every)]
    return parts[0]


def compute(value, client=None):
    """Compute one Dask collection or delayed value: on ``client`` when given (a
    ``distributed.Client``), else on Dask's current scheduler (the default client, if any)."""
    # Unoptimised: optimising fuses chains of tasks and renames them after their parts, so two
    # computations over one bag (its lengths, then its vectors) could send the scheduler one key
    # for two different tasks, and the release of the first then failed the second with a
    # KeyError now and then (dask/dask#9888). Without fusion every key is the collection's own.
    if client is not None:
        if not hasattr(client, "compute") or not hasattr(client, "gather"):
            raise TypeError(f"client must be a distributed.Client; got {type(client).__name__}")
        return client.compute(value, sync=True, optimize_graph=False)
    dask = require("dask")
    return dask.compute(value, optimize_graph=False)[0]


def portable(obj):
    """A copy of a fitted vectoriser or Pipeline that pickles: without its tokenizer, whose
    Porter stemmer (PyStemmer, a C object) cannot be sent to a worker. :func:`ready` rebuilds it there."""
    import copy

    if hasattr(obj, "metric") and hasattr(obj, "vectorizer"):
        out = copy.copy(obj)
        out.vectorizer = portable(obj.vectorizer)
        if getattr(obj, "lexical", None) is not None:
            out.lexical = portable(obj.lexical)      # a lexical part's counts or tf.idf, tokenizer and all
        out._scorer = None
        if hasattr(out, "_lexical_cache"):
            out._lexical_cache = None     # a vectoriser of the collection's words, with a tokenizer
        return out
    if getattr(obj, "_tokenizer", None) is not None:
        obj = copy.copy(obj)
        obj._tokenizer = None
    return obj


def ready(obj):
    """A copy of the vectoriser or Pipeline that :func:`portable` sent, with its tokenizer rebuilt
    (on the worker). The object the worker holds is left as it came: the scheduler may send it to
    another worker, and with a stemmer in it, it would no longer pickle (the fetch fails and the
    computation waits forever)."""
    import copy

    if hasattr(obj, "metric") and hasattr(obj, "vectorizer"):
        out = copy.copy(obj)
        out.vectorizer = ready(obj.vectorizer)
        if getattr(obj, "lexical", None) is not None:
            out.lexical = ready(obj.lexical)
        out._scorer = None
        if hasattr(out, "_lexical_cache"):
            out._lexical_cache = None
        return out
    if hasattr(obj, "_make_tokenizer") and getattr(obj, "_tokenizer", "absent") is None:
        obj = copy.copy(obj)
        obj._tokenizer = obj._make_tokenizer()
    return obj
