"""The Japanese loaders (issue 44): livedoor news read in place from its tar.gz, JGLUE's JSTS from
its JSON Lines. Small archives built in tmp_path test the parsing; the real corpora, where
../shared/data/ja is present, test the counts."""
from __future__ import annotations

import io
import json
import tarfile

import numpy as np
import pytest
from conftest import require_corpus, shared_data_dir

from learnsim import datasets
from learnsim.datasets import load_jsts, load_livedoor
from learnsim.supervision import Pairs

LIVEDOOR = "ja/livedoor-news/livedoor-news-text.tar.gz"


def _article(url, date, title, body):
    return f"{url}\n{date}\n{title}\n{body}\n"


def _write_livedoor(root, members):
    folder = root / "ja" / "livedoor-news"
    folder.mkdir(parents=True)
    with tarfile.open(folder / "livedoor-news-text.tar.gz", "w:gz") as archive:
        for name, text in members.items():
            raw = text.encode("utf-8") if isinstance(text, str) else text
            info = tarfile.TarInfo(name)
            info.size = len(raw)
            archive.addfile(info, io.BytesIO(raw))
    return root


@pytest.fixture
def small_livedoor(tmp_path):
    return _write_livedoor(tmp_path, {
        "text/README.txt": "readme\n",
        "text/CHANGES.txt": "changes\n",
        "text/sports/LICENSE.txt": "licence\n",
        "text/sports/sports-10.txt": _article("http://a/10", "2012-01-02T00:00:00+0900", "野球の試合",
                                              "　昨日の試合は雨で中止。\n次は来週。"),
        "text/sports/sports-9.txt": _article("http://a/9", "2012-01-01T00:00:00+0900", "サッカー",
                                             "点が入った。"),
        "text/movie/movie-3.txt": _article("http://b/3", "2012-02-01T00:00:00+0900", "新作映画", "公開は春。"),
        "text/movie/notes.txt": "not an article\n",
    })


def test_livedoor_reads_the_archive_in_place(small_livedoor):
    news = load_livedoor(data_dir=small_livedoor)
    # LICENSE.txt, README.txt, CHANGES.txt and a file not named <category>-<id>.txt are skipped;
    # ordered by category, then numeric id
    assert list(news.ids) == ["movie-3", "sports-9", "sports-10"]
    assert list(news.labels) == ["movie", "sports", "sports"]
    assert news.target_names == ["movie", "sports"] and news.target.tolist() == [0, 1, 1]
    assert news.texts[2] == "野球の試合\n昨日の試合は雨で中止。\n次は来週。"
    assert list(news.titles) == ["新作映画", "サッカー", "野球の試合"]
    assert news.urls[0] == "http://b/3" and news.dates[1].startswith("2012-01-01")
    assert load_livedoor(data_dir=small_livedoor, title=False).texts[1] == "点が入った。"
    assert load_livedoor(data_dir=small_livedoor, body=False).texts[1] == "サッカー"
    only = load_livedoor(data_dir=small_livedoor, categories=["sports"])
    assert list(only.ids) == ["sports-9", "sports-10"] and only.target.tolist() == [0, 0]
    # nothing was extracted next to the archive
    assert sorted(p.name for p in (small_livedoor / "ja" / "livedoor-news").iterdir()) == [
        "livedoor-news-text.tar.gz"]


def test_livedoor_refusals(small_livedoor, tmp_path):
    with pytest.raises(ValueError, match="unknown categories"):
        load_livedoor(data_dir=small_livedoor, categories=["politics"])
    with pytest.raises(ValueError, match="both False"):
        load_livedoor(data_dir=small_livedoor, title=False, body=False)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="livedoor-news-text.tar.gz"):
        load_livedoor(data_dir=empty)


def test_livedoor_bad_bytes(tmp_path):
    root = _write_livedoor(tmp_path, {"text/x/x-1.txt": b"http://u\n2012\n\xff title\nbody\n"})
    with pytest.warns(datasets.UndecodableBytesWarning):
        news = load_livedoor(data_dir=root)
    assert news.titles[0] == "\ufffd title"
    with pytest.raises(datasets.DocumentFormatError, match="not UTF-8"):
        load_livedoor(data_dir=root, encoding_errors="strict")


def _write_jsts(root, split, rows):
    folder = root / "ja" / "jsts"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{split}-v1.3.json").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                               encoding="utf-8")
    return root


