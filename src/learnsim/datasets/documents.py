"""Readers for the document files the ``learnsim`` command line takes.

Three kinds of file, told apart by their extension:

TAB-separated (``.tsv``, ``.txt``)
    Labelled documents: one ``label<TAB>text`` per line. The text is everything after the
    first TAB. A first line ``label<TAB>text`` is a header and skipped, as is one of two column
    names of which one is ``label`` or ``text`` (GLUE's ``sentence<TAB>label``, the text first,
    read as ``text<TAB>label``; ``category<TAB>text``); blank lines are skipped. Under a header
    of three or more columns, one ``label`` and one a text column (``id<TAB>label<TAB>text``,
    pandas' ``<TAB>label<TAB>text``), the columns are read by name as a ``.csv`` file's.
    An unlabelled collection (a corpus to search): ``id<TAB>text`` per line (a header naming
    three or more columns, ``id<TAB>text<TAB>label`` or ``docid<TAB>title<TAB>text``, or
    pandas' ``<TAB>id<TAB>text``, is read by column name as a ``.csv`` is; a header
    ``id<TAB>text`` or ``label<TAB>text`` is skipped), or, for a ``.txt`` file in which some
    line has no TAB, simply one document per line (a first line that is just ``text``, the
    column name pandas writes above a Series' values, is a header). Under a first line ``text<TAB>label`` (or,
    for a collection, ``text<TAB>id``) the columns are read that way round: the label or id
    after the last TAB. Plain TSV has no quoting: a text that
    starts with ``"`` is kept verbatim (``quoting="csv"`` reads CSV-quoted fields instead).
Comma-separated (``.csv``)
    A header line naming the columns, then one document per record, CSV-quoted (a quoted
    field may hold commas, doubled quotes and line breaks): ``label,text`` for labelled
    documents, ``id,text`` for a collection (``id``, ``label`` and ``text`` in any order;
    other columns are the metadata of a collection).
JSON Lines (``.jsonl``, ``.ndjson``)
    One object per line: ``{"text": ..., "label": ..., "id": ...}``. ``label`` is required for
    labelled documents, ``id`` is always optional. A record without ``"text"`` reads Pyserini's
    ``"contents"`` as its text (its JsonCollection layout, ``{"id": ..., "contents": ...}``).

The label ``-1`` (or ``null`` in JSON; ``-1.0`` in a TSV or ``.csv`` field, as pandas writes a float
label column) marks a document that belongs to no cluster: it still
shapes the features and the basis of a learned metric, but is not supervision. Labels are
compared as strings, so ``3`` and ``"3"`` are the same cluster. A TSV or ``.csv`` file whose every
label is a whole number written as a float (``1.0``, ``2.0``: pandas' float label column) reads
the labels ``"1"``, ``"2"``, as the same frame in memory or as ``.parquet`` does.

Every problem is reported as a :class:`DocumentFormatError` naming the file and line. A line
ends at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (as in Python's universal newlines), and may hold
at most :data:`learnsim.datasets._decode.MAX_LINE_BYTES` (64 MiB). In JSON Lines an ``"id"``
that is given must not be the empty string, and metadata may not hold ``NaN`` or infinity
(which Python's json reads, but which are not JSON).

Bytes that are not UTF-8 follow one policy in every reader of learnsim (``encoding_errors``,
``--encoding-errors`` on the command line): by default (``"replace"``) they become U+FFFD and
one :class:`UndecodableBytesWarning` names the file and counts the lines affected;
``"strict"`` refuses the file at the first such line.
"""
from __future__ import annotations

import datetime
import json
import math
import numbers
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._utils.inputs import id_by_value, short_repr
from ._decode import (ID_KEYS, DocumentFormatError, check_encoding_errors, decoded_lines, json_array_hint, json_record,
                      refuse_underflow)
from ._base import read_parquet_frame
from .pairs import (_DOCUMENT_LABEL_NAMES, _TSV_ID_NAMES, _TSV_TEXT_NAMES, _delimited_records, check_quoting,
                    refuse_csv_quoted)

__all__ = ["DocumentFormatError", "Documents", "read_labelled_documents", "read_documents", "NO_CLUSTER"]

_TSV_SUFFIXES = (".tsv", ".txt")
_JSONL_SUFFIXES = (".jsonl", ".ndjson")
_CSV_SUFFIXES = (".csv",)
#: The label of a document that belongs to no cluster.
NO_CLUSTER = "-1"


@dataclass
class Documents:
    """Documents read from a file.

    Attributes
    ----------
    texts : list of str
    ids : list of (str or None)
        The id given in the file, or None.
    labels : list of (str or None) or None
        The cluster label of each document (None: in no cluster); None for an unlabelled file.
    path : Path
    metadata : list or None
        JSON Lines only: each document's ``"metadata"`` value as given, or else an object of its
        fields other than its id and ``"text"`` (None when it has none); a ``.csv`` file's other
        columns; None for other files.
    unused_fields : list of str
        The fields (JSON keys, ``.csv`` columns) the reader read and put nowhere: neither id,
        text, title, label nor metadata. Commands name them in one note, never drop them silently.

    Notes
    -----
    A JSON record's id is its ``"id"``, or ``"_id"`` as in BEIR's corpus.jsonl (or ``"docno"``,
    ``"doc_id"``, ``"query_id"``, ``"qid"``: :data:`ID_KEYS`); a ``"title"`` string is joined
    before the text, as :func:`learnsim.datasets.read_corpus` and ``learnsim evaluate`` read it.

    Examples
    --------
    >>> import os, tempfile
    >>> from learnsim.datasets import read_documents
    >>> path = os.path.join(tempfile.mkdtemp(), "tickets.jsonl")
    >>> with open(path, "w", encoding="utf-8") as f:
    ...     _ = f.write('{"id": "t1", "text": "forgot my password"}\\n'
    ...                 '{"id": "t2", "text": "I was charged twice"}\\n')
    >>> docs = read_documents(path)
    >>> docs.texts, docs.ids, docs.labels, docs.line_numbers
    (['forgot my password', 'I was charged twice'], ['t1', 't2'], None, [1, 2])
    """

    texts: list
    ids: list
    labels: list | None = None
    path: Path | None = None
    line_numbers: list = field(default_factory=list)
    metadata: list | None = None
    unused_fields: list = field(default_factory=list)

    def __len__(self):
        return len(self.texts)

    def cluster_codes(self, min_size=1):
        """Integer cluster of each document for the metric learners.

        Returns ``(codes, names, n_dropped)``: ``codes[i]`` indexes ``names`` (sorted), -1 for
        documents in no cluster and for clusters with fewer than ``min_size`` documents (a
        single document has no within-cluster scatter); ``n_dropped`` counts such clusters.
        """
        if self.labels is None:
            raise ValueError(f"{self.path}: the documents have no labels")
        return _label_codes(self.labels, min_size)


def _label_codes(labels, min_size):
    """``(codes, names, n_dropped)`` of labels (str or None), as Documents.cluster_codes returns
    them: the one rule for cluster labels, which learnsim.fit's cluster_codes uses too. Labels
    are compared in NFC: 'ça' typed precomposed and as c with a combining cedilla look alike and
    are one label (they were two clusters); names are given in NFC."""
    keys = [None if lab is None else unicodedata.normalize("NFC", lab) for lab in labels]
    names, counts = np.unique(np.array([key for key in keys if key is not None], dtype=str), return_counts=True)
    keep = counts >= min_size
    kept = names[keep].tolist()
    index = {name: i for i, name in enumerate(kept)}
    codes = np.array([index.get(key, -1) if key is not None else -1 for key in keys], dtype=np.int64)
    return codes, kept, int((~keep).sum())


