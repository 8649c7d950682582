"""A JSON Lines collection's metadata comes with its documents in one read (issue 31: ``learnsim
index build`` read the file twice, once for the texts and once for the metadata)."""
import json

from learnsim.datasets import read_documents


def test_jsonl_metadata_is_read_with_the_documents(tmp_path, monkeypatch):
    path = tmp_path / "docs.jsonl"
    rows = [{"id": "a", "text": "one", "metadata": {"year": 2020}},
            {"id": "b", "text": "two", "lang": "en", "year": 2021},
            {"id": "c", "text": "three"}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    docs = read_documents(path)
    assert docs.metadata == [{"year": 2020}, {"lang": "en", "year": 2021}, None]
    # the command line's corpus reader opens the file once
    from learnsim.cli import index as cli_index
    import learnsim.datasets.documents as documents

    opened = []
    real = documents._lines

    def counting(*args, **kwargs):
        opened.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(documents, "_lines", counting)
    ids, texts, metas = cli_index.read_corpus(path)
    assert (ids, texts, metas) == (["a", "b", "c"], ["one", "two", "three"], docs.metadata)
    assert len(opened) == 1


def test_other_layouts_have_no_metadata(tmp_path):
    path = tmp_path / "docs.tsv"
    path.write_text("a\tone\nb\ttwo\n", encoding="utf-8")
    assert read_documents(path).metadata is None


def test_a_csv_metadata_column_keeps_its_name_as_written(tmp_path):
    # "Topic" became "topic", so that --filter Topic=Geo matched no document without a word;
    # id, text and label are still found in any case
    path = tmp_path / "docs.csv"
    path.write_text("ID,Text,Topic,year\n1,volcano lava,Geo,2020\n", encoding="utf-8")
    docs = read_documents(path)
    assert docs.ids == ["1"] and docs.texts == ["volcano lava"]
    assert docs.metadata == [{"Topic": "Geo", "year": "2020"}]
    from learnsim.datasets import read_labelled_documents

    labelled = tmp_path / "labelled.csv"
    labelled.write_text("Label,TEXT,Source\nx,volcano lava,wiki\n", encoding="utf-8")
    assert read_labelled_documents(labelled).unused_fields == ["Source"]
