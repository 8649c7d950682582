"""One rule for the collections that learnsim's fit and index entry points take.

:func:`learnsim.fit` (texts, clusters, pairs, triplets, links), :class:`learnsim.index.Index`
(``build``, ``add``, ``update``: texts, ids, metadata) and the :class:`learnsim.pipeline.Pipeline`
methods that take texts convert what they are given here, and nowhere else:

- lists, tuples and numpy arrays, as before;
- pandas Series (their values, in order: the index is ignored);
- tables: a pandas DataFrame or a Hugging Face ``datasets.Dataset``, whose columns are named by
  keyword (``text=``, ``label=``, ``ids=``, ``metadata=`` for documents; ``text_a=``,
  ``text_b=``, ``label=``, ``score=`` for pairs, the roles of
  :func:`learnsim.datasets.parse_columns`) or by a ``columns=`` mapping, and otherwise found
  under the names the readers use (``text``, ``label``, ``id``, ``metadata``; the pair headers
  :func:`learnsim.datasets.read_pairs` recognises);
- what :func:`learnsim.datasets.read_pairs` (and the pair loaders) and
  :func:`learnsim.datasets.read_documents` / ``read_labelled_documents`` return;
- files, read by those readers (``.tsv``, ``.txt``, ``.csv``, ``.jsonl``, ``.ndjson``), or by
  pandas and pyarrow (``.parquet``): a :class:`pathlib.Path` wherever a collection goes, and a
  ``str`` only where no text can stand (``pairs=``). Where texts go a ``str`` is a text, never
  a file name: ``fit("train.tsv", ...)`` is refused as a single str rather than read.

A set or a mapping where a list of texts, labels or ids goes is a TypeError
(:func:`refuse_unordered`): a set has no order, so its items would be paired with the other
arguments at random, and a dict would give its keys (a set of pairs too: read in the order the
hash seed gives it, the same pairs fitted another model in each run) (``{id: text}`` goes as ``texts=list(d.values()),
ids=list(d)``; :func:`learnsim.fit`'s ``queries``, ``qrels`` and ``corpus`` take mappings by design).

A missing value (NaN, ``pd.NA``) in a text, label or id is an error naming the column and the
row, never the text ``"nan"``; ``None`` keeps its meaning (a label None is in no cluster, an id
None is numbered by the index).

Ids are str or int (numpy integers too; not bool, not float) and are stored and returned as
str: ``7`` and ``"7"`` are the same id (:func:`as_id`).

pandas and datasets are recognised by their attributes and never imported here (``import
learnsim`` and a fit from lists work without them); pandas is imported to read a ``.parquet``
file only.
"""
from __future__ import annotations

import numbers
import os
from pathlib import Path

__all__ = ["as_id", "check_numbering", "fit_inputs", "index_inputs", "judgements_of", "labels_of", "pairs_of",
           "refuse_unordered", "texts_of"]

# the roles of a document's columns, and the column each is looked for under when not named
DOCUMENT_ROLES = ("text", "label", "id", "metadata")
_PAIR_TEXT_ROLES = ("text_a", "text_b")
_VALUE_ROLES = ("label", "score")


# ============================================================================ the forms
def _is_dataframe(obj):
    return hasattr(obj, "columns") and hasattr(obj, "itertuples") and hasattr(obj, "iloc")


def _is_hf_dataset(obj):
    # datasets.Dataset and IterableDataset have both; a DatasetDict has a dict of column names
    if not hasattr(obj, "column_names") or _is_dataframe(obj):
        return False
    return hasattr(obj, "features") or isinstance(obj.column_names, dict)


def is_table(obj):
    """Whether ``obj`` is a table of named columns: a pandas DataFrame or a datasets.Dataset."""
    return _is_dataframe(obj) or _is_hf_dataset(obj)


def _is_documents(obj):
    # learnsim.datasets.Documents (read_documents, read_labelled_documents), not imported here:
    # that would load the readers (and scikit-learn) for every list of texts
    return all(hasattr(obj, a) for a in ("texts", "ids", "labels", "line_numbers")) and not is_table(obj)


def _is_pair_bunch(obj):
    # what read_pairs and the pair loaders return: the distinct texts and the Pairs into them
    return hasattr(obj, "texts") and hasattr(obj, "pairs") and not is_table(obj) and not _is_documents(obj)


def _is_array(obj):
    # numpy arrays and pandas Series (and Index): values in order, the Series index ignored
    return hasattr(obj, "ndim") and hasattr(obj, "tolist") and not isinstance(obj, (str, bytes))


def is_missing(value):
    """NaN (float or numpy), ``pd.NA`` and ``pd.NaT``: a missing cell; ``None`` is not one."""
    if isinstance(value, numbers.Number):
        try:
            return value != value
        except TypeError:   # pragma: no cover - a number that cannot compare
            return False
    return type(value).__name__ in ("NAType", "NaTType")


def _kind(obj):
    if _is_dataframe(obj):
        return "a DataFrame"
    if _is_hf_dataset(obj):
        return "a datasets.Dataset"
    return type(obj).__name__