def test_jsts_matches_the_sts_benchmark_shape(tmp_path):
    rows = [{"sentence_pair_id": "0", "yjcaptions_id": "a", "sentence1": "猫が寝ている。",
             "sentence2": "猫が眠る。", "label": 4.2},
            {"sentence_pair_id": "1", "yjcaptions_id": "b", "sentence1": "犬が走る。",
             "sentence2": "犬が走る。", "label": 5.0},
            {"sentence_pair_id": "2", "yjcaptions_id": "c", "sentence1": "猫が寝ている。",
             "sentence2": "車が止まる。", "label": 0.0}]
    root = _write_jsts(tmp_path, "valid", rows)
    data = load_jsts("valid", data_dir=root)
    assert isinstance(data.pairs, Pairs) and data.pairs.is_graded
    assert data.texts == ["猫が寝ている。", "猫が眠る。", "車が止まる。"]
    np.testing.assert_array_equal(data.pairs.indices, [[0, 1], [0, 2]])
    np.testing.assert_allclose(data.scores, [4.2, 0.0])
    assert data.n_identical_pairs == 1                  # dropped, as load_sts_benchmark drops them
    assert list(data.ids) == ["0", "2"] and list(data.yjcaptions_ids) == ["a", "c"]
    assert list(data.sentence2) == ["猫が眠る。", "車が止まる。"] and data.split == "valid"
    with pytest.raises(FileNotFoundError, match=r"test-v1\.3\.json"):
        load_jsts("test", data_dir=root)
    with pytest.raises(ValueError, match="split must be one of"):
        load_jsts("dev", data_dir=root)


@pytest.mark.parametrize("line, message", [
    ('{"sentence1": "a", "sentence2": "b", "label": 6}', "outside"),
    ('{"sentence1": "a", "label": 1}', "no sentence2"),
    ('{"sentence1": "a", "sentence2": "b", "label": "x"}', "not a number"),
    ("not json", "not a JSON object"),
])
def test_jsts_bad_lines_name_the_line(tmp_path, line, message):
    folder = tmp_path / "ja" / "jsts"
    folder.mkdir(parents=True)
    (folder / "train-v1.3.json").write_text('{"sentence1": "x", "sentence2": "y", "label": 1}\n' + line + "\n",
                                            encoding="utf-8")
    with pytest.raises(ValueError, match=f"line 2: .*{message}"):
        load_jsts("train", data_dir=tmp_path)


@pytest.mark.corpus
def test_the_real_livedoor_corpus():
    require_corpus(LIVEDOOR)
    news = load_livedoor(data_dir=shared_data_dir())
    counts = dict(zip(*np.unique(news.labels, return_counts=True)))
    assert len(news.texts) == 7367 and len(news.target_names) == 9
    assert counts["sports-watch"] == 900 and counts["livedoor-homme"] == 511
    assert news.ids[0] == "dokujo-tsushin-4778030"
    assert all(t.strip() for t in news.texts)


@pytest.mark.corpus
def test_the_real_jsts_splits():
    require_corpus("ja/jsts/test-v1.3.json")
    n = {}
    for split in ("train", "valid", "test"):
        data = load_jsts(split, data_dir=shared_data_dir())
        n[split] = (data.pairs.n_pairs + data.n_identical_pairs, data.n_identical_pairs)
        assert data.scores.min() >= 0.0 and data.scores.max() <= 5.0
    assert n == {"train": (12451, 69), "valid": (1457, 4), "test": (1589, 10)}


@pytest.mark.corpus
def test_the_real_jsts_file_reads_as_pairs_as_it_is():
    # docs/languages.md: 'learnsim fit --pairs train-v1.3.json' takes JGLUE's file as it is (the
    # .json extension was refused); read as the command line reads it, it is load_jsts's pairs
    from learnsim._inputs import read_pairs_either

    require_corpus("ja/jsts/valid-v1.3.json")
    path = shared_data_dir() / "ja" / "jsts" / "valid-v1.3.json"
    pairs = read_pairs_either(path)
    jsts = load_jsts("valid", data_dir=shared_data_dir())
    # every pair, those of two identical sentences too (load_jsts drops them, read_pairs counts them)
    assert pairs.kind == "graded" and pairs.pairs.n_pairs == jsts.pairs.n_pairs + jsts.n_identical_pairs
    assert set(np.round(jsts.scores, 6)) <= set(np.round(pairs.scores, 6))
