"""A new user's walk through learnsim on Chinese notes (jieba): the messages met on the way."""
from __future__ import annotations

import pytest

from conftest import run_cli


@pytest.mark.parametrize("given, named, not_named", [(["--explain"], "--explain needs", "--filter"),
                                                     (["--filter", "topic=x"], "--filter needs", "--explain"),
                                                     (["--explain", "--filter", "topic=x"], "--filter and --explain",
                                                      None)])
def test_search_names_the_option_that_needs_an_index(tmp_path, given, named, not_named):
    # 'search --model m.npz --corpus c --explain' said "--filter and --explain need --index" to a user
    # who gave no --filter
    code, out, err = run_cli(["search", "--model", tmp_path / "m.npz", "--corpus", tmp_path / "c.tsv",
                              "--query", "手机电池"] + given)
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert named in err and "--index" in err
    if not_named:
        assert not_named not in err