def _plain(value):
    """Python values of a cell: numpy scalars and arrays (parquet list columns) as int, float,
    list; dicts and lists converted inside."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return _plain(value.tolist()) if hasattr(value, "ndim") and value.ndim else value.tolist()
    return value


def _first_missing(values):
    return next((i for i, v in enumerate(values) if is_missing(v)), None)


class Table:
    """The columns of a pandas DataFrame or a datasets.Dataset, read without importing either.

    Parameters
    ----------
    source : pandas.DataFrame or datasets.Dataset
    what : str
        How messages name it (``"pairs"``, ``"texts"``).
    """

    def __init__(self, source, what):
        self.what = what
        self._levels = []       # (name, values) of a DataFrame's named index levels
        if _is_dataframe(source):
            self.kind = "DataFrame"
            keys = list(source.columns)
            self._get = lambda key: source[key].tolist()
            # a named index is a column to pandas' own writers (to_csv, to_parquet): the ids of
            # df.set_index("id") were dropped without a word and the documents numbered instead.
            # Found by name only, so that a table's only column, or its columns in order, stay
            # what they were
            names = list(getattr(source.index, "names", None) or [])
            self._levels = [(str(n), lambda n=n: source.index.get_level_values(n).tolist())
                            for n in names if n is not None and n not in keys]
        else:
            names = source.column_names
            if isinstance(names, dict):
                splits = ", ".join(map(repr, names))
                raise TypeError(f"{what} is a datasets.DatasetDict of splits ({splits}); pass one split, e.g. "
                                f"{what}=ds[{next(iter(names), 'train')!r}]")
            if not hasattr(source, "__len__") or names is None:
                raise TypeError(f"{what} is a streamed datasets.IterableDataset: it has no length to read; "
                                "load it as a Dataset (datasets.Dataset.from_list(list(ds)), or "
                                "load_dataset(..., streaming=False))")
            self.kind = "Dataset"
            keys = list(names)
            self._get = lambda key: _values(source[key])
        self.keys = keys
        self.names = [str(k) for k in keys]
        self.n = len(source)
        self._cache = {}

    def column(self, position):
        """The values of the column at ``position`` (past the columns: a named index level), as
        Python values."""
        if position not in self._cache:
            level = position - len(self.keys)
            self._cache[position] = list(self._levels[level][1]() if level >= 0 else self._get(self.keys[position]))
        return self._cache[position]

    def name(self, position):
        """The name of the column (or named index level) at ``position``."""
        level = position - len(self.keys)
        return self._levels[level][0] if level >= 0 else self.names[position]

    def describe(self):
        return ", ".join(map(repr, self.names)) or "none"

    def find(self, role, given=None, defaults=(), required=True, only=False):
        """The position of the column of ``role``: ``given`` (a name or a 0-based position), else
        the first of ``defaults`` present, else (``only``) the table's only column; None when
        it is not there and not ``required``."""
        if given is not None:
            if isinstance(given, bool) or not isinstance(given, (str, numbers.Integral)):
                raise TypeError(f"{role}= must name a column of {self.what} (a str) or give its position (an int); "
                                f"got {type(given).__name__} {given!r}")
            if isinstance(given, numbers.Integral):
                if not 0 <= given < len(self.names):
                    raise ValueError(f"{role}={given}: {self.what} has {len(self.names)} column(s), positions "
                                     f"0..{len(self.names) - 1}")
                return int(given)
            position = self._lookup(given, role)
            if position is None:
                raise ValueError(f"{self.what} has no column named {given!r} (for {role}); its columns are "
                                 f"{self.describe()}")
            return position
        for name in defaults:
            position = self._lookup(name, role)
            if position is not None:
                return position
        if only and len(self.names) == 1:
            return 0
        if required:
            looked = " or ".join(map(repr, defaults)) if defaults else "its"
            raise ValueError(f"{self.what} ({self.kind}) has no {looked} column for {role} (its columns are "
                             f"{self.describe()}); name it: {role}='...'")
        return None

    def _lookup(self, name, role):
        exact = [i for i, n in enumerate(self.names) if n == name]
        if not exact:
            exact = [i for i, n in enumerate(self.names) if n.strip().lower() == str(name).strip().lower()]
        if not exact:
            levels = [n for n, _ in self._levels]
            exact = [len(self.keys) + j for j, n in enumerate(levels) if n == name] or \
                [len(self.keys) + j for j, n in enumerate(levels) if n.strip().lower() == str(name).strip().lower()]
        if len(exact) > 1:
            raise ValueError(f"{self.what}: {len(exact)} columns are named {name!r} (for {role}), which is ambiguous; "
                             "rename them, or give the column's position")
        return exact[0] if exact else None

    def present(self, position, role):
        """The values of a column in which no cell is missing."""
        values = self.column(position)
        row = _first_missing(values)
        if row is not None:
            name = self.name(position)
            raise ValueError(f"{self.what}: column {name!r} ({role}), row {row}, is missing (NaN); a missing {role} is "
                             f"never read as the text 'nan': drop or fill those rows (e.g. "
                             f"df.dropna(subset=[{name!r}]))")
        return values


def _values(column):
    """A datasets.Dataset column as a list (a list, a datasets Column, or an array in a numpy
    format)."""
    if hasattr(column, "tolist"):
        return column.tolist()
    return list(column)


# ============================================================================ files
def _suffix(path):
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz" and len(suffixes) > 1:
        return suffixes[-2]
    return suffixes[-1] if suffixes else ""


def read_parquet(path):
    """A ``.parquet`` file as a pandas DataFrame (pandas and pyarrow needed: a clear ImportError
    names them): the readers' own (learnsim.datasets._base.read_parquet_frame)."""
    from .datasets._base import read_parquet_frame

    return read_parquet_frame(Path(path).expanduser())


