"""Text written without spaces (issue 44, part 1): character bigrams over Han, kana, Hangul and
Thai by default, words elsewhere, the optional morphological analysers, the choice recorded in a
model, and stop words and stems that touch words only."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
import unicodedata

import numpy as np
import pytest

from learnsim.text import TextVectorizer, Tokenizer, check_analysis, resolve_analysis

JAPANESE = ["東京都は日本の首都である", "東京の天気は晴れ", "iPhone 15の価格は高い", "猫が窓の外を見ている"]
CHINESE = ["北京是中国的首都", "今天北京的天气很好", "我喜欢吃苹果", "上海是一个大城市"]


def test_a_japanese_sentence_is_many_terms_and_shares_them():
    rows = TextVectorizer(norm="l2").fit_transform(JAPANESE[:2])
    assert min(np.diff(rows.indptr)) > 3
    assert float((rows[0] @ rows[1].T).toarray()[0, 0]) > 0          # 東京 is in both
    # the old analysis, one term a sentence, had cosine 0
    old = TextVectorizer(norm="l2", analyzer="words").fit_transform(JAPANESE[:2])
    assert list(np.diff(old.indptr)) == [1, 1] and float((old[0] @ old[1].T).toarray()[0, 0]) == 0


@pytest.mark.parametrize("text, expected", [
    ("東京の天気", ["東京", "京の", "の天", "天気"]),
    ("iPhone 15の価格", ["の価", "価格", "iphone", "15"]),                # mixed text: bigrams, then words
    ("ＩＰｈｏｎｅ　１５の価格", ["の価", "価格", "iphone", "15"]),       # full width folded
    ("ｶﾀｶﾅ", ["カタ", "タカ", "カナ"]),                                  # half-width kana
    ("ｶﾞｯｺｳ", ["ガッ", "ッコ", "コウ"]),                                 # ... with voiced marks composed
    ("서울은 수도", ["서울", "울은", "수도"]),                            # Hangul
    ("ภาษาไทย", ["ภา", "าษ", "ษา", "าไ", "ไท", "ทย"]),                  # Thai
    ("a 猫 b", ["猫"]),                                                 # a lone character stays
    ("東京 and 大阪", ["東京", "and", "大阪"][::2] + ["and"]),           # words between runs
    ("The cat sat", ["the", "cat", "sat"]),                             # other scripts: words as before
])
def test_runs_of_spaceless_scripts_become_bigrams(text, expected):
    assert Tokenizer()(text) == expected


def test_unigrams_are_an_option():
    assert Tokenizer(cjk_unigrams=True)("東京") == ["東", "京", "東京"]


def test_stop_words_and_stems_touch_words_only():
    tok = Tokenizer(stop_words="english", stem="porter" if importlib.util.find_spec("Stemmer") else None)
    terms = tok("The running cats は走る")
    assert "the" not in terms and "は走" in terms and "走る" in terms
    # a stop list that names a bigram does not drop it: stop lists are words
    assert "東京" in Tokenizer(stop_words=["東京"])("東京の天気")


@pytest.mark.parametrize("kwargs", [{}, {"cjk_unigrams": True}, {"stop_words": "english"}, {"ngram_range": (1, 1)}])
@pytest.mark.parametrize("text", JAPANESE + CHINESE + ["ＡＢＣ　テスト x東y", "東", "", "!!!", "mixed 日本語 text"])
def test_spans_give_the_terms_in_order_and_their_places(kwargs, text):
    tok = Tokenizer(**kwargs)
    spans = tok.spans(text)
    # the same terms (in another order: without word n-grams the bag of terms is what counts)
    assert sorted(term for _, _, term in spans) == sorted(tok(text))
    folded = unicodedata.normalize("NFKC", text.lower())     # the same length for these texts
    for start, end, term in spans:
        assert folded[start:end] == term


@pytest.mark.parametrize("analyzer, module", [("sudachi", "sudachipy"), ("fugashi", "fugashi"), ("jieba", "jieba")])
def test_morphological_analysers_segment_their_scripts(analyzer, module):
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (pip install learnsim[ja] / learnsim[zh])")
    tok = Tokenizer(analyzer=analyzer)
    text = "北京是中国的首都" if analyzer == "jieba" else "東京都は日本の首都である"
    terms = tok(text)
    assert "首都" in terms and all(len(t) <= 4 for t in terms)
    assert sorted(t for _, _, t in tok.spans(text)) == sorted(terms)
    # English words and Hangul beside them as with bigrams
    assert tok("iPhone 서울")[:2] == ["iphone", "서울"]


def test_a_missing_analyser_names_the_extra(monkeypatch):
    from learnsim.text import _tokenize

    monkeypatch.setattr(_tokenize, "_SEGMENTERS", {})
    monkeypatch.setitem(sys.modules, "jieba", None)         # "import jieba" fails
    with pytest.raises(ImportError, match=r"learnsim\[zh\]"):
        Tokenizer(analyzer="jieba")
    with pytest.raises(ValueError, match="analyzer must be one of"):
        Tokenizer(analyzer="kuromoji")


def test_language_picks_an_analyser_and_must_agree_with_one_given():
    assert resolve_analysis(None) == check_analysis(None) == {"analyzer": "cjk", "cjk_unigrams": False,
                                                                 "unicode_words": True}
    assert resolve_analysis("en")["analyzer"] == resolve_analysis("ko")["analyzer"] == "cjk"
    with pytest.raises(ValueError, match="reads Chinese"):
        resolve_analysis("ja", "jieba")
    with pytest.raises(ValueError, match="language must be a language code"):
        resolve_analysis("日本語")


@pytest.mark.skipif(importlib.util.find_spec("sudachipy") is None or importlib.util.find_spec("jieba") is None,
                    reason="SudachiPy or jieba is not installed")
def test_three_letter_codes_of_japanese_and_chinese_pick_their_analysers():
    # --language jpn read Japanese as any language (character bigrams), and with --analyzer
    # sudachi was refused as 'not language jpn'
    assert resolve_analysis("jpn") == resolve_analysis("ja-JP") == resolve_analysis("ja")
    assert resolve_analysis("zho")["analyzer"] == resolve_analysis("chi")["analyzer"] == "jieba"
    assert resolve_analysis("jpn", "sudachi")["analyzer"] == "sudachi"
    with pytest.raises(ValueError, match="reads Japanese"):
        resolve_analysis("zho", "sudachi")


def test_the_analysis_is_recorded_in_a_saved_model_and_an_old_one_keeps_its_own(tmp_path):
    from learnsim.persistence import load, save

    vec = TextVectorizer(cjk_unigrams=True).fit(JAPANESE)
    again = load(save(vec, tmp_path / "v.npz"))
    assert again.analyzer == "cjk" and again.cjk_unigrams is True
    assert (again.transform(JAPANESE) != vec.transform(JAPANESE)).nnz == 0
    # a state written before the analyzer was recorded: the token pattern alone, as it was fitted
    meta, arrays = TextVectorizer(analyzer="words").fit(JAPANESE)._get_state()
    del meta["params"]["analyzer"], meta["params"]["cjk_unigrams"]
    old = TextVectorizer._from_state(meta, arrays)
    assert old.analyzer == "words" and old.transform(["東京都は日本の首都である"]).nnz == 1


def test_no_analyser_library_is_imported_unless_asked_for():
    code = ("import sys, learnsim\nfrom learnsim.text import TextVectorizer\n"
            "TextVectorizer().fit(['東京の天気', '北京的天气'])\n"
            "print(sorted(m for m in ('sudachipy', 'fugashi', 'jieba', 'MeCab') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_fit_records_the_analysis_and_its_baselines_read_text_alike():
    import learnsim

    texts = JAPANESE + CHINESE
    model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2, 3, 3], baseline_holdout=None, cjk_unigrams=True)
    assert model.vectorizer.cjk_unigrams is True
    from learnsim.baseline import LexicalBaselines

    lex = LexicalBaselines(texts, analysis={"analyzer": "cjk", "cjk_unigrams": True})
    assert "東" in lex.vectorizer.vocabulary_ and "東京" in lex.vectorizer.vocabulary_
    with pytest.raises(ValueError, match="analyzer must be one of"):
        learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2, 3, 3], analyzer="mecab")


def test_the_spaceless_scripts_patterns_compile_when_first_needed_and_stay_one_object():
    """English text never reaches them: a fresh process that tokenizes it compiles none (11-15 ms
    of a command line search); a copied or pickled tokenizer keeps the module's own patterns."""
    import copy
    import pickle

    code = ("import sys\nfrom learnsim.text import Tokenizer, _tokenize as T\n"
            "print(Tokenizer()('Hello, world'), T._SPACELESS_RUN._compiled, T._SPACELESS_SPLIT._compiled, "
            "T._SPACELESS_RUN_U._compiled, T._SPACELESS_SPLIT_U._compiled, T._SPACELESS_RUN_P._compiled, "
            "T._SPACELESS_SPLIT_P._compiled, T._WIDE._compiled, T._SPACELESS_RUN_PT._compiled, "
            "T._SPACELESS_SPLIT_PT._compiled, T._SPACELESS_RUN_UT._compiled, T._SPACELESS_SPLIT_UT._compiled)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True).stdout
    assert out.split() == ["['hello',", "'world']"] + ["None"] * 11
    from learnsim.text import _tokenize as T

    for kwargs in ({}, {"cjk_unigrams": True}, {"ngram_range": (1, 2)}):
        tok = Tokenizer(**kwargs)
        text = "東京タワーは高い ＡＢＣ tower"
        for other in (copy.copy(tok), copy.deepcopy(tok), pickle.loads(pickle.dumps(tok))):
            assert other._runs is T._SPACELESS_RUN_PT      # (with the Tai scripts: tai_scripts)
            assert other(text) == tok(text) and other.spans(text) == tok.spans(text)
        assert "東京" in tok(text) and "abc" in tok(text)


def test_an_analyser_reads_a_long_run_in_slices(monkeypatch):
    # MeCab ended the process (segmentation fault) on a run of 500,000 Han characters and SudachiPy
    # refuses one of 49,149 bytes: an analyser is given at most _MAX_ANALYSED_RUN characters a call,
    # its words placed where they are in the whole text
    from learnsim.text import _tokenize

    seen = []

    def segment(run):
        seen.append(len(run))
        return [(i, i + 2, run[i:i + 2]) for i in range(0, len(run) - 1, 2)]

    monkeypatch.setattr(_tokenize, "_SEGMENTERS", {"fugashi": segment})
    tok = Tokenizer(analyzer="fugashi")
    run = "".join(chr(0x4E00 + i % 5000) for i in range(3 * _tokenize._MAX_ANALYSED_RUN + 10))
    text = "abc " + run + "。東京"
    spans = tok.spans(text)
    assert max(seen) <= _tokenize._MAX_ANALYSED_RUN and sum(seen[:-1]) == len(run)
    assert all(text[a:b] == term for a, b, term in spans if term != "abc")
    assert spans[-1][2] == "東京"


@pytest.mark.skipif(importlib.util.find_spec("fugashi") is None, reason="fugashi is not installed")
def test_fugashi_survives_a_run_of_half_a_million_han_characters(tmp_path):
    # in a child process: the crash was a segmentation fault, which would take pytest with it
    script = ("import random\nfrom learnsim.text import Tokenizer\nrandom.seed(0)\n"
              "run = ''.join(chr(0x4E00 + random.randrange(5000)) for _ in range(500_000))\n"
              "print(len(Tokenizer(analyzer='fugashi')(run)) > 100_000)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "True", (done.returncode, done.stderr[-500:])


@pytest.mark.skipif(importlib.util.find_spec("fugashi") is None or importlib.util.find_spec("unidic_lite") is None,
                    reason="fugashi or unidic-lite is not installed")
def test_fugashi_reads_with_unidic_lite_even_where_the_full_unidic_is_installed(tmp_path, monkeypatch):
    # fugashi.Tagger() takes the unidic package before unidic-lite: installing the full UniDic
    # beside it changed how a model fitted with UniDic lite cut its queries, and said nothing.
    # A stand-in unidic whose dictionary folder is empty: reading with it fails
    import types

    from learnsim.text import _tokenize

    fake = types.ModuleType("unidic")
    fake.DICDIR = str(tmp_path)
    monkeypatch.setitem(sys.modules, "unidic", fake)
    monkeypatch.setattr(_tokenize, "_SEGMENTERS", {})
    assert Tokenizer(analyzer="fugashi")("東京の天気は晴れです") == ["東京", "の", "天気", "は", "晴れ", "です"]
