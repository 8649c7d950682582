"""learnsim: learn a task-specific similarity for text from the supervision you already have.

The API in two calls::

    import learnsim
    model = learnsim.fit(texts, clusters=labels)     # or pairs=, triplets=, links=
    model.search("a query", corpus, k=5)             # also similarity, match, explain, save
    model = learnsim.load("model.npz")               # a model file of learnsim fit or model.save

``fit``, ``load`` and ``Pipeline`` are imported on first use, so that ``import learnsim`` stays
light (no scikit-learn or scipy until a model is fitted or loaded).
"""
__version__ = "0.1.0"

__all__ = ["fit", "load", "Pipeline", "set_progress", "__version__"]


def fit(texts=None, *, clusters=None, pairs=None, triplets=None, links=None, queries=None, qrels=None, method=None,
        random_state=0, columns=None, text=None, label=None, text_a=None, text_b=None, score=None, **options):
    """Fit a :class:`learnsim.pipeline.Pipeline` from texts and one kind of supervision.

    Each of ``texts``, ``clusters``, ``pairs``, ``triplets`` and ``links`` may be a list, a
    tuple, a numpy array or a pandas Series; a pandas DataFrame or a Hugging Face
    ``datasets.Dataset`` (columns named by keyword or ``columns=``, else found under the
    readers' names); what :func:`learnsim.datasets.read_pairs` or
    :func:`learnsim.datasets.read_labelled_documents` return; or a file (.tsv, .csv, .jsonl,
    .parquet): a :class:`pathlib.Path` anywhere, a ``str`` only for ``pairs`` (where texts go, a
    str is a text). The same data in any form fits the same model; a missing value (NaN) in a
    text or a label is an error naming it, never the text ``"nan"``.

    Parameters
    ----------
    texts : list of str, table, Documents or pathlib.Path, optional
        The texts the supervision indexes into (optional with ``pairs`` of texts). A table's
        ``text`` column (or ``text=``); with no supervision given, its ``label`` column (or
        ``label=``) is the clusters.
    clusters, pairs, triplets, links
        Exactly one: a label per text (clusters; a Clusters, with cluster weights for mcd),
        ``(i, j, label)`` or ``(text_a, text_b, label)`` duplicate pairs (or a table, a pairs
        file, read_pairs' result), ``(anchor, closer, farther)`` index triplets, or ``(source,
        target)`` links.
    queries, qrels
        Relevance judgements instead, with ``corpus=`` (an option): ``{query id: text}`` (or a
        queries file), ``{query id: {document id: grade}}`` (or a qrels file) and ``{document
        id: text}`` (or a documents file such as BEIR's corpus.jsonl), as
        :func:`learnsim.fitting.fit` reads them.
    method : {"mcd", "film", "linklearn", "relative"}, optional
        Default: mcd for clusters, film for pairs, relative for triplets, linklearn for links.
    random_state : int, default=0
    columns : dict or str, optional
        The columns of a table of pairs (``{"text_a": "q1", "text_b": "q2", "label": "dup"}``
        or ``"text_a=q1,text_b=q2,label=dup"``, the roles of
        :func:`learnsim.datasets.parse_columns`, as ``learnsim fit --columns``), or of a table
        of documents (``{"text": ..., "label": ...}``).
    text, label, text_a, text_b, score : str or int, optional
        One column each, by name or position: ``text``, ``label`` of documents; ``text_a``,
        ``text_b``, ``label`` (0/1) or ``score`` (graded) of pairs.
    show_progress_bar : bool or None, default=None
        Progress of the fit on stderr (tqdm's bar where installed; plain lines in a log). None:
        as :func:`set_progress` says, by default on a terminal or in a notebook; True or False
        beat it for this call.
    **options
        The options of :func:`learnsim.fitting.fit` (``weighting``, ``lsi``, ``n_components``,
        ...); ``learnsim.fitting.fit`` also returns the fit's report.

    Returns
    -------
    learnsim.pipeline.Pipeline
        The same model ``learnsim fit`` would save for the same data and options.

    Raises
    ------
    ValueError, TypeError
        As :func:`learnsim.fitting.fit` for bad supervision or options.

    Examples
    --------
    >>> import learnsim
    >>> from learnsim.datasets import make_clustered_corpus
    >>> corpus = make_clustered_corpus(n_clusters=8, docs_per_cluster=10, random_state=0)
    >>> texts, labels = list(corpus.data), list(corpus.target)
    >>> model = learnsim.fit(texts, clusters=labels)
    >>> model
    Pipeline(method=MinimumClusterDistortion, scoring='learned distance')
    >>> hits = model.search(texts[0], texts, k=3)
    >>> len(hits), hits[0]["corpus_id"]          # a text is its own nearest neighbour
    (3, 0)

    The same from a pandas DataFrame, its columns named:

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"body": texts, "topic": labels})
    >>> learnsim.fit(frame, text="body", label="topic").search(texts[0], texts, k=3) == hits
    True
    """
    import importlib

    fitting = importlib.import_module("learnsim.fitting")
    return fitting.fit(texts, clusters=clusters, pairs=pairs, triplets=triplets, links=links, queries=queries,
                       qrels=qrels, method=method,
                       random_state=random_state, columns=columns, text=text, label=label, text_a=text_a,
                       text_b=text_b, score=score, **options).pipeline