def _documents_file(path, labelled, what, table=True):
    """Documents of a documents file, or a DataFrame for a .parquet read as a ``table`` (whose
    columns a caller chooses)."""
    path = Path(path).expanduser()
    if table and _suffix(path) == ".parquet":
        return read_parquet(path)
    from .datasets import read_documents, read_labelled_documents

    return (read_labelled_documents if labelled else read_documents)(path)


# ============================================================================ texts, labels, ids
def texts_of(values, name="texts"):
    """The list of texts ``values`` is, by the rule: a Series or 1-d array, the text column of a
    table (``text``, or its only column), the texts of a Documents, a documents file given as a
    :class:`pathlib.Path`. A missing value is a ValueError naming it; anything else (a str, a
    dict, a list) is returned as given, for the caller's own checks.

    Examples
    --------
    >>> import numpy as np
    >>> texts_of(np.array(["a b", "c d"]))
    ['a b', 'c d']
    >>> texts_of(["a b", float("nan")])
    Traceback (most recent call last):
        ...
    ValueError: texts[1] is missing (NaN): give a str (drop or fill the missing texts)
    """
    if isinstance(values, os.PathLike):
        values = _documents_file(values, False, name)
    refuse_unordered(values, name, "texts")
    if _is_documents(values):
        values = list(values.texts)
    elif is_table(values):
        table = Table(values, name)
        position = table.find("text", None, ("text",), required=False, only=True)
        if position is None:
            raise ValueError(f"{name} ({table.kind}) has no 'text' column (its columns are {table.describe()}): "
                             f"pass its column of texts ({name}=df['...']) or name it 'text'")
        return table.present(position, "text")
    elif _is_array(values):
        if values.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional (one text per entry); got an array of shape "
                             f"{tuple(values.shape)}")
        values = values.tolist()
    if isinstance(values, (list, tuple)):
        row = _first_missing(values)
        if row is not None:
            raise ValueError(f"{name}[{row}] is missing (NaN): give a str (drop or fill the missing texts)")
    return values


def refuse_unordered(values, name, what):
    """A TypeError for a set or a mapping given where a list of ``what`` goes: a set has no
    order, so texts, ids and labels given as sets would be paired at random (by the hash seed),
    and a dict would give its keys. Anything else passes.

    Examples
    --------
    >>> refuse_unordered(["a", "b"], "texts", "texts")
    >>> refuse_unordered({"d1": "a text"}, "texts", "texts")
    Traceback (most recent call last):
        ...
    TypeError: texts must be a list of texts; got a dict, whose keys would be read (for {id: text}, pass list(d.values()) with ids=list(d))
    """
    from collections.abc import Mapping, Set

    if isinstance(values, (Set, Mapping)) and not is_table(values) and not _is_documents(values):
        kind = "dict" if isinstance(values, dict) else type(values).__name__
        if isinstance(values, Mapping):
            raise TypeError(f"{name} must be a list of {what}; got a {kind}, whose keys would be read (for "
                            "{id: text}, pass list(d.values()) with ids=list(d))")
        raise TypeError(f"{name} must be a list of {what}; got a {kind}, which has no order (its items would be "
                        "paired with the other arguments at random): pass a list, e.g. sorted(...)")


def labels_of(values, name="clusters"):
    """Cluster labels by the rule: a Series or array as its values, whole-number floats (a
    pandas integer column with missing values turns float) as their int; a missing value (NaN,
    ``pd.NA``) is None, no cluster. pandas stores the None of a label column ``[1, None, 2]`` as
    NaN, so the user's None, which is no cluster, can reach here only so; and the readers read
    the same frame (read_labelled_documents, its .parquet) so: refused here, ``learnsim.fit(df,
    label=...)`` and ``fit(Path("d.parquet"))`` disagreed on one table. A text in no cluster still
    shapes the features; it is not supervision."""
    refuse_unordered(values, name, "labels")
    if is_table(values):
        raise TypeError(f"{name} is {_kind(values)}: pass its label column ({name}=df['label']), or pass the "
                        "table as texts and name its label column (label='...')")
    if _is_array(values):
        values = values.tolist()
    if not isinstance(values, (list, tuple)):
        return values
    out = []
    for i, label in enumerate(values):
        if is_missing(label):
            label = None
        if isinstance(label, float) and label.is_integer():
            label = int(label)
        out.append(label)
    return out


