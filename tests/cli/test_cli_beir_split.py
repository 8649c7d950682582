"""--split '' (an unset shell variable: --split "$SPLIT") with --beir is refused, naming it, as
beir_files refuses '.' and a path: it fell back to the default split (fit: train, evaluate: test)
without a word, so the figures were those of a split the user did not name."""
from __future__ import annotations

import json

import pytest

from conftest import run_cli


@pytest.fixture
def beir(tmp_path):
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    texts = [f"alpha beta {w}" for w in ("one", "two", "three")] + [f"delta zeta {w}" for w in ("one", "two", "three")]
    (folder / "corpus.jsonl").write_text("".join(json.dumps({"_id": f"d{i}", "title": "", "text": t}) + "\n"
                                                 for i, t in enumerate(texts)), encoding="utf-8")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "alpha"}) + "\n", encoding="utf-8")
    for split in ("train", "test"):
        (folder / "qrels" / f"{split}.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td0\t1\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("command", [["fit", "--model", "{tmp}/m.npz"], ["evaluate", "--model", "{tmp}/none.npz"]],
                         ids=["fit", "evaluate"])
@pytest.mark.parametrize("split", ["", " "])
def test_an_empty_split_is_refused(beir, tmp_path, command, split):
    args = [a.format(tmp=tmp_path) for a in command] + ["--beir", beir, "--split", split]
    code, out, err = run_cli(args)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "--split" in lines[0]
    assert not (tmp_path / "m.npz").exists()
