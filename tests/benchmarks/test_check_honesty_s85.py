"""benchmarks/check_honesty.py on tiny synthetic inputs: the fit's verdict against a test it never saw."""
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS_DIR = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def honesty():
    sys.path.insert(0, str(BENCHMARKS_DIR))
    try:
        import check_honesty
    finally:
        sys.path.remove(str(BENCHMARKS_DIR))
    return check_honesty


def test_help_and_bad_scale(honesty, capsys):
    with pytest.raises(SystemExit) as done:
        honesty.main(["--help"])
    assert done.value.code == 0
    assert "--scale" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        honesty.main(["--scale", "0"])
    assert done.value.code == 2


def test_absent_collections_are_skipped_with_a_line(honesty, tmp_path, capsys):
    assert honesty.main(["--data-dir", str(tmp_path), "--only", "cisi", "sts"]) == 0
    err = capsys.readouterr().err
    assert "skipped cisi" in err and "skipped sts" in err


def test_paired_interval_of_equal_scores_is_zero(honesty):
    u = np.linspace(0, 1, 30)
    assert honesty.paired_interval(u, u) == (0.0, 0.0, 0.0)
    diff, lo, hi = honesty.paired_interval(u + 0.1, u)
    assert diff == pytest.approx(0.1) and lo == pytest.approx(0.1) and hi == pytest.approx(0.1)


def test_a_row_of_held_out_clusters(honesty):
    from learnsim.datasets import make_clustered_corpus

    c = make_clustered_corpus(n_clusters=6, docs_per_cluster=14, vocab_size=400, doc_length=(20, 40),
                              random_state=0)
    texts, labels = list(c.data), np.asarray(c.target)
    test = np.zeros(len(texts), bool)
    for y in np.unique(labels):
        test[np.flatnonzero(labels == y)[:5]] = True
    row = honesty._held_clusters("synthetic", 0, [t for t, h in zip(texts, test) if not h], labels[~test].tolist(),
                                 [t for t, h in zip(texts, test) if h], labels[test].tolist())
    assert row["verdict"] == "keep" or row["verdict"].startswith("fall back to ")
    assert row["strongest"] in ("bm25", "cosine")
    assert 0 < row["baseline_score"] <= 1 and 0 <= row["learned_score"] <= 1
    assert row["low"] <= row["diff"] <= row["high"]
    assert row["ratio"] == pytest.approx(row["learned_score"] / row["baseline_score"])
    assert row["agree"] == "yes" or row["agree"].startswith("NO")
    assert "| synthetic |" in honesty.table([row])


def test_a_row_of_graded_pairs(honesty):
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(60)]

    def pair():
        a = list(rng.choice(words, 6))
        k = int(rng.integers(0, 7))
        b = a[:k] + list(rng.choice(words, 6 - k))
        return " ".join(a), " ".join(b), k / 6 * 5
    train = [pair() for _ in range(80)]
    test = [pair() for _ in range(40)]
    row = honesty.pair_task("pairs", 0, [a for a, _, _ in test], [b for _, b, _ in test],
                            [s for _, _, s in test], honesty.spearman, "Spearman", pairs=train)
    assert row["measure"] == "Spearman"
    assert row["baseline_score"] > 0.5          # word overlap is what the gold score counts
    assert row["low"] <= row["diff"] <= row["high"]
