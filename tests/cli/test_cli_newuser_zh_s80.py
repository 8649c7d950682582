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


def test_evaluate_language_with_a_model_says_what_to_do(tmp_path):
    # was "--language: how the baselines of --queries without --model or --index cut text; with a
    # model they cut it as the model does (its own analysis)": no word of what was wrong
    (tmp_path / "notes.tsv").write_text("天气\t北京明天有大雨。\n天气\t上海明天有雪。\n", encoding="utf-8")
    code, _out, err = run_cli(["evaluate", "--model", tmp_path / "m.npz", "--input", tmp_path / "notes.tsv",
                               "--language", "zh"])
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "leave --language out" in err and "model" in err


def test_evaluate_language_with_a_run_says_no_text_is_cut(tmp_path):
    code, _out, err = run_cli(["evaluate", "--run", tmp_path / "run.txt", "--qrels", tmp_path / "qrels.txt",
                               "--analyzer", "jieba"])
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "leave --analyzer out" in err