def as_id(value, where="id", missing=None):
    """A document id by the rule: a non-empty str, or an int (numpy integers too; not bool, not
    float) as its decimal str, so that ``7`` and ``"7"`` are the same id; None stays None (the
    index numbers the document). ``missing``: what to do instead of a NaN, said in the error
    (by default a written document's remedy, None; a lookup names its own).

    Examples
    --------
    >>> as_id(7), as_id("7"), as_id("a/b"), as_id(None)
    ('7', '7', 'a/b', None)
    >>> as_id(7.0)
    Traceback (most recent call last):
        ...
    TypeError: id must be a non-empty str or an int (7 and '7' are the same id); got float 7.0 ...
    """
    if value is None:
        return None
    if isinstance(value, str):
        if not value:
            raise TypeError(f"{where} must be a non-empty str or an int; got ''")
        if not value.isascii():
            from ._utils.inputs import check_text

            check_text(value, where)    # a lone surrogate: no UTF-8 can store it
        return str(value)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))
    if is_missing(value):
        raise ValueError(f"{where} is missing (NaN); " + (missing or "give an id (a str or an int) or None (the "
                                                          "index numbers the document)"))
    hint = ""
    if isinstance(value, float):
        hint = " (a pandas integer column with missing values turns float: fill them, or .astype('Int64'))"
    elif isinstance(value, (bytes, bytearray)):
        # an id read from a binary file or a socket: its bytes are no id until decoded
        hint = " (decode it first, e.g. value.decode('utf-8'))"
    raise TypeError(f"{where} must be a non-empty str or an int (7 and '7' are the same id); got "
                    f"{type(value).__name__} {value!r}{hint}")


def _listed(values):
    """A Series or an array as a list; anything else as given."""
    return values.tolist() if _is_array(values) and getattr(values, "ndim", 1) == 1 else values


# ============================================================================ documents
class DocumentsInput:
    """The texts, labels, ids and metadata of documents given as a table, a file or a
    Documents; each None where the source has none."""

    def __init__(self, texts, labels=None, ids=None, metadata=None):
        self.texts, self.labels, self.ids, self.metadata = texts, labels, ids, metadata


def _document_columns(columns, keywords):
    """``{role: column}`` of a documents ``columns=`` (a dict, or ``"text=body,id=doc"``) and the
    keywords given (``text=`` ...); a role named twice is a ValueError."""
    spec = {}
    if columns is not None:
        if isinstance(columns, str):
            items = []
            for item in columns.split(","):
                role, eq, column = item.partition("=")
                if not eq or not column.strip():
                    raise ValueError(f"columns {columns!r}: {item.strip()!r} is not role=column, e.g. 'text=body'")
                column = column.strip()
                items.append((role.strip(), int(column) if column.isdigit() else column))
        elif isinstance(columns, dict):
            items = list(columns.items())
        else:
            raise TypeError(f"columns must be a dict {{role: column}} or a string such as 'text=body,id=doc_id'; "
                            f"got {type(columns).__name__}")
        for role, column in items:
            role = "id" if role == "ids" else role
            if role not in DOCUMENT_ROLES:
                raise ValueError(f"columns: unknown role {role!r}; the roles of documents are "
                                 f"{', '.join(DOCUMENT_ROLES)}")
            spec[role] = column
    for role, column in keywords.items():
        if column is None:
            continue
        if role in spec:
            raise ValueError(f"the {role} column is named twice: by columns= and by {role}=")
        spec[role] = column
    return spec


def _chooses_columns(columns, keywords):
    """Whether documents_of's ``columns`` or ``keywords`` name columns of a table."""
    ids, metadata = keywords.get("ids"), keywords.get("metadata")
    return (columns is not None or keywords.get("text") is not None or keywords.get("label") is not None
            or (isinstance(ids, (str, numbers.Integral)) and not isinstance(ids, bool))
            or isinstance(metadata, str)
            or (isinstance(metadata, (list, tuple)) and bool(metadata) and all(isinstance(m, str) for m in metadata)))


