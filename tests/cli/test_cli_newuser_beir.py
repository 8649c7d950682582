"""A new user's walk through learnsim on a BEIR folder (NFCorpus's layout): fit --beir and
evaluate --beir take the folder, and so does index build."""
from __future__ import annotations

import gzip
import json

from conftest import run_cli

TEXTS = ["bone density and calcium", "vitamin d from sunlight", "heart rate and exercise", "kidney stones and water",
         "liver enzymes after alcohol", "lung capacity of runners", "skin rash from soap", "coffee and sleep"]


def _beir(root, gz):
    (root / "qrels").mkdir(parents=True)
    lines = "".join(json.dumps({"_id": f"MED-{i}", "title": "", "text": t, "metadata": {}}) + "\n"
                    for i, t in enumerate(TEXTS))
    if gz:
        with gzip.open(root / "corpus.jsonl.gz", "wt", encoding="utf-8") as f:
            f.write(lines)
    else:
        (root / "corpus.jsonl").write_text(lines, encoding="utf-8")
    (root / "queries.jsonl").write_text("".join(json.dumps({"_id": f"q{i}", "text": t.split()[0]}) + "\n"
                                                for i, t in enumerate(TEXTS)), encoding="utf-8")
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\r\n" + "".join(
        f"q{i}\tMED-{i}\t1\r\n" for i in range(len(TEXTS))), encoding="utf-8")
    return root


def test_index_build_takes_the_beir_folder_that_evaluate_measures_it_with(tmp_path):
    # docs/retrieval_runs.md measures 'learnsim evaluate --beir nfcorpus/ --index idx/', and
    # 'learnsim index build --beir nfcorpus/ ...' said "the following arguments are required: --corpus".
    for gz in (False, True):
        root = _beir(tmp_path / f"beir{int(gz)}", gz)
        index = tmp_path / f"idx{int(gz)}"
        code, out, err = run_cli(["index", "build", "--model", _model(tmp_path, root), "--beir", root, "--out", index,
                                  "--json"])
        assert code == 0, err
        assert json.loads(out)["documents"] == len(TEXTS)
        code, out, err = run_cli(["evaluate", "--beir", root, "--index", index, "--json"])
        assert code == 0, err
        assert json.loads(out)["queries"] == len(TEXTS)


def _model(tmp_path, root):
    model = tmp_path / "m.npz"
    if not model.exists():
        code, _, err = run_cli(["fit", "--beir", root, "--split", "test", "--model", model, "--baseline-holdout", "none"])
        assert code == 0, err
    return model


def test_index_build_from_a_folder_without_a_corpus_names_it_in_one_line(tmp_path):
    root = _beir(tmp_path / "beir", False)
    model = _model(tmp_path, root)
    (root / "corpus.jsonl").unlink()
    code, out, err = run_cli(["index", "build", "--model", model, "--beir", root, "--out", tmp_path / "idx"])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "corpus.jsonl" in lines[0], err
    assert not (tmp_path / "idx").exists()
    code, out, err = run_cli(["index", "build", "--model", model, "--beir", root, "--corpus", root / "queries.jsonl",
                              "--out", tmp_path / "idx"])
    assert code == 2 and "--corpus" in err and "--beir" in err, err
