"""A morphological analyser's answer for a run is computed once a process (up to a bound): a fit
reads each text once per weighting and per fold of its checks, and with SudachiPy the reading was
most of the fit (92 of 135 s for 400 livedoor articles, each analysed about 15 times). Runs are
kept only during a fit (stop 83: tests/text/test_segment_memo_scope_s83.py); these tests hold one open."""
import pytest

from learnsim.text import _tokenize
from learnsim.text._segment_memo import Memo, _kept


@pytest.fixture(autouse=True)
def _during_a_fit():
    with _kept():
        yield


def _counting():
    calls = []

    def segment(run):
        calls.append(run)
        # two-character words, as a segmenter gives them (begin, end, term)
        return [(i, min(i + 2, len(run)), run[i:i + 2].upper()) for i in range(0, len(run), 2)]
    return segment, calls


def test_a_run_is_analysed_once_and_answered_the_same():
    segment, calls = _counting()
    memo = Memo(segment)
    first = memo("東京都の天気")
    assert memo("東京都の天気") == first == segment("東京都の天気")
    assert calls.count("東京都の天気") == 2        # the memo's one call and the comparison's
    assert memo("") == segment("") == []


def test_past_the_bound_runs_are_analysed_every_time_and_nothing_is_evicted():
    segment, calls = _counting()
    memo = Memo(segment, max_chars=10)
    memo("あいうえおかきくけ")         # 9 characters: kept
    memo("さしす")                    # 12 in all: not kept
    memo("さしす")
    memo("あいうえおかきくけ")
    assert calls == ["あいうえおかきくけ", "さしす", "さしす"]
    assert memo.chars == 9


def test_a_term_holding_nul_is_not_kept_and_still_answered():
    calls = []

    def segment(run):
        calls.append(run)
        return [(0, len(run), "a\x00b")]
    memo = Memo(segment)
    assert memo("xy") == [(0, 2, "a\x00b")] and memo("xy") == [(0, 2, "a\x00b")]
    assert len(calls) == 2


@pytest.mark.parametrize("analyzer, module", [("sudachi", "sudachipy"), ("fugashi", "fugashi"), ("jieba", "jieba")])
def test_the_real_analysers_read_the_same_through_the_memo(analyzer, module, monkeypatch):
    pytest.importorskip(module)
    monkeypatch.setattr(_tokenize, "_SEGMENTERS", {})
    text = "東京都の天気は晴れです。附属病院に行きました。北京大学的学生" * 3
    tok = _tokenize.Tokenizer(analyzer=analyzer)
    first = tok(text)
    memos = list(_tokenize._SEGMENTERS.values())       # jieba: its search mode's too
    assert memos and all(isinstance(m, Memo) and m.chars > 0 for m in memos)
    # the analysers themselves, no memo
    monkeypatch.setattr(_tokenize, "_SEGMENTERS", {key: m._segment for key, m in _tokenize._SEGMENTERS.items()})
    plain = _tokenize.Tokenizer(analyzer=analyzer)
    assert tok(text) == first == plain(text)