def documents_of(source, *, name="texts", columns=None, labelled=False, **keywords):
    """The documents of a table, a file (a :class:`pathlib.Path`) or a Documents, or None for
    any other ``source`` (a list of texts: the caller's).

    ``keywords``: ``text``, ``label``, ``ids`` (a column name, or a sequence of ids), ``metadata``
    (a list of column names, the name of a column of dicts, or a sequence of dicts). Without
    them a table's columns are ``text`` (or its only column), ``label`` (needed when
    ``labelled``), ``id`` and ``metadata`` (a column of dicts), where present.
    """
    if isinstance(source, os.PathLike):
        # a .parquet whose columns nothing chooses is read as read_documents reads it, its other
        # columns each row's metadata as a .jsonl's other fields are (as a table, whose metadata
        # is a "metadata" column, all of them were dropped)
        source = _documents_file(source, labelled, name, table=_chooses_columns(columns, keywords))
        if not is_table(source):
            given = [k + "=" for k in ("text", "label") if keywords.get(k) is not None]
            if given or columns is not None:
                raise TypeError(f"{' and '.join(given) or 'columns='} choose the columns of a table; a {name} file "
                                "is read in its own layout (learnsim.datasets.read_documents)")
    if _is_documents(source):
        labels = source.labels
        if labelled and labels is None:
            raise ValueError(f"{name}: the documents have no labels; give clusters= (one label per text) or "
                             "read them with read_labelled_documents")
        ids = keywords.get("ids")
        ids = list(source.ids) if ids is None else _listed(ids)
        metadata = keywords.get("metadata")
        metadata = source.metadata if metadata is None else _listed(metadata)
        return DocumentsInput(list(source.texts), None if labels is None else list(labels), ids,
                              None if metadata is None else list(metadata))
    if not is_table(source):
        return None
    table = Table(source, name)
    ids, metadata = keywords.get("ids"), keywords.get("metadata")
    named = {"text": keywords.get("text"), "label": keywords.get("label")}
    if isinstance(ids, (str, numbers.Integral)) and not isinstance(ids, bool):
        named["id"] = ids
        ids = None
    if isinstance(metadata, str):
        named["metadata"] = metadata
        metadata = None
    spec = _document_columns(columns, named)
    texts = table.present(table.find("text", spec.get("text"), ("text",), only=True), "text")
    labels = None
    if labelled or "label" in spec:
        labels = labels_of(table.column(table.find("label", spec.get("label"), ("label",))),
                           f"{name} column 'label'")
    if ids is None:
        position = table.find("id", spec.get("id"), ("id",), required="id" in spec)
        if position is not None:
            ids = [as_id(v, f"{name}: column {table.name(position)!r} (id), row {i},")
                   for i, v in enumerate(table.present(position, "id"))]
    else:
        ids = _listed(ids)
    if metadata is None and isinstance(spec.get("metadata"), (list, tuple)):
        metadata = _metadata_columns(table, spec["metadata"])
    elif metadata is None:
        position = table.find("metadata", spec.get("metadata"), ("metadata",), required="metadata" in spec)
        if position is not None:
            metadata = [None if v is None or is_missing(v) else _plain(v) for v in table.column(position)]
    elif isinstance(metadata, (list, tuple)) and metadata and all(isinstance(m, str) for m in metadata):
        metadata = _metadata_columns(table, metadata)
    else:
        metadata = _listed(metadata)
    return DocumentsInput(texts, labels, ids, metadata)


def _metadata_columns(table, names):
    """Each row's metadata of the columns ``names``: ``{name: value}``, a missing cell left out."""
    positions = [table.find("metadata", n) for n in names]
    columns = [(table.name(p), table.column(p)) for p in positions]
    return [{key: _plain(values[r]) for key, values in columns if not is_missing(values[r])}
            for r in range(table.n)]


def index_inputs(texts, ids=None, metadata=None, *, text=None, columns=None, need_ids=False):
    """(texts, ids, metadata) of :meth:`learnsim.index.Index.build`, ``add`` and ``update`` by
    the rule: a table's text column (``text=``), its id column (``ids=`` a column name, or
    ``id``) and its metadata (``metadata=`` a list of column names or the name of a column of
    dicts, or ``metadata``); a file (a :class:`pathlib.Path`) or a Documents with their ids and
    metadata; otherwise the texts, ids and metadata as given (a Series or an array as a list).
    """
    docs = documents_of(texts, name="texts", columns=columns, text=text, ids=ids, metadata=metadata)
    if docs is None:
        if text is not None or columns is not None:
            raise TypeError(f"{'text=' if text is not None else 'columns='} names a column: it applies where texts is "
                            f"a DataFrame, a datasets.Dataset or a file; texts is {_kind(texts)}")
        if isinstance(metadata, (list, tuple)) and metadata and all(isinstance(m, str) for m in metadata):
            raise TypeError("metadata names columns (a list of str) only where texts is a DataFrame or a "
                            "datasets.Dataset; give one dict (or None) per text")
        ids = _listed(ids)
        return texts_of(texts), ids, _listed(metadata)
    if need_ids and docs.ids is None:
        raise ValueError("texts has no 'id' column: name the column of ids (ids='...')")
    return docs.texts, docs.ids, docs.metadata


# ============================================================================ pairs
def read_pairs_either(source, **kwargs):
    """read_pairs, where a label column of other values than 0/1 is read as graded scores (as
    ``learnsim fit --pairs`` reads a file)."""
    from .datasets import DocumentFormatError, read_pairs

    try:
        return read_pairs(source, **kwargs)
    except DocumentFormatError as exc:
        if "for a binary label" not in str(exc):
            raise
        try:
            return read_pairs(source, label_kind="graded", **kwargs)
        except DocumentFormatError as graded:
            # a label that is a number other than 0 and 1 makes the file graded: the graded
            # reading's error names the real problem and its line (a NaN on line 9, not "0.25"
            # on line 2); a label that is no number keeps the binary reading's
            if getattr(exc, "numeric", False):
                raise graded from None
            raise exc from None


