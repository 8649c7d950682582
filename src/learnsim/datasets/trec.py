"""TREC-style test collections: SGML documents and topics, qrels lines, and run files.

Also read: the newer XML-style topics (``<topic number="1"><query>...</query><question>...``),
tab-separated ``id<TAB>text`` files of documents or queries (as MS MARCO distributes them),
BEIR's JSON Lines (``{"_id": ..., "title": ..., "text": ...}``) and qrels TSV (``query-id
corpus-id score`` under a header), and any part given in memory (see
:meth:`RetrievalCollection.from_lists`). :func:`read_corpus`, :func:`read_queries` and
:func:`read_qrels` read one part each, telling the layout from the file (SMART files too);
:func:`read_trec_run` and :func:`write_trec_run` read and write runs (``qid Q0 docid rank score
tag``), the input of trec_eval and of :func:`learnsim.evaluation.run_report`.
"""
from __future__ import annotations

import html
import itertools
import math
import numbers
import os
import re
import unicodedata
from array import array
from pathlib import Path

import numpy as np

from .._utils.inputs import short_repr, trec_order
from ._base import _normalise_id
from ._decode import check_encoding_errors, decoded_lines, json_array_hint, json_record, read_text, refuse_container
from ._id_reading import judged_again
from ._qrels_lines import bounded_lines, refuse_unicode_blanks
from ._tsv_quoting import tsv_lines
from .pairs import check_quoting
from .documents import (_TSV_ID_NAMES, _TSV_TEXT_NAMES, _named_columns, _text_key_hint, _tsv_named_rows, record_id_key,
                        record_text, record_text_key)
from .ir import _ASCII_INTEGER, _build_collection, _grade, _judgments_from_memory, _texts_from_memory
from .smart import _SMART_TEXT_FIELDS, _number_queries, _read_smart_records, _smart_text

__all__ = ["load_trec_collection", "normalise_run_ids", "read_corpus", "read_id_texts", "read_qrels", "read_queries",
           "read_trec_run", "write_trec_run"]

_TREC_DOC_OPEN = re.compile(r"<DOC(?:\s[^>]*)?>", re.IGNORECASE)
_TREC_DOC_CLOSE = re.compile(r"</DOC>", re.IGNORECASE)
_TREC_DOCNO = re.compile(r"<DOCNO>(.*?)</DOCNO>", re.DOTALL | re.IGNORECASE)
# Bookkeeping elements whose content is not part of the text.
_TREC_METADATA = re.compile(r"<(DOCNO|DOCOLDNO|DOCID|DOCHDR|DOCTYPE|TXTTYPE)\b[^>]*>.*?</\1>",
                            re.DOTALL | re.IGNORECASE)
_SGML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_SGML_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_TREC_TOP_OPEN = re.compile(r"<top>", re.IGNORECASE)
_TREC_TOP_CLOSE = re.compile(r"</top>", re.IGNORECASE)
_TREC_TOPIC_TAG = re.compile(r"<([a-z]+)>", re.IGNORECASE)
_TREC_TOPIC_PREFIX = re.compile(r"^\s*(?:Number|Topic|Title|Description|Narrative)\s*:", re.IGNORECASE)
_TREC_TOPIC_FIELDS = ("title", "desc", "narr")
# XML-style topics (TREC-COVID, the Robust04 re-release): closed elements in <topic number="...">;
# their element names stand for the classic fields.
_XML_TOPIC_OPEN = re.compile(r"<topic\b([^>]*)>", re.IGNORECASE)
_XML_TOPIC_CLOSE = re.compile(r"</topic>", re.IGNORECASE)
_XML_TOPIC_NUMBER = re.compile(r"""number\s*=\s*["']?([^"'\s>]+)""", re.IGNORECASE)
_XML_TOPIC_ELEMENT = re.compile(r"<([a-z]+)\b[^>]*>(.*?)</\1>", re.DOTALL | re.IGNORECASE)
_XML_FIELD_NAMES = {"query": "title", "question": "desc", "description": "desc", "narrative": "narr"}
_JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")
_SMART_OPENING = re.compile(r"^\.I[ \t]+\S")
_RUN_FIELDS = "query Q0 document rank score tag"


def _elements(text, opening, closing):
    """[(the opening tag's match, the body)] of each element ``opening ... closing`` of ``text``,
    as ``finditer`` of ``opening(.*?)closing`` finds them (the first closing tag after an opening
    one ends it; an opening tag inside an element is part of its body), in linear time: that
    regular expression scans to the end of the text from every opening tag left unclosed, and
    a file of 4,000 documents closed as ``</DOC >`` took 16 s to be refused."""
    closes = [(m.start(), m.end()) for m in closing.finditer(text)]
    out, c, resume = [], 0, 0
    for m in opening.finditer(text):
        if m.start() < resume:
            continue
        while c < len(closes) and closes[c][0] < m.end():
            c += 1
        if c == len(closes):
            break
        out.append((m, text[m.end():closes[c][0]]))
        resume = closes[c][1]
        c += 1
    return out


def _in_memory(value):
    """Whether a documents/topics/qrels argument is data rather than paths: a dict, a DataFrame,
    or a list of tuples (a list of strings is a list of paths)."""
    if isinstance(value, dict) or (hasattr(value, "columns") and hasattr(value, "itertuples")):
        return True
    return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(v, (tuple, list)) for v in value)


def _as_paths(value, name):
    if isinstance(value, (str, os.PathLike)):
        value = [value]
    try:
        paths = [Path(v).expanduser() for v in value]
    except TypeError:
        raise TypeError(f"{name} must be a path, a list of paths, or data in memory (a dict, a list of tuples, "
                        f"a DataFrame); got {type(value).__name__}") from None
    if not paths:
        raise ValueError(f"{name} is an empty list; pass at least one path")
    for p in paths:
        if not p.exists():
            raise FileNotFoundError(f"{name}: {str(p)!r} does not exist")
    return paths


_TREC_ENCODING_HINT = "older TREC collections are Latin-1: pass encoding='latin-1' (--encoding latin-1)"


def _read_text_file(path, encoding, encoding_errors):
    """Whole text of a plain or gzipped file, under the bad-bytes policy, with errors that name it."""
    return read_text(path, encoding_errors=encoding_errors, encoding=encoding, hint=_TREC_ENCODING_HINT)


def _clean_sgml(text):
    text = html.unescape(_SGML_TAG.sub(" ", _SGML_COMMENT.sub(" ", text)))
    # tags and comments leave runs of blanks behind; one space between words is what counts
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def _trec_document_text(body, text_tags):
    body = _TREC_METADATA.sub(" ", body)
    if text_tags is not None:
        pattern = re.compile(r"<(" + "|".join(map(re.escape, text_tags)) + r")\b[^>]*>(.*?)</\1>",
                             re.DOTALL | re.IGNORECASE)
        body = "\n".join(m.group(2) for m in pattern.finditer(body))
    return _clean_sgml(body)


def _tsv_records(path, text, quoting="none"):
    """``(ids, texts)`` of an ``id<TAB>text`` file (a header ``id<TAB>text`` is skipped; one of
    three or more names, ``qid<TAB>query<TAB>label``, is read by name as read_documents reads it),
    its lines read under ``quoting`` (_tsv_quoting.tsv_lines)."""
    ids, texts, width = [], [], None
    lines = tsv_lines(path, text, quoting)
    names = _named_columns(lines[0][1]) if lines else None
    if names is not None and any(name in _TSV_ID_NAMES for name in names):
        # its first column a query 'qid' of the text 'query<TAB>label', each line's label joined to its
        # text; without an id column ('d1<TAB>title<TAB>text') the line is a record, as before
        return _tsv_named_records(path, lines, names)
    for number, line in lines:
        rid, tab, body = line.partition("\t")
        if not tab or not rid.strip():
            raise ValueError(f"{path}, line {number}: expected 'id<TAB>text'; got {line[:60]!r}")
        # BEIR's and MS MARCO's names too: under "query-id<TAB>text" the header was a query of its own,
        # and under "docid<TAB>title<TAB>text" (a title column) a document 'docid' of the text 'title text'
        names = [name.strip().lower() for name in body.split("\t")]
        while len(names) > 1 and not names[-1]:
            names.pop()
        if not ids and width is None and rid.strip().lower() in _TSV_ID_NAMES and \
                all(name in _TSV_TEXT_NAMES for name in names):
            # a header ending in a TAB (id<TAB>text<TAB>): a field past its names is no column of it
            width = 1 + len(names) if body.count("\t") >= len(names) else None
            continue
        if width is not None:
            fields = line.split("\t")
            if any(field.strip() for field in fields[width:]):
                raise ValueError(f"{path}, line {number}: a field past the header's {width} named columns "
                                 f"({fields[width][:40]!r}); is it the text's or a column of its own?")
            body = "\t".join(fields[1:width])
        ids.append(rid.strip())     # verbatim: a run file names it as the user's files do
        texts.append(body.strip())
    return ids, texts


def _tsv_named_records(path, lines, names):
    """``(ids, texts)`` of TSV ``lines`` under a header of three or more ``names`` with an id
    column (documents._named_columns): the id and text columns by name, the others not used."""
    _, records = _tsv_named_rows(path, lines, names)
    for number, record in records:
        if not record["id"].strip():
            raise ValueError(f"{path}, line {number}: the id column has no value here")
    return [record["id"].strip() for _, record in records], [record.get("text", "").strip() for _, record in records]


