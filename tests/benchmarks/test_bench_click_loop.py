"""benchmarks/bench_click_loop.py (issue 34, point 4) in its quick size: the simulated
learn-compare-promote loop runs end to end through the product's parts, writes its table, JSON and
SVG with both measures (the sessions' own queries first, the held-out queries beside them), and no
promotion leaves the served ranking below the starting one on the sessions' queries. The encoder
row (issue 43), over a fake sentence encoder: staged candidates are query adapters or nothing,
and every text is encoded once (staging, judging and promoting an adapter encode nothing)."""
import json
import sys

import pytest
from conftest import REPO_ROOT, require_corpus, shared_data_dir

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import bench_click_loop  # noqa: E402


def test_click_model_is_position_based():
    import numpy as np

    model = bench_click_loop.ClickModel()
    rng = np.random.default_rng(0)
    counts = np.zeros(10)
    for _ in range(4000):
        counts[model.clicks(np.ones(10, dtype=bool), rng)] += 1
    # P(click at r) = 0.9 / r: rank 1 about twice rank 2 and ten times rank 10
    assert abs(counts[0] / 4000 - 0.9) < 0.03 and abs(counts[1] / counts[0] - 0.5) < 0.07
    assert counts[9] < counts[0] / 5


def test_naive_pairs_ignore_position():
    log = [{"query": "q", "shown": ["a", "b", "c"], "client": "u", "clicks": [{"doc_id": "a", "position": 1}]}]
    # Joachims' pairs give only "a > b" (the next one below); the naive conversion also "a > c"
    assert bench_click_loop.naive_comparisons(log) == [("q", "a", "b"), ("q", "a", "c")]



def test_a_fit_that_ended_as_a_baseline_stages_nothing():
    """The tf-idf rows staged every fit whose model was not "W = 1"; a fit from comparisons goes
    through the relative fit's search check, which can make the model BM25 or the tf.idf cosine
    (docs/click_loop.md, "Stop 82": the Joachims fits ending as the cosine were staged, looked at
    three times and dropped). Only learned weights are staged now, as the report says (its "model",
    as learnsim fit reads it)."""
    import argparse

    from learnsim.feedback import fit_clicks

    ids = ["d1", "d2", "d3", "d4"]
    texts = ["reset my password", "password reset link", "charged twice", "refund a double charge"]
    rows = [("password", "d1", "d3"), ("password help", "d2", "d4"), ("charge", "d3", "d1"),
            ("refund", "d4", "d2"), ("reset", "d1", "d4")]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = fit_clicks(ids, texts, rows)
    assert result.report["model"] == "bm25" and result.pipeline.method == "baseline"     # the case
    assert not bench_click_loop.stages(result)
    learned = argparse.Namespace(report={"model": "learned"}, pipeline=argparse.Namespace(method="RelativeMetric"))
    w1 = argparse.Namespace(report={"model": "W = 1"}, pipeline=argparse.Namespace(method="RelativeMetric"))
    assert bench_click_loop.stages(learned) and not bench_click_loop.stages(w1)