def _pair_spec(columns, names):
    """The column choice of pairs: ``columns=`` (a spec of parse_columns) with the role keywords
    (``text_a=`` ...) added; None when neither is given."""
    if not names:
        return columns
    from .datasets import parse_columns

    spec = {}
    if columns is not None:
        spec = dict(parse_columns(columns))
    for role, column in names.items():
        if role in spec:
            raise ValueError(f"the {role} column is named twice: by columns= and by {role}=")
        spec[role] = column
    return spec


def pairs_of(source, *, texts_given=False, columns=None, **names):
    """Pairs given as a table, a file or read_pairs' result, by the rule; any other ``source``
    (a list of tuples) as given.

    Returns the Bunch of :func:`learnsim.datasets.read_pairs` (``.texts``, ``.pairs``) for pairs
    of texts, or, with ``texts_given``, the rows ``(i, j, label)`` of a table whose two text
    columns hold indices into the texts. ``names``: the role keywords (``text_a``, ``text_b``,
    ``label``, ``score``, ``id_a``, ``id_b``, ``pair_id``), each a column name or position.
    """
    names = {role: column for role, column in names.items() if column is not None}
    if _is_pair_bunch(source):
        if names or columns is not None:
            raise TypeError("pairs read by read_pairs are already parsed: name their columns when reading them")
        return _labelled(source)
    if isinstance(source, (str, os.PathLike)):
        if isinstance(source, str) and not source.strip():
            raise ValueError("pairs is an empty string; give a file, a list of (text_a, text_b, label) or a table")
        path = Path(source).expanduser()
        if _suffix(path) == ".parquet":
            source = read_parquet(path)
        else:
            if texts_given:
                raise ValueError("pairs read from a file carry their own texts; leave texts out (or give the pairs as "
                                 "(i, j, label) indices into texts)")
            return _labelled(read_pairs_either(path, columns=_pair_spec(columns, names)))
    if not is_table(source):
        if names or columns is not None:
            given = ", ".join(k + "=" for k in names) or "columns="
            raise TypeError(f"{given} name columns of pairs given as a DataFrame, a datasets.Dataset or a file; "
                            f"pairs is {_kind(source)}")
        return source
    from .datasets import pair_columns

    table = Table(source, "pairs")
    spec = _pair_spec(columns, names)
    if spec is not None and not all(role in spec for role in _PAIR_TEXT_ROLES):
        # only some roles named (label='dup'): the texts from the recognised header names
        try:
            found = pair_columns(table.names, where="pairs")
        except ValueError:
            found = {}
        for role in _PAIR_TEXT_ROLES:
            if role not in spec and role in found:
                spec[role] = found[role]
    roles = pair_columns(table.names, spec, where=f"pairs ({table.kind})")
    value = next((role for role in _VALUE_ROLES if role in roles), None)
    if value is None:
        raise ValueError(f"pairs ({table.kind}) has no label or score column (its columns are {table.describe()}); "
                         "name it: label='...' (1 = duplicate, 0 = not) or score='...' (a graded similarity)")
    cells = [table.present(roles[role], role) for role in _PAIR_TEXT_ROLES + (value,)]
    rows = list(zip(*cells))
    if texts_given:
        return rows
    return _labelled(read_pairs_either(rows, columns={"text_a": 0, "text_b": 1, value: 2}))


def _labelled(data):
    if data.pairs is None:
        raise ValueError("the pairs have no label or score: a similarity is learned from pairs labelled duplicate "
                         "(1) or not (0), or graded with a score")
    return data


# ============================================================================ triplets, links
def index_rows_of(source, name, roles):
    """Index tuples (triplets, links) given as a table: its columns named ``roles`` (anchor,
    closer, farther; source, target), or its only ``len(roles)`` columns in order. Any other
    ``source`` as given (a Series or an array as a list of rows)."""
    if isinstance(source, (str, os.PathLike)):
        raise TypeError(f"{name} must be tuples of indices into texts (a list, an array or a table), not a file "
                        f"name; learnsim fit --{name} reads a file of them")
    if not is_table(source):
        return source
    table = Table(source, name)
    found = [table.find(role, None, (role,), required=False) for role in roles]
    if None in found:
        if len(table.names) != len(roles):
            raise ValueError(f"{name} ({table.kind}) has the columns {table.describe()}: give {len(roles)} columns, "
                             f"{', '.join(roles)} (by name, or in that order)")
        found = list(range(len(roles)))
    return list(zip(*(table.present(p, role) for p, role in zip(found, roles))))