def _base_suffix(path):
    """The extension of ``path`` in lower case; of a gzipped file, that of the file it holds
    (decoded_lines decompresses it), as the pairs and corpus readers read it: BEIR ships
    corpus.jsonl.gz, which 'learnsim fit --beir' reads and 'learnsim index build --corpus'
    refused as of an unknown type '.gz'."""
    suffix = path.suffix.lower()
    return Path(path.stem).suffix.lower() if suffix == ".gz" else suffix


def _suffix_kind(path, allowed):
    suffix = _base_suffix(path)
    if suffix in _TSV_SUFFIXES:
        return "tsv"
    if suffix in _JSONL_SUFFIXES:
        return "jsonl"
    if suffix in _CSV_SUFFIXES:
        return "csv"
    raise DocumentFormatError(
        f"{path}: unknown file type {suffix or '(no extension)'!r}; use {allowed}")


def _check_file(path):
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder, not a document file")
    return path


def _lines(path, encoding_errors="replace", encoding="utf-8"):
    """Yield ``(line_number, line)`` without the line end, checking the file and its encoding."""
    yield from decoded_lines(_check_file(path), encoding_errors=encoding_errors, encoding=encoding)


# a column name of a header line: one word of letters (sentence, label, category, review_text)
_HEADER_WORD = re.compile(r"[a-z_]+")
# a column name in a header of three or more columns (BEIR's corpus-id, doc_2)
_COLUMN_NAME = re.compile(r"[a-z_][a-z0-9_\-]*")
# _TSV_ID_NAMES, _TSV_TEXT_NAMES (from datasets.pairs, which refuses such a header as pairs'):
# the names of the id and text columns of an id<TAB>text file (here and in datasets.trec)


def _is_header(line, first_columns):
    head, tab, rest = line.partition("\t")
    return bool(tab) and head.strip().lower() in first_columns and rest.strip().lower() == "text"


def _quote(kind, quoting):
    """Whether a ``kind`` file is read with CSV quoting: ``quoting="auto"`` means yes for
    ``.csv``, no for TSV (plain TSV has no quoting)."""
    check_quoting(quoting)
    return quoting == "csv" or (quoting == "auto" and kind == "csv")


def _tab_rows(path, quote, encoding_errors, encoding="utf-8", auto=False):
    """``(line_number, line, head, tab, rest)`` per non-blank line of a TAB-separated file:
    ``head`` is the first field, ``rest`` everything after the first TAB (``tab`` is "" when
    there is none). With ``quote`` the fields are CSV-quoted (a quoted field may hold TABs,
    doubled quotes and line breaks) and ``rest`` is the other fields joined by TABs.
    ``auto``: plain TSV by default (``quoting="auto"``), where a field written in CSV quotes
    with doubled quotes inside (pandas' ``to_csv(sep="\t")``) is an error naming both readings:
    read verbatim, the text kept its quotes doubled ('"say ""hi"" now"') without a word."""
    if not quote:
        for number, line in _lines(path, encoding_errors, encoding):
            if line.strip():
                if auto and '""' in line:
                    refuse_csv_quoted(line.split("\t"), f"{path}, line {number}")
                yield (number, line) + line.partition("\t")
        return
    hint = "; quoting='none' (--quoting none) reads quotes as text"
    for number, fields in _delimited_records(_check_file(path), "\t", True, encoding_errors, None, hint=hint,
                                             encoding=encoding):
        line = "\t".join(fields)
        yield number, line, fields[0], "\t" if len(fields) > 1 else "", "\t".join(fields[1:])


def _csv_rows(path, quote, encoding_errors, wanted, required, encoding="utf-8"):
    """The header's names and ``(line_number, {name: value})`` per record of a ``.csv`` file.

    The header must name ``required`` (and ``text``); names are compared in lower case, and
    ``id``, ``text`` and ``label`` are given so, the other names as written.
    Without ``quote`` the records are split on commas only, and when ``text`` is the last
    column a row with more fields than the header joins the extra fields into its text (as
    the text of a TSV line is everything after the first TAB); else such a row is an error.
    """
    path = _check_file(path)
    hint = (f"; quoting={'none' if quote else 'csv'!r} (--quoting {'none' if quote else 'csv'}) reads "
            f"{'quotes as text' if quote else 'CSV quoting'}")
    records = _delimited_records(path, ",", quote, encoding_errors, None, hint=hint, encoding=encoding)
    try:
        number, header = next(records)
    except StopIteration:
        raise DocumentFormatError(f"{path}: contains no documents") from None
    names = [name.strip().lower() for name in header]
    # pandas' to_csv writes its index as a first column with no name: the row numbers (or the
    # index's values), no field of the documents; kept, it became metadata under the key "",
    # which no --filter can name
    drop_first = len(names) > 1 and names[0] == ""
    if drop_first:
        header, names = header[1:], names[1:]
        records = (_without_first(number, fields) for number, fields in records)
    if "" in names:
        raise DocumentFormatError(f"{path}, line {number}: the header's column {names.index('') + 1 + drop_first} "
                                  f"has no name; name it (the header is {','.join(header)[:80]!r})")
    missing = [name for name in required if name not in names]
    # counted once: a name looked for among all of them (list.count per name) made a header of
    # 200,000 columns take over two minutes
    seen = {}
    for name in names:
        seen[name] = seen.get(name, 0) + 1
    repeated = sorted(name for name, n in seen.items() if name and n > 1)
    if missing or repeated:
        problem = (f"no {' and no '.join(repr(m) for m in missing)} column" if missing
                   else f"the column {repeated[0]!r} is named twice")
        raise DocumentFormatError(f"{path}, line {number}: the header of a .csv file must name the "
                                  f"columns {wanted}; {problem} (the header is {','.join(header)[:80]!r})")
    # id, text and label are found in any case; another column (metadata) keeps its name as
    # written, as a JSON line's field and a .parquet column do: "Topic" became "topic", and
    # --filter Topic=Geo silently matched no document
    keys = [name if name in ("id", "text", "label") else given.strip() for name, given in zip(names, header)]
    if "id" not in names:
        # BEIR's "_id" (or "docno", "doc_id", ...: a JSON line's id keys) is the id column, as in a
        # .jsonl or .tsv file: df.to_csv of BEIR's corpus kept it as metadata and numbered the documents
        key = next((k for k in ID_KEYS if k in names), None)
        if key is not None:
            keys[names.index(key)] = "id"
    rows = []
    for number, fields in records:
        if len(fields) > len(names) and not quote and names[-1] == "text":
            fields = fields[:len(names) - 1] + [",".join(fields[len(names) - 1:])]
        if len(fields) != len(names):
            extra = (" (quote a field that holds a comma: \"a, b\")" if quote and len(fields) > len(names)
                     else "")
            raise DocumentFormatError(f"{path}, line {number}: {len(fields)} field(s), expected the "
                                      f"header's {len(names)}{extra}")
        rows.append((number, dict(zip(keys, fields))))
    return keys, rows


def _without_first(number, fields):
    return number, fields[1:]


