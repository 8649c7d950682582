"""The segment memo keeps a morphological analyser's answers only while a fit runs.

Kept for the life of the process (stop 82), the runs of every text read were up to 4,000,000
characters per analyser, some 100 MB, for as long as ``learnsim serve`` or a process adding to an
index lived, where each text is read once and nothing is gained. Now each of learnsim.fitting's
fit_* functions keeps them while it runs (each run still analysed once per fit) and the
outermost drops them when it ends.
"""
import numpy as np
import pytest

import learnsim.fitting as fitting
from learnsim.text import _tokenize
from learnsim.text._segment_memo import Memo, _kept, kept_during


def _counting():
    calls = []

    def segment(run):
        calls.append(run)
        return [(i, min(i + 2, len(run)), run[i:i + 2]) for i in range(0, len(run), 2)]
    return segment, calls


def test_outside_a_fit_nothing_is_kept_and_the_answer_is_the_analysers():
    segment, calls = _counting()
    memo = Memo(segment)
    assert memo("東京都の天気") == memo("東京都の天気") == segment("東京都の天気")
    assert len(calls) == 3 and memo.chars == 0


def test_runs_are_kept_during_a_fit_and_dropped_when_the_outermost_ends():
    segment, calls = _counting()
    memo = Memo(segment)
    with _kept():
        memo("東京都の天気")
        with _kept():                       # a fit inside a fit (a check refitting)
            memo("東京都の天気")
            memo("晴れです")
        assert memo.chars == len("東京都の天気") + len("晴れです")     # the inner end drops nothing
        memo("晴れです")
    assert calls == ["東京都の天気", "晴れです"]
    assert memo.chars == 0
    memo("東京都の天気")
    assert calls[-1] == "東京都の天気" and memo.chars == 0


def test_a_fit_that_raises_drops_them_too():
    segment, _ = _counting()
    memo = Memo(segment)

    @kept_during
    def failing():
        memo("東京都の天気")
        assert memo.chars > 0
        raise ValueError("bad input")
    with pytest.raises(ValueError, match="bad input"):
        failing()
    assert memo.chars == 0


def test_every_fit_entry_keeps_them():
    for name in ("fit_mcd", "fit_adapter", "fit_linklearn", "fit_relative", "fit_film", "fit_graded"):
        assert getattr(fitting, name).__name__ == name
        assert getattr(fitting, name).__wrapped__ is not None


def test_a_fit_analyses_each_run_once_and_keeps_nothing_after(monkeypatch):
    pytest.importorskip("sudachipy")
    real = _tokenize._ANALYZER_MODULES["sudachi"][1]()
    calls = []

    def counting(run):
        calls.append(run)
        return real(run)
    memo = Memo(counting)
    monkeypatch.setattr(_tokenize, "_SEGMENTERS", {"sudachi": memo})
    topics = ["東京の天気は晴れです", "大阪で野球の試合がありました", "新しい携帯電話が発売されました",
              "京都のお寺を訪ねました"]
    texts = [f"{topics[i % 4]}。{i}番目の記事です。" for i in range(48)]
    labels = [i % 4 for i in range(48)]
    fitting.fit(texts, clusters=labels, language="ja", baseline_holdout=None, random_state=0)
    # every text read several times (the weightings, the folds), each run analysed once
    assert calls and len(calls) == len(set(calls))
    assert memo.chars == 0
    # outside the fit, a text is analysed as it is read
    before = len(calls)
    _tokenize.Tokenizer(analyzer="sudachi")(texts[0])
    _tokenize.Tokenizer(analyzer="sudachi")(texts[0])
    assert len(calls) > before and memo.chars == 0
    assert np.all([c in calls[:before] for c in calls[before:]])