def load(path):
    """Read a model file (written by ``learnsim fit`` or ``Pipeline.save``) as a
    :class:`learnsim.pipeline.Pipeline`.

    Raises
    ------
    ValueError
        When the file holds no fitted vectoriser and metric.

    Examples
    --------
    >>> import os, tempfile
    >>> import learnsim
    >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
    ...          "refund for a double charge", "app crashes on start", "crash after the update"]
    >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])   # too few to check: the strongest baseline, warns
    >>> path = os.path.join(tempfile.mkdtemp(), "model.npz")
    >>> _ = model.save(path)
    >>> loaded = learnsim.load(path)
    >>> loaded
    Pipeline(method=baseline, scoring='BM25')
    >>> loaded.search("I was charged twice", texts, k=2) == model.search("I was charged twice", texts, k=2)
    True
    """
    return _pipeline_module().Pipeline.load(path)


def set_progress(enabled=None, *, bar=None):
    """Turn progress on or off for every call of learnsim in this process, and choose its look.

    The process-wide default (like tqdm's ``disable`` or transformers'
    ``disable_progress_bar()``); a call's own ``show_progress_bar=`` beats it, and it beats the
    ``LEARNSIM_PROGRESS=1|0`` environment variable.

    Parameters
    ----------
    enabled : bool or None, default=None
        True: progress for every call that lasts, also where stderr is a log or a pipe (plain
        lines there); False: none at all; None: the default rule -- on where stderr is a
        terminal or a Jupyter notebook (or as ``LEARNSIM_PROGRESS`` says), off otherwise.
    bar : {"auto", "tqdm", "builtin", "lines"} or None, default=None (= "auto")
        "auto": ``tqdm.auto`` where tqdm is installed (a widget in a notebook, a text bar on a
        terminal), learnsim's own bar otherwise (a plain line per stage in a notebook); "tqdm":
        the same, tqdm required; "builtin": never tqdm; "lines": plain lines everywhere, one
        when a stage starts and one when it ends.

    Examples
    --------
    >>> import learnsim
    >>> learnsim.set_progress(False)      # quiet, whatever the terminal
    >>> learnsim.set_progress()           # back to the default rule
    """
    import importlib

    importlib.import_module("learnsim._utils.progress").set_progress(enabled, bar=bar)


def _pipeline_module():
    # importlib, not an import statement (here and in fit): learnsim.persistence reads
    # __version__ from this package, so a package root importing the modules built on it would
    # read as an import circle (tests/test_layout.py); at run time the package is fully
    # initialised before fit, load or Pipeline is first used
    import importlib

    return importlib.import_module("learnsim.pipeline")


# Modules of learnsim 0.1 that moved into packages (issue 31): ``import learnsim.bm25`` and
# ``from learnsim.weighting import LearnedBM25`` give the module's new home, the same module object
# (so a monkeypatch of the old name patches the code that runs). Kept for one release.
_MOVED = {
    "learnsim.base": "learnsim._utils.metric",
    "learnsim.bm25": "learnsim.text.bm25",
    "learnsim.encoders": "learnsim.text.encoders",
    "learnsim.explain": "learnsim.evaluation.explain",
    "learnsim.hybrid": "learnsim.film.hybrid",
    "learnsim.pair_classifier": "learnsim.matching.pair_classifier",
    "learnsim.scoring": "learnsim.film._search_weight",
    "learnsim.stiefel": "learnsim.film.stiefel",
    "learnsim.webkb": "learnsim.reproduce.webkb",
    "learnsim.weighting": "learnsim.linklearn._weighting",
}


class _MovedModules:
    """A meta path finder and loader that answers an old module name with its new module."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name not in _MOVED:
            return None
        from importlib.machinery import ModuleSpec

        return ModuleSpec(name, _MovedModules)

    @staticmethod
    def create_module(spec):
        import importlib

        return importlib.import_module(_MOVED[spec.name])

    @staticmethod
    def exec_module(module):
        pass


def _install_moved_modules():
    import sys

    if not any(finder is _MovedModules for finder in sys.meta_path):
        sys.meta_path.append(_MovedModules)


_install_moved_modules()


def __getattr__(name):
    if name == "Pipeline":
        return _pipeline_module().Pipeline
    raise AttributeError(f"module 'learnsim' has no attribute {name!r}")


def __dir__():
    # Pipeline is given by __getattr__ on first use: listed here too, so that tab completion
    # (IPython, Jupyter) offers it as the subpackages' lazy names are offered
    return sorted(set(globals()) | set(__all__))