def _read_trec_documents(paths, text_tags, encoding, encoding_errors, quoting="none"):
    files = []
    for p in paths:
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*") if f.is_file() and not f.name.startswith(".")))
        else:
            files.append(p)
    doc_ids, texts, skipped = [], [], []
    for path in files:
        if _is_jsonl(path):
            ids, jsonl_texts = _jsonl_records(path, encoding, encoding_errors)
            doc_ids.extend(ids)
            texts.extend(jsonl_texts)
            continue
        text = _read_text_file(path, encoding, encoding_errors)
        if path.name.lower().endswith((".tsv", ".tsv.gz")):
            ids, tsv_texts = _tsv_records(path, text, quoting)
            doc_ids.extend(ids)
            texts.extend(tsv_texts)
            continue
        n_open = len(_TREC_DOC_OPEN.findall(text))
        if n_open == 0:
            skipped.append(str(path))  # read-me files and the like beside the documents
            continue
        found = [body for _, body in _elements(text, _TREC_DOC_OPEN, _TREC_DOC_CLOSE)]
        if len(found) != n_open:
            raise ValueError(f"{path}: {n_open} <DOC> tag(s) but {len(found)} complete <DOC>...</DOC> "
                             "element(s); is the file cut off?")
        for position, body in enumerate(found, start=1):
            docno = _TREC_DOCNO.search(body)
            if docno is None or not docno.group(1).strip():
                raise ValueError(f"{path}: document {position} has no <DOCNO>...</DOCNO>")
            numbers = [found_no.strip() for found_no in _TREC_DOCNO.findall(body)]
            if len(numbers) > 1:
                # one kept, the document was filed under it and the others' judgements met nothing;
                # two documents run together (a lost </DOC>) read as one
                raise ValueError(f"{path}: document {position} (<DOCNO> {numbers[0][:40]!r}) has {len(numbers)} "
                                 f"<DOCNO> elements ({', '.join(repr(n[:40]) for n in numbers[1:3])}); a <DOC> has "
                                 "one: is a </DOC> missing?")
            doc_ids.append(docno.group(1).strip())
            texts.append(_trec_document_text(body, text_tags))
    if not doc_ids:
        raise ValueError(f"no <DOC> element in {', '.join(str(p) for p in paths)}; "
                         "expected TREC SGML (<DOC><DOCNO>...</DOCNO>...</DOC>) or .tsv files of id<TAB>text")
    return doc_ids, texts, {"n_files": len(files) - len(skipped), "files_without_documents": skipped}


def _read_trec_topics(paths, fields, encoding, encoding_errors):
    query_ids, queries = [], []
    for path in paths:
        if _is_jsonl(path):
            ids, texts = _jsonl_records(path, encoding, encoding_errors)
            query_ids.extend(ids)
            queries.extend(texts)
            continue
        text = _read_text_file(path, encoding, encoding_errors)
        blocks = [body for _, body in _elements(text, _TREC_TOP_OPEN, _TREC_TOP_CLOSE)]
        if not blocks and re.search(r"<topic\b", text, re.IGNORECASE):
            ids, texts = _read_xml_topics(path, text, fields)
        elif not blocks and "<" not in text and "\t" in text:
            ids, texts = _tsv_records(path, text)   # id<TAB>query lines
        else:
            ids = None
        if ids is not None:
            query_ids.extend(ids)
            queries.extend(texts)
            continue
        n_open = len(re.findall(r"<top>", text, re.IGNORECASE))
        if n_open != len(blocks):
            raise ValueError(f"{path}: {n_open} <top> tag(s) but {len(blocks)} complete <top>...</top> topic(s)")
        if not blocks:
            raise ValueError(f"{path} holds no <top>...</top> topic")
        for position, block in enumerate(blocks, start=1):
            # Classic topic tags are never closed: a field runs until the next tag.
            parts = {}
            tags = list(_TREC_TOPIC_TAG.finditer(block))
            for tag, nxt in zip(tags, tags[1:] + [None]):
                content = block[tag.end(): nxt.start() if nxt is not None else len(block)]
                content = _TREC_TOPIC_PREFIX.sub("", _SGML_TAG.sub(" ", content), count=1)
                parts[tag.group(1).lower()] = " ".join(content.split())
            qid = parts.get("num", "")
            if not qid:
                raise ValueError(f"{path}: topic {position} has no <num> (topic number)")
            qid = _normalise_id(qid)
            missing = [f for f in fields if not parts.get(f)]
            if missing:
                raise ValueError(f"{path}: topic {qid} has no (or an empty) <{missing[0]}> field; "
                                 f"fields={fields!r} asks for it")
            query_ids.append(qid)
            queries.append("\n".join(parts[f] for f in fields))
    return query_ids, queries


def _read_xml_topics(path, text, fields):
    """Topics ``<topic number="N"><query>...</query><question>...</question>...</topic>``."""
    ids, texts = [], []
    blocks = [(m.group(1), body) for m, body in _elements(text, _XML_TOPIC_OPEN, _XML_TOPIC_CLOSE)]
    n_open = len(re.findall(r"<topic\b", text, re.IGNORECASE))
    if n_open != len(blocks):
        raise ValueError(f"{path}: {n_open} <topic> tag(s) but {len(blocks)} complete <topic>...</topic> topic(s)")
    for position, (attributes, block) in enumerate(blocks, start=1):
        number = _XML_TOPIC_NUMBER.search(attributes)
        if number is None:
            raise ValueError(f"{path}: topic {position} has no number=\"...\" attribute")
        qid = _normalise_id(number.group(1))
        parts = {}
        for element in _XML_TOPIC_ELEMENT.finditer(block):
            tag = element.group(1).lower()
            parts[_XML_FIELD_NAMES.get(tag, tag)] = " ".join(html.unescape(_SGML_TAG.sub(" ", element.group(2))).split())
        missing = [f for f in fields if not parts.get(f)]
        if missing:
            raise ValueError(f"{path}: topic {qid} has no (or an empty) <{missing[0]}> field; fields={fields!r} "
                             "asks for it (in XML topics <query> is the title, <question> the description, "
                             "<narrative> the narrative)")
        ids.append(qid)
        texts.append("\n".join(parts[f] for f in fields))
    return ids, texts


def _read_trec_qrels(paths, encoding, encoding_errors):
    """The judgements ``(query, doc, grade, relevant, (path, line))`` of qrels files as they are
    read, in any layout :func:`read_qrels` reads: a list of each line and a text of where it was
    took 650 MiB for a million lines, and its TREC-only reading took ir_datasets' order's
    relevance for the document."""
    for path in paths:
        refuse_container(path, "qrels", _QRELS_TEXT)     # as read_qrels: no judgements of a binary's garbage
        _layout, rows = _judgement_rows(path, encoding, encoding_errors)
        normalised = {}     # a query as written -> its id, each normalised once
        for q, d, g, n in rows:
            query = normalised.get(q) or normalised.setdefault(q, _normalise_id(q))
            yield query, d, g, g >= 1, (path, n)


def _is_jsonl(path):
    return Path(path).name.lower().endswith(_JSONL_SUFFIXES)


def _jsonl_records(path, encoding="utf-8", encoding_errors="replace", unused=None):
    """``(ids, texts)`` of a JSON Lines file of ``{"id": ..., "text": ...}`` objects; a record's
    title (BEIR's ``{"_id", "title", "text"}``) is joined before its text. ``unused``, a dict,
    gathers the keys read and put nowhere (BEIR's ``"metadata"``), in the order first met."""
    ids, texts, first_line = [], [], {}
    for number, line in decoded_lines(path, encoding=encoding, encoding_errors=encoding_errors):
        if not line.strip():
            continue
        where = f"{path}, line {number}"
        obj = json_record(line, where, invalid="not valid JSON")
        if not isinstance(obj, dict):
            raise ValueError(f"{where}: expected a JSON object; got {type(obj).__name__}{json_array_hint(obj)}")
        key = record_id_key(obj, where)   # "id", BEIR's "_id", ...: as every command reads a record
        if key is None:
            raise ValueError(f'{where}: the record has no id; expected "id" (or "_id", as in BEIR) and "text"')
        rid = obj[key]
        if isinstance(rid, bool) or not isinstance(rid, (str, numbers.Integral)) or not str(rid).strip():
            raise ValueError(f'{where}: "{key}" must be a non-empty string or an integer; got {rid!r}')
        text_key = record_text_key(obj)       # "text", or Pyserini's "contents" where it has none
        text = obj.get(text_key)
        if not isinstance(text, str):
            raise ValueError(f'{where}: "{text_key}" must be a string; got '
                             f'{"nothing" if text is None else repr(text)}' + _text_key_hint(obj))
        text = record_text(obj, text, where)
        rid = str(rid).strip()
        # refused here, where the lines are known (as index build names them): the readers after
        # named the id alone, and the file to search for it
        if first_line.setdefault(rid, number) != number:
            raise ValueError(f"{where}: the id {rid!r} appears twice (first on line {first_line[rid]})")
        ids.append(rid)
        texts.append(text)
        if unused is not None:
            for name, value in obj.items():
                if name not in (key, text_key, "title") and value not in (None, "", {}, []):
                    unused.setdefault(name, None)
    if not ids:
        raise ValueError(f"{path} holds no record")
    return ids, texts