def _named_columns(line):
    """The column names of a TSV first line that names three or more columns (``id<TAB>text<TAB>label``,
    ``docid<TAB>title<TAB>text``), or two under pandas' unnamed index column (``<TAB>text``), one
    of them a text column (:data:`_TSV_TEXT_NAMES`); else None. Read as a document, such a header
    was one more document ("id"), and each line's other columns were joined to its text."""
    names = [name.strip().lower() for name in line.split("\t")]
    if len(names) < 3 and not (len(names) == 2 and names[0] == ""):
        return None
    named = names[1:] if names[0] == "" else names
    if not all(_COLUMN_NAME.fullmatch(name) for name in named) or len(set(named)) != len(named):
        return None
    if not any(name in _TSV_TEXT_NAMES for name in named) or sum(name in _TSV_ID_NAMES for name in named) > 1:
        return None
    return names


def _refuse_judgements_header(number, line, path):
    """Refuse a first line naming two id columns and no text column (BEIR's qrels
    ``query-id<TAB>corpus-id<TAB>score``, ``qid<TAB>docid<TAB>relevance``): judgements given where
    documents are read. Its header was a document ('query-id', its text 'corpus-id<TAB>score') and
    each judgement another, or a labelled document of the cluster 'q1': exit 0, a fit or an index
    of ids."""
    names = [name.strip().lower() for name in line.split("\t")]
    if len(names) < 2 or not all(_COLUMN_NAME.fullmatch(name) for name in names) or \
            sum(name in _TSV_ID_NAMES for name in names) < 2:
        return
    if any(name in _TSV_TEXT_NAMES for name in names):
        # id<TAB>_id<TAB>text (BEIR's _id kept beside an id): the header was a document 'id' and
        # each line's second id part of its text; a JSON record's two ids are refused where they differ
        ids = ", ".join(name for name in names if name in _TSV_ID_NAMES)
        raise DocumentFormatError(f"{path}, line {number}: its first line names two id columns ({ids}); which one "
                                  "names the documents would be a guess: keep one (or rename the other, e.g. "
                                  "source_id)")
    raise DocumentFormatError(f"{path}, line {number}: its first line names two id columns and no text "
                              f"({', '.join(names)[:80]}), the layout of judgements (qrels), not of documents: "
                              "give the documents (id<TAB>text, a .jsonl with \"text\") here, and judgements where "
                              "qrels are read (--qrels, fit --pairs)")


def _refuse_unnamed_column(number, line, path):
    """Refuse a TSV header naming its columns (one of them ``label`` or a text column) with one that
    has no name, as a ``.csv`` header's is refused: ``id<TAB>text<TAB>`` (a trailing TAB, as some
    exports write) was taken for the header ``id<TAB>text``, and every line's TAB and the field after
    it became part of its text, where pandas reads that field as a column of its own. The first
    column may have no name: pandas' index column (``df.to_csv(sep="\t")``)."""
    names = [name.strip().lower() for name in line.split("\t")]
    named = [name for name in names if name]
    if len(named) < 2 or "" not in names[1:] or not all(_COLUMN_NAME.fullmatch(name) for name in named):
        return
    if "label" in named or any(name in _TSV_TEXT_NAMES for name in named):
        column = names.index("", 1) + 1
        raise DocumentFormatError(f"{path}, line {number}: the header's column {column} has no name; name it, or "
                                  f"remove the TAB that opens it (the header is {line.replace(chr(9), '<TAB>')[:80]!r})")


def _tsv_named_rows(path, rows, names):
    """``(keys, [(line_number, {key: value})])`` of TSV ``rows`` under the header ``names``
    (:func:`_named_columns`), as :func:`_csv_rows` gives a ``.csv`` file's: the id column as
    ``"id"``, the text columns joined (in the header's order, a line apart, as a JSON record's
    title is joined before its text) as ``"text"``, ``"label"``, other columns under their names.
    pandas' unnamed index column is left out. When a text column is last, the TABs of a line with
    more fields than the header are its text's."""
    roles = ["" if n == "" else "id" if n in _TSV_ID_NAMES else "text" if n in _TSV_TEXT_NAMES
             else "label" if n == "label" else n for n in names]
    keys = [role for role in dict.fromkeys(roles) if role]
    records = []
    for number, line, *_ in rows[1:]:
        fields = line.split("\t")
        if len(fields) > len(names) and roles[-1] == "text":
            fields = fields[:len(names) - 1] + ["\t".join(fields[len(names) - 1:])]
        if len(fields) != len(names):
            raise DocumentFormatError(f"{path}, line {number}: {len(fields)} field(s), expected the header's "
                                      f"{len(names)} ({'<TAB>'.join(names)[:80]})")
        row = {}
        for role, value in zip(roles, fields):
            if role == "text":
                row["text"] = "\n".join(t for t in (row.get("text", ""), value.strip()) if t)
            elif role:
                row[role] = value
        records.append((number, row))
    return keys, records


def _quoted_hint(line):
    """What to add to "no TAB separator" of a plain TSV line holding a double quote: most often the
    rest of a CSV-quoted text with a line break (pandas' ``df.to_csv(sep="\\t")`` writes such a text
    in quotes), which plain TSV, without quoting, ends at the line break."""
    return ("; is it the rest of a quoted text holding a line break (as pandas' to_csv(sep='\\t') writes "
            "it)? quoting='csv' (--quoting csv) reads such quotes") if '"' in line else ""


# -1 as pandas writes it from a label column of floats (an integer column with a missing value)
_NO_CLUSTER_FLOAT = re.compile(r"-1\.0+")


def _no_cluster(label):
    """Whether a label read as text (a TSV or ``.csv`` field, stripped) marks a document in no
    cluster: ``-1``, or ``-1.0`` as pandas' ``to_csv`` writes it from a float label column. Read as
    a label of its own, "-1.0" made the documents meant to be in no cluster one cluster, which the
    metric learned to pull together, where the same frame in memory or as .parquet reads -1."""
    return label == NO_CLUSTER or _NO_CLUSTER_FLOAT.fullmatch(label) is not None


# a whole number as pandas writes it from a float column ("1.0", "-2.0"), the cell's text
_FLOAT_INTEGER = re.compile(r"-?[0-9]+\.0+")


def _float_column_labels(docs):
    """The labels of a text file read as pandas reads its column: where every label is a whole
    number written as a float ("1.0", "2.0": pandas' to_csv of a label column with a missing
    value, which it stores as floats), the integers "1", "2", as the same frame in memory or as
    .parquet gives them; the clusters were the same, but their names, shown in reports, differed
    by format. A file with any other label keeps its labels as written (a label "1.0" beside a
    label "1" stays a cluster of its own), so that no two labels become one."""
    labels = docs.labels
    if labels and any(label is not None for label in labels) and \
            all(label is None or _FLOAT_INTEGER.fullmatch(label) for label in labels):
        docs.labels = [None if label is None else str(int(label.partition(".")[0])) for label in labels]
    return docs


def _check_not_empty(docs, path):
    if not docs.texts:
        raise DocumentFormatError(f"{path}: contains no documents")
    return docs




def record_id_key(obj, where=None):
    """The key of :data:`ID_KEYS` that gives the JSON record ``obj`` its id, or None. With
    ``where`` (``"FILE, line N"``), a record whose ``"id"`` and ``"_id"`` are two different ids is
    a :class:`DocumentFormatError`: learnsim reads ``"id"``, BEIR's loader ``"_id"``, and the
    judgements naming the one met no document under the other (an ``"_id"`` that is no id, as
    MongoDB's ``{"$oid": ...}``, is left to be metadata)."""
    key = next((key for key in ID_KEYS if key in obj), None)
    if where is not None and key == "id" and _plain_id(obj["id"]) and _plain_id(obj.get("_id")) and \
            id_by_value(str(obj["id"])) != id_by_value(str(obj["_id"])):
        raise DocumentFormatError(f'{where}: the record has two ids, "id" {short_repr(obj["id"])} and "_id" '
                                  f'{short_repr(obj["_id"])}; learnsim reads "id", BEIR\'s loader "_id", so judgements '
                                  'name it by either: keep one (or rename the other, e.g. "source_id")')
    return key


