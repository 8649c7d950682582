"""What highlighting a text whose reading changes its length costs (``Tokenizer.spans``' mapped
path, read in parts: an accent written apart, Turkish İ, a ligature), against the plain reading.

For each text of about 100,000 characters (Japanese, Chinese, Korean, Russian, French with its
accents written whole, French with each accent written apart), best of ``--repeats``:

- ``plain``: ``spans`` of the text behind ``"é "`` (its reading keeps its length);
- ``mapped``: ``spans`` of the same text behind ``"e\\u0301 "`` (an accent written apart: the
  whole text is read in parts);
- ``terms``: ``Tokenizer()(text)`` of that text, the reading a fit or a search does.

    python benchmarks/bench_spans.py
    python benchmarks/bench_spans.py --src /tmp/old/src     # another checkout's code, to compare
"""
from __future__ import annotations

import argparse
import sys
import time
import unicodedata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

TEXTS = {
    "japanese": "東京の天気は晴れです。明日は雨が降るでしょう。" * 4348,
    "chinese": "北京今天的天气很好，明天上海天气下雨。" * 5264,
    "korean": "오늘 서울의 날씨는 맑습니다. " * 5883,
    "russian": "Сегодня в Москве хорошая погода. " * 3031,
    "french": "Le café de la crème brûlée à Noël. " * 2858,
    "french, accents apart": "Le cafe\u0301 de la cre\u0300me bru\u0302le\u0301e a\u0300 Noe\u0308l. " * 2500,
}


def best(fn, arg, repeats):
    out = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn(arg)
        out = min(out, time.perf_counter() - start)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--src", default=str(REPO / "src"), help="where learnsim is imported from")
    args = parser.parse_args(argv)
    sys.path.insert(0, args.src)
    from learnsim.text import Tokenizer

    tok = Tokenizer()
    print(f"{'text':24s} {'chars':>7s} {'plain ms':>9s} {'mapped ms':>10s} {'terms ms':>9s} {'mapped/plain':>13s}")
    for name, text in TEXTS.items():
        plain, mapped = "\u00e9 " + unicodedata.normalize("NFC", text), "e\u0301 " + text
        assert tok._direct_spans(plain) is not None and tok._direct_spans(mapped) is None
        assert tok.spans(mapped), name         # highlighted, not given up
        p, m, t = best(tok.spans, plain, args.repeats), best(tok.spans, mapped, args.repeats), best(tok, mapped, args.repeats)
        print(f"{name:24s} {len(mapped):7d} {p * 1e3:9.1f} {m * 1e3:10.1f} {t * 1e3:9.1f} {m / p:12.1f}x")


if __name__ == "__main__":
    main()