def _layout(path, encoding, encoding_errors):
    """What a documents or queries file holds, told from its name and first line: "jsonl",
    "smart", "sgml", "topics" (classic, XML or id<TAB>text lines: what _read_trec_topics reads),
    "tsv", or None."""
    if _is_jsonl(path):
        return "jsonl"
    if path.exists() and not path.is_file():
        # a pipe (mkfifo, <(zcat ...)) is read once: told apart here, its records were read from
        # it again, which waited for a writer forever
        from ._decode import DocumentFormatError

        raise DocumentFormatError(f"{path} is a pipe or a device, not a file: its layout is told from a first "
                                  "reading before its records are read; save it to a file first (a .jsonl is "
                                  "read in one pass)")
    text = _read_text_file(path, encoding, encoding_errors)
    head = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if not head:
        raise ValueError(f"{path} is empty")
    if _SMART_OPENING.match(head):
        return "smart"
    if _TREC_DOC_OPEN.search(text):
        return "sgml"
    if re.search(r"<top>|<topic\b", text, re.IGNORECASE):
        return "topics"
    return "tsv" if "\t" in head else None


def _smart_records(path, encoding_errors, encoding="utf-8"):
    """(ids, texts) of a SMART file: ``.T`` and ``.W`` joined; where most bodies open with their
    title (Cranfield's), a body that does is used without the title, so it is not counted twice."""
    records, _ = _read_smart_records(path, encoding_errors, encoding)
    titled = [f for _r, f in records if f.get("T") and f.get("W")]
    opens = sum(" ".join(f["W"].split()).startswith(" ".join(f["T"].split())) for f in titled)
    title_opens_body = bool(titled) and opens >= len(titled) / 2
    return ([rid for rid, _f in records],
            [_smart_text(f, _SMART_TEXT_FIELDS, title_opens_body)[0] for _r, f in records])


def _unique(path, ids, texts, what):
    seen = {}
    for i, text in zip(ids, texts):
        if i in seen:
            raise ValueError(f"{path}: the {what} id {i!r} occurs more than once")
        seen[i] = text
    return seen


_PART_LAYOUTS = {
    "documents": "SMART (.I records), TREC SGML (<DOC><DOCNO>...), JSON Lines (.jsonl with \"id\" or \"_id\" "
                 "and \"text\") or id<TAB>text lines",
    "queries": "SMART (.I records), TREC topics (<top> or <topic number=...>), JSON Lines (.jsonl with \"id\" "
               "or \"_id\" and \"text\") or qid<TAB>text lines",
}


def read_corpus(path, *, text_tags=None, encoding="utf-8", encoding_errors="replace", quoting="auto"):
    """Read the documents of a retrieval collection, with their ids, from one file or folder.

    Parameters
    ----------
    path : path-like
        A file in one of these layouts, told from its name and content:

        * SMART (``.I <id>`` records; the ``.T`` and ``.W`` fields joined, the title left out
          of a body that opens with it where most do, as in Cranfield's ``cran.all.1400``), as
          CISI's ``CISI.ALL``;
        * TREC SGML (``<DOC><DOCNO>id</DOCNO> ... </DOC>``, any number per file);
        * JSON Lines (``.jsonl``): ``{"id": ..., "text": ...}``, or BEIR's
          ``{"_id": ..., "title": ..., "text": ...}`` (the title joined before the text);
        * ``id<TAB>text`` lines (an optional header ``id<TAB>text``).

        A folder is read as TREC SGML and ``.tsv`` files, recursively (as
        :func:`load_trec_collection` reads one).
    text_tags : tuple of str, optional
        TREC SGML: the elements whose content is the text (see :func:`load_trec_collection`).
    encoding : str, default="utf-8"
    encoding_errors : {"replace", "strict"}, default="replace"
        As in :func:`load_trec_collection`.
    quoting : {"auto", "csv", "none"}, default="auto"
        ``id<TAB>text`` lines, as :func:`learnsim.datasets.read_documents` takes it: plain TSV, but
        a field wholly in CSV quotes with its quotes doubled (pandas' ``to_csv(sep="\t")``) is an
        error naming ``"csv"`` (undo CSV quoting) and ``"none"`` (keep the quotes as text).

    Returns
    -------
    dict of {str: str}
        Document id -> text, in file order; ids as written (a run file names them so; the
        judgements meet ``"007"`` by value, as ``"7"``), but TREC topic and SMART numbers.

    Raises
    ------
    ValueError
        On a file of no known layout, a malformed record (the message names the file and
        line), a repeated id, or an empty file.
    FileNotFoundError

    Examples
    --------
    >>> import os, tempfile
    >>> from learnsim.datasets import read_corpus
    >>> path = os.path.join(tempfile.mkdtemp(), "corpus.jsonl")
    >>> with open(path, "w", encoding="utf-8") as f:
    ...     _ = f.write('{"_id": "d1", "title": "Passwords", "text": "how do I reset it"}\\n'
    ...                 '{"_id": "d2", "title": "", "text": "I was charged twice"}\\n')
    >>> read_corpus(path)
    {'d1': 'Passwords\\nhow do I reset it', 'd2': 'I was charged twice'}
    """
    check_encoding_errors(encoding_errors)
    check_quoting(quoting)
    path = _as_paths(path, "documents")[0]
    if path.is_dir():
        ids, texts, _ = _read_trec_documents([path], text_tags, encoding, encoding_errors, quoting)
        return _unique(path, ids, texts, "document")
    layout = _layout(path, encoding, encoding_errors)
    if layout == "jsonl":
        ids, texts = _jsonl_records(path, encoding, encoding_errors)
    elif layout == "smart":
        ids, texts = _smart_records(path, encoding_errors, encoding)
    elif layout == "sgml":
        ids, texts, _ = _read_trec_documents([path], text_tags, encoding, encoding_errors)
    elif layout == "tsv":
        ids, texts = _tsv_records(path, _read_text_file(path, encoding, encoding_errors), quoting)
    else:
        raise ValueError(f"{path}: not a documents file of a known layout; expected {_PART_LAYOUTS['documents']}")
    if not ids:
        raise ValueError(f"{path} holds no document")
    return _unique(path, ids, texts, "document")


def read_queries(path, *, fields=("title",), encoding="utf-8", encoding_errors="replace", quoting="auto"):
    """Read the queries of a retrieval collection, with their ids, from one file.

    Parameters
    ----------
    path : path-like
        A file in one of these layouts, told from its name and content:

        * ``qid<TAB>text`` lines (an optional header ``qid<TAB>text``), as MS MARCO's;
        * JSON Lines (``.jsonl``): ``{"id": ..., "text": ...}`` or BEIR's
          ``{"_id": ..., "text": ...}``;
        * TREC topics: classic ``<top><num> Number: 301 <title> ...</top>`` or XML
          ``<topic number="1"><query>...</query>...</topic>`` (``fields`` chooses the text);
        * SMART (``.I <id>`` records; ``.T`` and ``.W`` joined), as ``CISI.QRY``.
    fields : tuple of str, default=("title",)
        TREC topics: the fields joined into the query text, e.g. ``("title", "desc")``.
    encoding : str, default="utf-8"
    encoding_errors : {"replace", "strict"}, default="replace"
    quoting : {"auto", "csv", "none"}, default="auto"
        ``qid<TAB>text`` lines, as in :func:`read_corpus`.

    Returns
    -------
    dict of {str: str}
        Query id -> text, in file order; ids as written (a run file names them so; the
        judgements meet ``"007"`` by value, as ``"7"``), but a topic's ``<num>`` (a number:
        ``"Number: 051"`` is ``"51"``, as in TREC's qrels).

    Raises
    ------
    ValueError
        On a file of no known layout, a malformed line or topic (the message names the file
        and line or topic), a repeated id, or an empty file.
    FileNotFoundError

    Examples
    --------
    >>> import os, tempfile
    >>> from learnsim.datasets import read_queries
    >>> path = os.path.join(tempfile.mkdtemp(), "queries.tsv")
    >>> with open(path, "w", encoding="utf-8") as f:
    ...     _ = f.write("q1\\tpassword reset\\nq2\\tdouble charge\\n")
    >>> read_queries(path)
    {'q1': 'password reset', 'q2': 'double charge'}
    """
    check_encoding_errors(encoding_errors)
    check_quoting(quoting)
    path = _as_paths(path, "queries")[0]
    if path.is_dir():
        raise ValueError(f"{path} is a folder; queries must be a file")
    if isinstance(fields, str):
        fields = (fields,)
    fields = tuple(str(f).strip().lower() for f in fields)
    layout = _layout(path, encoding, encoding_errors)
    if layout == "jsonl":
        ids, texts = _jsonl_records(path, encoding, encoding_errors)
    elif layout == "smart":
        ids, texts = _smart_records(path, encoding_errors, encoding)
    elif layout == "topics":
        ids, texts = _read_trec_topics([path], fields, encoding, encoding_errors)
    elif layout == "tsv":
        ids, texts = _tsv_records(path, _read_text_file(path, encoding, encoding_errors), quoting)
    else:
        raise ValueError(f"{path}: not a queries file of a known layout; expected {_PART_LAYOUTS['queries']}")
    if not ids:
        raise ValueError(f"{path} holds no query")
    return _unique(path, ids, texts, "query")


# ------------------------------------------------------------------------------ relevance judgments

def _is_number(text):
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


# the texts of judgements read, for refuse_container's message
_QRELS_TEXT = "TREC's lines 'query 0 document level' or BEIR's TSV (query-id, corpus-id, score)"
# what TREC writes as the iteration and ir_datasets' export as its iteration (lowercased)
_ITERATIONS = ("0", "q0")


