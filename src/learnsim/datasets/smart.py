"""SMART-format test collections (CISI, Cranfield and others in the same format)."""
from __future__ import annotations

import re

import numpy as np

from ._base import _corpus_file, _normalise_id
from ._decode import check_encoding_errors, decoded_lines
from .ir import _build_collection

_SMART_SOURCE = ("CISI and Cranfield are at http://ir.dcs.gla.ac.uk/resources/test_collections/ "
                 "(cisi.tar.gz, cran.tar.gz).")
# The fields joined into the text of a document or query, in this order.
_SMART_TEXT_FIELDS = ("T", "W")
_SMART_BODY = "W"
_SMART_MARKER = re.compile(r"^\.([A-Z])(?:[ \t]+(.*?))?[ \t]*$")
_SMART_COLLECTIONS = {
    "cisi": dict(folder="ir/cisi", documents="CISI.ALL", queries="CISI.QRY", qrels="CISI.REL",
                 queries_by_position=False, grade_column=None, title_opens_body=False),
    "cran": dict(folder="ir/cran", documents="cran.all.1400", queries="cran.qry", qrels="cranqrel",
                 queries_by_position=True, grade_column=2, title_opens_body=True),
}
_SMART_ALIASES = {"cisi": "cisi", "ir/cisi": "cisi", "cran": "cran", "cranfield": "cran", "ir/cran": "cran"}
_CRANFIELD_RELEVANT_GRADES = (1, 2, 3, 4)


def _read_smart_records(path, encoding_errors="replace"):
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
    for number, line in decoded_lines(path, encoding_errors=encoding_errors):
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


def _smart_text(fields, title_opens_body):
    """Title and body. Where the collection's bodies open with the title (Cranfield), a body
    that does so is used alone; elsewhere (CISI) a body may merely begin with the words of
    its title ("The Managerial Grid method of ..."), so the title is always added."""
    title, body = fields.get("T", ""), fields.get(_SMART_BODY, "")
    if title_opens_body and title and " ".join(body.split()).startswith(" ".join(title.split())):
        return body, True
    return "\n".join(part for part in (title, body) if part), False


def _read_smart_qrels(path, query_ids, queries_by_position, grade_column, encoding_errors="replace"):
    """Judgments ``(query_id, doc_id, grade, relevant, where)`` of a SMART relevance file."""
    n_columns = 2 if grade_column is None else grade_column + 1
    judgments = []
    for number, line in decoded_lines(path, encoding_errors=encoding_errors):
        fields = line.split()
        if not fields:
            continue
        where = f"{path}, line {number}"
        if len(fields) < n_columns:
            raise ValueError(f"{where}: {len(fields)} field(s), expected at least {n_columns} "
                             "(query, document" + (", grade)" if grade_column is not None else ")"))
        query, doc = fields[0], _normalise_id(fields[1])
        if queries_by_position:
            if not query.isdigit() or not 1 <= int(query) <= len(query_ids):
                raise ValueError(f"{where}: query number {query!r} is not a position 1..{len(query_ids)} "
                                 "in the query file (this relevance file numbers queries by position)")
            query = query_ids[int(query) - 1]
        else:
            query = _normalise_id(query)
        if grade_column is None:
            grade, relevant = 1, True  # the file lists relevant pairs only
        else:
            try:
                grade = int(fields[grade_column])
            except ValueError:
                raise ValueError(f"{where}: relevance grade {fields[grade_column]!r} is not an integer") from None
            relevant = grade in _CRANFIELD_RELEVANT_GRADES
        judgments.append((query, doc, grade, relevant, where))
    if not judgments:
        raise ValueError(f"{path} holds no relevance judgments")
    return judgments


def load_smart_collection(name, data_dir=None, *, strict=True):
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
    Three Cranfield abstracts (240, 576, 578) contain stray ``.A``/``.B``/``.W`` lines; these
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
    """
    if not isinstance(name, str) or name.strip().lower() not in _SMART_ALIASES:
        raise ValueError(f"unknown SMART collection {name!r}; choose 'cisi' or 'cran'")
    if not isinstance(strict, (bool, np.bool_)):
        raise TypeError(f"strict must be True or False; got {strict!r}")
    key = _SMART_ALIASES[name.strip().lower()]
    spec = _SMART_COLLECTIONS[key]
    paths = {part: _corpus_file(data_dir, [f"{spec['folder']}/{spec[part]}"], f"{key} {part} file", _SMART_SOURCE)
             for part in ("documents", "queries", "qrels")}
    docs, n_stray_docs = _read_smart_records(paths["documents"])
    queries, n_stray_queries = _read_smart_records(paths["queries"])
    doc_texts = [_smart_text(fields, spec["title_opens_body"]) for _id, fields in docs]
    query_texts = [_smart_text(fields, spec["title_opens_body"]) for _id, fields in queries]
    query_ids = [qid for qid, _fields in queries]
    judgments = _read_smart_qrels(paths["qrels"], query_ids, spec["queries_by_position"], spec["grade_column"])
    info = {
        "files": {part: str(p) for part, p in paths.items()},
        "n_stray_markers_in_body": n_stray_docs + n_stray_queries,
        "n_titles_in_body": sum(t[1] for t in doc_texts) + sum(t[1] for t in query_texts),
        "n_empty_documents": sum(1 for t in doc_texts if not t[0].strip()),
        "n_judgments": len(judgments),
    }
    return _build_collection(key, [d for d, _f in docs], [t[0] for t in doc_texts], query_ids,
                             [t[0] for t in query_texts], judgments, strict, info)