def _plain_id(value):
    """Whether ``value`` is what a record's id can be (a string or an integer)."""
    return isinstance(value, (str, numbers.Integral)) and not isinstance(value, bool)


def record_text(obj, text, where="the record"):
    """A JSON record's text with its ``"title"`` (a non-empty string) joined before it, as BEIR's
    corpus.jsonl is read for search (the same in every command, so that an index, a fit and
    ``evaluate`` see the same text). A title that is not a string (nor null) is a ValueError
    naming ``where``: left out, its words were lost without a word."""
    title = obj.get("title")
    if title is not None and not isinstance(title, str):
        raise ValueError(f'{where}: "title" must be a string (or null); got {type(title).__name__}')
    if isinstance(title, str) and title.strip():
        # a record with a title and an empty text is its title alone, as BEIR joins and strips them
        # ((title + " " + text).strip()): "Title\n" put a line end in the text it indexes and shows
        return title.strip() + "\n" + text if text.strip() else title.strip()
    return text


def _json_object(line, number, path):
    """``(obj, text, id, id key)`` of one JSON line: the id from :data:`ID_KEYS`, the title joined
    before the text (:func:`record_text`)."""
    obj = json_record(line, f"{path}, line {number}")
    key = record_id_key(obj, f"{path}, line {number}") if isinstance(obj, dict) else None
    text, doc_id = _object_fields(obj, f"{path}, line {number}", "a JSON object", id_key=key or "id")
    return obj, record_text(obj, text, f"{path}, line {number}"), doc_id, key


def _unused(names, used):
    """The field names of ``names`` (in first-seen order) that are not in ``used``."""
    return [name for name in dict.fromkeys(names) if name not in used]


def record_text_key(obj):
    """The field that holds a record's text: ``"text"``, or, in a record without one, Pyserini's
    ``"contents"`` (its JsonCollection writes ``{"id", "contents"}``, and a Pyserini user's corpus
    was refused for want of "text"). A record with both reads "text" (its "contents" is then
    metadata, as before); no other name is taken for the text, as "body" or "sentence" may be a
    field beside a text elsewhere (:func:`_text_key_hint` names them)."""
    return "contents" if isinstance(obj, dict) and "text" not in obj and "contents" in obj else "text"


def _text_key_hint(obj):
    """What to add to "no text field" where the record names its text otherwise: sentence-transformers
    and others write "sentence" or "body" ("contents", Pyserini's, is read: :func:`record_text_key`)."""
    other = next((key for key in ("content", "body", "sentence", "passage", "document")
                  if isinstance(obj, dict) and "text" not in obj and isinstance(obj.get(key), str)), None)
    return (f'; the record has "{other}", which is not read as the text: rename it "text" (e.g. jq -c '
            f'\'.text = .{other} | del(.{other})\')') if other else ""


def _object_fields(obj, where, kind="an object", id_key="id"):
    """``(text, id)`` of a document given as an object (a JSON line, a dict, a DataFrame row)."""
    if not isinstance(obj, dict):
        raise DocumentFormatError(f'{where}: expected {kind} {{"text": ..., ...}}; got {type(obj).__name__}'
                                  + json_array_hint(obj))
    text_key = record_text_key(obj)
    text = obj.get(text_key)
    if not isinstance(text, str):
        what = "no \"text\" field" if text_key not in obj else \
            f'"{text_key}" is {type(text).__name__}, not a string'
        raise DocumentFormatError(f"{where}: {what}{_text_key_hint(obj)}")
    doc_id = obj.get(id_key)
    if doc_id is not None:
        if isinstance(doc_id, bool) or not isinstance(doc_id, (str, numbers.Integral)):
            raise DocumentFormatError(f'{where}: "{id_key}" must be a string or an integer; got {doc_id!r}')
        if doc_id == "":
            # given, yet no id: numbering the document instead (as for a TSV line's empty id
            # field) would silently replace an id the record claims to have
            raise DocumentFormatError(f'{where}: "{id_key}" is an empty string; give a non-empty string or an '
                                      f'integer, or leave "{id_key}" out')
        doc_id = str(doc_id)
    return text, doc_id