def _number_pairs(first, where, tabs):
    """The layout of 4-field rows whose last two fields are the same numbers on every line:
    CISI's and CACM's relevant pairs (``1 28 0 0.000000``, ``01 1410 0 0``), or ir_datasets'
    order (``query doc relevance iteration``) every judgement of one relevance. Its export
    writes tabs between the four fields, the SMART files blanks: under tabs, two integers are
    ir_datasets' relevance and iteration, and ``0 0`` (every document judged not relevant, or
    CACM's pairs written with tabs) cannot be told and is refused."""
    if not (tabs and _ASCII_INTEGER.fullmatch(first[2]) and _ASCII_INTEGER.fullmatch(first[3])):
        return "pairs"
    if int(first[2]) < 1:
        raise ValueError(f"{where}: every line reads 'query<TAB>document<TAB>{first[2]}<TAB>{first[3]}': relevant "
                         "pairs (as CACM's qrels.text lists them) or 'query document relevance iteration' "
                         f"(ir_datasets' order) judging every document not relevant (relevance {first[2]}), which "
                         "cannot be told apart; for ir_datasets' order add its header "
                         "'query_id<TAB>doc_id<TAB>relevance<TAB>iteration', for pairs keep the first two columns")
    return "irds"


def _constant_columns(first, c, where, tabs):
    """The layout of 4-field rows whose second field and fourth are each the same on every line
    (one line, or one document judged throughout), the third an integer: either may be the
    iteration, TREC's second or ir_datasets' fourth. TREC writes it ``0`` or ``Q0``; where the
    fields do not say which it is, the file is refused. Read as TREC, ``q1 d1 1 0`` (ir_datasets'
    order) was the document '1' judged 0, for the lack of a second line to vary the document."""
    second, fourth = first[1].lower(), first[3].lower()
    if second in _ITERATIONS and (fourth not in _ITERATIONS or second == fourth == "0"):
        return "trec"       # "q1 0 5 1", "q1 Q0 5 0", and "q1 0 5 0", TREC's own iteration
    if c["constant_numbers"] and (fourth in _ITERATIONS or not _ASCII_INTEGER.fullmatch(fourth)):
        return _number_pairs(first, where, tabs)     # CISI's "1 28 0 0.000000", CACM's "01 1410 0 0"
    if fourth in _ITERATIONS:
        return "irds"       # "q1 d1 2 0", "q1 0 2 Q0": no TREC grade is 'Q0'
    raise ValueError(f"{where}: cannot tell 'query iteration document relevance' (TREC) from 'query document "
                     "relevance iteration' (ir_datasets' order): the second field and the fourth are the same on "
                     "every line and neither is an iteration 0 or Q0; add a header naming the columns "
                     "('qid Q0 docno rel' or 'query_id doc_id relevance iteration')")


def _layout_of(n, c, where, first=None, tabs=False):
    """The layout of rows of ``n`` fields whose columns meet the tests ``c`` (see
    :func:`_layout_tests`); ``first``: the first row, ``tabs``: whether every row splits at
    tabs into its ``n`` fields."""
    if n == 4 and c["iteration_second"] and first is not None and (c["iteration_fourth"] or c["constant_numbers"]):
        return _constant_columns(first, c, where, tabs)
    if n == 4 and c["iteration_second"]:
        return "trec"
    if n == 3:
        return "graded"
    # CISI's pairs carry two constant numbers after them ("1 28 0 0.000000"); TREC lines whose
    # iteration varies (a counter, the query again) judge with a fourth field that is a level,
    # and were read as pairs of (query, iteration), every one relevant
    if n == 2:
        return "pairs"
    if n == 4 and c["constant_numbers"]:
        return _number_pairs(first, where, tabs) if first is not None else "pairs"
    if n == 4 and c["iteration_fourth"] and c["some_doc_not_query"]:
        # the fourth field is the one the same on every line and the third holds integers:
        # ir_datasets' order (query_id doc_id relevance iteration, as its tsv export writes it),
        # read as TREC the relevance became the document and the iteration (0) every grade,
        # every measure 0 without a word. Where the second field is all numbers too, it may be a
        # TREC iteration counter over numeric documents: which is meant cannot be told
        if c["second_integers"]:
            raise ValueError(f"{where}: cannot tell 'query iteration document relevance' (TREC, its iteration "
                             "varying) from 'query document relevance iteration' (ir_datasets' export, its "
                             "iteration the same on every line): every field but the first is a number; write "
                             "the file as TREC, the iteration second ('q1 0 d1 1')")
        return "irds"
    if n == 4:
        return "trec"
    raise ValueError(f"{where}: {n} field(s); expected 'query iteration document relevance' (TREC), "
                     "'query-id corpus-id score' under a header (BEIR), or 'query document [grade]' (SMART)"
                     + _not_qrels_hint(first))


def _not_run_hint(fields):
    """What a line that is no run line looks like it is, for the error (judgements given as the
    run, and MS MARCO's runs, were told their number of fields alone)."""
    if len(fields) == 4 and fields[1].lower() in _ITERATIONS and _ASCII_INTEGER.fullmatch(fields[3]):
        return "; the line reads as relevance judgements ('query 0 document relevance'): give them as --qrels"
    if len(fields) == 3 and _ASCII_INTEGER.fullmatch(fields[2]):
        return ("; the line reads as an MS MARCO run ('query document rank', Pyserini's --output-format msmarco), "
                "which holds no score: write the run as TREC (--output-format trec)")
    return ""


def _not_qrels_hint(first):
    """What a line of no qrels layout looks like it is, for the error: a run file, JSON Lines and
    a CSV given as judgements were told only their number of fields."""
    if not first:
        return ""
    if len(first) == 6 and _ASCII_INTEGER.fullmatch(first[3]) and _is_number(first[4]):
        return ("; the line reads as a TREC run ('query Q0 document rank score tag'), not relevance judgements "
                "(learnsim evaluate measures a run with --run FILE --qrels JUDGEMENTS)")
    if first[0].startswith(("{", "[")):
        return ("; the line reads as JSON (ir_datasets' export --format jsonl?): write the judgements as TREC lines "
                "('query 0 document relevance'), or export them with --format tsv")
    if len(first) == 1 and "," in first[0]:
        return "; the fields are apart by commas: write them apart by tabs or blanks"
    return ""


def _layout_tests(first):
    """The tests :func:`_layout_of` decides by, true of the first row alone; :func:`_meet_tests`
    takes each further row into account (a test, once false, stays false; "some_doc_not_query"
    once true stays true)."""
    c = {"iteration_second": True, "constant_numbers": True, "iteration_fourth": True,
         "some_doc_not_query": False, "second_integers": True}
    if len(first) == 4:
        _meet_tests(c, first, first)
    return c


def _meet_tests(c, first, f):
    """Update the tests ``c`` with the 4-field row ``f``; whether any of them changed."""
    before = tuple(c.values())
    if c["iteration_second"] and f[1] != first[1]:
        c["iteration_second"] = False
    if c["constant_numbers"] and not (f[2] == first[2] and f[3] == first[3] and _is_number(f[2])
                                      and _is_number(f[3])):
        c["constant_numbers"] = False
    if c["iteration_fourth"] and not (f[3] == first[3] and _ASCII_INTEGER.fullmatch(f[2])):
        c["iteration_fourth"] = False
    if not c["some_doc_not_query"] and f[1] != f[0]:
        c["some_doc_not_query"] = True
    if c["second_integers"] and not _ASCII_INTEGER.fullmatch(f[1]):
        c["second_integers"] = False
    return tuple(c.values()) != before


def _qrels_layout(rows, tabs=False):
    """"beir" (a header ``query-id corpus-id score``, then three fields), "trec" (four fields,
    the second the same on every line: the iteration), "irds" (``query doc relevance
    iteration``, ir_datasets' order: the fourth the same on every line), "graded" (``query doc grade``), or
    "pairs" (``query doc``, or CISI's ``query doc 0 0.000000``: every listed pair relevant)."""
    where, first = rows[0]
    for line_where, fields in rows:
        if len(fields) != len(first):
            raise ValueError(f"{line_where}: {len(fields)} field(s), but {where} has {len(first)}; expected "
                             "'query iteration document relevance' (TREC) on every line")
    c = _layout_tests(first)
    if len(first) == 4:
        for _w, fields in rows:
            _meet_tests(c, first, fields)
    return _layout_of(len(first), c, where, first, tabs)


_QRELS_FIELDS = {"trec": "query, iteration, docno, relevance", "beir": "query-id, corpus-id, score",
                 "irds": "query_id, doc_id, relevance, iteration"}
# the names of a header over pairs of query and document ids
_QRELS_HEADER_NAMES = frozenset(_TSV_ID_NAMES + ("query", "doc", "document", "qry", "topic", "q0"))
# what each column of a header says it holds, by its name ("id" and "_id" say nothing)
_QRELS_ROLE_NAMES = {
    "query": frozenset(("query-id", "query_id", "queryid", "qid", "query", "qry", "topic", "topic_id", "topicid")),
    "doc": frozenset(("corpus-id", "corpus_id", "doc-id", "doc_id", "docid", "docno", "doc", "document", "pid")),
    "grade": frozenset(("score", "relevance", "rel", "grade", "label", "judgment", "judgement", "level")),
    "iteration": frozenset(("iteration", "iter", "q0")),
}
_QRELS_ALL_NAMES = _QRELS_HEADER_NAMES.union(*_QRELS_ROLE_NAMES.values())
# the columns of a header whose names leave them open, by its number of fields
_QRELS_DEFAULT_ROLES = {2: ("query", "doc"), 3: ("query", "doc", "grade"), 4: ("query", "iteration", "doc", "grade")}
_QRELS_ROLE_LAYOUTS = {("query", "doc"): "pairs", ("query", "doc", "grade"): "beir",
                       ("query", "iteration", "doc", "grade"): "trec", ("query", "doc", "grade", "iteration"): "irds"}


