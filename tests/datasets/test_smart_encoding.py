"""read_smart_collection reads SMART files saved in a code page with encoding=, as the other readers do."""
import pytest

from learnsim.datasets import read_smart_collection


def _write(tmp_path, encoding):
    (tmp_path / "docs.all").write_bytes(".I 1\n.W\nçiçek ağacı\n.I 2\n.W\nkuru yaprak\n".encode(encoding))
    (tmp_path / "docs.qry").write_bytes(".I 1\n.W\nçiçek\n".encode(encoding))
    (tmp_path / "docs.rel").write_text("1 1\n", encoding="ascii")
    return [tmp_path / "docs.all", tmp_path / "docs.qry", tmp_path / "docs.rel"]


def test_a_code_page_smart_collection_reads_with_its_encoding(tmp_path):
    files = _write(tmp_path, "cp1254")
    collection = read_smart_collection(*files, encoding="cp1254", encoding_errors="strict")
    assert "çiçek ağacı" in collection.documents[0]
    assert "çiçek" in collection.queries[0]


def test_utf8_stays_the_default(tmp_path):
    files = _write(tmp_path, "utf-8")
    assert "ağacı" in read_smart_collection(*files).documents[0]


def test_an_unknown_encoding_is_named(tmp_path):
    files = _write(tmp_path, "utf-8")
    with pytest.raises(ValueError, match="nosuch"):
        read_smart_collection(*files, encoding="nosuch")
