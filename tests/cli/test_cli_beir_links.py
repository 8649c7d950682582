"""A BEIR folder whose corpus (or queries, or qrels) is a symbolic link that leads nowhere: the
message names the link, not "no corpus.jsonl" beside the corpus.jsonl the user sees in ls."""
from __future__ import annotations

import os

import pytest

from conftest import run_cli

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")


def _beir(folder):
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text('{"_id": "d1", "text": "lava flows"}\n', encoding="utf-8")
    (folder / "queries.jsonl").write_text('{"_id": "q1", "text": "lava"}\n', encoding="utf-8")
    (folder / "qrels" / "train.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("part", ["corpus.jsonl", "queries.jsonl", "qrels/train.tsv"])
@pytest.mark.parametrize("target", ["loop", "missing"])
def test_fit_names_a_link_that_leads_nowhere(tmp_path, part, target):
    folder = _beir(tmp_path / "beir")
    link = folder / part
    link.unlink()
    link.symlink_to(link.name if target == "loop" else tmp_path / "gone.jsonl")
    code, out, err = run_cli(["fit", "--beir", folder, "--model", tmp_path / "m.npz"])
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err[-2000:]
    assert f"{part} is a symbolic link that leads nowhere (a loop, or its target is missing)" in err, err


def test_index_build_names_it_too(tmp_path):
    folder = _beir(tmp_path / "beir")
    (folder / "corpus.jsonl").unlink()
    (folder / "corpus.jsonl").symlink_to("corpus.jsonl")
    import learnsim

    texts = ["lava flows down", "the volcano erupts", "a goal in the match", "the team won"]
    model = learnsim.fit(texts, clusters=[0, 0, 1, 1], baseline_holdout=None).save(tmp_path / "m.npz")
    code, out, err = run_cli(["index", "build", "--model", model, "--beir", folder, "--out", tmp_path / "idx"])
    assert code == 2 and len(err.strip().splitlines()) == 1, err[-2000:]
    assert "corpus.jsonl is a symbolic link that leads nowhere" in err, err