def test_quick_loop(tmp_path, capsys):
    require_corpus("20newsgroups/20news-bydate.tar.gz")
    out, plot = tmp_path / "loop.json", tmp_path / "loop.svg"
    assert bench_click_loop.main(["--quick", "--rows", "ipw", "joachims", "spam-30", "--data-dir",
                                  str(shared_data_dir()), "--json", str(out), "--plot", str(plot)]) == 0
    result = json.loads(out.read_text())
    assert [r["row"] for r in result["rows"]] == ["start", "ipw", "joachims", "spam-30", "ceiling"]
    for rec in result["loops"]:
        assert len(rec["curve"]) == result["settings"]["sessions"] // result["settings"]["block"] + 1
        assert len(rec["curve_sessions"]) == len(rec["curve"])
        assert rec["curve"][0] == [0, result["start_ndcg"]]
        assert rec["curve_sessions"][0] == [0, result["start_ndcg_sessions"]]
        # the guard, on the issue's measure (the sessions' own queries): no promotion leaves the
        # served ranking below the starting one
        assert all(p["minus_start_sessions"] >= 0 for p in rec["promotions"]), rec["promotions"]
        assert all(y >= result["start_ndcg_sessions"] for _, y in rec["curve_sessions"])
        # a decision at most at the end of each block after the first; a fit that fell back stages
        # nothing, and a staged candidate is looked at no more than max_looks times
        assert len(rec["decisions"]) <= len(rec["curve"]) - 2
        assert all(1 <= d["look"] <= result["settings"]["max_looks"] for d in rec["decisions"])
        assert len(rec["fits"]) <= len(rec["curve"]) - 2
    # both measures in the rows: the sessions' queries (primary) and the held-out queries
    for r in result["rows"]:
        for key in ("ndcg_sessions", "gap_closed_sessions", "min_minus_start_sessions", "ndcg", "gap_closed",
                    "min_minus_start"):
            assert key in r, (key, r)
    start_row, ceiling_row = result["rows"][0], result["rows"][-1]
    assert start_row["ndcg_sessions"] == result["start_ndcg_sessions"] and start_row["ndcg"] == result["start_ndcg"]
    assert ceiling_row["ndcg_sessions"] == result["ceiling_ndcg_sessions"]
    table = capsys.readouterr().out
    for label in ("starting model", "inverse propensity", "Joachims pairs", "30 % spam", "ceiling",
                  "sessions' queries", "held-out queries"):
        assert label in table
    header = table[table.index("| row |"):].splitlines()[0]
    assert header.index("sessions' queries") < header.index("held-out queries")
    picture = plot.read_text()
    assert picture.startswith("<svg") and "polyline" in picture
    assert "the sessions' queries" in picture
    assert "held-out queries" in picture


def test_encoder_row_check_fails_when_a_text_is_encoded_again(monkeypatch):
    """The encoder row's guard (issue 43): once the start has encoded every text, a fit, a staged
    adapter or a decision that sends a text to the model again is an error."""
    from encoder_fakes import register_sentence_encoder

    from learnsim.text import encoders

    register_sentence_encoder(monkeypatch)
    monkeypatch.setattr(encoders, "_MEMO", {})
    encoder = encoders.load_encoder("fake-sentence-encoder")
    encoder.transform(["a text the start encoded"])
    learner = bench_click_loop.EncoderLearner(None, encoder, 0)
    encoder.transform(["a text the start encoded"])          # the memo holds it: nothing encoded
    learner.check_nothing_encoded("a decision")
    encoder.transform(["a text nobody encoded before"])
    with pytest.raises(AssertionError, match="staging a candidate sent 1 texts to the encoder again"):
        learner.check_nothing_encoded("staging a candidate")


