"""A model records the dictionary its morphological analyser read with (name and version), and a
load where another one is installed warns, naming both: a query is otherwise cut into other
words than the vocabulary holds without a word said. The analysers are faked, so that these run
where none is installed."""
from __future__ import annotations

import importlib.util
import warnings
from importlib import metadata

import pytest

from learnsim.persistence import load, save
from learnsim.text import TextVectorizer, _dictionary, _tokenize

TEXTS = ["東京都に住んでいる", "大阪に行く", "京都の天気は晴れです", "東京の天気"]


def _pairs(run):
    return [(i, min(i + 2, len(run)), run[i:i + 2]) for i in range(0, len(run), 2)]


@pytest.fixture
def installed(monkeypatch):
    """A fake analyser and the versions importlib.metadata reports, set by the test."""
    versions = {}

    def version(name):
        if name not in versions:
            raise metadata.PackageNotFoundError(name)
        return versions[name]

    monkeypatch.setattr(_tokenize, "_SEGMENTERS", {"sudachi": _pairs, "fugashi": _pairs, "jieba": _pairs,
                                                      "jieba search": _pairs})
    monkeypatch.setattr(metadata, "version", version)
    monkeypatch.setattr(_dictionary, "_WARNED", set())
    return versions


def _reloaded(vectorizer, tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        restored = load(save(vectorizer, tmp_path / "model.npz"))
    return restored, [w for w in caught if issubclass(w.category, UserWarning)]


@pytest.mark.parametrize("analyzer, package", [("sudachi", "sudachidict-core"), ("fugashi", "unidic-lite"),
                                               ("jieba", "jieba")])
def test_a_fit_records_the_dictionary_and_a_load_with_another_warns_once(installed, tmp_path, analyzer, package):
    installed[package] = "20240409"
    vec = TextVectorizer(analyzer=analyzer).fit(TEXTS)
    assert vec.dictionary_ == {"name": package, "version": "20240409"}
    restored, caught = _reloaded(vec, tmp_path)
    assert restored.dictionary_ == vec.dictionary_ and caught == []

    installed[package] = "20261015"             # the dictionary upgraded after the fit
    restored, caught = _reloaded(vec, tmp_path)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert f"{package} 20240409" in message and f"{package} 20261015" in message
    assert caught[0].filename == __file__       # at the caller's line, not learnsim's
    assert restored.dictionary_ == vec.dictionary_      # what it was fitted with, kept if saved again
    assert _reloaded(vec, tmp_path)[1] == []    # once


def test_a_model_saved_before_the_record_loads_without_a_word(installed, tmp_path):
    installed["sudachidict-core"] = "20261015"
    vec = TextVectorizer(analyzer="sudachi").fit(TEXTS)
    del vec.dictionary_                         # as a model of an older learnsim: no record
    path = save(vec, tmp_path / "old.npz")
    installed["sudachidict-core"] = "20300101"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load(path).dictionary_ is None


def test_the_rule_based_analyzers_record_nothing(installed, tmp_path):
    vec = TextVectorizer().fit(TEXTS)
    assert vec.dictionary_ is None
    restored, caught = _reloaded(vec, tmp_path)
    assert restored.dictionary_ is None and caught == []


def test_a_damaged_record_is_refused(installed):
    installed["jieba"] = "0.42.1"
    meta, arrays = TextVectorizer(analyzer="jieba").fit(TEXTS)._get_state()
    meta["dictionary"] = {"name": "jieba"}
    with pytest.raises(ValueError, match="'dictionary' must be"):
        TextVectorizer._from_state(meta, arrays)


def test_an_index_plan_records_the_dictionary_and_warns_at_open(installed, tmp_path):
    from learnsim._baseline_models import baseline_pipeline
    from learnsim.index import Index, open_index

    installed["unidic-lite"] = "1.0.8"
    pipeline = baseline_pipeline("cosine", TEXTS, analysis={"analyzer": "fugashi"})
    Index.build(tmp_path / "idx", pipeline, TEXTS)
    installed.pop("unidic-lite")
    installed["unidic-lite"] = "1.0.9"
    _dictionary._WARNED.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        index = open_index(tmp_path / "idx")
    # at the open, not at the first search: a server says so at its start
    messages = [str(w.message) for w in caught if "unidic-lite 1.0.8" in str(w.message)]
    assert len(messages) == 1 and "unidic-lite 1.0.9" in messages[0]
    assert [w.filename for w in caught] == [__file__]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        index.search("東京", k=1)           # the plan loads: nothing said again
        open_index(tmp_path / "idx").search("東京", k=1)
    assert [w for w in caught if "unidic-lite" in str(w.message)] == []


def test_an_index_open_leaves_a_damaged_plan_to_the_first_search(installed, tmp_path):
    from learnsim._baseline_models import baseline_pipeline
    from learnsim.index import Index, open_index
    from learnsim.index._segments import IndexDamagedError

    installed["jieba"] = "0.42.1"
    Index.build(tmp_path / "idx", baseline_pipeline("cosine", TEXTS, analysis={"analyzer": "jieba"}), TEXTS)
    plan = next((tmp_path / "idx").glob("*/plan.json"))
    plan.write_bytes(plan.read_bytes().replace(b'"jieba"', b'"jiebX"', 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        index = open_index(tmp_path / "idx")        # the damage is the first search's to name
    with pytest.raises(IndexDamagedError, match="plan.json"):
        index.search("東京", k=1)


@pytest.mark.skipif(importlib.util.find_spec("sudachipy") is None, reason="SudachiPy is not installed")
def test_the_real_sudachi_dictionary_is_recorded(tmp_path):
    vec = TextVectorizer(analyzer="sudachi").fit(TEXTS)
    assert vec.dictionary_ == {"name": "sudachidict-core", "version": metadata.version("sudachidict-core")}


def test_the_hashing_vectoriser_records_and_checks_it_too(installed, tmp_path):
    from learnsim.distributed import HashingTextVectorizer

    installed["jieba"] = "0.42.1"
    vec = HashingTextVectorizer(analyzer="jieba", n_features=64).fit(TEXTS)
    assert vec.dictionary_ == {"name": "jieba", "version": "0.42.1"}
    installed["jieba"] = "0.43.0"
    restored, caught = _reloaded(vec, tmp_path)
    assert len(caught) == 1 and "jieba 0.42.1" in str(caught[0].message) and "jieba 0.43.0" in str(caught[0].message)
    assert restored.dictionary_ == vec.dictionary_


def test_index_info_reports_the_analysis_and_both_dictionaries(installed, tmp_path):
    from learnsim._baseline_models import baseline_pipeline
    from learnsim.index import Index, open_index

    installed["jieba"] = "0.42.1"
    Index.build(tmp_path / "idx", baseline_pipeline("bm25", TEXTS, analysis={"analyzer": "jieba"}), TEXTS)
    installed["jieba"] = "0.43.0"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        info = open_index(tmp_path / "idx").info()["analysis"]
    assert info["analyzer"] == "jieba"
    assert info["dictionary"] == {"name": "jieba", "version": "0.42.1"}
    assert info["installed_dictionary"] == {"name": "jieba", "version": "0.43.0"}
    from conftest import run_cli

    code, out, err = run_cli(["index", "info", tmp_path / "idx"])
    assert code == 0 and "jieba (dictionary at fit: jieba 0.42.1; installed: jieba 0.43.0)" in out, (out, err)


def _sudachi_site(tmp_path, monkeypatch, settings=None):
    """A site folder with a fake SudachiPy (its settings file) and the three dictionary packages,
    first on the path; the real ones (if imported) out of sys.modules meanwhile."""
    import json
    import sys

    site = tmp_path / "site"
    (site / "sudachipy" / "resources").mkdir(parents=True)
    (site / "sudachipy" / "__init__.py").write_text("")
    (site / "sudachipy" / "resources" / "sudachi.json").write_text(json.dumps({"systemDict": None, **(settings or {})}))
    for kind in ("small", "core", "full"):
        (site / f"sudachidict_{kind}" / "resources").mkdir(parents=True)
        (site / f"sudachidict_{kind}" / "__init__.py").write_text("")
        (site / f"sudachidict_{kind}" / "resources" / "system.dic").write_bytes(kind.encode())
    for name in ("sudachipy", "sudachidict", "sudachidict_small", "sudachidict_core", "sudachidict_full"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    return site


@pytest.mark.parametrize("sudachipy_version", ["0.5.4", "0.7.0"])
def test_sudachi_records_the_dictionary_it_reads_by_default(installed, tmp_path, monkeypatch, sudachipy_version):
    _sudachi_site(tmp_path, monkeypatch)
    installed.update({"sudachipy": sudachipy_version, "sudachidict-core": "20240409",
                      "sudachidict-full": "20240716"})
    assert _dictionary.installed_dictionary("sudachi") == {"name": "sudachidict-core", "version": "20240409"}


def test_sudachi_records_the_full_dictionary_that_sudachipy_link_chose(installed, tmp_path, monkeypatch):
    # SudachiPy before 0.6: `sudachipy link -t full` makes the package sudachidict a link to
    # sudachidict_full, and Dictionary() reads its system.dic
    site = _sudachi_site(tmp_path, monkeypatch)
    (site / "sudachidict").symlink_to(site / "sudachidict_full")
    installed.update({"sudachipy": "0.5.4", "sudachidict-core": "20240409", "sudachidict-full": "20240716"})
    assert _dictionary.installed_dictionary("sudachi") == {"name": "sudachidict-full", "version": "20240716"}
    # SudachiPy 0.6 and later ignore that link (Dictionary() reads core unless configured)
    installed["sudachipy"] = "0.7.0"
    assert _dictionary.installed_dictionary("sudachi") == {"name": "sudachidict-core", "version": "20240409"}


@pytest.mark.parametrize("system", ["small", "{site}/sudachidict_small/resources/system.dic"])
def test_sudachi_records_the_dictionary_its_settings_file_names(installed, tmp_path, monkeypatch, system):
    _sudachi_site(tmp_path, monkeypatch, {"systemDict": system.format(site=tmp_path / "site")})
    installed.update({"sudachipy": "0.7.0", "sudachidict-core": "20240409", "sudachidict-small": "20240716"})
    assert _dictionary.installed_dictionary("sudachi") == {"name": "sudachidict-small", "version": "20240716"}


def test_a_model_fitted_with_core_warns_when_sudachi_reads_full(installed, tmp_path, monkeypatch):
    site = _sudachi_site(tmp_path, monkeypatch)
    installed.update({"sudachipy": "0.5.4", "sudachidict-core": "20240409", "sudachidict-full": "20240409"})
    vec = TextVectorizer(analyzer="sudachi").fit(TEXTS)
    (site / "sudachidict").symlink_to(site / "sudachidict_full")
    restored, caught = _reloaded(vec, tmp_path)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "sudachidict-core 20240409" in message and "sudachidict-full 20240409" in message


def test_a_dictionary_file_of_no_package_is_recorded_by_name(installed, tmp_path, monkeypatch):
    own = tmp_path / "mine.dic"
    own.write_bytes(b"x" * 10)
    _sudachi_site(tmp_path, monkeypatch, {"systemDict": str(own)})
    installed.update({"sudachipy": "0.7.0", "sudachidict-core": "20240409"})
    recorded = _dictionary.installed_dictionary("sudachi")
    assert recorded["name"] == "mine.dic" and "10 bytes" in recorded["version"]


@pytest.mark.skipif(importlib.util.find_spec("sudachipy") is None, reason="SudachiPy is not installed")
def test_the_dictionary_found_is_the_one_sudachipy_loads():
    import os
    import re

    from sudachipy import Dictionary

    loaded = re.search(r"system=([^,]+),", repr(Dictionary()))
    if loaded is None:
        pytest.skip("this SudachiPy does not name its dictionary file")
    folder = os.path.basename(os.path.dirname(os.path.dirname(os.path.realpath(loaded.group(1)))))
    assert _dictionary.installed_dictionary("sudachi")["name"] == folder.replace("_", "-")


def test_a_fugashi_model_with_no_record_warns_where_the_full_unidic_is_installed(installed, tmp_path):
    # fitted before learnsim gave fugashi UniDic lite by name: read with the full UniDic where
    # that was installed, its queries now read with UniDic lite
    installed["unidic-lite"] = "1.0.8"
    vec = TextVectorizer(analyzer="fugashi").fit(TEXTS)
    del vec.dictionary_
    assert _reloaded(vec, tmp_path)[1] == []        # no full UniDic here: nothing to say
    installed["unidic"] = "1.1.0"
    restored, caught = _reloaded(vec, tmp_path)
    assert len(caught) == 1 and restored.dictionary_ is None
    message = str(caught[0].message)
    assert "unidic 1.1.0" in message and "unidic-lite 1.0.8" in message and caught[0].filename == __file__
    assert _reloaded(vec, tmp_path)[1] == []        # once


@pytest.mark.parametrize("checked", [False, True])
def test_a_served_worker_leaves_the_warning_to_learnsim_serve(installed, tmp_path, monkeypatch, checked):
    # each worker process of learnsim serve --workers N opens the index again: the command warned
    # at its start, and N workers said it N times more
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    import json

    from fastapi.testclient import TestClient

    from learnsim._baseline_models import baseline_pipeline
    from learnsim.index import Index
    from learnsim.service.app import OPTIONS_VARIABLE, app_from_environment

    installed["jieba"] = "0.41.0"
    Index.build(tmp_path / "idx", baseline_pipeline("cosine", TEXTS, analysis={"analyzer": "jieba"}), TEXTS)
    installed["jieba"] = "0.42.1"
    monkeypatch.setenv(OPTIONS_VARIABLE, json.dumps({"index": str(tmp_path / "idx"), "read_only": True,
                                                     "allowed_hosts": ["testserver"], "dictionary_checked": checked}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with TestClient(app_from_environment()) as client:
            assert client.get("/v1/search", params={"q": "東京", "k": 1}).status_code == 200
    said = [w for w in caught if "jieba 0.41.0" in str(w.message)]
    assert len(said) == (0 if checked else 1)