def _qrels_header(fields, where):
    """The roles of a header's columns (("query", "doc", "grade"), ...), or None where ``fields``
    are not all names a header gives its columns (then they are a judgement)."""
    names = [f.lower() for f in fields]
    if len(names) not in _QRELS_DEFAULT_ROLES or not _QRELS_ALL_NAMES.issuperset(names):
        return None
    named = [next((role for role, known in _QRELS_ROLE_NAMES.items() if n in known), None) for n in names]
    if None not in named and len(set(named)) == len(named) and {"query", "doc"} <= set(named):
        return tuple(named)
    default = _QRELS_DEFAULT_ROLES[len(names)]
    if all(role in (None, d) for role, d in zip(named, default)):
        return default
    raise ValueError(f"{where}: the header {' '.join(fields)!r} does not say which column is the query, which "
                     "the document and which the relevance; name them as BEIR does (query-id, corpus-id, score)")


def _tab_fields(rows, lines):
    """``rows`` split at tabs alone where every line holds a tab and so splits into the same number
    of non-empty fields, some of them holding a blank: an id with a space (``doc 1``, which a
    corpus accepts) under no header, split at blanks, was read as TREC's ``query iteration doc
    relevance`` (the document ``1``) or refused for its number of fields. CISI's pairs (``1
    28<TAB>0<TAB>0.000000``, query and document apart by blanks) stay split at blanks."""
    if not all("\t" in line for line in lines):
        return rows
    split = [(where, [f.strip() for f in line.strip().split("\t")]) for (where, _), line in zip(rows, lines)]
    counts = {len(fields) for _w, fields in split}
    if len(counts) != 1 or not counts <= {2, 3, 4} or any(not f for _w, fields in split for f in fields) or \
            all(len(a) == len(b) for (_w, a), (_v, b) in zip(rows, split)):
        return rows
    try:
        if _qrels_layout(rows) == "pairs":
            return rows
    except ValueError:
        pass
    return split


# judgement lines read to tell a qrels file's layout; a later line that contradicts it is refused
_QRELS_SAMPLE_ROWS = 10_000
_QRELS_LAYOUT_NAMES = {"trec": "'query iteration document relevance' (TREC)",
                       "irds": "'query document relevance iteration' (ir_datasets' order)",
                       "graded": "'query document grade'", "pairs": "'query document' pairs"}


def _without_boms(lines):
    """``(number, line)`` of ``lines`` without a byte-order mark opening a line: files joined
    with ``cat``, each opening with its own, made the first query of every file after the first
    another id ('\ufeffq2', which str.split keeps), its judgements or its run met nowhere."""
    for number, line in lines:
        yield number, (line[1:] if line.startswith("\ufeff") else line)


def _judgement_rows(path, encoding="utf-8", encoding_errors="replace", as_written=False):
    """``(layout, rows)`` of a qrels file: ``rows`` yields ``(query as written, doc, grade,
    line number)`` as the file is read. The layout is told from the first
    :data:`_QRELS_SAMPLE_ROWS` judgement lines (a header, the number of fields, tabs or blanks,
    the columns that stay the same); every later line is checked against what that decision
    rests on and refused, naming its line, where it contradicts it: keeping every line to tell
    the layout from them all took 30 s and 870 MB for a file of a million lines."""
    lines_of = _without_boms(decoded_lines(path, encoding=encoding, encoding_errors=encoding_errors))
    lines_of = bounded_lines(lines_of, path)    # each line bounded before it is split into its fields
    rows, lines, line_numbers = [], [], []
    for number, line in lines_of:
        fields = line.split()
        if fields and not fields[0].startswith("#"):
            if "\t" not in line:       # read at blanks; a line with tabs is checked once split (judged)
                refuse_unicode_blanks(line, fields, f"{path}, line {number}")
            rows.append((f"{path}, line {number}", fields))
            lines.append(line)
            line_numbers.append(number)
            if len(rows) == _QRELS_SAMPLE_ROWS:
                break
    if not rows:
        raise ValueError(f"{path} holds no relevance judgment")
    roles = _qrels_header(rows[0][1], rows[0][0]) if len(rows) > 1 or len(rows[0][1]) > 2 else None
    tests = None
    if roles is not None:
        # a header ("query-id<TAB>corpus-id<TAB>score", ir_datasets' names, "qid docno") says which
        # column is which; what is not such names is a judgement: a first line "q1 d1 high" was
        # taken for BEIR's header and dropped without a word, and "corpus-id query-id score" read
        # the documents as the queries
        # split at tabs alone, so that an id holding a space ("doc 1", which a corpus accepts) is one field
        split_tabs, tabs_agree = "\t" in lines[0], False
        if split_tabs:
            rows = [(where, [f.strip() for f in line.strip().split("\t")]) for (where, _), line in zip(rows, lines)]
        header, rows, lines, line_numbers = rows[0][1], rows[1:], lines[1:], line_numbers[1:]
        if not rows:
            raise ValueError(f"{path} holds a header and no relevance judgment")
        layout = _QRELS_ROLE_LAYOUTS.get(roles, "header")
        expected, names = len(roles), ", ".join(header)
        query_col, doc_col = roles.index("query"), roles.index("doc")
        grade_col = roles.index("grade") if "grade" in roles else None
    else:
        split = _tab_fields(rows, lines)
        # a line of another number of fields ends the sample: the layout is told from the lines
        # before it, which are read (and refused) before it, and it is read in its turn: the
        # error names the first bad line of the file, where a count at line 9,000 was named
        # before a relevance 'high' at line 5
        bad = next((i for i, (_w, fields) in enumerate(split) if len(fields) != len(split[0][1])), None)
        if bad is not None:
            lines_of = itertools.chain(zip(line_numbers[bad:], lines[bad:]), lines_of)
            rows, lines, line_numbers = rows[:bad], lines[:bad], line_numbers[:bad]
            split = _tab_fields(rows, lines)
        split_tabs = split is not rows
        # lines that split at tabs as at blanks: a later one holding an id with a blank, split at
        # tabs, would have had the whole file split so
        tabs_agree = not split_tabs and all("\t" in line for line in lines) and \
            all(len(fields) == len(line.strip().split("\t")) for (_w, fields), line in zip(rows, lines))
        rows = split
        # ir_datasets' export writes its four fields apart by tabs (tells its order from SMART's pairs)
        tabs = all(len(line.strip().split("\t")) == len(fields) for (_w, fields), line in zip(rows, lines))
        layout = _qrels_layout(rows, tabs)
        tests = _layout_tests(rows[0][1])
        for _w, fields in rows if len(rows[0][1]) == 4 else ():
            _meet_tests(tests, rows[0][1], fields)
        expected = {"trec": 4, "irds": 4}.get(layout)
        names = _QRELS_FIELDS.get(layout)
        query_col = 0
        doc_col, grade_col = {"trec": (2, 3), "graded": (1, 2), "pairs": (1, None), "irds": (1, 2)}[layout]
    first_where, first = rows[0]
    n_sample = len(rows)

    def later_fields(number, line):
        """The fields of a judgement line after the sample, refused where they contradict the
        layout told from the sample."""
        fields = line.split()
        if split_tabs:
            split = [f.strip() for f in line.strip().split("\t")]
            if roles is None and ("\t" not in line or len(split) != len(first) or not all(split)):
                raise ValueError(f"{path}, line {number}: {len(split)} field(s) split at tabs, but the first "
                                 f"{n_sample:,} judgement lines split at tabs into {len(first)} (an id holding a "
                                 f"blank), and the layout was told from them; every line must hold "
                                 f"{len(first)} fields apart by tabs")
            fields = split
        elif tabs_agree and "\t" in line:
            # the sample split at tabs as at blanks; a later line holding an id with a blank ("doc 2")
            # is read at tabs, as the whole file, every line of it holding tabs, was read
            split = [f.strip() for f in line.strip().split("\t")]
            if len(split) == len(first) and all(split):
                fields = split
        if tests is None:
            return fields
        if len(fields) != len(first):
            raise ValueError(f"{path}, line {number}: {len(fields)} field(s), but {first_where} has {len(first)}; "
                             "expected 'query iteration document relevance' (TREC) on every line")
        if len(fields) == 4 and _meet_tests(tests, first, fields):
            try:
                now, why = _layout_of(4, tests, first_where, first, tabs), ""
            except ValueError as exc:
                now, why = None, f" ({exc})"
            if now != layout:
                raise ValueError(f"{path}, line {number}: the first {n_sample:,} judgement lines read as "
                                 f"{_QRELS_LAYOUT_NAMES[layout]}, which this line contradicts"
                                 + (why or f"; with it the file reads as {_QRELS_LAYOUT_NAMES[now]}")
                                 + "; is a line out of place?")
        return fields

    # no test of the fields of a line after the sample but their number: a header says what each column is
    checked = tests is not None or (split_tabs and roles is None)
    grades = {}     # a grade's text -> its level: a file holds a few, each checked once

    def judgement(number, fields):
        if expected is not None and len(fields) != expected:
            raise ValueError(f"{path}, line {number}: {len(fields)} field(s), expected {expected}: {names}")
        empty = next((what for what, col in (("query", query_col), ("document", doc_col)) if not fields[col]), None)
        if empty is not None:
            # split at tabs (under a header), a line "1<TAB><TAB>1" judged the document '' without a
            # word, an id no corpus has
            raise ValueError(f"{path}, line {number}: the {empty} id is empty (fields: {names}); give every "
                             "judgement its query and its document")
        if grade_col is None:
            grade = 1          # the file lists the relevant pairs only
        else:
            grade = grades.get(fields[grade_col])
            if grade is None:
                grade = grades[fields[grade_col]] = _grade(fields[grade_col], f"{path}, line {number}",
                                                           noun="relevance")
        return fields[query_col], fields[doc_col] if as_written else _normalise_id(fields[doc_col]), grade, number

    def judged():
        for number, (where, fields), line in zip(line_numbers, rows, lines):
            refuse_unicode_blanks(line, fields, where)
            yield judgement(number, fields)
        for number, line in lines_of:
            stripped = line.strip()
            if not stripped or stripped[0] == "#":
                continue        # a blank line, a comment (str.split and str.strip know the same blanks)
            if checked:
                fields = later_fields(number, line)
            elif split_tabs:
                fields = [f.strip() for f in stripped.split("\t")]
            else:
                fields = stripped.split()
            refuse_unicode_blanks(line, fields, f"{path}, line {number}")
            yield judgement(number, fields)

    return layout, judged()


