"""learnsim.text.LoneCharacters: a query's lone character of a spaceless script, unknown to the
vocabulary, read as the vocabulary's terms holding it."""
from __future__ import annotations

from learnsim.text import LoneCharacters, Tokenizer


def test_an_unknown_lone_character_is_read_as_the_terms_holding_it():
    vocabulary = {"子猫": 0, "猫が": 1, "犬が": 2, "好き": 3, "cat": 4}
    read = LoneCharacters(Tokenizer(), [vocabulary])
    assert read("猫") == "子猫 猫が"
    assert Tokenizer()(read("猫")) == ["子猫", "猫が"]              # each term reads as itself
    assert read("猫 cat") == "子猫 猫が  cat"
    assert read("the 猫's toy") == "the  子猫 猫が 's toy"
    assert read("犬") == "犬が"
    assert read(read("猫")) == read("猫")                          # read again: nothing more
    assert read("ｶ") == "ｶ"                                       # (folded カ: held by no term)


def test_what_is_not_a_lone_unknown_character_is_left_alone():
    read = LoneCharacters(Tokenizer(), [{"子猫": 0, "猫": 1, "猫が": 2}])
    for text in ("猫が好き", "猫 が好き", "cat", "", "鯨", "a b"):   # runs, a known one beside a run, ASCII, ...
        assert read(text) == text
    words = LoneCharacters(Tokenizer(analyzer="words"), [{"子猫": 0}])
    assert words("猫") == "猫"                                     # no bigrams: nothing to read it as


def test_two_vocabularies_and_other_scripts():
    read = LoneCharacters(Tokenizer(), [{"한국": 0}, {"국어": 1, "ภา": 2}])
    assert read("국") == "한국 국어"
    assert read("ภ") == "ภา"


def test_a_character_is_read_as_at_most_limit_terms():
    vocabulary = {f"猫{chr(0x4E00 + i)}": i for i in range(50)}
    assert len(LoneCharacters(Tokenizer(), [vocabulary], limit=7)("猫").split()) == 7
    assert len(LoneCharacters(Tokenizer(), [vocabulary])("猫").split()) == 50


def test_a_query_of_many_lone_characters_adds_at_most_limit_terms_in_all():
    vocabulary = {f"{chr(0x4E00 + i)}{chr(0x4E00 + j)}": 100 * i + j for i in range(100) for j in range(100) if i != j}
    query = " ".join(chr(0x4E00 + i) for i in range(100))          # 100 lone characters, 198 terms each
    read = LoneCharacters(Tokenizer(), [vocabulary], limit=500)
    assert len(read(query).split()) == 500 + 97          # 3 characters' terms, and the 97 left as they were
    assert len(LoneCharacters(Tokenizer(), [vocabulary])(query).split()) == 1000 + 94


def test_a_character_written_as_several_code_points_is_still_one_character():
    """물 as its three jamo (NFD), が as か and a voiced mark, ｶﾞ half-width: each is one character
    once the tokenizer folds it, and reads as the NFC character does."""
    import unicodedata

    read = LoneCharacters(Tokenizer(), [{"물이": 0, "물고": 1, "子猫": 2, "猫が": 3, "ガイ": 4}])
    for plain, other in (("물", unicodedata.normalize("NFD", "물")), ("が", "\u304b\u3099"), ("ガ", "\uff76\uff9e")):
        assert len(other) > 1 and read(plain) != plain
        assert Tokenizer()(read(other)) == Tokenizer()(read(plain))
    # two characters are a run: bigrams, left alone
    assert read("\uff76\uff9e\uff72") == "\uff76\uff9e\uff72"


def test_a_query_of_lone_characters_keeps_a_known_one_and_widens_it():
    # one document wrote 猫 alone (ペット：猫、犬、鳥): the query 猫 found it and none of the
    # documents where 猫 stands inside a run
    read = LoneCharacters(Tokenizer(), [{"子猫": 0, "猫": 1, "猫が": 2, "犬": 3}])
    assert read("猫") == "猫 子猫 猫が"
    assert read(read("猫")) == read("猫")                          # read again: nothing more
    assert read("猫 犬") == "猫 子猫 猫が  犬"                      # 犬: known, held by no longer term


def test_a_one_character_query_finds_the_documents_holding_it_inside_runs(tmp_path):
    import warnings

    from learnsim._baseline_models import baseline_pipeline
    from learnsim.index import Index

    docs = ["ペット：猫、犬、鳥", "子猫がかわいい", "猫が好きです", "犬の散歩", "今日は雨"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        index = Index.build(tmp_path / "i", baseline_pipeline("bm25", docs), docs)
    found = {hit["text"] for hit in index.search("猫", k=5)}
    assert found == set(docs[:3])


def test_a_lone_kangxi_radical_is_read_as_its_ideograph():
    # ⼈ (U+2F08) is read as 人 by the tokenizer (fold_radicals): alone in a query it is the same
    # lone character, and found nothing where 人 found the documents holding 人口
    from learnsim.text import LoneCharacters, Tokenizer

    vocabulary = {"\u4eba\u53e3": 0, "\u53e3\u304c": 1}
    expand = LoneCharacters(Tokenizer(), [vocabulary])
    assert expand("\u2f08") == expand("\u4eba") == "\u4eba\u53e3"
    assert LoneCharacters(Tokenizer(fold_radicals=False), [vocabulary])("\u2f08") == "\u2f08"
    assert expand("\u2f08\u2f1d") == "\u2f08\u2f1d"          # a run of two: bigrams, left as written
