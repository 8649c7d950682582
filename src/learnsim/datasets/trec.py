"""TREC-style test collections: SGML documents and topics, and qrels lines.

Also read: the newer XML-style topics (``<topic number="1"><query>...</query><question>...``),
tab-separated ``id<TAB>text`` files of documents or queries (as MS MARCO distributes them), and
any part given in memory (see :meth:`RetrievalCollection.from_lists`).
"""
from __future__ import annotations

import html
import os
import re
from pathlib import Path

import numpy as np

from ._base import _normalise_id
from ._decode import check_encoding_errors, read_text
from .ir import _build_collection, _judgments_from_memory, _texts_from_memory

_TREC_DOC = re.compile(r"<DOC(?:\s[^>]*)?>(.*?)</DOC>", re.DOTALL | re.IGNORECASE)
_TREC_DOC_OPEN = re.compile(r"<DOC(?:\s[^>]*)?>", re.IGNORECASE)
_TREC_DOCNO = re.compile(r"<DOCNO>(.*?)</DOCNO>", re.DOTALL | re.IGNORECASE)
# Bookkeeping elements whose content is not part of the text.
_TREC_METADATA = re.compile(r"<(DOCNO|DOCOLDNO|DOCID|DOCHDR|DOCTYPE|TXTTYPE)\b[^>]*>.*?</\1>",
                            re.DOTALL | re.IGNORECASE)
_SGML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_SGML_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_TREC_TOP = re.compile(r"<top>(.*?)</top>", re.DOTALL | re.IGNORECASE)
_TREC_TOPIC_TAG = re.compile(r"<([a-z]+)>", re.IGNORECASE)
_TREC_TOPIC_PREFIX = re.compile(r"^\s*(?:Number|Topic|Title|Description|Narrative)\s*:", re.IGNORECASE)
_TREC_TOPIC_FIELDS = ("title", "desc", "narr")
# XML-style topics (TREC-COVID, the Robust04 re-release): closed elements in <topic number="...">;
# their element names stand for the classic fields.
_XML_TOPIC = re.compile(r"<topic\b([^>]*)>(.*?)</topic>", re.DOTALL | re.IGNORECASE)
_XML_TOPIC_NUMBER = re.compile(r"""number\s*=\s*["']?([^"'\s>]+)""", re.IGNORECASE)
_XML_TOPIC_ELEMENT = re.compile(r"<([a-z]+)\b[^>]*>(.*?)</\1>", re.DOTALL | re.IGNORECASE)
_XML_FIELD_NAMES = {"query": "title", "question": "desc", "description": "desc", "narrative": "narr"}


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


_TREC_ENCODING_HINT = "older TREC collections are Latin-1: pass encoding='latin-1'"


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


def _tsv_records(path, text):
    """``(ids, texts)`` of an ``id<TAB>text`` file (a header ``id<TAB>text`` is skipped)."""
    ids, texts = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        rid, tab, body = line.partition("\t")
        if not tab or not rid.strip():
            raise ValueError(f"{path}, line {number}: expected 'id<TAB>text'; got {line[:60]!r}")
        if not ids and rid.strip().lower() in ("id", "docno", "doc_id", "qid", "query_id") and \
                body.strip().lower() in ("text", "query", "body"):
            continue
        ids.append(_normalise_id(rid))
        texts.append(body.strip())
    return ids, texts


def _read_trec_documents(paths, text_tags, encoding, encoding_errors):
    files = []
    for p in paths:
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*") if f.is_file() and not f.name.startswith(".")))
        else:
            files.append(p)
    doc_ids, texts, skipped = [], [], []
    for path in files:
        text = _read_text_file(path, encoding, encoding_errors)
        if path.name.lower().endswith((".tsv", ".tsv.gz")):
            ids, tsv_texts = _tsv_records(path, text)
            doc_ids.extend(ids)
            texts.extend(tsv_texts)
            continue
        n_open = len(_TREC_DOC_OPEN.findall(text))
        if n_open == 0:
            skipped.append(str(path))  # read-me files and the like beside the documents
            continue
        found = _TREC_DOC.findall(text)
        if len(found) != n_open:
            raise ValueError(f"{path}: {n_open} <DOC> tag(s) but {len(found)} complete <DOC>...</DOC> "
                             "element(s); is the file cut off?")
        for position, body in enumerate(found, start=1):
            docno = _TREC_DOCNO.search(body)
            if docno is None or not docno.group(1).strip():
                raise ValueError(f"{path}: document {position} has no <DOCNO>...</DOCNO>")
            doc_ids.append(_normalise_id(docno.group(1)))
            texts.append(_trec_document_text(body, text_tags))
    if not doc_ids:
        raise ValueError(f"no <DOC> element in {', '.join(str(p) for p in paths)}; "
                         "expected TREC SGML (<DOC><DOCNO>...</DOCNO>...</DOC>) or .tsv files of id<TAB>text")
    return doc_ids, texts, {"n_files": len(files) - len(skipped), "files_without_documents": skipped}