def read_qrels(path, *, query_ids=None, numbering="auto", encoding="utf-8", encoding_errors="replace",
               info=None, unknown="error"):
    """Read relevance judgments (qrels) into ``{query_id: {doc_id: level}}``.

    Parameters
    ----------
    path : path-like
        A file in one of these layouts, told from its lines (blank lines and lines opening with
        ``#`` are skipped):

        * TREC: ``query iteration document relevance`` (the iteration, ``0`` or ``Q0``, the
          same on every line);
        * BEIR's TSV: a header ``query-id corpus-id score``, then three fields a line;
        * ``query document relevance iteration``, ir_datasets' order (its ``export``), told
          from TREC's by the iteration, the field the same on every line (where every field
          but the first is a number, which is meant cannot be told: an error);
        * ``query document grade`` (Cranfield's ``cranqrel``);
        * ``query document`` pairs, or CISI's ``query document 0 0.000000`` and CACM's
          ``query document 0 0``: every listed pair relevant (level 1);
        * any of these under a header of column names (BEIR's ``query-id corpus-id score``,
          ir_datasets' ``query_id doc_id relevance iteration``, ``qid Q0 docno rel``): the names
          say which column is which, in any order. A first line is a header only where every
          field is such a name.

        Where the second field and the fourth are both the same on every line (one line), the
        iteration is the one written ``0`` or ``Q0``; four fields apart by tabs whose last two
        are the same integers are ir_datasets' order (``0 0`` throughout, CACM's pairs or every
        document judged not relevant, is refused: a header says which).

        The file is read line by line, its layout told from the first 10,000 judgement lines; a
        later line that contradicts it is refused, naming its line.

        Relevance levels are integers; >= 1 is relevant, and the level is the gain of nDCG.
    query_ids : sequence of str, optional
        The ids of the queries the judgments are for. Given, a judgment naming another query
        is an error (``unknown="keep"``: kept, for the caller to count), and ``numbering``
        applies.
    numbering : {"auto", "id", "position"}, default="auto"
        With ``query_ids``: whether the file names queries by id, or by their position 1..n in
        ``query_ids`` (Cranfield). ``"auto"``: by id when every query named is one, else by
        position when every one is a number 1..n.
    encoding : str, default="utf-8"
    encoding_errors : {"replace", "strict"}, default="replace"
    info : dict, optional
        Receives ``"layout"`` ("trec", "beir", "irds", "graded", "pairs", or "header" for
        columns in another order under a header), ``"numbering"`` and
        ``"n_judgments"``.
    unknown : {"error", "keep"}, default="error"
        With ``query_ids``: what a judgment naming another query is.

    Returns
    -------
    dict of {str: dict of {str: int}}
        All-digit ids lose their leading zeros.

    Raises
    ------
    ValueError
        On a line with another number of fields than the others, a relevance that is not an
        integer, a pair judged twice with different levels, a query not in ``query_ids``, or
        an empty file; the message names the file and line.
    FileNotFoundError

    Examples
    --------
    >>> import os, tempfile
    >>> from learnsim.datasets import read_qrels
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.tsv")
    >>> with open(path, "w", encoding="utf-8") as f:
    ...     _ = f.write("query-id\\tcorpus-id\\tscore\\nq1\\td1\\t2\\nq1\\td7\\t0\\nq2\\td3\\t1\\n")
    >>> read_qrels(path)
    {'q1': {'d1': 2, 'd7': 0}, 'q2': {'d3': 1}}
    """
    check_encoding_errors(encoding_errors)
    if numbering not in ("auto", "id", "position"):
        raise ValueError(f"numbering must be 'auto', 'id' or 'position'; got {numbering!r}")
    if unknown not in ("error", "keep"):
        raise ValueError(f"unknown must be 'error' or 'keep'; got {unknown!r}")
    path = _as_paths(path, "qrels")[0]
    if path.is_dir():
        raise ValueError(f"{path} is a folder; qrels must be a file")
    refuse_container(path, "qrels", _QRELS_TEXT)
    layout, rows = _judgement_rows(path, encoding, encoding_errors)
    qrels, n_judgments, again = {}, 0, None
    if query_ids is None:
        numbering = "id"
    else:
        query_ids = [_normalise_id(str(q)) for q in query_ids]
        # the numbering is told from the queries the file names, so the judgements are kept until it
        # is known: each query as written once, the rest as numbers in arrays (tuples of the lines
        # took 340 MB for a million lines)
        index, first_line = {}, []      # a query as written -> its position; its first line
        queries, docs, levels, line_numbers = array("q"), [], array("q"), array("q")
        known = set(query_ids)

        def numbered():
            """(the queries' ids, the numbering) of the queries read so far, each as written once,
            where it first appears: the first line refused is the one reading every line refuses."""
            mapped, how = _number_queries([(q, None, None, None, f"{path}, line {n}")
                                           for q, n in zip(index, first_line)], query_ids, numbering, path)
            for query, *_rest, where in mapped if unknown == "error" else ():
                if query not in known:
                    raise ValueError(f"{where}: query {short_repr(query)} is not among the {len(known)} queries")
            return mapped, how

        try:
            for query, doc, grade, number in rows:
                i = index.get(query)
                if i is None:
                    i = index[query] = len(first_line)
                    first_line.append(number)
                queries.append(i)
                docs.append(doc)
                levels.append(grade)        # within +-2**31 (check_grade)
                line_numbers.append(number)
        except ValueError:
            # a line that cannot be read; a query not among query_ids on an earlier line is the
            # first bad line (told by the queries before it, numbered as the whole file would
            # number them where they name an unknown query), and named instead
            numbered()
            raise
        mapped, numbering = numbered()
        as_id = [query for query, *_rest in mapped]
        rows = ((as_id[i], d, g, n) for i, d, g, n in zip(queries, docs, levels, line_numbers))
    normalised = {}     # a query as written -> its id (all-digit ids lose their leading zeros)
    for query, doc, grade, number in rows:
        n_judgments += 1
        if query_ids is None:
            query = normalised.get(query) or normalised.setdefault(query, _normalise_id(query))
        judged = qrels.get(query)
        if judged is None:
            judged = qrels[query] = {}
        earlier = judged.setdefault(doc, grade)
        if earlier != grade and again is None:
            # refused once the whole file is read, as before it was read whole: a line that
            # cannot be read at all is the one named
            again = (number, query, doc, grade, earlier)
    if again is not None:
        raise ValueError(judged_again(path, _judgement_rows(path, encoding, encoding_errors, as_written=True)[1],
                                      again, _normalise_id, numbering == "position"))
    if info is not None:
        info.update(layout=layout, numbering=numbering, n_judgments=n_judgments)
    return qrels


def _looks_like_collection_file(path):
    """Whether a file opens like SMART records or holds TREC SGML documents or topics: the
    layouts :func:`read_corpus` / :func:`read_queries` read, whatever the file's extension."""
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 16).decode("latin-1")
    except OSError:
        return False
    first = next((line.strip() for line in head.splitlines() if line.strip()), "")
    return bool(_SMART_OPENING.match(first) or re.search(r"<top>|<topic\b|<DOC[\s>]", head, re.IGNORECASE))


