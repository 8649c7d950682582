"""A table written to a standard output that cannot write the collection's characters
(PYTHONIOENCODING=ascii): each such character is written as a \\uXXXX escape (6 columns, 12 above
U+FFFF), but the columns were measured on the characters themselves, so that a row holding an
escaped id ('\\u00fc1', 7 columns, measured as 2) pushed its text 5 columns right of the header's."""
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
        {"id": "東3", "text": "日本語のテキスト 東京 😀 emoji"}]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("escaped")
    path = folder / "docs.jsonl"
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in DOCS), encoding="utf-8")
    import learnsim

    texts = [d["text"] for d in DOCS] + ["crème brûlée au café", "tea and coffee in english", "東京 日本語 テキスト"]
    model = learnsim.fit(texts, clusters=[0, 1, 2, 0, 1, 2], method="film", baseline_holdout=None, n_components=2)
    model.save(folder / "m.npz")
    return path


def _search(corpus, columns, **env):
    environ = dict(os.environ, PYTHONPATH=str(REPO / "src"), LEARNSIM_PROGRESS="0", COLUMNS=str(columns), **env)
    return subprocess.run([sys.executable, "-m", "learnsim", "search", "--model", str(corpus.parent / "m.npz"),
                           "--corpus", str(corpus), "--query", "café brûlée 東京", "-k", "3"],
                          capture_output=True, env=environ, timeout=120)


def _text_column_starts(out):
    """Where the last column (the text) starts on the header line and on each hit's row."""
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("rank"))
    starts = [lines[head].index("text")]
    for line in lines[head + 2:]:
        if not line.strip():
            break
        # rank, similarity and the id are one word each; the text follows two spaces or more
        cells = line.split()
        rest = line.index(cells[2]) + len(cells[2])
        starts.append(rest + len(line[rest:]) - len(line[rest:].lstrip()))
    return starts


@pytest.mark.parametrize("columns", [200, 60])
def test_an_escaped_table_keeps_its_columns(corpus, columns):
    done = _search(corpus, columns, PYTHONIOENCODING="ascii")
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode("ascii")
    assert "\\u00fc1" in out and "\\u6771" in out
    starts = _text_column_starts(out)
    assert len(starts) == 4 and len(set(starts)) == 1, out
    assert all(len(line) <= columns for line in out.splitlines()), out


def test_a_utf8_table_is_as_before(corpus):
    done = _search(corpus, 200, PYTHONIOENCODING="utf-8")
    out = done.stdout.decode("utf-8")
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("rank"))
    assert "ü1" in out and "\\u" not in out
    # the id column is as wide as its widest id ('東3': 3 terminal columns)
    assert lines[head + 1].split()[2] == "---"
