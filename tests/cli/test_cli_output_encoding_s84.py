"""Standard output in an encoding that cannot write the collection's characters
(PYTHONIOENCODING=ascii, a C locale with Python's UTF-8 mode off): 'learnsim search' printed half
its table, then "error: 'ascii' codec can't encode character '\\xe9' in position 12" with exit 2,
and --json failed the same way, where JSON can say every character in ASCII. And in that locale a
query typed with an accent ('café') reached the search as undecoded bytes and matched nothing,
exit 0: a silently different answer."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = [{"id": "ü1", "text": "Café crème brûlée, a naïve résumé"},
        {"id": "d2", "text": "plain english text about coffee and tea"},
        {"id": "d3", "text": "日本語のテキスト 東京 😀 emoji"}]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("encoding")
    path = folder / "docs.jsonl"
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in DOCS), encoding="utf-8")
    import learnsim

    texts = [d["text"] for d in DOCS] + ["crème brûlée au café", "tea and coffee in english", "東京 日本語 テキスト"]
    model = learnsim.fit(texts, clusters=[0, 1, 2, 0, 1, 2], method="film", baseline_holdout=None, n_components=2)
    model.save(folder / "m.npz")
    return path


def _run(args, **env):
    environ = dict(os.environ, PYTHONPATH=str(REPO / "src"), LEARNSIM_PROGRESS="0", **env)
    return subprocess.run([sys.executable, "-m", "learnsim", *args], capture_output=True, env=environ, timeout=120)


def _search(corpus, *extra, **env):
    return _run(["search", "--model", str(corpus.parent / "m.npz"), "--corpus", str(corpus), "--query", "café brûlée 東京", "-k", "3", *extra], **env)


def test_json_to_an_ascii_stdout_is_the_same_json(corpus):
    whole = _search(corpus, "--json", PYTHONIOENCODING="utf-8")
    ascii_ = _search(corpus, "--json", PYTHONIOENCODING="ascii")
    assert whole.returncode == 0 and ascii_.returncode == 0, ascii_.stderr.decode()
    ascii_.stdout.decode("ascii")               # every byte ASCII
    assert json.loads(ascii_.stdout) == json.loads(whole.stdout)
    assert json.loads(ascii_.stdout)[0]["hits"][0]["id"] == "ü1"


def test_text_to_an_ascii_stdout_escapes_and_says_so(corpus):
    done = _search(corpus, PYTHONIOENCODING="ascii")
    err = done.stderr.decode()
    assert done.returncode == 0, err
    out = done.stdout.decode("ascii")
    assert "\\u00fc1" in out and "Caf\\u00e9" in out          # the hit's id and text, escaped
    assert "Traceback" not in err and err.count("\\uXXXX") == 1 and "PYTHONIOENCODING=utf-8" in err


def test_a_chosen_error_handler_is_kept(corpus):
    done = _search(corpus, PYTHONIOENCODING="ascii:replace")
    assert done.returncode == 0
    assert "Caf?" in done.stdout.decode("ascii") and "\\uXXXX" not in done.stderr.decode()


def test_utf8_output_is_untouched(corpus):
    done = _search(corpus, PYTHONIOENCODING="utf-8")
    assert done.returncode == 0 and "Café" in done.stdout.decode("utf-8") and "\\uXXXX" not in done.stderr.decode()


def test_an_accented_query_in_a_c_locale_is_read_as_utf8(corpus):
    env = dict(LC_ALL="C", LANG="C", PYTHONUTF8="0", PYTHONIOENCODING="utf-8")
    done = _run(["search", "--model", str(corpus.parent / "m.npz"), "--corpus", str(corpus), "--query", "brûlée", "-k", "1", "--json"], **env)
    assert done.returncode == 0, done.stderr.decode()
    result = json.loads(done.stdout)
    assert result[0]["query"] == "brûlée" and [h["id"] for h in result[0]["hits"]] == ["ü1"]


def test_a_query_that_is_not_utf8_is_refused(corpus):
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), LC_ALL="C", LANG="C", PYTHONUTF8="0")
    done = subprocess.run([sys.executable, "-m", "learnsim", "search", "--model", str(corpus.parent / "m.npz"), "--corpus", str(corpus), "--query",
                           b"caf\xe9"], capture_output=True, env=env, timeout=120)
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "--query" in err and "UTF-8" in err
