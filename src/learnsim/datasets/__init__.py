"""Loaders for the development corpora, readers for the user's own files, and a synthetic
clustered-text generator.

The loaders of the named corpora read them in the formats their publishers distribute (a
tarball, a gzipped caption list), so nothing has to be unpacked or converted first. They look
for the files under a *data directory* laid out like the project's ``../shared/data``::

    <data_dir>/20newsgroups/20news-bydate.tar.gz
    <data_dir>/flickr8k-captions/Flickr8k.token.txt.gz  (+ Flickr_8k.{train,dev,test}Images.txt)
    <data_dir>/quora-sample/{dev,test}.tsv
    <data_dir>/stsbenchmark/sts-{train,dev,test}.csv
    <data_dir>/wikispeedia/wikispeedia-articles-links.tar.gz
    <data_dir>/ir/cisi/{CISI.ALL,CISI.QRY,CISI.REL}
    <data_dir>/ir/cran/{cran.all.1400,cran.qry,cranqrel}
    <data_dir>/ja/livedoor-news/livedoor-news-text.tar.gz
    <data_dir>/ja/jsts/{train,valid,test}-v1.3.json

See :func:`find_data_dir` for how that directory is chosen. The general readers take the
user's own files by path, or the same data already in memory (lists, a pandas DataFrame):
:func:`read_pairs` (text pairs from TSV/CSV/JSONL, columns chosen by name or position),
:func:`read_smart_collection` and :func:`load_trec_collection` (retrieval collections, which
:meth:`RetrievalCollection.from_lists` builds from lists), :func:`read_corpus`,
:func:`read_queries` and :func:`read_qrels` (one part of a collection each, with ids, the
layout told from the file), :func:`read_trec_run` and :func:`write_trec_run` (TREC run
files), :func:`read_documents` and
:func:`read_labelled_documents` (the command line's document files). The retrieval readers
return a :class:`RetrievalCollection`; :func:`load_wikispeedia` returns a
:class:`LinkedCorpus`. :func:`make_clustered_corpus` needs no files at all; it is the default
corpus for the demo and the fast tests.

Every reader treats bytes that are not UTF-8 the same way (``encoding_errors``, see
:mod:`learnsim.datasets._decode`): by default they become U+FFFD with one
:class:`UndecodableBytesWarning` per file; ``encoding_errors="strict"`` refuses the file.

The package is split by family: ``_base`` (data directory), ``_decode`` (bad bytes),
``documents``, ``newsgroups``, ``flickr``, ``pairs`` (the general reader), ``quora``, ``sts``,
``japanese`` (livedoor news, JSTS), ``ir`` (:class:`RetrievalCollection`), ``smart``, ``trec``,
``wikispeedia``, ``webkb`` (the loader; paper 004's triplets and features on it are in
:mod:`learnsim.webkb`), ``uci``, ``synthetic``. Import from :mod:`learnsim.datasets` itself;
the modules are not an API.
"""
from __future__ import annotations

from .._utils.lazy import attach

__all__ = [
    "DATA_ENV_VAR",
    "DocumentFormatError",
    "Documents",
    "ENCODING_ERRORS",
    "LinkedCorpus",
    "NO_CLUSTER",
    "PAIR_ROLES",
    "RetrievalCollection",
    "UndecodableBytesWarning",
    "check_encoding_errors",
    "decoded_lines",
    "find_data_dir",
    "load_20newsgroups",
    "load_flickr8k_captions",
    "load_jsts",
    "load_livedoor",
    "load_quora_pairs",
    "load_smart_collection",
    "load_sts_benchmark",
    "load_trec_collection",
    "load_uci",
    "load_webkb",
    "load_wikispeedia",
    "make_clustered_corpus",
    "normalise_run_ids",
    "pair_columns",
    "parse_columns",
    "read_documents",
    "read_labelled_documents",
    "read_corpus", "read_id_texts",
    "read_pairs",
    "read_qrels",
    "read_queries",
    "read_smart_collection",
    "read_text",
    "read_trec_run",
    "write_trec_run",
]

# Each name from its module on first use (learnsim._utils.lazy): the loaders import scikit-learn
# (1.2-1.7 s), and the command line's document reader (learnsim.io) needs none of them. The
# private names are for other modules of the project: the tests read the parse cache of the 20
# Newsgroups archive; _corpus_file finds a corpus file under the data directory.
__getattr__, __dir__ = attach(__name__, {
    "DATA_ENV_VAR": "._base",
    "find_data_dir": "._base",
    "ENCODING_ERRORS": "._decode",
    "DocumentFormatError": "._decode",
    "UndecodableBytesWarning": "._decode",
    "check_encoding_errors": "._decode",
    "decoded_lines": "._decode",
    "read_text": "._decode",
    "NO_CLUSTER": ".documents",
    "Documents": ".documents",
    "read_documents": ".documents",
    "read_labelled_documents": ".documents",
    "load_flickr8k_captions": ".flickr",
    "RetrievalCollection": ".ir",
    "load_jsts": ".japanese",
    "load_livedoor": ".japanese",
    "load_20newsgroups": ".newsgroups",
    "PAIR_ROLES": ".pairs",
    "pair_columns": ".pairs",
    "parse_columns": ".pairs",
    "read_pairs": ".pairs",
    "load_quora_pairs": ".quora",
    "load_smart_collection": ".smart",
    "read_smart_collection": ".smart",
    "load_sts_benchmark": ".sts",
    "make_clustered_corpus": ".synthetic",
    "load_trec_collection": ".trec",
    "normalise_run_ids": ".trec",
    "read_corpus": ".trec",
    "read_id_texts": ".trec",
    "read_qrels": ".trec",
    "read_queries": ".trec",
    "read_trec_run": ".trec",
    "write_trec_run": ".trec",
    "load_uci": ".uci",
    "load_webkb": ".webkb",
    "LinkedCorpus": ".wikispeedia",
    "load_wikispeedia": ".wikispeedia",
    "_corpus_file": "._base",
    "_read_newsgroups_archive": ".newsgroups",
})