def _read_trec_topics(paths, fields, encoding, encoding_errors):
    query_ids, queries = [], []
    for path in paths:
        text = _read_text_file(path, encoding, encoding_errors)
        blocks = _TREC_TOP.findall(text)
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
    blocks = _XML_TOPIC.findall(text)
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
    judgments = []
    for path in paths:
        for number, line in enumerate(_read_text_file(path, encoding, encoding_errors).splitlines(), start=1):
            parts = line.split()
            if not parts:
                continue
            where = f"{path}, line {number}"
            if len(parts) != 4:
                raise ValueError(f"{where}: {len(parts)} field(s), expected 4: query, iteration, docno, relevance")
            try:
                grade = int(parts[3])
            except ValueError:
                raise ValueError(f"{where}: relevance {parts[3]!r} is not an integer") from None
            judgments.append((_normalise_id(parts[0]), _normalise_id(parts[2]), grade, grade >= 1, where))
    if not judgments:
        raise ValueError(f"no relevance judgment in {', '.join(str(p) for p in paths)}")
    return judgments


def load_trec_collection(documents, topics, qrels, *, fields=("title",), text_tags=None,
                         encoding="utf-8", strict=True, name="trec", encoding_errors="replace"):
    """Load a TREC-style test collection from its document, topic and qrels files.

    Parameters
    ----------
    documents : path-like, list of path-likes, or data in memory
        Files (plain or ``.gz``) or folders of files (read recursively, in sorted order) in
        TREC SGML: ``<DOC><DOCNO>id</DOCNO> ... text ... </DOC>``, any number per file; a
        ``.tsv`` file holds ``id<TAB>text`` lines instead. Files with no ``<DOC>`` (read-me
        files) are skipped and listed in ``info["files_without_documents"]``. Data in memory:
        a dict ``{id: text}``, a list of ``(id, text)`` tuples or a DataFrame, as in
        :meth:`~learnsim.datasets.RetrievalCollection.from_lists` (a list of strings is a
        list of paths).
    topics : path-like, list of path-likes, or data in memory
        Topic files: classic ``<top><num> Number: 301 <title> ... <desc> Description: ...
        <narr> Narrative: ... </top>``; XML-style ``<topic number="1"><query>...</query>
        <question>...</question><narrative>...</narrative></topic>`` (``query`` is the title,
        ``question`` the description); or ``id<TAB>text`` lines (``fields`` is then not used).
        In memory as ``documents``.
    qrels : path-like, list of path-likes, or data in memory
        Lines ``query iteration docno relevance`` (blanks or tabs between); relevance >= 1 is
        relevant. In memory: as in :meth:`~learnsim.datasets.RetrievalCollection.from_lists`.
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
    name : str, default="trec"
        Name of the collection, shown in its repr.

    Returns
    -------
    RetrievalCollection
        Documents in file order, queries in topic-file order; all-digit ids lose their
        leading zeros (``"0301"`` and ``"301"`` are the same query).

    Raises
    ------
    ValueError
        On a malformed file (an unclosed ``<DOC>`` or ``<top>``, a document without DOCNO, a
        topic without number or without a requested field, a qrels line without 4 fields),
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
    paths = {part: [] if _in_memory(value) else _as_paths(value, part)
             for part, value in (("documents", documents), ("topics", topics), ("qrels", qrels))}
    for p in paths["topics"] + paths["qrels"]:
        if p.is_dir():
            raise ValueError(f"{p} is a folder; topics and qrels must be files")
    if paths["documents"]:
        doc_ids, texts, doc_info = _read_trec_documents(paths["documents"], text_tags, encoding, encoding_errors)
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
    info = dict(doc_info, files={part: [str(p) for p in found] for part, found in paths.items()},
                fields=fields, n_judgments=len(judgments))
    return _build_collection(name, doc_ids, texts, query_ids, queries, judgments, strict, info)
