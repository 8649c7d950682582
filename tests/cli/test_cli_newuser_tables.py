"""A new user's walk through learnsim on Japanese text: what the tables print."""
from __future__ import annotations

import json
import unicodedata

from conftest import run_cli


def columns(text):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


LONG = {
    "weather": ["東京の天気は明日から崩れる見込みで、気象庁は週末にかけて各地で強い雨と風に警戒するよう呼びかけています。",
                "大阪の天気は晴れのち曇り、午後からは所によって雨が降るでしょう。洗濯物は早めに取り込むのがよさそうです。",
                "札幌の天気は雪、最高気温は氷点下の予想で、路面の凍結による事故に十分注意してくださいと呼びかけています。"],
    "phones": ["新しいスマートフォンの価格が発表され、前のモデルより一万円ほど高くなるものの、電池の持ちは大きく伸びました。",
               "スマートフォンのアプリを更新したら電池の減りが早くなったという声が多く、開発元は修正版の配信を予定しています。",
               "中古のスマートフォンを買うときは、電池の状態と画面の傷、それに通信会社の制限がないかを確かめておきましょう。"],
}


def test_a_japanese_hit_takes_no_more_columns_of_the_table_than_an_english_one(tmp_path):
    # The snippet was cut at 80 characters: a Japanese one took 160 columns, twice an English
    # hit's row, and wrapped on an ordinary terminal.
    rows = [{"id": f"d{i}", "label": label, "text": text}
            for i, (label, text) in enumerate((l, t) for l, texts in LONG.items() for t in texts)]
    corpus = tmp_path / "ja.jsonl"
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    model = tmp_path / "m.npz"
    code, _, err = run_cli(["fit", "--input", corpus, "--model", model, "--baseline-holdout", "none"])
    assert code == 0, err
    code, out, err = run_cli(["search", "--model", model, "--corpus", corpus, "--query", "東京の天気", "-k", "3"])
    assert code == 0, err
    lines = out.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith("----"))
    text_column = len(lines[rule].split("  ")[-1])
    assert text_column <= 80, lines[rule]
    hits = [line for line in lines[rule + 1:] if line.strip()[:1].isdigit()]
    assert len(hits) == 3
    texts = {r["text"] for r in rows}
    for line in hits:
        assert columns(line) <= columns(lines[rule]), line
        cell = line.split("  ")[-1].strip()
        assert cell.endswith("...") and any(t.startswith(cell[:-3]) for t in texts), cell
        assert len(cell) > 20          # still a readable part of the text


def test_explain_of_a_bigram_model_counts_terms_not_words(tmp_path):
    # 'learnsim explain' of a model fitted on livedoor articles began "16 learned dimensions over
    # 41095 words", and listed です, ます, スマ, デル: character bigrams, which no reader calls words.
    rows = [{"id": f"d{i}", "label": label, "text": text}
            for i, (label, text) in enumerate((l, t) for l, texts in LONG.items() for t in texts)]
    corpus = tmp_path / "ja.jsonl"
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    model = tmp_path / "m.npz"
    code, _, err = run_cli(["fit", "--input", corpus, "--model", model, "--baseline-holdout", "none"])
    assert code == 0, err
    code, out, err = run_cli(["explain", "--model", model])
    assert code == 0, err
    first = out.splitlines()[0]
    assert " words" not in first and " terms" in first and "bigrams" in first, first
    code, out, err = run_cli(["explain", "--model", model, "--json"])
    assert code == 0, err
    assert json.loads(out)["n_words"] > 0        # the JSON keeps its key


def test_a_filter_that_no_document_passes_is_named_as_the_reason_for_no_hits(tmp_path):
    # 'search --index ld-idx/ --query サッカー日本代表 --filter label=sports' (livedoor's label is
    # sports-watch) and '--filter category=sports-watch' (no such field) printed "(no document
    # matches)" and nothing else: the query, the filter's field and its value all looked wrong alike.
    rows = [{"id": f"d{i}", "label": label, "text": text}
            for i, (label, text) in enumerate((l, t) for l, texts in LONG.items() for t in texts)]
    corpus = tmp_path / "ja.jsonl"
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    model, index = tmp_path / "m.npz", tmp_path / "idx"
    code, _, err = run_cli(["fit", "--input", corpus, "--model", model, "--baseline-holdout", "none"])
    assert code == 0, err
    code, _, err = run_cli(["index", "build", "--model", model, "--corpus", corpus, "--out", index])
    assert code == 0, err
    for flt in ("label=weathers", "category=weather"):
        code, out, err = run_cli(["search", "--index", index, "--query", "東京の天気", "-k", "2", "--filter", flt])
        assert code == 0, err
        assert "(no document matches)" in out
        notes = [line for line in err.splitlines() if "filter" in line]
        assert len(notes) == 1 and "no document" in notes[0] and flt.split("=")[0] in notes[0], err
    code, out, err = run_cli(["search", "--index", index, "--query", "東京の天気", "-k", "2", "--filter", "label=weather"])
    assert code == 0 and "filter" not in err, err          # hits: nothing to say


def test_a_distance_threshold_that_joins_nothing_or_everything_says_so(tmp_path):
    # 'cluster --index ld-fidx --distance-threshold 0.8' (the value of cluster --help's example) on
    # 360 livedoor articles printed "360 cluster(s) of the 360 documents" and a table of 360 ones:
    # no word that the threshold lies below every distance of that model.
    rows = [{"id": f"d{i}", "label": label, "text": text}
            for i, (label, text) in enumerate((l, t) for l, texts in LONG.items() for t in texts)]
    corpus = tmp_path / "ja.jsonl"
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    model, index = tmp_path / "m.npz", tmp_path / "idx"
    code, _, err = run_cli(["fit", "--input", corpus, "--model", model, "--baseline-holdout", "none"])
    assert code == 0, err
    code, _, err = run_cli(["index", "build", "--model", model, "--corpus", corpus, "--out", index])
    assert code == 0, err
    code, out, err = run_cli(["cluster", "--index", index, "--distance-threshold", "1e-9"])
    assert code == 0, err
    assert out.startswith(f"{len(rows)} cluster(s)")
    assert "no two documents" in err and "larger" in err, err
    code, out, err = run_cli(["cluster", "--index", index, "--distance-threshold", "1e9"])
    assert code == 0, err
    assert out.startswith("1 cluster(s)") and "smaller" in err, err
    code, out, err = run_cli(["cluster", "--index", index, "--k", "2"])
    assert code == 0 and "threshold" not in err, err