# ============================================================================ fit
def fit_inputs(texts, clusters=None, pairs=None, triplets=None, links=None, *, columns=None, text=None, label=None,
               text_a=None, text_b=None, score=None):
    """(texts, clusters, pairs, triplets, links) of :func:`learnsim.fit` by the rule.

    ``pairs`` comes back as read_pairs' Bunch when it was a table of text pairs, a file or that
    Bunch; with texts given, a table's pairs come back as ``(i, j, label)`` rows. A table (or
    file, or Documents) as ``texts`` gives its text column, and its label column as the
    clusters when no supervision is given. ``columns``, ``text_a``, ``text_b``, ``score`` name
    the columns of pairs; ``text`` and ``label`` those of documents (``label`` those of pairs
    when pairs is a table).
    """
    clusters, pairs, triplets, links = _plain_supervision(texts, clusters, pairs, triplets, links)
    pair_names = {"text_a": text_a, "text_b": text_b, "score": score}
    pair_source = pairs is not None and (is_table(pairs) or _is_pair_bunch(pairs) or isinstance(pairs, (str, os.PathLike)))
    if isinstance(pairs, (set, frozenset)):
        # read in the set's order, which the hash seed of str changes from one process to
        # another: the same pairs and random_state fitted another model in each run
        raise TypeError(f"pairs must be a list of (text_a, text_b, label) tuples; got a {type(pairs).__name__}, whose "
                        "order (and so the fit's held-out pairs and triplets) changes with Python's hash seed from one "
                        "run to another: pass a list, e.g. sorted(...)")
    if pair_source:
        if text is not None and not (is_table(texts) or _is_documents(texts) or isinstance(texts, os.PathLike)):
            raise TypeError("text= names the text column of documents; the text columns of pairs are text_a= and "
                            "text_b=")
        pairs = pairs_of(pairs, texts_given=texts is not None, columns=columns, label=label, **pair_names)
        if _is_pair_bunch(pairs) and texts is not None:
            raise ValueError("pairs read by read_pairs carry their own texts; leave texts out")
        columns = label = None
    else:
        given = [k + "=" for k, v in pair_names.items() if v is not None]
        if given:
            raise TypeError(f"{', '.join(given)} name columns of pairs given as a DataFrame, a datasets.Dataset or a "
                            f"file; pairs is {'not given' if pairs is None else _kind(pairs)}")
    if isinstance(texts, str):
        raise TypeError("texts must be a list of str; got a single str (a str is a text, never a file name: "
                        "pass pathlib.Path(...) to read a documents file)")
    unsupervised = all(v is None for v in (clusters, pairs, triplets, links))
    docs = None
    if texts is not None:
        docs = documents_of(texts, name="texts", columns=columns, labelled=unsupervised, text=text, label=label)
    if docs is None:
        named = [k for k, v in (("text=", text), ("label=", label), ("columns=", columns)) if v is not None]
        if named:
            raise TypeError(f"{' and '.join(named)} name columns: they apply where texts (or pairs) is a DataFrame, a "
                            "datasets.Dataset or a file (pathlib.Path)"
                            + ("" if texts is None else f"; texts is {_kind(texts)}"))
        if texts is not None:
            texts = texts_of(texts)
    else:
        texts = docs.texts
        if unsupervised:
            clusters = docs.labels
        elif label is not None:
            raise ValueError("label= names the column of the clusters, which are the supervision only when no other "
                             "(clusters=, pairs=, triplets=, links=) is given")
    if clusters is not None:
        clusters = labels_of(clusters)
    triplets = index_rows_of(triplets, "triplets", ("anchor", "closer", "farther"))
    links = index_rows_of(links, "links", ("source", "target"))
    _refuse_all_blank(texts)
    return texts, clusters, pairs, triplets, links


def _plain_supervision(texts, clusters, pairs, triplets, links):
    """learnsim's own supervision objects (Clusters, Pairs, Triplets, Links: what the estimators
    take and the converters make) as the plain lists :func:`learnsim.fit` reads: they were refused
    ("links must be a list of (source, target) tuples; got Links"). An object over another number
    of items than the texts is refused naming both. Cluster weights are not in the plain lists:
    learnsim.fit takes them from the object (learnsim._cluster_weights)."""
    given = [v for v in (clusters, pairs, triplets, links) if v is not None]
    if not any(type(v).__module__.startswith("learnsim.supervision") for v in given):
        return clusters, pairs, triplets, links
    from .supervision import Clusters, Links, Pairs, Triplets

    n_texts = len(texts) if isinstance(texts, (list, tuple)) else None

    def same_items(n_items, name):
        if n_texts is not None and n_items != n_texts:
            raise ValueError(f"{name} is over {n_items} items but texts has {n_texts} texts; its items are the texts, "
                             "by position")

    if isinstance(clusters, Clusters):
        same_items(clusters.n_items, "clusters (a Clusters)")
        # a cluster's original label where the file readers would take it (int or str), else its id
        names = [c if isinstance(c, str) or (isinstance(c, numbers.Integral) and not isinstance(c, bool)) else int(i)
                 for c, i in zip(clusters.classes_.tolist(), clusters.cluster_ids.tolist())]
        name_of = dict(zip(clusters.cluster_ids.tolist(), names))
        clusters = [None if c < 0 else name_of[c] for c in clusters.labels.tolist()]
    if isinstance(pairs, Pairs):
        grades = pairs.scores.tolist() if pairs.is_graded else [int(v) for v in pairs.labels.tolist()]
        pairs = [(i, j, g) for (i, j), g in zip(pairs.indices.tolist(), grades)]
    if isinstance(triplets, Triplets):
        triplets = [tuple(row) for row in triplets.indices.tolist()]
    if isinstance(links, Links):
        same_items(links.n_items, "links (a Links)")
        links = [tuple(row) for row in links.edges.tolist()]
    return clusters, pairs, triplets, links


