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

from ._base import DATA_ENV_VAR, find_data_dir
from ._decode import (ENCODING_ERRORS, DocumentFormatError, UndecodableBytesWarning, check_encoding_errors,
                      decoded_lines, read_text)
from .documents import NO_CLUSTER, Documents, read_documents, read_labelled_documents
from .flickr import load_flickr8k_captions
from .ir import RetrievalCollection
from .japanese import load_jsts, load_livedoor
from .newsgroups import load_20newsgroups
from .pairs import PAIR_ROLES, pair_columns, parse_columns, read_pairs
from .quora import load_quora_pairs
from .smart import load_smart_collection, read_smart_collection
from .sts import load_sts_benchmark
from .synthetic import make_clustered_corpus
from .trec import (load_trec_collection, normalise_run_ids, read_corpus, read_id_texts, read_qrels, read_queries,
                   read_trec_run, write_trec_run)
from .uci import load_uci
from .webkb import load_webkb
from .wikispeedia import LinkedCorpus, load_wikispeedia

# Private names other modules import from here: the tests read the parse cache of the 20 Newsgroups
# archive; _corpus_file (finding a corpus file under the data directory) stays importable from here.
from ._base import _corpus_file  # noqa: E402,F401
from .newsgroups import _read_newsgroups_archive  # noqa: E402,F401

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
