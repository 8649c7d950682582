"""What reading Japanese and Chinese costs (issue 44, part 4), in one process on the same texts.

1. **Analysis throughput**: characters a second of learnsim's ``Tokenizer`` (the default
   character bigrams, bigrams with unigrams, and the SudachiPy, fugashi and jieba analysers
   where installed) against scikit-learn's character analyser
   (``CountVectorizer(analyzer="char", ngram_range=(2, 2))`` and ``(1, 2)``, lowercasing as
   learnsim does) on JGLUE JSTS sentences and livedoor news articles; and on English (the Quora
   sample's questions) learnsim's words against scikit-learn's word analyser, to show the
   English path kept its speed. Best of ``--repeats`` passes, alternating.
2. **A pair fit**: ``learnsim.fit(pairs=...)`` with its defaults (the checks included) on the
   first 10,000 JSTS training pairs as duplicates (score >= 3 a duplicate: the FILM
   duplicate-pair path), beside the same fit on 10,000 English Quora pairs (goal: within 60 s);
   and graded (scores 0-5: FILM from graded triplets and the pair regression) on 5,000 JSTS pairs
   beside 5,000 English STS Benchmark pairs (the ratio).

    python benchmarks/bench_analysis.py --json results/analysis-cost.json
    python benchmarks/bench_analysis.py --skip-fit            # throughput only, about a minute
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import tarfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))


def _data_dir(given):
    return Path(given) if given else REPO.parent / "shared" / "data"


def jsts(data, split="train"):
    """JSTS pairs, those of one sentence with itself left out (as ``learnsim fit --pairs`` does)."""
    rows = [json.loads(line) for line in (data / "ja" / "jsts" / f"{split}-v1.3.json").open(encoding="utf-8")]
    return [(r["sentence1"], r["sentence2"], float(r["label"])) for r in rows if r["sentence1"] != r["sentence2"]]


def livedoor(data, n):
    out = []
    with tarfile.open(data / "ja" / "livedoor-news" / "livedoor-news-text.tar.gz") as archive:
        for member in archive:
            name = member.name
            if member.isfile() and name.count("/") == 2 and not name.endswith(("LICENSE.txt", "README.txt")):
                out.append(archive.extractfile(member).read().decode("utf-8"))
                if len(out) >= n:
                    break
    return out


def quora(data, n):
    from learnsim.datasets import read_pairs

    pairs = read_pairs(data / "quora-sample" / "dev.tsv")
    texts = pairs.texts
    idx = pairs.indices[:n]
    return [(texts[a], texts[b], int(y)) for (a, b), y in zip(idx, pairs.labels[:n]) if texts[a] != texts[b]]


def throughput(named, texts, repeats):
    """{name: characters a second} of each analyser over ``texts``, best of ``repeats`` passes."""
    n_chars = sum(map(len, texts))
    best = {name: float("inf") for name in named}
    for _ in range(repeats):
        for name, analyse in named.items():
            start = time.perf_counter()
            for text in texts:
                analyse(text)
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: n_chars / seconds for name, seconds in best.items()}


def analysers(english=False):
    import importlib.util

    from sklearn.feature_extraction.text import CountVectorizer

    from learnsim.text import Tokenizer

    if english:
        return {"learnsim words": Tokenizer(), "sklearn word": CountVectorizer().build_analyzer()}
    named = {"sklearn char (2,2)": CountVectorizer(analyzer="char", ngram_range=(2, 2)).build_analyzer(),
             "sklearn char (1,2)": CountVectorizer(analyzer="char", ngram_range=(1, 2)).build_analyzer(),
             "learnsim bigrams": Tokenizer(), "learnsim bigrams+unigrams": Tokenizer(cjk_unigrams=True),
             # what leaving out invisible characters inside words costs (the default reads so)
             "learnsim bigrams, ignorables kept": Tokenizer(drop_ignorables=False),
             # and what reading punctuation by Unicode's word rules costs (the default reads so)
             "learnsim bigrams, punctuation as before": Tokenizer(uax29_punctuation=False),
             # and what folding letter variants and digits costs (the default reads so)
             "learnsim bigrams, variants apart": Tokenizer(fold_variants=False),
             # and what reading Kangxi radicals as ideographs costs (the default reads so)
             "learnsim bigrams, radicals apart": Tokenizer(fold_radicals=False)}
    for analyzer, module in (("sudachi", "sudachipy"), ("fugashi", "fugashi"), ("jieba", "jieba")):
        if importlib.util.find_spec(module) is not None:
            named[f"learnsim {analyzer}"] = Tokenizer(analyzer=analyzer)
    return named


def timed_fit(pairs):
    from learnsim.fitting import fit

    texts, index = [], {}
    rows = []
    for a, b, y in pairs:
        ia = index.setdefault(a, len(texts))
        if ia == len(texts):
            texts.append(a)
        ib = index.setdefault(b, len(texts))
        if ib == len(texts):
            texts.append(b)
        rows.append((ia, ib, y))
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = fit(texts, pairs=rows, method="film")
    return time.perf_counter() - start, result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--articles", type=int, default=1000, help="livedoor articles read (default 1000)")
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--graded-pairs", type=int, default=5_000)
    parser.add_argument("--skip-fit", action="store_true")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    data = _data_dir(args.data_dir)
    report = {"machine": platform.machine(), "python": platform.python_version(), "throughput": {}, "fits": {}}

    train = jsts(data)
    sentences = [t for a, b, _ in train for t in (a, b)]
    articles = livedoor(data, args.articles)
    english = [t for a, b, _ in quora(data, 10_000) for t in (a, b)]
    for corpus, texts, named in ((() if args.skip_throughput else (
            ("JSTS sentences", sentences, analysers()), ("livedoor articles", articles, analysers()),
            ("Quora questions (English)", english, analysers(english=True))))):
        rates = throughput(named, texts, args.repeats)
        reference = rates.get("sklearn char (2,2)", rates.get("sklearn word"))
        report["throughput"][corpus] = {name: {"chars_per_s": rate, "vs_sklearn": rate / reference}
                                        for name, rate in rates.items()}
        print(f"\n{corpus}: {len(texts)} texts, {sum(map(len, texts)):,} characters")
        for name, rate in rates.items():
            print(f"  {name:28s} {rate / 1e6:6.2f} M chars/s  {rate / reference:5.2f}x")

    if not args.skip_fit:
        from learnsim.datasets import load_sts_benchmark

        # the first fit of a process imports what a fit uses (seconds): paid here, by none of the timed fits
        timed_fit(quora(data, 300))

        sts = load_sts_benchmark(split="train", data_dir=data)
        english_graded = [(a, b, float(y)) for a, b, y in zip(sts.sentence1, sts.sentence2, sts.scores) if a != b]
        n_graded = min(args.graded_pairs, len(english_graded))
        for name, pairs in (("JSTS as duplicates (score >= 3)", [(a, b, int(y >= 3)) for a, b, y in train][:args.pairs]),
                            ("Quora duplicates (English)", quora(data, args.pairs)),
                            ("JSTS graded", train[:n_graded]), ("STS Benchmark graded (English)", english_graded[:n_graded])):
            seconds, result = timed_fit(pairs)
            summary = result.report
            report["fits"][name] = {"pairs": len(pairs), "seconds": seconds,
                                    "features": summary.get("features"), "model": summary.get("model")}
            print(f"\nfit {name}: {len(pairs)} pairs in {seconds:.1f} s "
                  f"({summary.get('features')} features)")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
