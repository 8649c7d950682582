"""Texts in a language learnsim does not recognise (Georgian, Amharic: no stop list of theirs
ships, and no list holds 5 % of their words) are read as English, the fallback: the baselines (and
the model, where it ends as one) drop English's stop words and take Porter's stems. ``learnsim
fit`` said nothing of it; ``learnsim evaluate`` described the reading as 'English stop words
dropped, Porter stems' as of an English collection. fit now says, in one clause of its first line,
that the language was not recognised, what was used and how much of the texts it touches, and
that --language names the language."""
from __future__ import annotations

import json

import pytest

from conftest import run_cli

GEORGIAN = "ა ბ გ დ ე ვ ზ თ ი კ ლ მ ნ ო პ ჟ რ ს ტ უ ფ ქ ღ ყ შ ჩ ც ძ წ ჭ ხ ჯ ჰ".split()
AMHARIC = "ሀ ለ ሐ መ ሠ ረ ሰ ሸ ቀ በ ተ ቸ ኀ ነ ኘ አ ከ ኸ ወ ዐ ዘ ዠ የ ደ ጀ ገ ጠ ጨ ጰ ጸ ፀ ፈ".split()


def _collection(tmp_path, letters, seed=1):
    import random

    rng = random.Random(seed)
    path = tmp_path / "texts.jsonl"
    rows = []
    for label in "abcdef":
        vocab = ["".join(rng.choice(letters) for _ in range(5)) for _ in range(10)]
        rows += [{"label": label, "text": " ".join(rng.sample(vocab, 6))} for _ in range(6)]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("letters", [GEORGIAN, AMHARIC], ids=["georgian", "amharic"])
def test_fit_says_the_language_was_not_recognised_and_english_was_used(tmp_path, letters):
    from learnsim.text import detect_language

    path = _collection(tmp_path, letters)
    texts = [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines()]
    assert detect_language(texts) == "english"      # the fallback this is about
    code, out, err = run_cli(["fit", "--input", path, "--model", tmp_path / "m.npz"])
    assert code == 0, err
    first = out.splitlines()[0]
    assert "not recognised" in first and "English" in first and "--language" in first, first
    # truthful: none of these words is an English stop word, and Porter's stems change none of them
    assert "none of their words" in first, first
    # --language given: nothing to say
    code, out, err = run_cli(["fit", "--input", path, "--model", tmp_path / "m.npz", "--language", "en"])
    assert code == 0, err
    assert "not recognised" not in out, out


def test_an_english_collection_says_nothing_of_its_language(tmp_path):
    path = tmp_path / "en.jsonl"
    rows = [{"label": k, "text": f"The {w} of the {v} is in the {u} and it was there {i}"}
            for k, (w, v, u) in enumerate([("cat", "house", "garden"), ("train", "city", "station"),
                                            ("bread", "oven", "kitchen")]) for i in range(5)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = run_cli(["fit", "--input", path, "--model", tmp_path / "m.npz"])
    assert code == 0, err
    assert "recognised" not in out, out


def test_the_words_counted_are_those_the_fallback_reads():
    """The clause counts what English's reading does to the texts: their words that are English
    stop words (dropped) and those Porter's stems change (a made-up language in Latin letters)."""
    pytest.importorskip("Stemmer")
    from learnsim.text._described import unrecognised_language

    said = unrecognised_language(["zorbing tulips wakkas", "mibbles zorbing kado"] * 5)
    assert said is not None
    assert said["words"] == 30 and said["stop_words"] == 0
    # zorbing -> zorb, tulips -> tulip, wakkas -> wakka, mibbles -> mibbl; kado stays
    assert said["stemmed"] == 25
    assert unrecognised_language(["The cats sleep on the sofa while we work."]) is None
    assert unrecognised_language(["Les chats dorment sur le canapé pendant que nous travaillons."]) is None


def test_evaluate_says_so_beside_english_stop_words_and_porter_stems(tmp_path):
    """learnsim evaluate's account of the baselines said 'English stop words dropped, Porter stems'
    of Georgian documents, as of an English collection."""
    path = _collection(tmp_path, GEORGIAN)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text("".join(f"d{i}\t{r['text']}\n" for i, r in enumerate(rows)), encoding="utf-8")
    queries = tmp_path / "queries.tsv"
    queries.write_text("".join(f"q{i}\t{' '.join(rows[i]['text'].split()[:2])}\n" for i in range(0, 36, 6)),
                       encoding="utf-8")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 d{j} 1\n" for i in range(0, 36, 6) for j in range(36)
                             if rows[j]["label"] == rows[i]["label"]), encoding="utf-8")
    code, out, err = run_cli(["evaluate", "--queries", queries, "--qrels", qrels, "--corpus", corpus, "--json"])
    assert code == 0, err
    terms = json.loads(out)["baseline_terms"]
    assert terms.startswith("English stop words dropped, ")
    assert "not recognised" in terms and "--baseline-language" in terms, terms