def _non_finite(value, at=()):
    """The path (keys and positions) to the first NaN or infinite number in the JSON value
    ``value``, or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return at
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _non_finite(item, at + (key,))
        if found is not None:
            return found
    return None


def _check_exact(obj, where, line):
    """Refuse a number of a record's metadata ``obj`` (parsed from ``line``) that reads as 0.0
    though it is not zero (:func:`learnsim.datasets._decode.refuse_underflow`): kept, a filter
    ``score>0`` silently left the document out."""
    refuse_underflow(obj, line, where, part=True)


class _TooLarge(float):
    """A JSON number beyond the largest float (``1e999``), which Python's json reads as infinity;
    its literal kept."""


def _too_large_literal(digits):
    value = float(digits)
    if math.isinf(value):
        large = _TooLarge(value)
        large.literal = digits
        return large
    return value


def _check_finite(obj, where, line=None):
    """Refuse NaN and infinity in the JSON object ``obj`` (a record's metadata, parsed from
    ``line``): Python's json reads ``NaN``, ``Infinity`` (and ``1e999`` as infinity), which
    no metadata may hold; refused later, the error could only name the document's position, not
    its file and line. ``1e999`` is valid JSON, a number too large for a float, and is named so,
    not as the ``Infinity`` JSON has no number for."""
    at = _non_finite(obj)
    if at is not None:
        value = obj
        for key in at:
            value = value[key]
        field = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in at).lstrip(".")
        if line is not None and value == value:
            # read again, its numbers' literals kept, only to tell 1e999 from Infinity
            again = json.loads(line.removeprefix("\ufeff"), parse_float=_too_large_literal)
            try:
                for key in at:
                    again = again[key]
            except (KeyError, IndexError, TypeError):
                again = None
            if isinstance(again, _TooLarge):
                raise DocumentFormatError(f"{where}: {field!r} is {again.literal}, a number too large for a float "
                                          "(it would read as infinity); give it as a string, or a finite number")
        spelled = "NaN" if value != value else ("-Infinity" if value < 0 else "Infinity")
        raise DocumentFormatError(f"{where}: {field!r} is {spelled}, which JSON has no number for; give a "
                                  "finite number or null")


def _json_label(obj, number, path):
    return _object_label(obj, f"{path}, line {number}")


def _object_label(obj, where):
    if "label" not in obj:
        raise DocumentFormatError(f'{where}: no "label" field (use -1 or null for a document in no cluster)')
    label = obj["label"]
    if label is None:
        return None
    if isinstance(label, float) and label.is_integer():
        # a whole float, as pandas' to_json writes a label column with a missing value (floats):
        # its integer, as the same frame in memory or as .parquet reads it ("got 1.0" before)
        label = int(label)
    if isinstance(label, bool) or not isinstance(label, (str, numbers.Integral)):
        raise DocumentFormatError(f'{where}: "label" must be a string or an integer; got {label!r}')
    label = str(label).strip()
    if not label:
        raise DocumentFormatError(f'{where}: empty "label" (use -1 or null for a document in no cluster)')
    return None if label == NO_CLUSTER else label


def _memory_objects(source, labelled):
    """The documents of in-memory data as objects ``{"text", "id", "label"}``: a DataFrame
    (its rows, by column name), a list of dicts, a list of tuples (``(label, text)`` when
    labelled, else ``(id, text)``) or, unlabelled, a list of texts."""
    if hasattr(source, "columns") and hasattr(source, "itertuples"):
        names = [str(c) for c in source.columns]
        objects = []
        for row in source.itertuples(index=False, name=None):
            obj = dict(zip(names, row))
            # a missing label or id in a DataFrame is NaN (or None): no cluster, no id
            for key in ("label", "id", *ID_KEYS, "title"):
                value = obj.get(key)
                if isinstance(value, float) and math.isnan(value):
                    obj[key] = None
                elif isinstance(value, float) and value.is_integer():
                    obj[key] = int(value)  # an integer column with a missing value is float
                elif isinstance(value, numbers.Integral) and not isinstance(value, bool):
                    obj[key] = int(value)
            objects.append(obj)
        return objects
    if not isinstance(source, (list, tuple)):
        raise TypeError(f"documents must be a path, a list or a pandas DataFrame; got {type(source).__name__}")
    objects = []
    for n, item in enumerate(source):
        if isinstance(item, dict):
            objects.append(item)
        elif isinstance(item, str) and not labelled:
            objects.append({"text": item})
        elif isinstance(item, (tuple, list)) and len(item) == 2:
            key = "label" if labelled else "id"
            objects.append({key: item[0], "text": item[1]})
        else:
            shape = "(label, text) tuple or a dict" if labelled else "text, an (id, text) tuple or a dict"
            raise TypeError(f"document {n}: expected a {shape}; got {item!r:.60}")
    return objects


def _read_memory(source, labelled):
    docs = Documents(texts=[], ids=[], labels=[], path=None)
    all_labelled = True
    for n, obj in enumerate(_memory_objects(source, labelled)):
        where = f"document {n}"
        # the id and title as a JSON line's (BEIR's {"_id", "title", "text"} records, a DataFrame of them)
        key = record_id_key(obj, where) if isinstance(obj, dict) else None
        text, doc_id = _object_fields(obj, where, id_key=key or "id")
        text = record_text(obj, text, where)
        if not text.strip():
            raise DocumentFormatError(f"{where}: empty text")
        if labelled or "label" in obj:
            docs.labels.append(_object_label(obj, where))
        all_labelled = all_labelled and "label" in obj
        docs.texts.append(text)
        docs.ids.append(doc_id)
        docs.line_numbers.append(n)
    if not labelled and not all_labelled:
        docs.labels = None
    if not docs.texts:
        raise DocumentFormatError("no documents (the list is empty)")
    return docs


def _cell(value):
    """A parquet cell as plain Python: numpy scalars and arrays as int, float, list; NaN (and NaT)
    as None; a date, time or timestamp as its ISO 8601 string, which metadata can hold and a
    filter compare (kept as pandas' Timestamp, it was refused by the index as no JSON value)."""
    if isinstance(value, (datetime.date, datetime.time)):
        return None if value != value else value.isoformat()
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, dict):
        return {k: _cell(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_cell(v) for v in value]
    return value


def _table_id(value, where, column):
    """The id of a table's row (a ``.parquet`` or ``.csv`` row, a TSV line under a header) in its id
    column: an integer column with a missing value is float in pandas ("got 0.0"), read as the
    integer; a missing value (NaN, an empty cell) is refused, as an empty "id" of a JSON line is:
    numbered instead, the document got a positional id among named ones without a word."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise DocumentFormatError(f"{where}: the id column {column} has no value here (an empty cell, NaN); give "
                                  "every document an id (or drop the column to number them all)")
    return value


def _read_parquet_documents(path, labelled):
    """The documents of a ``.parquet`` file, a row as a JSON line's object: ``text``, ``id`` and
    ``label`` by column name, the other columns each document's metadata."""
    frame = read_parquet_frame(path)
    # a named index is a column to pandas (to_parquet of df.set_index("id") stores it so): its ids
    # were dropped and the documents numbered ("#0"), as learnsim._inputs.Table finds it in memory
    levels = [n for n in (getattr(frame.index, "names", None) or []) if n is not None and n not in frame.columns]
    if levels:
        frame = frame.reset_index(level=levels)
    names = [str(c) for c in frame.columns]
    text_key = record_text_key(dict.fromkeys(names))      # a "contents" column without "text": the text
    # the id column as a JSON line's ("id", else BEIR's "_id", "docno", ...) and its title joined
    # before the text: BEIR's corpus saved as parquet (Hugging Face's BeIR sets: _id, title, text)
    # kept "_id" as metadata, numbered its documents and left the titles out of their texts
    id_key = record_id_key(dict.fromkeys(names)) or "id"
    others = [n for n in names if n not in (id_key, text_key, "label")]
    docs = Documents(texts=[], ids=[], labels=[] if (labelled or "label" in names) else None, path=path)
    docs.metadata = [] if others and not labelled else None
    for n, row in enumerate(frame.itertuples(index=False, name=None), start=1):
        obj = {name: _cell(v) for name, v in zip(names, row)}
        where = f"{path}, row {n}"
        if id_key in obj:
            # labelled documents may leave ids out row by row, as a labelled .csv's may
            obj[id_key] = None if labelled and obj[id_key] is None else _table_id(obj[id_key], where, f'"{id_key}"')
        label = obj.get("label")
        if isinstance(label, float) and label.is_integer():
            # an integer label column with a missing value is float in pandas ("got 1.0"), as an id
            # column is (_table_id): read as the integer, as the same DataFrame in memory is
            obj["label"] = int(label)
        text, doc_id = _object_fields(obj, where, "a row", id_key=id_key)
        text = record_text(obj, text, where)
        if not text.strip():
            raise DocumentFormatError(f"{where}: empty text")
        docs.texts.append(text)
        docs.ids.append(doc_id)
        if docs.labels is not None:
            docs.labels.append(_object_label(obj, where))
        if docs.metadata is not None:
            docs.metadata.append({k: obj[k] for k in others})
        docs.line_numbers.append(n)
    return _check_not_empty(docs, path)


def _check_text(text, number, path):
    if not text.strip():
        raise DocumentFormatError(f"{path}, line {number}: empty text")
    return text


def read_labelled_documents(path, *, encoding_errors="replace", quoting="auto", encoding="utf-8"):
    """Read labelled documents from a ``.tsv``/``.txt`` (``label<TAB>text``; ``text<TAB>label``
    under a first line naming the columns so), ``.csv`` (a header ``label,text``), ``.jsonl`` or
    ``.parquet`` (columns ``label`` and ``text``) file.

    Parameters
    ----------
    path : path-like, list or pandas DataFrame
        A file, or the same documents in memory: a list of ``(label, text)`` tuples or of
        dicts ``{"text": ..., "label": ..., "id": ...}``, or a DataFrame with ``text`` and
        ``label`` columns (and optionally ``id``); ``path`` of the result is then None.
    encoding_errors : {"replace", "strict"}, default="replace"
        What to do with bytes that are not UTF-8: replace them with U+FFFD and issue one
        :class:`UndecodableBytesWarning` counting the lines affected, or raise
        :class:`DocumentFormatError` at the first such line.
    quoting : {"auto", "csv", "none"}, default="auto"
        ``"csv"``: a field may be quoted with ``"`` (inner quotes doubled) and then hold the
        separator or a line break. ``"none"``: split on the separator only; quotes are text,
        kept verbatim. ``"auto"``: ``"csv"`` for ``.csv``, ``"none"`` for ``.tsv``/``.txt``
        (plain TSV has no quoting). A ``.csv`` file needs a header naming ``label`` and
        ``text`` (``id`` too, optionally; other columns are ignored); read with ``"none"``, the
        extra commas of a row go to its text when ``text`` is the last column. JSON Lines
        files ignore it.
    encoding : str, default="utf-8"
        The encoding of a text file (not of a ``.parquet`` one): a file saved in a single-byte
        code page reads with its own, e.g. ``"cp1254"`` (Turkish), ``"cp1253"`` (Greek),
        ``"cp1250"`` (Czech), ``"cp1255"`` (Hebrew), ``"cp1256"`` (Arabic, Urdu); read as UTF-8,
        its letters beyond ASCII become U+FFFD, under a warning that names the code page.

    Returns
    -------
    Documents
        With ``labels`` set (None for a document in no cluster, label ``-1``).

    Raises
    ------
    FileNotFoundError, IsADirectoryError
    DocumentFormatError
        Unknown extension, undecodable text (with ``encoding_errors="strict"``), a line without a TAB, an empty label or text,
        invalid JSON or a missing field, a ``.csv`` header without ``label`` or ``text``, a
        row with another number of fields than the header, broken CSV quoting, or no
        documents at all; the message gives the line.

    Examples
    --------
    >>> import os, tempfile
    >>> from learnsim.datasets import read_labelled_documents
    >>> path = os.path.join(tempfile.mkdtemp(), "tickets.tsv")
    >>> with open(path, "w", encoding="utf-8") as f:
    ...     _ = f.write("account\\thow do I reset my password\\nbilling\\tI was charged twice\\n")
    >>> docs = read_labelled_documents(path)
    >>> docs.labels, docs.texts
    (['account', 'billing'], ['how do I reset my password', 'I was charged twice'])
    """
    check_encoding_errors(encoding_errors)
    check_quoting(quoting)
    if not isinstance(path, (str, os.PathLike)):
        return _read_memory(path, labelled=True)
    if Path(path).suffix.lower() == ".parquet":
        return _read_parquet_documents(Path(path), labelled=True)
    path = Path(path)
    kind = _suffix_kind(path, "'.tsv' or '.txt' (label<TAB>text per line), '.csv' (a header label,text) "
                              'or \'.jsonl\' ({"text": ..., "label": ...} per line)')
    docs = Documents(texts=[], ids=[], labels=[], path=path)
    if kind == "csv":
        names, rows = _csv_rows(path, _quote(kind, quoting), encoding_errors, "label,text (id optional)",
                                ("label", "text"), encoding)
        return _read_named_labelled(docs, path, names, rows)
    if kind == "jsonl":
        seen = []
        for number, line in _lines(path, encoding_errors, encoding):
            if not line.strip():
                continue
            obj, text, doc_id, key = _json_object(line, number, path)
            docs.texts.append(_check_text(text, number, path))
            docs.ids.append(doc_id)
            docs.labels.append(_json_label(obj, number, path))
            docs.line_numbers.append(number)
            seen.extend(k for k in obj if k not in (key, record_text_key(obj), "title", "label"))
        docs.unused_fields = _unused(seen, ())
        return _check_not_empty(docs, path)
    rows = list(_tab_rows(path, _quote(kind, quoting), encoding_errors, encoding, auto=quoting == "auto"))
    if rows:
        _refuse_judgements_header(*rows[0][:2], path)
        _refuse_unnamed_column(*rows[0][:2], path)
    names = _named_columns(rows[0][1]) if rows else None
    if names is not None and "label" in names:
        # id<TAB>label<TAB>text, pandas' <TAB>label<TAB>text (df.to_csv(sep="\t")): by name, as a .csv
        return _read_named_labelled(docs, path, *_tsv_named_rows(path, rows, names))
    first, swapped = True, False
    for number, line, label, tab, text in rows:
        if first:
            first = False
            if _is_header(line, ("label",)):
                continue
            head, _, rest = line.partition("\t")
            names = (head.strip().lower(), rest.strip().lower())
            if ("label" in names or "text" in names) and all(_HEADER_WORD.fullmatch(n) for n in names):
                # two column names, one of them label or text: GLUE's SST-2 is sentence<TAB>label,
                # others label<TAB>sentence or category<TAB>text. Read as a document, the header
                # was one and, text first, every sentence became a label of its own and its "0"
                # or "1" the text (a fit of nothing, exit 0). Text first: the label after the last TAB
                swapped = names[0] == "text" or names[1] == "label"
                continue
            _refuse_other_header(line, number, path)
        if swapped:
            text, tab, label = line.rpartition("\t")
        if not tab:
            raise DocumentFormatError(f"{path}, line {number}: no TAB separator; expected "
                                      f"'{'text<TAB>label' if swapped else 'label<TAB>text'}', got {line[:60]!r}{_quoted_hint(line)}")
        label = label.strip()
        if not label:
            raise DocumentFormatError(f"{path}, line {number}: empty label (use -1 for a "
                                      "document in no cluster)")
        docs.texts.append(_check_text(text, number, path))
        docs.ids.append(None)
        docs.labels.append(None if _no_cluster(label) else label)
        docs.line_numbers.append(number)
    return _check_not_empty(_float_column_labels(docs), path)


def repeated_id(ids, line_numbers):
    """``(id, its first line, the line repeating it)`` of the first id given twice among
    ``ids`` (None, a document without an id, is never one), or None.

    >>> repeated_id(["a", None, "b", None, "a"], [1, 2, 3, 4, 5])
    ('a', 1, 5)
    """
    first = {}
    for doc_id, number in zip(ids, line_numbers):
        if doc_id is None:
            continue
        if doc_id in first:
            return doc_id, first[doc_id], number
        first[doc_id] = number
    return None


def one_id_two_forms(ids, line_numbers):
    """``(first id, its line, other id, its line)`` of the first two distinct ids of ``ids`` that
    are one text in Unicode NFC (``'café'`` precomposed and with a combining accent), or None:
    two documents that print alike in every hit, run file and ``index delete --id``, which
    judgements and run files read as one id (:func:`learnsim._utils.inputs.id_by_value`).

    >>> print(ascii(one_id_two_forms(["caf\\u00e9", "b", "cafe\\u0301"], [1, 2, 3])))
    ('caf\\xe9', 1, 'cafe\\u0301', 3)
    >>> one_id_two_forms(["1", "01", "ab"], [1, 2, 3]) is None
    True
    """
    first = {}
    for doc_id, number in zip(ids, line_numbers):
        if doc_id is None or str(doc_id).isascii():
            continue        # an ASCII text has one form: no look-up for the ids of most files
        key = unicodedata.normalize("NFC", str(doc_id))
        seen = first.setdefault(key, (doc_id, number))
        if seen[0] != doc_id:
            return seen[0], seen[1], doc_id, number
    return None


def two_forms_note(path, line, found):
    """The one-line note of :func:`one_id_two_forms`'s ``found`` in the file ``path`` (``line``:
    the word for its records, "line" or "row"); the ids are written with escapes, as they print
    alike. An id is taken as written, code point for code point (docs/indexes.md): the two stay two
    documents, and the note says so, where nothing did."""
    first, first_line, other, number = found
    return (f"note: {path}, {line} {number}: the id {ascii(str(other)[:40])} and the id {ascii(str(first)[:40])} of "
            f"{line} {first_line} are one text in another Unicode form (the same in NFC, one with a combining "
            "character): two ids, two documents that print alike, which judgements and run files read as one; "
            "write both in one form (e.g. NFC) to make them one")


def _refuse_other_header(line, number, path):
    """A DocumentFormatError for a first line naming columns that are not label<TAB>text: read as
    a document, a pairs file's header was a document labelled "label" and each pair's two texts
    one text (a fit of the wrong supervision, exit 0), and an ``id<TAB>label<TAB>text`` file's
    ids were taken as labels."""
    names = [f.strip().lower() for f in line.split("\t")]
    if {"text_a", "text_b"} <= set(names):
        raise DocumentFormatError(f"{path}, line {number}: its header names text_a and text_b, the columns of pairs; "
                                  "read it as pairs (learnsim fit --pairs FILE, learnsim.fit(pairs=...)): labelled "
                                  "documents are label<TAB>text lines")
    if "text" in names and "label" in names or \
            ("text" in names or "label" in names) and all(_HEADER_WORD.fullmatch(n) for n in names):
        raise DocumentFormatError(f"{path}, line {number}: its header names the columns {', '.join(names)[:80]}; a "
                                  "labelled .tsv is label<TAB>text lines: give those two columns, or a .csv or "
                                  ".jsonl with that header")


def _named_id_header(line):
    """Whether a first line names its columns ``ID<TAB>text`` with the id column named otherwise
    (``docno``, ``docid``, ``pid``, as TREC and MS MARCO name it): read as a document, the
    header was one more document ("text", with the id "docno") in the index. The text column may be
    named as in a header of more columns (:data:`_TSV_TEXT_NAMES`: ``pid<TAB>passage``,
    ``qid<TAB>query``, BEIR's ``query-id<TAB>text``, ir_datasets' ``doc_id<TAB>title``) under an id
    column of :data:`_TSV_ID_NAMES`, as :func:`learnsim.datasets.read_corpus` reads it: such a header
    was a document "passage" with the id "pid"."""
    head, tab, rest = line.partition("\t")
    head, rest = head.strip().lower(), rest.strip().lower()
    return bool(tab) and (rest == "text" and bool(_HEADER_WORD.fullmatch(head))
                          or head in _TSV_ID_NAMES and rest in _TSV_TEXT_NAMES)


def _label_header(line):
    """The name of the label column (``label``, ``category``, ``class``, ``topic``, in lower case)
    of a first line naming the columns ``LABEL<TAB>TEXT`` (a text column of
    :data:`_TSV_TEXT_NAMES`), else None."""
    head, tab, rest = line.partition("\t")
    head, rest = head.strip().lower(), rest.strip().lower()
    return head if tab and head in _DOCUMENT_LABEL_NAMES and rest in _TSV_TEXT_NAMES else None


def _swapped_header(line):
    """``"id"`` or ``"label"`` for a first line naming the columns ``text<TAB>id`` or
    ``text<TAB>label`` (the text first; the text column may be named otherwise, as GLUE's
    SST-2 ``sentence<TAB>label``), else None."""
    head, tab, rest = line.partition("\t")
    head, rest = head.strip().lower(), rest.strip().lower()
    return rest if tab and _HEADER_WORD.fullmatch(head) and rest in ("id", "label") else None


def _read_text_first(docs, path, rows, column):
    """The records under a header ``text<TAB>id`` or ``text<TAB>label``: each one's id or label
    after its last TAB, the text before it (a text may hold a TAB, as after the first one of an
    ``id<TAB>text`` line). Read as ``id<TAB>text``, every text would have been taken for an id
    and every id or label for the text."""
    labels = [] if column == "label" else None
    for number, line, *_ in rows[1:]:
        text, tab, value = line.rpartition("\t")
        if not tab:
            raise DocumentFormatError(f"{path}, line {number}: no TAB separator; expected "
                                      f"'text<TAB>{column}' (as the first line names the columns), got {line[:60]!r}"
                                      f"{_quoted_hint(line)}")
        value = value.strip()
        docs.texts.append(_check_text(text, number, path))
        docs.ids.append(value or None if labels is None else None)
        if labels is not None:
            labels.append(None if value == "" or _no_cluster(value) else value)
        docs.line_numbers.append(number)
    if labels is None:
        _refuse_some_empty_ids(docs, path, "the field after the last TAB")
    docs.labels = labels
    return _check_not_empty(_float_column_labels(docs), path)


def _titled(row):
    """The text of a row read by column name with its ``title`` column (a ``.csv`` file's, BEIR's
    layout) joined before it, as a JSON line's title is (:func:`record_text`); a TSV file's title
    column is already joined (:func:`_tsv_named_rows`)."""
    title = row.get("title")
    return record_text({"title": title}, row["text"]) if isinstance(title, str) else row["text"]


def _read_named_labelled(docs, path, names, rows):
    """Labelled documents of ``rows`` read by column name (a ``.csv`` file's, or a TSV file's
    under a header of its columns): ``names`` as :func:`_csv_rows` gives them."""
    docs.unused_fields = _unused(names, ("id", "label", "text", "title"))
    for number, row in rows:
        label = row["label"].strip()
        docs.texts.append(_check_text(_titled(row), number, path))
        docs.ids.append(row.get("id", "").strip() or None)
        # an empty cell under a header naming the columns is a missing label, as pandas reads it
        # (NaN) and writes it (df.to_csv of [1, None, 2]): no cluster, as the same frame in memory,
        # its .parquet, and read_documents of this file read it; it was refused here alone
        docs.labels.append(None if not label or _no_cluster(label) else label)
        docs.line_numbers.append(number)
    return _check_not_empty(_float_column_labels(docs), path)


def _refuse_two_ids(row, where):
    """Refuse a table's row whose ``id`` and ``_id`` (BEIR's, kept by df.to_csv beside an id) are
    two ids, as a JSON record's are (:func:`record_id_key`): ``id`` was read and ``_id`` kept as
    metadata without a word, where judgements may name the document by either."""
    other = row.get("_id")
    if isinstance(other, str) and other.strip() and id_by_value(other) != id_by_value(row["id"]):
        raise DocumentFormatError(f'{where}: the record has two ids, "id" {short_repr(row["id"].strip())} and "_id" '
                                  f'{short_repr(other.strip())}; learnsim reads "id", BEIR\'s loader "_id", so '
                                  'judgements name it by either: keep one (or rename the other, e.g. "source_id")')


def _read_named(docs, path, names, records):
    """The documents of ``records`` read by column name (a ``.csv`` file's, or a TSV file's under a
    header of its columns): ``names`` as :func:`_csv_rows` gives them."""
    others = [name for name in names if name not in ("id", "text")]
    docs.metadata = [] if others else None
    for number, row in records:
        docs.texts.append(_check_text(_titled(row), number, path))
        docs.ids.append(_table_id(row["id"], f"{path}, line {number}", "'id'").strip() if "id" in row else None)
        if "id" in row:
            _refuse_two_ids(row, f"{path}, line {number}")
        if "label" in row:
            label = row["label"].strip()
            docs.labels.append(None if label == "" or _no_cluster(label) else label)
        if others:
            docs.metadata.append({name: row[name] for name in others})
        docs.line_numbers.append(number)
    if "label" not in names:
        docs.labels = None
    return _check_not_empty(_float_column_labels(docs), path)


def read_documents(path, *, encoding_errors="replace", quoting="auto", encoding="utf-8"):
    """Read a collection to search (or queries): labels are optional.

    ``.jsonl``: objects with ``"text"`` (``"id"`` and ``"label"`` are kept when present).
    ``.tsv``: ``id<TAB>text`` per line. ``.txt``: the same when every line has a TAB, else one
    document per line. A first line ``id<TAB>text`` is a header; under a first line
    ``label<TAB>text`` (or ``category``, ``class``, ``topic``) the first column is a label, kept as
    each document's metadata under that name, and the documents have no ids; under a first line
    ``text<TAB>id`` or ``text<TAB>label`` each line is read that way round (the id or label after
    the last TAB).
    ``.csv``: a header naming ``text`` and optionally ``id`` and ``label``; other columns are
    each document's metadata (as a JSON line's other fields). ``.parquet`` (pandas and pyarrow):
    the same columns as a ``.csv``, errors naming the row.

    Parameters
    ----------
    path : path-like, list or pandas DataFrame
        A file, or the same documents in memory: a list of texts, of ``(id, text)`` tuples or
        of dicts ``{"text": ..., "id": ..., "label": ...}``, or a DataFrame with a ``text``
        column (and optionally ``id`` and ``label``).
    encoding_errors : {"replace", "strict"}, default="replace"
        As in :func:`read_labelled_documents`.
    quoting : {"auto", "csv", "none"}, default="auto"
        As in :func:`read_labelled_documents`: by default CSV quoting for ``.csv`` and none
        for ``.tsv``/``.txt``, whose texts are kept verbatim.
    encoding : str, default="utf-8"
        As in :func:`read_labelled_documents`.

    Returns
    -------
    Documents
        ``labels`` is None unless a JSON Lines file gives every document a label, or a
        ``.csv`` file has a ``label`` column, or a TSV file's first line is ``text<TAB>label``.

    Examples
    --------
    >>> import os, tempfile
    >>> from learnsim.datasets import read_documents
    >>> path = os.path.join(tempfile.mkdtemp(), "tickets.txt")
    >>> with open(path, "w", encoding="utf-8") as f:
    ...     _ = f.write("how do I reset my password\\nI was charged twice\\n")
    >>> docs = read_documents(path)
    >>> docs.texts
    ['how do I reset my password', 'I was charged twice']
    >>> docs.labels is None
    True
    """
    check_encoding_errors(encoding_errors)
    check_quoting(quoting)
    if not isinstance(path, (str, os.PathLike)):
        return _read_memory(path, labelled=False)
    path = Path(path)
    if path.suffix.lower() == ".parquet":
        return _read_parquet_documents(path, labelled=False)
    kind = _suffix_kind(path, "'.tsv' (id<TAB>text per line), '.txt' (one document per line, "
                              "or id<TAB>text), '.csv' (a header id,text) or '.jsonl' ({\"text\": ...} per line)")
    docs = Documents(texts=[], ids=[], labels=[], path=path)
    if kind == "csv":
        names, records = _csv_rows(path, _quote(kind, quoting), encoding_errors, "text (id, label optional)",
                                   ("text",), encoding)
        return _read_named(docs, path, names, records)
    if kind == "jsonl":
        rows = [(number, line) for number, line in _lines(path, encoding_errors, encoding) if line.strip()]
        all_labelled = True
        docs.metadata = []
        seen = []
        for number, line in rows:
            obj, text, doc_id, key = _json_object(line, number, path)
            # the metadata only: what the record's other fields hold is read nowhere
            scope = {"metadata": obj["metadata"]} if "metadata" in obj else obj
            _check_finite(scope, f"{path}, line {number}", line)
            _check_exact(scope, f"{path}, line {number}", line)
            docs.texts.append(_check_text(text, number, path))
            docs.ids.append(doc_id)
            # a "metadata" object is the metadata (BEIR's records carry one); without it, every
            # field but the id and the text is (the title too, which is also joined to the text)
            if "metadata" in obj:
                docs.metadata.append(obj["metadata"])
                seen.extend(k for k in obj if k not in (key, record_text_key(obj), "title", "label", "metadata"))
            else:
                docs.metadata.append({k: v for k, v in obj.items() if k not in (key, record_text_key(obj))} or None)
            all_labelled = all_labelled and "label" in obj
            docs.labels.append(_json_label(obj, number, path) if "label" in obj else None)
            docs.line_numbers.append(number)
        if not all_labelled:
            docs.labels = None
        docs.unused_fields = _unused(seen, ())
        return _check_not_empty(docs, path)

    rows = list(_tab_rows(path, _quote(kind, quoting), encoding_errors, encoding, auto=quoting == "auto"))
    if rows:
        _refuse_judgements_header(*rows[0][:2], path)
        _refuse_unnamed_column(*rows[0][:2], path)
    names = _named_columns(rows[0][1]) if rows else None
    if names is not None:
        return _read_named(docs, path, *_tsv_named_rows(path, rows, names))
    if rows and (label := _label_header(rows[0][1])):
        # label<TAB>text (fit --input's layout) read as a collection: the label is no id, so the
        # documents are numbered and the label kept as metadata, as a .csv's label column is; it
        # was each document's id (an index refused 'billing' twice, or named each by its label)
        return _read_named(docs, path, *_tsv_named_rows(path, rows, [label, "text"]))
    if rows and (_is_header(rows[0][1], ("id",)) or _named_id_header(rows[0][1])):
        rows = rows[1:]
    elif rows and (column := _swapped_header(rows[0][1])):
        return _read_text_first(docs, path, rows, column)
    with_ids = _base_suffix(path) == ".tsv" or all(tab for *_, tab, _rest in rows)
    if not with_ids and len(rows) > 1 and rows[0][1].strip().lower() == "text":
        # the column name pandas writes above a Series' values (df["text"].to_csv("d.txt",
        # index=False)): it was indexed as a document "text". Only that name: a first line of
        # another one word is a document, as a plain list of texts has no header
        rows = rows[1:]
    for number, line, doc_id, tab, text in rows:
        if with_ids:
            if not tab:
                raise DocumentFormatError(f"{path}, line {number}: no TAB separator; expected "
                                          f"'id<TAB>text', got {line[:60]!r}{_quoted_hint(line)}")
            doc_id = doc_id.strip() or None
        else:
            doc_id, text = None, line
        docs.texts.append(_check_text(text, number, path))
        docs.ids.append(doc_id)
        docs.line_numbers.append(number)
    if with_ids:
        _refuse_some_empty_ids(docs, path)
    docs.labels = None
    return _check_not_empty(docs, path)


def _refuse_some_empty_ids(docs, path, field="the field before the first TAB"):
    """Refuse an ``id<TAB>text`` file in which some lines give an id and others leave it empty: the
    line with no id was numbered ("line-12") among named documents without a word, as a table's empty
    id cell and a JSON line's ``"id": ""`` are refused (:func:`_table_id`). A file whose every id is
    empty (a ``.txt`` of indented lines) has no ids, and its documents are numbered."""
    given = next(((doc_id, n) for doc_id, n in zip(docs.ids, docs.line_numbers) if doc_id is not None), None)
    empty = next((n for doc_id, n in zip(docs.ids, docs.line_numbers) if doc_id is None), None)
    if given is not None and empty is not None:
        raise DocumentFormatError(f"{path}, line {empty}: the id ({field}) is empty, "
                                  f"while line {given[1]} gives one ({given[0][:40]!r}); give every document an "
                                  "id, or none to number them all")
