"""Progress of the index's long calls (issue 33, point 5): every one takes show_progress_bar=,
which beats learnsim.set_progress; asked for, each says what it does on stderr (plain lines off
a terminal, a stage inside another staying quiet); a batch search draws tqdm.auto's bar over its
queries; small writes and searches draw nothing by default and set nothing up."""
from __future__ import annotations

import io
import re
import shutil
import sys
import types

import pytest

from index_models import corpus, model

from learnsim._utils import progress as _progress
from learnsim.index import Index


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture(autouse=True)
def settings(monkeypatch):
    monkeypatch.delenv("LEARNSIM_PROGRESS", raising=False)
    monkeypatch.delenv("LEARNSIM_PROGRESS_AFTER", raising=False)
    monkeypatch.setattr(_progress, "_override", None)
    monkeypatch.setattr(_progress, "_mode", "bars")
    monkeypatch.setattr(_progress, "_bar", "auto")
    monkeypatch.delitem(sys.modules, "ipykernel.zmqshell", raising=False)


@pytest.fixture
def fake_tqdm(monkeypatch):
    made = []

    class FakeTqdm:
        def __init__(self, iterable=None, total=None, desc=None, delay=0.0, **kwargs):
            self.total, self.desc, self.delay, self.n, self.closed = total, desc, delay, 0, False
            made.append(self)

        def update(self, k=1):
            self.n += k

        def close(self):
            self.closed = True

    module = types.ModuleType("tqdm.auto")
    module.tqdm = FakeTqdm
    monkeypatch.setitem(sys.modules, "tqdm.auto", module)
    return made


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("progress") / "idx"
    Index.build(path, model("film_pairs"), texts[:40], ids[:40], meta[:40]).close()
    return path


@pytest.fixture
def index(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    with Index.open(tmp_path / "idx") as idx:
        yield idx


def _calls(index, tmp_path):
    """Each long call of the index, on a few documents."""
    texts, _, ids, meta = corpus()
    return {
        "build": lambda **kw: Index.build(tmp_path / "b", model("film_pairs"), texts[:20], overwrite=True, **kw),
        "add": lambda **kw: index.add(texts[40:43], **kw),
        "upsert": lambda **kw: index.upsert(texts[43:45], ids=[ids[0], "new"], **kw),
        "update": lambda **kw: index.update([ids[1]], [texts[50]], **kw),
        "search": lambda **kw: index.search(texts[:3], k=2, **kw),
        "dedupe": lambda **kw: index.dedupe(k=2, **kw),
        "cluster": lambda **kw: index.cluster(3, **kw),
        "compact": lambda **kw: index.compact(**kw),
        "reindex": lambda **kw: index.reindex(**kw),
        "verify": lambda **kw: index.verify(**kw),
        "verify_at": lambda **kw: Index.verify_at(index.path, **kw),
    }


SAYS = {"build": r"^index: vectorizing 20 texts \.\.\.$", "add": r"^index: adding 3 documents: [\d.]+ s, done$",
        "upsert": r"^index: upserting 2 documents", "update": r"^index: updating 1 documents",
        "search": r"^index: searching the queries 100% \(3/3\)", "dedupe": r"^index: dedupe 100% \(1/1\)",
        "cluster": r"^index: clustering 40 documents", "compact": r"^index: compacting \d+ documents",
        "reindex": r"^index: reindexing 40 documents", "verify": r"^index: verifying .*: [\d.]+ s, done$",
        "verify_at": r"^index: verifying "}


@pytest.mark.parametrize("name", sorted(SAYS))
def test_each_call_reports_when_asked_and_is_silenced_when_not(index, tmp_path, capsys, name):
    call = _calls(index, tmp_path)[name]
    call()
    assert capsys.readouterr().err == ""                  # the default off a terminal: quiet
    call(show_progress_bar=True)
    err = capsys.readouterr().err
    assert re.search(SAYS[name], err, re.M), err
    assert "\r" not in err
    _progress.set_progress(True)
    try:
        call(show_progress_bar=False)                    # the call beats set_progress
        assert capsys.readouterr().err == ""
    finally:
        _progress.set_progress()


def test_one_line_per_stage_when_a_build_is_asked_for(tmp_path, capsys):
    texts = corpus()[0][:20]
    Index.build(tmp_path / "b", model("mcd"), texts, show_progress_bar=True)
    rows = capsys.readouterr().err.splitlines()
    assert rows == ["index: vectorizing 20 texts ...", rows[1], "index: writing the rows of 20 documents ...",
                    rows[3]]
    assert re.fullmatch(r"index: vectorizing 20 texts: [\d.]+ s, done", rows[1])
    # the pipeline's own stage inside it, and the check of the query plan, say nothing
    assert not any(row.startswith("vectorizing") for row in rows)


def test_a_batch_search_draws_tqdm_auto_over_its_queries(index, fake_tqdm, monkeypatch):
    monkeypatch.setattr(_progress, "MANY", 5)             # a batch "large" enough, kept small
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    queries = corpus()[0][:7]
    found = index.search(queries, k=2)
    assert len(found) == 7
    bars = [b for b in fake_tqdm if b.desc == "index: searching the queries"]
    assert [(b.total, b.n, b.closed, b.delay) for b in bars] == [(7, 7, True, _progress.AFTER)]
    index.search(queries[:4], k=2)                         # fewer than MANY: no bar
    assert len([b for b in fake_tqdm if b.desc == "index: searching the queries"]) == 1


def test_small_writes_and_searches_draw_nothing_and_set_nothing_up(index, fake_tqdm, monkeypatch):
    import learnsim.index.core as core

    def no_stage(*args, **kwargs):
        raise AssertionError("a stage was set up for a small call")

    def only_disabled(*args, enabled=None, **kwargs):
        assert enabled is False, "a loop was set up for a small call"
        return real(*args, enabled=enabled, **kwargs)

    real = _progress.progress
    monkeypatch.setattr(_progress, "stage", no_stage)
    monkeypatch.setattr(_progress, "progress", only_disabled)
    monkeypatch.setattr(core, "progress", only_disabled)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)           # progress on by default, on a terminal
    texts = corpus()[0]
    index.add(texts[40:42])
    index.upsert([texts[42]], ids=["x"])
    index.search("a query", k=3)
    index.search(texts[:3], k=3)
    index.more_like(corpus()[2][0], k=2)
    assert terminal.getvalue() == "" and not fake_tqdm


def test_a_large_add_on_a_terminal_shows_its_stage(index, monkeypatch):
    monkeypatch.setattr(_progress, "MANY", 3)
    monkeypatch.setenv("LEARNSIM_PROGRESS_AFTER", "0")    # what shows, at once
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    texts = corpus()[0]
    index.add(texts[40:42])                                # 2 < MANY
    assert terminal.getvalue() == ""
    index.add(texts[42:46])
    assert "\rindex: adding 4 documents: " in terminal.getvalue()