@pytest.mark.parametrize("texts", [
    ["明日は雨が降るでしょう。", "スマホの電池がすぐ切れる。", "ラーメンのスープが濃い。"] * 4,
    ["明天会下雨吗", "手机的电池很快就没电了", "这家面馆的汤很浓"] * 4,
    ["내일은 비가 올 것 같아요", "휴대폰 배터리가 빨리 닳아요", "라면 국물이 진해요"] * 4,
    ["พรุ่งนี้ฝนจะตก", "แบตเตอรี่มือถือหมดเร็ว", "น้ำซุปราเมนเข้มข้น"] * 4,
], ids=["japanese", "chinese", "korean", "thai"])
def test_texts_the_analyser_reads_by_characters_are_not_said_unrecognised(texts):
    """Japanese notes (learnsim fit --input, 20 of them in 4 labels) were told 'their language is
    not recognised ...: the model reads them as English, the fallback': detect_language names only
    the languages of stop lists, and answers 'english' for Japanese, whose runs the analyser reads
    as character bigrams (or a segmenter's words), never by English's stop words or stems. Where
    most of the letters are of the scripts written without spaces, nothing is said."""
    from learnsim.text._described import unrecognised_language

    assert unrecognised_language(texts) is None
    # a few such words among an unknown Latin-letter language do not silence it
    mixed = ["zorbing tulips wakkas mibbles kado 東京"] * 10
    assert unrecognised_language(mixed) is not None


def test_fit_on_japanese_notes_says_nothing_of_english(tmp_path):
    path = tmp_path / "ja.jsonl"
    notes = {"天気": ["明日は雨が降るでしょう", "週末は晴れて暖かい", "台風が近づいています"],
             "携帯": ["スマホの電池がすぐ切れる", "新しい携帯のカメラがきれい", "画面が割れて修理に出した"],
             "料理": ["ラーメンのスープが濃い", "カレーを作りすぎた", "寿司屋で長く待った"]}
    path.write_text("".join(json.dumps({"label": k, "text": t + "。"}, ensure_ascii=False) + "\n"
                            for k, v in notes.items() for t in v), encoding="utf-8")
    code, out, err = run_cli(["fit", "--input", path, "--model", tmp_path / "m.npz"])
    assert code == 0, err
    assert "not recognised" not in out and "English" not in out, out


# a made-up language in Latin letters, two of whose short words (ja, ma) are Polish's stop words
MADE_UP = ("vana telo kiru mas ja vento dorim sela pofa toli vanu misa grenu kavo bira ma nefa duvo rombi tesu "
           "lavi zurak peli hosa fendo lubra nagi sepo").split()


def test_fit_on_a_made_up_latin_letter_language_says_it_is_not_recognised(tmp_path):
    # it was read as Polish (Polish's stop words and stems) and nothing was said: the two words
    # make more than 5 % of its words, but they are the same two over and over
    import random

    from learnsim.text import detect_language

    rng = random.Random(1)
    path = tmp_path / "made_up.jsonl"
    rows = [{"label": label, "text": " ".join(rng.choice(MADE_UP) for _ in range(10)).capitalize() + "."}
            for label in "abcdef" for _ in range(6)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert detect_language([r["text"] for r in rows]) == "english"
    code, out, err = run_cli(["fit", "--input", path, "--model", tmp_path / "m.npz"])
    assert code == 0, err
    first = out.splitlines()[0]
    assert "not recognised" in first and "--language" in first, first
    code, out, err = run_cli(["fit", "--input", path, "--model", tmp_path / "m.npz", "--language", "pl"])
    assert code == 0, err
    assert "not recognised" not in out, out
