"""SMART-format test collections: CISI, Cranfield, and the user's own in the same format.

A SMART file is a sequence of records, each opened by ``.I <id>`` and made of fields opened by
``.T`` (title), ``.A`` (authors), ``.B`` (source), ``.W`` (body), ``.X`` (cross-references),
``.K``, ``.N``, ``.C`` ... The relevance judgments come in a separate file of lines, in one of
three layouts: ``query doc`` (every listed pair relevant; extra columns, as CISI's ``1 28 0
0``, are ignored), ``query doc grade`` (Cranfield), or TREC's ``query 0 doc relevance``. The
queries of the judgments are numbered by their ``.I`` id in some collections (CISI) and by
their position in the query file in others (Cranfield).
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ._base import _corpus_file, _normalise_id
from ._decode import check_encoding, check_encoding_errors, decoded_lines
from .ir import _build_collection, _grade, _is_path, _judgments_from_memory, _texts_from_memory

__all__ = ["load_smart_collection", "read_smart_collection"]

_SMART_SOURCE = ("CISI and Cranfield are at http://ir.dcs.gla.ac.uk/resources/test_collections/ "
                 "(cisi.tar.gz, cran.tar.gz).")
# The fields joined into the text of a document or query, in this order.
_SMART_TEXT_FIELDS = ("T", "W")
_SMART_BODY = "W"
_SMART_MARKER = re.compile(r"^\.([A-Z])(?:[ \t]+(.*?))?[ \t]*$")
_SMART_COLLECTIONS = {
    "cisi": dict(folder="ir/cisi", documents="CISI.ALL", queries="CISI.QRY", qrels="CISI.REL",
                 numbering="id", qrels_format="pairs", relevant_grades=None, title_opens_body=False),
    "cran": dict(folder="ir/cran", documents="cran.all.1400", queries="cran.qry", qrels="cranqrel",
                 numbering="position", qrels_format="graded", relevant_grades=(1, 2, 3, 4),
                 title_opens_body=True),
}
_SMART_ALIASES = {"cisi": "cisi", "ir/cisi": "cisi", "cran": "cran", "cranfield": "cran", "ir/cran": "cran"}
_NUMBERINGS = ("auto", "id", "position")
_QRELS_FORMATS = ("auto", "pairs", "graded", "trec")


def _read_smart_records(path, encoding_errors="replace", encoding="utf-8"):
    """Parse a SMART file into ``[(id, {field: text}), ...]`` in file order.

    A record starts at ``.I <id>``; each ``.X`` line starts field X (text on the marker line
    itself belongs to the field). A field that repeats within a record is appended to (CISI
    gives each author an ``.A`` of its own); once the body (``.W``) has started, a repeated
    marker is taken as a stray line of the body, as in three Cranfield records (240, 576,
    578) whose abstracts contain such lines. Returns the records and the number of those
    stray markers.
    """
    records = []
    current = None
    field_name = None
    n_stray = 0
    for number, line in decoded_lines(path, encoding_errors=encoding_errors, encoding=encoding):
        match = _SMART_MARKER.match(line)
        if match is not None and match.group(1) == "I":
            raw_id = (match.group(2) or "").strip()
            if not raw_id or len(raw_id.split()) != 1:
                raise ValueError(f"{path}, line {number}: '.I' must be followed by one record id; got {line!r}")
            current = (_normalise_id(raw_id), number, {})
            records.append(current)
            field_name = None
            continue
        if current is None:
            if match is not None:
                raise ValueError(f"{path}, line {number}: field '.{match.group(1)}' before the first '.I' "
                                 "record marker; is this a SMART-format file?")
            if line.strip():
                raise ValueError(f"{path}, line {number}: text before the first '.I' record marker; "
                                 "is this a SMART-format file?")
            continue
        fields = current[2]
        if match is not None:
            field_name = match.group(1)
            if field_name in fields and _SMART_BODY in fields:
                n_stray += 1
                field_name = _SMART_BODY
            fields.setdefault(field_name, [])
            if match.group(2):
                fields[field_name].append(match.group(2))
            continue
        if field_name is None:
            if line.strip():
                raise ValueError(f"{path}, line {number}: text after '.I {current[0]}' (line {current[1]}) "
                                 "that belongs to no field; expected a field marker such as '.T' or '.W'")
            continue
        fields[field_name].append(line)
    if not records:
        raise ValueError(f"{path} holds no '.I' records; is it a SMART-format file?")
    return [(rid, {k: "\n".join(v).strip() for k, v in fields.items()}) for rid, _n, fields in records], n_stray


def _smart_text(fields, text_fields, title_opens_body):
    """The text of a record: its ``text_fields`` joined, one per line. Where the collection's
    bodies open with the title (Cranfield), a body that does so is used without the title;
    elsewhere (CISI) a body may merely begin with the words of its title ("The Managerial Grid
    method of ..."), so the title is always kept. Returns the text and whether the title was
    left out."""
    title, body = fields.get("T", ""), fields.get(_SMART_BODY, "")
    skip_title = (title_opens_body and "T" in text_fields and _SMART_BODY in text_fields and bool(title)
                  and " ".join(body.split()).startswith(" ".join(title.split())))
    parts = [fields.get(f, "") for f in text_fields if not (skip_title and f == "T")]
    return "\n".join(part for part in parts if part), skip_title


def _is_int(text):
    return text.lstrip("+-").isdigit()


def _qrels_rows(path, encoding_errors, encoding="utf-8"):
    """``(where, fields)`` of the non-blank lines of a relevance file."""
    rows = [(f"{path}, line {number}", line.split())
            for number, line in decoded_lines(path, encoding_errors=encoding_errors, encoding=encoding) if line.split()]
    if not rows:
        raise ValueError(f"{path} holds no relevance judgments")
    return rows


def _detect_qrels_format(rows):
    """TREC when every line has 4 fields, the same second field (the iteration, ``0`` or ``Q0``)
    and an integer last; ``graded`` when every line has 3 fields, the last an integer; else
    ``pairs`` (CISI's 4 columns end in a float and hold a document number in the second)."""
    if all(len(f) == 4 and _is_int(f[3]) for _w, f in rows) and len({f[1] for _w, f in rows}) == 1:
        return "trec"
    if all(len(f) == 3 and _is_int(f[2]) for _w, f in rows):
        return "graded"
    return "pairs"


def _parse_qrels(rows, qrels_format, relevant_grades):
    """``(query, doc, grade, relevant, where)`` with the query as written in the file."""
    n_columns = {"pairs": 2, "graded": 3, "trec": 4}[qrels_format]
    layout = {"pairs": "query, document)", "graded": "query, document, grade)",
              "trec": "query, iteration, document, relevance)"}[qrels_format]
    doc_col, grade_col = (2, 3) if qrels_format == "trec" else (1, 2 if qrels_format == "graded" else None)
    judgments = []
    for where, fields in rows:
        if len(fields) < n_columns or (qrels_format == "trec" and len(fields) != 4):
            expected = "4" if qrels_format == "trec" else f"at least {n_columns}"
            raise ValueError(f"{where}: {len(fields)} field(s), expected {expected} ({layout}")
        if grade_col is None:
            grade, relevant = 1, True  # the file lists relevant pairs only
        else:
            grade = _grade(fields[grade_col], where)
            relevant = grade >= 1 if relevant_grades is None else grade in relevant_grades
        judgments.append((fields[0], _normalise_id(fields[doc_col]), grade, relevant, where))
    return judgments


def _number_queries(judgments, query_ids, numbering, path):
    """Map the qrels' query numbers to query ids: by ``.I`` id or by position (1-based) in the
    query file. ``auto`` takes ids when every number is one (or the two coincide), else
    positions when every number is one."""
    numbers = [q for q, *_rest in judgments]
    if numbering == "auto":
        known = set(query_ids)
        if all(_normalise_id(q) in known for q in numbers):
            numbering = "id"
        elif all(q.isascii() and q.isdigit() and 1 <= int(q) <= len(query_ids) for q in numbers):
            numbering = "position"
        else:
            numbering = "id"  # the unknown ones are reported (or dropped) as unknown queries
    mapped = []
    for query, doc, grade, relevant, where in judgments:
        if numbering == "position":
            # ASCII digits: int() reads "٢" as 2 and fails on "²", which str.isdigit takes too
            if not (query.isascii() and query.isdigit()) or not 1 <= int(query) <= len(query_ids):
                raise ValueError(f"{where}: query number {query!r} is not a position 1..{len(query_ids)} "
                                 f"in the query file (this relevance file numbers queries by position)")
            query = query_ids[int(query) - 1]
        else:
            query = _normalise_id(query)
        mapped.append((query, doc, grade, relevant, where))
    return mapped, numbering


def _check_choice(value, name, choices):
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {choices}; got {value!r}")
    return value


def _first_text_line(path):
    with open(path, "rb") as f:
        head = f.read(4096).decode("latin-1")
    return next((line.strip() for line in head.splitlines() if line.strip()), "")


def _smart_files(value):
    """(documents, queries, qrels) of a folder of SMART files, or of a list of the three."""
    if isinstance(value, (list, tuple)):
        if len(value) != 3:
            raise ValueError(f"give the three files (documents, queries, qrels) or a folder; got {len(value)} paths")
        return tuple(value)
    if not _is_path(value):
        raise TypeError("read_smart_collection takes a folder, a list of the three files (documents, queries, "
                        f"qrels), or the three as arguments; got {type(value).__name__}")
    folder = Path(value).expanduser()
    if not folder.is_dir():
        raise ValueError(f"{str(folder)!r} is not a folder; give a folder holding the documents, queries and "
                         "qrels files, or the three files")
    files = [f for f in sorted(folder.iterdir()) if f.is_file() and not f.name.startswith(".")
             and "readme" not in f.name.lower()]
    records = [f for f in files if re.match(r"\.I[ \t]+\S", _first_text_line(f))]
    # the file names say which record file holds the queries (CISI.QRY, cran.qry, query.text)
    found = {"queries": [f for f in records if re.search(r"qry|quer", f.name, re.IGNORECASE)]}
    found["documents"] = [f for f in records if f not in found["queries"]]
    found["qrels"] = [f for f in files if f not in records and re.search(r"rel", f.name, re.IGNORECASE)]
    for part, candidates in found.items():
        if len(candidates) != 1:
            shown = ", ".join(f.name for f in candidates) or "none"
            raise ValueError(f"{folder}: cannot tell which file holds the {part} (candidates: {shown}); pass the "
                             "three files: read_smart_collection(documents, queries, qrels)")
    return found["documents"][0], found["queries"][0], found["qrels"][0]


def read_smart_collection(documents, queries=None, qrels=None, *, numbering="auto", qrels_format="auto",
                          relevant_grades=None, text_fields=_SMART_TEXT_FIELDS, title_opens_body=False,
                          name="smart", strict=True, encoding_errors="replace", encoding="utf-8"):
    """Read a SMART-format test collection from a folder, from explicit files, or from data in memory.

    Parameters
    ----------
    documents : path-like, list of three path-likes, or data in memory
        With ``queries`` and ``qrels`` left out: a folder holding the three files (the
        records whose file name has "qry" or "quer" are the queries, the other record file
        the documents, the file with "rel" in its name the judgments; read-me files are
        passed over), or a list of the three files (documents, queries, qrels). Else as
        ``queries``.
    queries : path-like, or dict, list of (id, text) or DataFrame
        SMART files of ``.I <id>`` records (``.T``, ``.A``, ``.B``, ``.W``, ``.X``, ... fields),
        plain or gzipped. Data in memory is taken as in
        :meth:`~learnsim.datasets.RetrievalCollection.from_lists` (except a list of plain
        strings, which is refused here).
    qrels : path-like, or dict, list of tuples or DataFrame
        The relevance judgments: a file of lines in the layout ``qrels_format`` says, or
        judgments in memory as in :meth:`~learnsim.datasets.RetrievalCollection.from_lists`
        (their query ids are ``.I`` ids; ``numbering`` applies to files only).
    numbering : {"auto", "id", "position"}, default="auto"
        How the qrels file numbers the queries: by their ``.I`` id (CISI) or by their position
        1..n in the query file (Cranfield). ``"auto"`` takes ids when every number is a query
        id, else positions when every number is in 1..n. ``info["numbering"]`` says which.
    qrels_format : {"auto", "pairs", "graded", "trec"}, default="auto"
        ``"pairs"``: ``query doc [anything]`` lines, every listed pair relevant (grade 1);
        ``"graded"``: ``query doc grade [anything]`` (Cranfield); ``"trec"``: ``query iteration
        doc relevance``. ``"auto"``: TREC when every line has 4 fields with the same second
        field and an integer relevance (and varying documents), graded when every line has
        3 fields ending in an integer, else pairs. ``info["qrels_format"]`` says which.
    relevant_grades : collection of int, optional
        The grades that count as relevant; by default a grade >= 1 (pass ``(1, 2, 3, 4)`` for
        Cranfield-style codes, where 5 means "no interest").
    text_fields : tuple of str, default=("T", "W")
        The fields joined (one per line) into the text, e.g. ``("T", "K", "W")``.
    title_opens_body : bool, default=False
        The collection's bodies repeat the title (Cranfield): a body that opens with its title
        is used without the title.
    name : str, default="smart"
    strict : bool, default=True
        A judgment naming a query or document that is not in the collection is an error; with
        False it is dropped and counted in ``info["n_dropped_judgments"]``.
    encoding_errors : {"replace", "strict"}, default="replace"
        Bytes that are not UTF-8 become U+FFFD, with one
        :class:`~learnsim.datasets.UndecodableBytesWarning` per file counting the lines
        affected; ``"strict"`` raises :class:`~learnsim.datasets.DocumentFormatError`.
    encoding : str, default="utf-8"
        The files' encoding: SMART files saved in a single-byte code page read with their own,
        e.g. ``"cp1254"``, as in :func:`~learnsim.datasets.read_labelled_documents`.

    Returns
    -------
    RetrievalCollection
        Ids are the ``.I`` numbers without leading zeros; ``qrels`` and ``query_ids`` use the
        ``.I`` numbers whatever the numbering of the qrels file. ``info`` holds ``files``,
        ``numbering``, ``qrels_format``, ``n_stray_markers_in_body`` (field markers inside a
        body, kept as text), ``n_titles_in_body``, ``n_empty_documents``, ``n_judgments``,
        ``n_dropped_judgments``.

    Raises
    ------
    ValueError
        On a malformed file (a field or text before the first ``.I``, an ``.I`` without id,
        a repeated id, a qrels line with too few fields, a non-integer grade, a query position
        out of range) or, with ``strict``, a judgment naming an unknown query or document.
        Messages name the file and line.
    FileNotFoundError

    Examples
    --------
    Three small SMART files written to a temporary directory:

    >>> import os, tempfile
    >>> from learnsim.datasets import read_smart_collection
    >>> tmp = tempfile.mkdtemp()
    >>> with open(os.path.join(tmp, "docs.all"), "w") as f:
    ...     _ = f.write(".I 1\\n.T\\nPasswords\\n.W\\nhow do I reset my password\\n"
    ...                 ".I 2\\n.T\\nBilling\\n.W\\nI was charged twice\\n")
    >>> with open(os.path.join(tmp, "query.text"), "w") as f:
    ...     _ = f.write(".I 1\\n.W\\npassword reset\\n")
    >>> with open(os.path.join(tmp, "qrels.text"), "w") as f:
    ...     _ = f.write("1 1\\n")
    >>> c = read_smart_collection(os.path.join(tmp, "docs.all"), os.path.join(tmp, "query.text"),
    ...                           os.path.join(tmp, "qrels.text"), name="tiny")
    >>> c
    RetrievalCollection('tiny': 2 documents, 1 queries (1 with a relevant document), 1 relevant pairs)
    >>> c.documents
    ['Passwords\\nhow do I reset my password', 'Billing\\nI was charged twice']

    The folder alone, its files told apart by their names:

    >>> read_smart_collection(tmp, name="tiny")
    RetrievalCollection('tiny': 2 documents, 1 queries (1 with a relevant document), 1 relevant pairs)
    """
    if queries is None and qrels is None:
        documents, queries, qrels = _smart_files(documents)
    elif queries is None or qrels is None:
        raise TypeError("give documents, queries and qrels, or a folder (or a list of the three files) alone")
    _check_choice(numbering, "numbering", _NUMBERINGS)
    _check_choice(qrels_format, "qrels_format", _QRELS_FORMATS)
    if not isinstance(strict, (bool, np.bool_)):
        raise TypeError(f"strict must be True or False; got {strict!r}")
    check_encoding_errors(encoding_errors)
    encoding = check_encoding(encoding)
    if isinstance(text_fields, str):
        text_fields = (text_fields,)
    text_fields = tuple(str(f).strip().lstrip(".").upper() for f in text_fields)
    if not text_fields or not all(re.fullmatch(r"[A-Z]", f) for f in text_fields):
        raise ValueError(f"text_fields must be SMART field letters such as ('T', 'W'); got {text_fields!r}")
    if relevant_grades is not None:
        relevant_grades = frozenset(int(g) for g in relevant_grades)

    files = {}
    parts = {}
    n_stray = 0
    for part, value in (("documents", documents), ("queries", queries)):
        if _is_path(value):
            path = _existing_file(value, part)
            files[part] = str(path)
            records, stray = _read_smart_records(path, encoding_errors, encoding)
            n_stray += stray
            texts = [_smart_text(fields, text_fields, title_opens_body) for _id, fields in records]
            parts[part] = ([rid for rid, _f in records], texts)
        else:
            ids, texts = _texts_from_memory(value, part)
            parts[part] = (ids, [(t, False) for t in texts])
    query_ids = parts["queries"][0]
    if _is_path(qrels):
        path = _existing_file(qrels, "qrels")
        files["qrels"] = str(path)
        rows = _qrels_rows(path, encoding_errors, encoding)
        if qrels_format == "auto":
            qrels_format = _detect_qrels_format(rows)
        judgments, numbering = _number_queries(_parse_qrels(rows, qrels_format, relevant_grades),
                                               query_ids, numbering, path)
    else:
        judgments = _judgments_from_memory(qrels)
        if relevant_grades is not None:
            judgments = [(q, d, g, g in relevant_grades, w) for q, d, g, _r, w in judgments]
        numbering, qrels_format = "id", "memory"
    doc_ids, doc_texts = parts["documents"]
    query_texts = parts["queries"][1]
    info = {
        "files": files,
        "numbering": numbering,
        "qrels_format": qrels_format,
        "n_stray_markers_in_body": n_stray,
        "n_titles_in_body": sum(t[1] for t in doc_texts) + sum(t[1] for t in query_texts),
        "n_empty_documents": sum(1 for t in doc_texts if not t[0].strip()),
        "n_judgments": len(judgments),
    }
    return _build_collection(name, doc_ids, [t[0] for t in doc_texts], query_ids,
                             [t[0] for t in query_texts], judgments, strict, info)


def _existing_file(value, part):
    if isinstance(value, str) and not value.strip():
        raise ValueError(f"{part} is an empty string; pass a file")
    path = Path(value).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"{part}: {str(path)!r} is not an existing file")
    return path


def load_smart_collection(name, data_dir=None, *, strict=True, encoding_errors="replace"):
    """Load a SMART-format test collection: CISI or Cranfield.

    Parameters
    ----------
    name : {"cisi", "cran"}
        Also accepted: ``"ir/cisi"``, ``"ir/cran"``, ``"cranfield"``.
    data_dir : path-like, optional
        Data directory (see :func:`find_data_dir`); the files are read from
        ``<data_dir>/ir/cisi/`` (``CISI.ALL``, ``CISI.QRY``, ``CISI.REL``) or
        ``<data_dir>/ir/cran/`` (``cran.all.1400``, ``cran.qry``, ``cranqrel``), or from
        ``data_dir`` itself when it holds them.
    strict : bool, default=True
        A judgment naming a query or document that is not in the collection is an error;
        with False it is dropped and counted in ``info["n_dropped_judgments"]``.
    encoding_errors : {"replace", "strict"}, default="replace"
        As in :func:`read_smart_collection`.

    Returns
    -------
    RetrievalCollection
        Texts are the title followed by the body (``.T`` + ``.W``; Cranfield abstracts
        already start with their title, which is then not repeated); the author (``.A``),
        source (``.B``) and cross-reference (``.X``) fields are not used. Ids are the
        ``.I`` numbers without leading zeros.

        * **CISI** (1,460 documents, 112 queries): ``CISI.REL`` lists the relevant pairs
          (3,114), so every listed pair has grade 1. Only 76 queries have a judgment; the
          other 36 are in ``queries_without_judgments``. ``CISI.BLN`` (Boolean queries) is
          not read.
        * **Cranfield** (1,400 documents, 225 queries): the query numbers of ``cranqrel`` are
          positions 1..225 in ``cran.qry``, whose ``.I`` numbers run from 1 to 365 with gaps;
          the loader maps them, so ``qrels`` and ``query_ids`` use the ``.I`` numbers. The
          grades are Cleverdon's codes (``cranqrel.readme``): 1 complete answer, 2 high
          relevance, 3 useful, 4 minimum interest, 5 no interest; the file also gives every
          query one pair with grade -1. Grades 1-4 count as relevant (1,612 pairs), -1 and 5
          do not. All 225 queries have a relevant document. Note that a smaller grade means
          *more* relevant: convert before using ``qrels`` for graded measures such as nDCG.

    Notes
    -----
    The files are read by :func:`read_smart_collection`, which reads other collections in
    the same format from explicit paths. Three Cranfield abstracts (240, 576, 578) contain stray ``.A``/``.B``/``.W`` lines; these
    are kept as part of the abstract (``info["n_stray_markers_in_body"]``: 4). Two Cranfield
    documents (471, 995) are empty in the distributed file; they are kept, so that the
    document count and ids match the qrels (``info["n_empty_documents"]``).

    Raises
    ------
    ValueError
        On a malformed file (a field or text before the first ``.I``, an ``.I`` without id,
        a repeated id, a qrels line with too few fields, a non-integer grade, a Cranfield
        query position out of range) or, with ``strict``, a judgment naming an unknown query
        or document. Messages name the file and line.

    Examples
    --------
    Needs ``ir/cisi`` or ``ir/cran`` in ../shared/data (or ``$LEARNSIM_DATA``):

    >>> from learnsim.datasets import load_smart_collection
    >>> load_smart_collection("cisi")                     # doctest: +SKIP
    RetrievalCollection('cisi': 1460 documents, 112 queries (76 with a relevant document), 3114 relevant pairs)
    """
    if not isinstance(name, str) or name.strip().lower() not in _SMART_ALIASES:
        raise ValueError(f"unknown SMART collection {name!r}; choose 'cisi' or 'cran', or read other "
                         "SMART files with read_smart_collection")
    key = _SMART_ALIASES[name.strip().lower()]
    spec = _SMART_COLLECTIONS[key]
    paths = {part: _corpus_file(data_dir, [f"{spec['folder']}/{spec[part]}"], f"{key} {part} file", _SMART_SOURCE)
             for part in ("documents", "queries", "qrels")}
    return read_smart_collection(paths["documents"], paths["queries"], paths["qrels"], numbering=spec["numbering"],
                                 qrels_format=spec["qrels_format"], relevant_grades=spec["relevant_grades"],
                                 title_opens_body=spec["title_opens_body"], name=key, strict=strict,
                                 encoding_errors=encoding_errors)
