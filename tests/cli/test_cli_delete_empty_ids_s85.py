"""'learnsim index delete IDX --ids FILE' of an empty (or blank) FILE said "give the documents to
delete with --id ID or --ids FILE", the user having given --ids FILE: it now names the file and
that it holds no id (exit 2, one line, nothing deleted)."""
from __future__ import annotations

import json

import pytest

from conftest import run_cli


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    import learnsim
    from learnsim.index import Index

    folder = tmp_path_factory.mktemp("delete_ids")
    texts = [f"alpha beta {w}" for w in ("one", "two", "three")] + [f"delta zeta {w}" for w in ("one", "two", "three")]
    model = learnsim.fit(texts, clusters=[0] * 3 + [1] * 3, method="film", baseline_holdout=None, n_components=2)
    Index.build(folder / "idx", model, texts).close()
    return folder / "idx"


@pytest.mark.parametrize("content", ["", "\n\n  \n"])
def test_an_ids_file_with_no_id_is_named(index, tmp_path, content):
    ids = tmp_path / "ids.txt"
    ids.write_text(content, encoding="utf-8")
    code, _, err = run_cli(["index", "delete", index, "--ids", ids])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert f"--ids {ids}" in lines[0] and "no id" in lines[0]
    code, out, _ = run_cli(["index", "info", index, "--json"])
    assert code == 0 and json.loads(out)["documents"] == 6


def test_no_ids_at_all_still_says_how_to_give_them(index):
    code, _, err = run_cli(["index", "delete", index])
    assert code == 2 and "--id ID or --ids FILE" in err