def read_id_texts(path, part="documents", *, encoding_errors="replace", quoting="auto", with_unused=False,
                  encoding="utf-8"):
    """``(ids, texts)`` of a documents or queries file whose records carry ids, as a run file and
    judgements name them, read the same way by every command (``index build``, ``fit --qrels``,
    ``search --run``, ``evaluate``).

    Documents in ``.tsv``/``.txt``/``.csv`` (and queries in ``.csv``) are read as
    :func:`learnsim.datasets.read_documents` reads them, every record with an id; everything
    else by :func:`read_corpus` (``part="documents"``) or :func:`read_queries`: JSON Lines with
    ``"id"`` or BEIR's ``"_id"`` (the title joined before the text), ``id<TAB>text`` lines, SMART
    records, TREC SGML documents or topics.

    With ``with_unused=True`` a third value lists the fields read and put nowhere (JSON keys
    other than the id, ``"title"`` and ``"text"``, such as BEIR's ``"metadata"``; ``.csv``
    columns other than the id and text): a command names them rather than drop them silently.

    ``encoding`` (default ``"utf-8"``; the command line's ``--encoding``) is every layout's, as in
    :func:`read_corpus`.

    Raises
    ------
    FileNotFoundError
    DocumentFormatError
        A record without an id, or an id given twice (``.tsv``/``.txt``/``.csv``); the readers'
        own errors otherwise (ValueError).

    Examples
    --------
    >>> import os, tempfile
    >>> from learnsim.datasets import read_id_texts
    >>> path = os.path.join(tempfile.mkdtemp(), "corpus.jsonl")
    >>> with open(path, "w", encoding="utf-8") as f:
    ...     _ = f.write('{"_id": "d1", "title": "Passwords", "text": "how to reset it"}\\n')
    >>> read_id_texts(path)
    (['d1'], ['Passwords\\nhow to reset it'])
    """
    from .documents import read_documents, repeated_id
    from ._decode import DocumentFormatError

    if part not in ("documents", "queries"):
        raise ValueError(f"part must be 'documents' or 'queries'; got {part!r}")
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    # documents as 'learnsim index build' reads them (so that an index and its corpus file agree);
    # queries as read_queries, but for a .csv
    suffixes = (".tsv", ".txt", ".csv") if part == "documents" else (".csv",)
    if path.is_file() and path.suffix.lower() in suffixes and not _looks_like_collection_file(path):
        docs = read_documents(path, encoding_errors=encoding_errors, quoting=quoting, encoding=encoding)
        for doc_id, number in zip(docs.ids, docs.line_numbers):
            if doc_id is None:
                raise DocumentFormatError(f"{path}, line {number}: no id; a run names its {part} by id (give "
                                          f"id<TAB>text lines, a .csv with an id column, or .jsonl with \"id\")")
        twice = repeated_id(docs.ids, docs.line_numbers)
        if twice is not None:
            raise DocumentFormatError(f"{path}, line {twice[2]}: the id {twice[0]!r} appears twice")
        unused = list(docs.unused_fields) + ([] if docs.metadata is None else list(dict.fromkeys(
            k for meta in docs.metadata if isinstance(meta, dict) for k, v in meta.items()
            if v not in (None, "", {}, []))))
        found = dict(zip(docs.ids, docs.texts))
    elif path.is_file() and _is_jsonl(path):
        unused = {}
        check_encoding_errors(encoding_errors)
        ids, texts = _jsonl_records(path, encoding, encoding_errors, unused=unused)
        found, unused = _unique(path, ids, texts, "document" if part == "documents" else "query"), list(unused)
    else:
        read = read_corpus if part == "documents" else read_queries
        found, unused = read(path, encoding_errors=encoding_errors, quoting=quoting, encoding=encoding), []
    check_distinct_ids(found, path, "document" if part == "documents" else "query")
    if part == "queries":
        hashed = next((q for q in found if str(q).startswith("#")), None)
        if hashed is not None:
            # the first field of a run or qrels line: such a line reads as a comment, and the
            # query's judgements and hits would be left out without a word
            raise DocumentFormatError(f"{path}: the query id {str(hashed)[:40]!r} opens with '#', which makes its "
                                      "run and qrels lines comments; rename it")
    out = (list(found), list(found.values()))
    return out + (unused,) if with_unused else out


def check_distinct_ids(ids, where, what="document"):
    """A :class:`DocumentFormatError` where two distinct ids of ``ids`` are one id to the
    judgements and run files (:func:`normalise_run_ids`: an all-digit id without its leading
    zeros, ``"007"`` is ``"7"``): their scores would be merged, silently, into one document's.

    Examples
    --------
    >>> from learnsim.datasets.trec import check_distinct_ids
    >>> check_distinct_ids(["007", "8", "LA-7"], "corpus.tsv")
    >>> check_distinct_ids(["007", "7"], "corpus.tsv")
    Traceback (most recent call last):
        ...
    learnsim.exceptions.DocumentFormatError: corpus.tsv: the document ids '007' and '7' are one id to judgements and run files (an all-digit id is read without its leading zeros) (records 1 and 2); rename one
    """
    from ._decode import DocumentFormatError
    from ._id_reading import one_id_reason

    seen = {}
    for n, i in enumerate(ids, start=1):
        key = _normalise_id(str(i))
        first, m = seen.setdefault(key, (i, n))
        if first != i:      # which records: two forms of 'café' print alike
            raise DocumentFormatError(f"{where}: the {what} ids {one_id_reason(first, i)} (records {m} and {n}); "
                                      "rename one")


# ------------------------------------------------------------------------------ runs

def read_trec_run(path, *, encoding_errors="replace"):
    """Read a TREC run file into ``{query_id: {doc_id: score}}``.

    Parameters
    ----------
    path : path-like
        Lines of six fields ``query Q0 document rank score tag`` (blanks or tabs between;
        blank lines and lines opening with ``#`` are skipped), as trec_eval reads them and
        :func:`write_trec_run` writes them. As in trec_eval, the scores order the documents
        and the rank column is only checked to be an integer.
    encoding_errors : {"replace", "strict"}, default="replace"

    Returns
    -------
    dict of {str: dict of {str: float}}
        Queries in file order, ids as written (trec_eval breaks ties by them; the measures of
        :func:`learnsim.evaluation.run_report` meet judgements by value where the forms differ,
        ``"007"`` and ``"7"``). The layout :func:`learnsim.evaluation.run_report` and pytrec_eval
        take.

    Raises
    ------
    ValueError
        On a line without six fields, a rank that is not an integer, a score that is not a
        finite number, a document ranked twice for a query (trec_eval refuses such a run),
        or a file without any run line; the message names the file and line.
    FileNotFoundError

    Examples
    --------
    >>> import os, tempfile
    >>> from learnsim.datasets import read_trec_run
    >>> path = os.path.join(tempfile.mkdtemp(), "run.trec")
    >>> with open(path, "w", encoding="utf-8") as f:
    ...     _ = f.write("q1 Q0 d3 1 2.5 mine\\nq1 Q0 d1 2 0.75 mine\\nq2 Q0 d1 1 1 mine\\n")
    >>> read_trec_run(path)
    {'q1': {'d3': 2.5, 'd1': 0.75}, 'q2': {'d1': 1.0}}
    """
    check_encoding_errors(encoding_errors)
    path = _as_paths(path, "run")[0]
    if path.is_dir():
        raise ValueError(f"{path} is a folder; a run must be a file")
    run, first_line = {}, {}
    for number, line in _without_boms(decoded_lines(path, encoding_errors=encoding_errors)):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        where = f"{path}, line {number}"
        refuse_unicode_blanks(line, fields, where)
        if len(fields) != 6:
            raise ValueError(f"{where}: {len(fields)} field(s), expected 6: {_RUN_FIELDS}" + _not_run_hint(fields))
        query, _iteration, doc, rank, score, _tag = fields
        if not rank.lstrip("+-").isdigit():
            raise ValueError(f"{where}: the rank {short_repr(rank)} is not an integer ({_RUN_FIELDS})")
        # a number as trec_eval's atof reads one whole: float() also takes "1_000" (atof: 1), "١"
        # (atof: 0), "inf" and "nan", which would rank the documents otherwise
        value = float(score) if _RUN_SCORE.fullmatch(score) else math.nan
        if not math.isfinite(value):
            raise ValueError(f"{where}: the score {short_repr(score)} is not a finite number ({_RUN_FIELDS})")
        ranked = run.setdefault(query, {})
        if doc in ranked:
            raise ValueError(f"{where}: document {short_repr(doc)} is ranked again for query {short_repr(query)} (first on line "
                             f"{first_line[query, doc]}); a run ranks each document once per query")
        ranked[doc] = value
        first_line[query, doc] = number
    if not run:
        raise ValueError(f"{path} holds no run line ({_RUN_FIELDS})")
    return run


_RUN_SCORE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def normalise_run_ids(run):
    """A run or qrels ``{query_id: {doc_id: value}}`` with its ids as learnsim's readers
    match them: strings, all-digit ones without leading zeros (``"007"`` is ``"7"``), so that a
    run made in memory from a collection's own ids meets :func:`read_qrels`'s judgments. (The
    readers of documents and queries keep ids as written, for the run files a search writes.)

    Parameters
    ----------
    run : dict of {query_id: dict of {doc_id: value}}

    Returns
    -------
    dict of {str: dict of {str: value}}

    Examples
    --------
    >>> from learnsim.datasets import normalise_run_ids
    >>> normalise_run_ids({"001": {"0042": 0.5, "LA-7": 0.25}})
    {'1': {'42': 0.5, 'LA-7': 0.25}}
    """
    return {_normalise_id(str(q)): {_normalise_id(str(d)): v for d, v in ranked.items()} for q, ranked in run.items()}


def _check_run_id(value, what):
    text = str(value)
    if not text or any(c.isspace() for c in text):
        raise ValueError(f"{what} {value!r} is empty or holds a blank; a run file separates its fields by blanks")
    # a control character prints as nothing or a blank, and a NUL ends the id for a C reader
    # (trec_eval reads 'a\x00b' as 'a', another document's id): refused, not written
    bad = next((c for c in text if unicodedata.category(c) == "Cc"), None)
    if bad is not None:
        raise ValueError(f"{what} {value!r} holds the control character U+{ord(bad):04X}, which a run file "
                         "cannot show or a C reader (trec_eval) may cut the id at")
    return text