def test_encoder_row(tmp_path, monkeypatch, capsys):
    """The encoder row in the quick size over a fake sentence encoder (hashed words, the real
    SentenceEncoder's memo, embedding cache and count of encoded texts): its start is the
    encoder's cosine, every text is encoded once, a fit that falls back stages nothing, staged
    candidates are query adapters, and staging, judging and promoting them encode nothing; a
    second run takes every vector from the embedding cache."""
    require_corpus("20newsgroups/20news-bydate.tar.gz")
    from encoder_fakes import register_sentence_encoder

    from learnsim.text import encoders

    register_sentence_encoder(monkeypatch)
    monkeypatch.setattr(encoders, "_MEMO", {})                 # as in a new process
    data, cache = str(shared_data_dir()), tmp_path / "embeddings"
    col = bench_click_loop.load_newsgroups(data, 600, 400, 200, 0)      # the quick size's collection
    n_texts = len(set(col.texts) | {q for q, _ in col.train_queries + col.eval_queries})
    argv = ["--quick", "--rows", "encoder-adapter", "--encoder", "fake-sentence-encoder", "--embedding-cache",
            str(cache), "--data-dir", data]

    # 1. the product's fit (checked against the strongest baseline), a fresh memo and an empty cache
    out, plot = tmp_path / "checked.json", tmp_path / "checked.svg"
    assert bench_click_loop.main(argv + ["--json", str(out), "--plot", str(plot)]) == 0
    result = json.loads(out.read_text())
    assert [r["row"] for r in result["rows"]] == ["start", "ceiling", "encoder-start", "encoder-adapter",
                                                  "encoder-ceiling"]
    enc = result["encoder"]
    assert enc["model"] == "fake/fake-sentence-encoder"
    # each text once; a fit's search check encodes its own plain queries (new texts made from
    # documents, learnsim.baseline._probe), at most 300 a fit, and nothing else: the loop's fits
    # and the ceiling's one
    (looped,) = [r for r in result["loops"] if r["row"] == "encoder-adapter"]
    assert enc["encoded_texts_at_start"] == n_texts
    plain = looped["plain_queries_encoded"]
    assert n_texts + plain <= enc["encoded_texts"] <= n_texts + plain + 300
    assert plain <= 300 * len(looped["fits"])
    assert enc["embedding_cache"]["written"] == enc["encoded_texts"]     # the plain queries too
    (rec,) = [r for r in result["loops"] if r["row"] == "encoder-adapter"]
    assert rec["curve"][0] == [0, enc["start_ndcg"]] and rec["curve_sessions"][0] == [0, enc["start_ndcg_sessions"]]
    assert len(rec["curve"]) == result["settings"]["sessions"] // result["settings"]["block"] + 1
    assert rec["fits"], "no adapter fit ran"
    for f in rec["fits"]:
        assert (f["metric"] == "QueryAdapter") == (f["model"] == "learned"), f
        assert f["judged_queries"] > 0 and 0 < f["relevant_judgements"] < f["judgements"]
    fell_back = [f for f in rec["fits"] if f["model"] != "learned"]
    staged = {d["candidate_version"] for d in rec["decisions"]}
    assert len(staged) <= len(rec["fits"]) - len(fell_back)          # a fall-back stages nothing
    assert all(d["candidate_model"] == "learned" for d in rec["decisions"])
    assert rec["encoded_texts_in_loop"] == 0 and rec["encoding_checks"] >= len(rec["fits"])
    row = next(r for r in result["rows"] if r["row"] == "encoder-adapter")
    assert row["ndcg"] == rec["final_ndcg"] and row["promotions"] == len(rec["promotions"])
    table = capsys.readouterr().out
    for label in ("encoder's cosine (static)", "query adapter over the encoder", "encoder ceiling"):
        assert label in table
    picture = plot.read_text()          # the encoder's curve, start and ceiling beside the tf-idf ones
    assert picture.count(bench_click_loop.COLOURS["encoder-adapter"]) >= 2
    assert "query adapter over the encoder" in picture

    # 2. adapters staged whatever the check says (no baseline check), in a new process: every
    # vector from the cache; candidates interleaved and judged; nothing encoded
    monkeypatch.setattr(encoders, "_MEMO", {})
    out = tmp_path / "unchecked.json"
    assert bench_click_loop.main(argv + ["--encoder-fit-options", '{"baseline_holdout": null}', "--json",
                                         str(out)]) == 0
    result = json.loads(out.read_text())
    enc = result["encoder"]
    # nothing but the ceiling's fit's plain queries (its check is on: at most 300 new texts)
    assert enc["encoded_texts_at_start"] == 0 and enc["encoded_texts"] <= 300
    assert enc["embedding_cache"]["read"] >= n_texts
    (rec,) = [r for r in result["loops"] if r["row"] == "encoder-adapter"]
    assert rec["decisions"], "no adapter was staged"
    assert all(f["metric"] == "QueryAdapter" for f in rec["fits"])
    assert all(d["candidate_model"] == "learned" for d in rec["decisions"])
    assert rec["encoded_texts_in_loop"] == 0 and rec["encoding_checks"] >= len(rec["fits"]) + len(rec["decisions"])
