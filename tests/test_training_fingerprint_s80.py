"""A fitted model keeps a fingerprint of the texts it was fitted on (learnsim._training), so that
'learnsim evaluate' can say when its figures are measured on them: a fit's own notes scored
learned 1.000 (1.19x the strongest baseline) without a word, the model keeping nothing of what it
had seen. The fingerprint travels with the model file; a file from before it loads with none."""
from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import numpy as np
import pytest

import learnsim
from learnsim import _training
from learnsim._training import TrainingTexts, text_key
from learnsim.persistence import ModelFormatError, read_manifest, save
from learnsim.pipeline import Pipeline

TICKETS = Path(__file__).resolve().parents[1] / "examples" / "tickets.jsonl"


def _tickets():
    rows = [json.loads(line) for line in TICKETS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r["text"] for r in rows], [r["label"] for r in rows]


@pytest.fixture(scope="module")
def fitted():
    texts, labels = _tickets()
    return texts, learnsim.fit(texts, clusters=labels, baseline_holdout=None)


def test_a_text_has_one_key_whatever_its_form():
    base = text_key("Café crashes on start")
    assert text_key(unicodedata.normalize("NFD", "Café crashes on start")) == base
    assert text_key("  CAFÉ   crashes\ton start\n") == base
    assert text_key("Café crashes on restart") != base
    assert text_key("a\udcffb") != text_key("ab")          # a lone surrogate has a key too


def test_a_fit_records_its_texts_and_counts_them(fitted):
    texts, pipeline = fitted
    training = pipeline.training
    assert isinstance(training, TrainingTexts) and not training.sampled
    assert training.n_texts == len({t.casefold() for t in texts})
    assert np.all(np.diff(training.keys.astype(np.float64)) > 0)
    assert training.count(texts) == {"seen": len(texts), "of": len(texts)}
    new = ["the kettle lid will not close", "how do I change my delivery address abroad"]
    assert training.count(new) == {"seen": 0, "of": 2}
    assert training.count([texts[0].upper(), new[0]]) == {"seen": 1, "of": 2}


def test_the_fingerprint_persists_and_an_old_file_loads_without_one(fitted, tmp_path):
    texts, pipeline = fitted
    pipeline.save(tmp_path / "m.npz")
    loaded = Pipeline.load(tmp_path / "m.npz")
    assert np.array_equal(loaded.training.keys, pipeline.training.keys)
    assert loaded.training.n_texts == pipeline.training.n_texts
    # a model file from before the fingerprint: the same parts without it
    save({name: part for name, part in pipeline.parts.items() if name != "training"}, tmp_path / "old.npz")
    assert "training" not in read_manifest(tmp_path / "old.npz")["objects"]
    old = Pipeline.load(tmp_path / "old.npz")
    assert old.training is None
    assert [h["corpus_id"] for h in old.search(texts[3], texts, k=5)] == \
        [h["corpus_id"] for h in loaded.search(texts[3], texts, k=5)]


def test_a_damaged_fingerprint_is_refused_by_name():
    with pytest.raises(ValueError, match="sorted and distinct"):
        TrainingTexts._from_state({"scheme": _training.SCHEME, "n_texts": 2},
                                  {"keys": np.array([5, 3], dtype=np.uint64)})
    with pytest.raises(ValueError, match="keyed by"):
        TrainingTexts._from_state({"scheme": "md5", "n_texts": 1}, {"keys": np.array([5], dtype=np.uint64)})
    with pytest.raises(ValueError, match="n_texts"):
        TrainingTexts._from_state({"scheme": _training.SCHEME, "n_texts": 0}, {"keys": np.array([5], dtype=np.uint64)})


def test_a_damaged_fingerprint_in_a_file_is_a_model_format_error(tmp_path):
    from learnsim.persistence import load

    bad = TrainingTexts(np.array([3, 5], dtype=np.uint64), 2)
    bad.keys = np.array([5, 3], dtype=np.uint64)      # as an edited file would hold them
    save({"training": bad}, tmp_path / "bad.npz")
    with pytest.raises(ModelFormatError, match="sorted and distinct"):
        load(tmp_path / "bad.npz")


@pytest.mark.parametrize("kind", ["pairs", "triplets", "links"])
def test_every_kind_of_supervision_records_its_texts(kind):
    texts, labels = _tickets()
    texts, labels = texts[:60], labels[:60]
    if kind == "pairs":
        pairs = [(texts[i], texts[j], int(labels[i] == labels[j])) for i in range(0, 58, 2) for j in (i + 1, i + 2)]
        pipeline = learnsim.fit(pairs=pairs, baseline_holdout=None)
        given = {t for a, b, _ in pairs for t in (a, b)}
    elif kind == "triplets":
        triplets = [(i, j, k) for i in range(60) for j in range(60) for k in range(60)
                    if i != j and labels[i] == labels[j] and labels[k] != labels[i]][::97]
        pipeline = learnsim.fit(texts, triplets=triplets, baseline_holdout=None)
        given = set(texts)
    else:
        links = [(i, j) for i in range(60) for j in range(i + 1, 60) if labels[i] == labels[j]][::3]
        pipeline = learnsim.fit(texts, links=links, baseline_holdout=None)
        given = set(texts)
    training = pipeline.training
    assert training is not None and training.n_texts == len(given)
    assert training.count(sorted(given))["seen"] == len(given)
    assert training.count(["a sentence no fit was given"])["seen"] == 0


def test_above_the_limit_a_sample_is_kept_and_says_so(monkeypatch):
    monkeypatch.setattr(_training, "MAX_KEYS", 200)
    texts = [f"ticket number {i} about the printer" for i in range(2000)]
    training = TrainingTexts.of(texts)
    assert training.sampled and training.keys.size == 200 and training.n_texts == 2000
    half = texts[:500] + [f"a new question {i}" for i in range(500)]
    counted = training.count(half)
    assert counted["estimated"] is True and counted["of"] == 1000
    # 500 of the 1000 were fitted on: the bottom-k estimate (about 100 texts covered) is near it
    assert 300 <= counted["seen"] <= 700
    assert training.count([f"a new question {i}" for i in range(500)])["seen"] == 0


def test_the_limit_bounds_the_file(tmp_path):
    training = TrainingTexts.of([f"text {i}" for i in range(_training.MAX_KEYS + 5000)])
    assert training.sampled and training.keys.size == _training.MAX_KEYS
    save({"training": training}, tmp_path / "t.npz")
    assert (tmp_path / "t.npz").stat().st_size < 8 * _training.MAX_KEYS + 4096


def test_an_index_keeps_the_models_fingerprint(fitted, tmp_path):
    from learnsim.index import Index

    texts, pipeline = fitted
    Index.build(tmp_path / "idx", pipeline, texts[:30])
    reopened = Index.open(tmp_path / "idx")
    assert reopened.pipeline.training is not None
    assert np.array_equal(reopened.pipeline.training.keys, pipeline.training.keys)