def write_trec_run(path, run, *, tag="learnsim"):
    """Write a run as a TREC run file: ``query Q0 document rank score tag`` lines.

    Parameters
    ----------
    path : path-like
        The file to write (replaced if it exists).
    run : dict of {query_id: dict of {doc_id: score} or list of (doc_id, score)}
        Each query's retrieved documents with their scores, higher better (negate a distance).
    tag : str, default="learnsim"
        The run's name, the last field of every line.

    Returns
    -------
    int
        The number of lines written.

    Notes
    -----
    Each query's documents are written in trec_eval's order (descending score, ties by
    descending document id, scores compared in single precision as trec_eval holds them;
    :func:`learnsim.evaluation.trec_ranking`), ranks from 1, so that
    the rank column is the order trec_eval evaluates. Scores are written in full precision
    (``repr``), so that reading the file back gives the same scores and ties.

    Raises
    ------
    ValueError
        On an id or a tag that is empty or holds a blank, a score that is not a finite
        number, or a document listed twice for a query.

    Examples
    --------
    >>> import os, tempfile
    >>> from learnsim.datasets import read_trec_run, write_trec_run
    >>> path = os.path.join(tempfile.mkdtemp(), "run.trec")
    >>> write_trec_run(path, {"q1": {"d1": 0.5, "d2": 0.9}, "q2": [("d3", 1.0)]}, tag="mine")
    3
    >>> print(open(path).read(), end="")
    q1 Q0 d2 1 0.9 mine
    q1 Q0 d1 2 0.5 mine
    q2 Q0 d3 1 1.0 mine
    >>> read_trec_run(path)
    {'q1': {'d2': 0.9, 'd1': 0.5}, 'q2': {'d3': 1.0}}
    """
    tag = _check_run_id(tag, "tag")
    if not isinstance(run, dict):
        raise TypeError(f"run must be a dict {{query_id: {{doc_id: score}}}}; got {type(run).__name__}")
    lines = []
    for query, ranked in run.items():
        query = _check_run_id(query, "query id")
        pairs = list(ranked.items()) if isinstance(ranked, dict) else [tuple(p) for p in ranked]
        scores = {}
        for doc, score in pairs:
            doc = _check_run_id(doc, f"query {query!r}: document id")
            if doc in scores:
                raise ValueError(f"query {query!r}: document {doc!r} is listed twice")
            if isinstance(score, (bool, np.bool_)) or not isinstance(score, numbers.Real) or not math.isfinite(score):
                raise ValueError(f"query {query!r}, document {doc!r}: the score must be a finite number; got {score!r}")
            scores[doc] = float(score)
        # trec_eval's order: the rank column then says what trec_eval evaluates
        ordered = trec_order(scores)
        lines.extend(f"{query} Q0 {doc} {rank} {score!r} {tag}\n" for rank, (doc, score) in enumerate(ordered, 1))
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)
    return len(lines)


def load_trec_collection(documents, topics, qrels, *, fields=("title",), text_tags=None,
                         encoding="utf-8", strict=True, name="trec", encoding_errors="replace", quoting="auto"):
    """Load a TREC-style test collection from its document, topic and qrels files.

    Parameters
    ----------
    documents : path-like, list of path-likes, or data in memory
        Files (plain or ``.gz``) or folders of files (read recursively, in sorted order) in
        TREC SGML: ``<DOC><DOCNO>id</DOCNO> ... text ... </DOC>``, any number per file; a
        ``.tsv`` file holds ``id<TAB>text`` lines instead, a ``.jsonl`` file ``{"id": ...,
        "text": ...}`` objects or BEIR's ``{"_id": ..., "title": ..., "text": ...}`` (the
        title joined before the text). Files with no ``<DOC>`` (read-me
        files) are skipped and listed in ``info["files_without_documents"]``. Data in memory:
        a dict ``{id: text}``, a list of ``(id, text)`` tuples or a DataFrame, as in
        :meth:`~learnsim.datasets.RetrievalCollection.from_lists` (a list of strings is a
        list of paths).
    topics : path-like, list of path-likes, or data in memory
        Topic files: classic ``<top><num> Number: 301 <title> ... <desc> Description: ...
        <narr> Narrative: ... </top>``; XML-style ``<topic number="1"><query>...</query>
        <question>...</question><narrative>...</narrative></topic>`` (``query`` is the title,
        ``question`` the description); ``id<TAB>text`` lines, or a ``.jsonl`` file as for
        ``documents`` (``fields`` is then not used). In memory as ``documents``.
    qrels : path-like, list of path-likes, or data in memory
        Lines ``query iteration docno relevance`` (TREC; blanks or tabs between), BEIR's TSV
        (a header ``query-id corpus-id score``, then three fields a line), or the other
        layouts of :func:`read_qrels`, read as it reads them, line by line; relevance >= 1 is
        relevant. In memory: as in
        :meth:`~learnsim.datasets.RetrievalCollection.from_lists`.
    fields : tuple of str, default=("title",)
        Topic fields joined (one per line) into the query text, e.g. ``("title", "desc")``.
    text_tags : tuple of str, optional
        Elements whose content is the document text, e.g. ``("HEADLINE", "TEXT")``. By default
        everything inside ``<DOC>`` except the bookkeeping elements (``DOCNO``, ``DOCOLDNO``,
        ``DOCID``, ``DOCHDR``, ``DOCTYPE``, ``TXTTYPE``). Tags are removed and entities such
        as ``&amp;`` decoded.
    encoding : str, default="utf-8"
        Encoding of every file; the older TREC disks need ``"latin-1"``.
    encoding_errors : {"replace", "strict"}, default="replace"
        Bytes that are not valid in ``encoding`` become U+FFFD, with one
        :class:`~learnsim.datasets.UndecodableBytesWarning` per file counting the lines
        affected; ``"strict"`` raises :class:`~learnsim.datasets.DocumentFormatError` at the
        first such line instead.
    strict : bool, default=True
        A qrels line naming a query or document that was not loaded is an error; with False it
        is dropped and counted in ``info["n_dropped_judgments"]`` (useful with a qrels file
        that covers more topics than the ones loaded).
    quoting : {"auto", "csv", "none"}, default="auto"
        How the ``id<TAB>text`` lines of a ``.tsv`` among the documents read double quotes, as in
        :func:`read_corpus` (pandas' CSV quoting is an error naming ``"csv"`` and ``"none"``).
    name : str, default="trec"
        Name of the collection, shown in its repr.

    Returns
    -------
    RetrievalCollection
        Documents in file order, queries in topic-file order; ids as written but topic numbers
        (``"Number: 0301"`` is ``"301"``); a judgement meets an id by its value (``"0301"`` and
        ``"301"`` are the same query).

    Raises
    ------
    ValueError
        On a malformed file (an unclosed ``<DOC>`` or ``<top>``, a document without DOCNO, a
        topic without number or without a requested field, a qrels line with another number
        of fields than the others, a relevance that is not an integer),
        text that is not in ``encoding`` (with ``encoding_errors="strict"``), duplicate ids, or (with ``strict``) a judgment
        naming an unknown query or document.

    Examples
    --------
    A collection in memory (files are read the same way):

    >>> from learnsim.datasets import load_trec_collection
    >>> docs = {"d1": "how do I reset my password", "d2": "I was charged twice"}
    >>> c = load_trec_collection(docs, {"q1": "password reset"}, [("q1", "d1", 1)], name="tickets")
    >>> c
    RetrievalCollection('tickets': 2 documents, 1 queries (1 with a relevant document), 1 relevant pairs)
    >>> c.qrels
    {'q1': {'d1': 1}}
    """
    if isinstance(fields, str):
        fields = (fields,)
    try:
        fields = tuple(str(f).strip().lower() for f in fields)
    except TypeError:
        raise TypeError(f"fields must be a tuple of topic field names; got {fields!r}") from None
    if not fields:
        raise ValueError(f"fields is empty; choose from {_TREC_TOPIC_FIELDS}")
    if text_tags is not None:
        if isinstance(text_tags, str):
            text_tags = (text_tags,)
        text_tags = tuple(text_tags)
        if not text_tags or not all(isinstance(t, str) and re.fullmatch(r"[A-Za-z][\w.-]*", t) for t in text_tags):
            raise ValueError(f"text_tags must be a non-empty tuple of element names such as 'TEXT'; got {text_tags!r}")
    if not isinstance(strict, (bool, np.bool_)):
        raise TypeError(f"strict must be True or False; got {strict!r}")
    check_encoding_errors(encoding_errors)
    check_quoting(quoting)
    paths = {part: [] if _in_memory(value) else _as_paths(value, part)
             for part, value in (("documents", documents), ("topics", topics), ("qrels", qrels))}
    for p in paths["topics"] + paths["qrels"]:
        if p.is_dir():
            raise ValueError(f"{p} is a folder; topics and qrels must be files")
    if paths["documents"]:
        doc_ids, texts, doc_info = _read_trec_documents(paths["documents"], text_tags, encoding, encoding_errors,
                                                        quoting)
    else:
        doc_ids, texts = _texts_from_memory(documents, "documents")
        doc_info = {"n_files": 0, "files_without_documents": []}
    if paths["topics"]:
        query_ids, queries = _read_trec_topics(paths["topics"], fields, encoding, encoding_errors)
    else:
        query_ids, queries = _texts_from_memory(topics, "topics")
    if paths["qrels"]:
        judgments = _read_trec_qrels(paths["qrels"], encoding, encoding_errors)
    else:
        judgments = _judgments_from_memory(qrels)
    info = dict(doc_info, files={part: [str(p) for p in found] for part, found in paths.items()}, fields=fields)
    return _build_collection(name, doc_ids, texts, query_ids, queries, judgments, strict, info)