def _refuse_all_blank(texts):
    """A ValueError when every text is empty or white space: such a fit can only fail (no word to
    learn from), and it failed late, after work that grows with the clusters' sizes (a million
    empty texts in 4 clusters ran 40 s to a MemoryError at 3.8 GB). Texts of another type are
    left to the fit's own checks, which name them."""
    if (isinstance(texts, (list, tuple)) and texts and all(isinstance(t, str) for t in texts)
            and not any(t.strip() for t in texts)):
        raise ValueError(f"texts: all {len(texts)} texts are empty or blank (white space only): there is nothing "
                         "to learn a similarity from")


def is_pair_data(obj):
    """Whether ``obj`` is read_pairs' result (the texts and the Pairs into them)."""
    return _is_pair_bunch(obj)


def check_numbering(path, qrels, ids, queries="the queries"):
    """Refuse query numbers of ``qrels`` that are neither all ``ids`` nor all positions 1..n in
    them where more are positions than ids: Cranfield's numbering by position with one stray
    line fell back to numbering by id, the judgements whose numbers are no id left out with a
    note and those whose numbers are ids of other queries (cran.qry skips numbers) fitted to the
    wrong queries without a word. ``queries`` names the queries in the message (their file).
    The one check of learnsim.fit's judgements and ``learnsim evaluate``'s."""
    from ._utils.inputs import id_by_value, short_repr

    # an id as the qrels reader gives it: an all-digit one without its leading zeros ("007" is 7)
    known = {id_by_value(str(q)) for q in ids}
    unknown = [q for q in qrels if str(q) not in known]
    off = [q for q in qrels if not (str(q).isascii() and str(q).isdigit() and 1 <= int(q) <= len(ids))]
    if unknown and len(off) < len(unknown):
        within = "them" if queries == "the queries" else "it"
        raise ValueError(f"{path}: its query numbers are neither all ids of {queries} ({len(unknown)} are not, "
                         f"e.g. {short_repr(unknown[0])}) nor all positions 1..{len(ids)} in {within} ({len(off)} are "
                         "not" + (f", e.g. {short_repr(off[0])})" if off else ")")
                         + "; which is meant cannot be told: correct the file")


def judgements_of(queries, qrels, corpus, info=None):
    """:func:`learnsim.supervision.judgements_from` of judgements given as files or in memory:
    a path (str or path-like) is read by :func:`learnsim.datasets.read_queries`,
    :func:`learnsim.datasets.read_qrels` or :func:`learnsim.datasets.read_id_texts`; a
    :class:`learnsim.datasets.Documents` with ids is its ids and texts. ``info`` (a dict)
    receives :func:`learnsim.datasets.read_qrels`'s, where qrels is a file. ``corpus`` may be a
    callable, called for the collection after the judgements are read: a damaged qrels file is
    named before a long read of the documents."""
    import os

    from .datasets import read_id_texts, read_qrels, read_queries
    from .supervision import judgements_from

    if isinstance(queries, (str, os.PathLike)):
        queries = read_queries(queries)
    qrels_path = None
    if isinstance(qrels, (str, os.PathLike)):
        qrels_path = qrels
        # numbered as evaluate numbers them: by id, or by position in the queries where every
        # number is one and not every one an id (Cranfield's cranqrel against cran.qry)
        try:
            ids = list(dict(queries))
        except (TypeError, ValueError):
            ids = None          # not (id, text) pairs: judgements_from names what is wrong
        info = {} if info is None else info
        qrels = read_qrels(qrels, query_ids=ids, unknown="keep", info=info) if ids else read_qrels(qrels, info=info)
        if ids and info.get("numbering") == "id":
            check_numbering(qrels_path, qrels, ids)
    if callable(corpus):
        corpus = corpus()
    if isinstance(corpus, (str, os.PathLike)):
        corpus = list(zip(*read_id_texts(corpus, "documents")))
    elif _is_documents(corpus):
        if any(i is None for i in corpus.ids):
            raise ValueError("corpus: judgements name documents by id; every document needs an id")
        corpus = list(zip(corpus.ids, corpus.texts))
    try:
        return judgements_from(queries, qrels, corpus)
    except ValueError as exc:
        if qrels_path is None or not str(exc).startswith("no judgement names"):
            raise
        # the judgements and the collection do not meet: say which file (the command line's one
        # line named none)
        raise ValueError(f"{qrels_path}: {exc}; do the files name queries and documents by the same ids?") from None
