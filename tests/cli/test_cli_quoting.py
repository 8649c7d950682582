"""The command line's --quoting and .csv input (issue 32, part 7): ``.tsv`` pairs and documents
are plain TSV (a text may start with ``"`` or hold an unbalanced one) unless ``--quoting csv``;
``fit --input`` and ``evaluate --input`` take ``.csv`` (a header ``label,text``); a malformed
file is one line on stderr naming the line, exit 2."""
from __future__ import annotations

import json

import numpy as np
import pytest

from learnsim.datasets import make_clustered_corpus
from conftest import run_cli

FILM_FAST = ["--method", "film", "--dimensions", "4", "--max-iter", "5"]
MCD_FIXED = ["--n-basis", "8", "--shrinkage", "0.01", "--complement-weight", "0.3"]


def _one_line_error(args, *fragments):
    code, out, err = run_cli(args)
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def _quoted_pairs(n=120, seed=3):
    """Labelled pairs of topic texts; every third first text starts with a quoted word and
    every fifth second text holds an unbalanced quote."""
    corpus = make_clustered_corpus(n_clusters=6, docs_per_cluster=10, random_state=seed)
    rng = np.random.default_rng(seed)
    rows = []
    while len(rows) < n:
        i, j = rng.choice(len(corpus.data), 2, replace=False)
        if len(rows) % 2:
            j = rng.choice(np.flatnonzero(corpus.target == corpus.target[i]))
            if j == i:
                continue
        a, b = corpus.data[i], corpus.data[j]
        if len(rows) % 3 == 0:
            a = f'"Quoted" {a}'
        if len(rows) % 5 == 0:
            b = f'{b} with an unbalanced " quote'
        rows.append((int(corpus.target[i] == corpus.target[j]), a, b))
    return rows


@pytest.fixture(scope="module")
def quoted_pairs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("quoted_pairs")
    rows = _quoted_pairs()
    path = folder / "pairs.tsv"
    path.write_text("label\ttext_a\ttext_b\n" + "".join(f"{l}\t{a}\t{b}\n" for l, a, b in rows),
                    encoding="utf-8")
    return path, rows


def test_fit_film_reads_tsv_pairs_with_quotes_verbatim(quoted_pairs, tmp_path):
    path, rows = quoted_pairs
    model = tmp_path / "film.npz"
    code, out, err = run_cli(["fit", "--pairs", path, "--model", model, "--json"] + FILM_FAST)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["pairs"] == len(rows)
    texts = {t for _, a, b in rows for t in (a, b)}
    assert summary["documents"] >= len(texts)
    # the same file with --quoting csv: the leading quote is CSV quoting, and broken here
    line = _one_line_error(["fit", "--pairs", path, "--model", tmp_path / "csv.npz", "--quoting", "csv"]
                           + FILM_FAST, "line 2: malformed quoting", "--quoting none")
    assert str(path) in line
    # evaluate and match read the file the same way
    code, out, err = run_cli(["evaluate", "--model", model, "--pairs", path, "--json"])
    assert code == 0, err
    code, out, err = run_cli(["match", "--model", model, "--pairs", path, "--json"])
    assert code == 0, err
    decisions = json.loads(out)
    listed = decisions["pairs"] if isinstance(decisions, dict) else decisions
    assert len(listed) == len(rows)
    assert any(str(p.get("text_a", "")).startswith('"Quoted"') for p in listed) or \
        '"Quoted"' in out


def test_quoting_csv_on_a_tsv_processes_quotes(tmp_path):
    rows = _quoted_pairs(n=80, seed=4)
    path = tmp_path / "quoted.tsv"

    def cell(text):
        return '"' + text.replace('"', '""') + '"'

    path.write_text("label\ttext_a\ttext_b\n" + "".join(f"{l}\t{cell(a)}\t{cell(b + chr(9) + 'tail')}\n"
                                                         for l, a, b in rows), encoding="utf-8")
    code, out, err = run_cli(["fit", "--pairs", path, "--model", tmp_path / "m.npz", "--quoting", "csv",
                              "--json"] + FILM_FAST)
    assert code == 0, err
    assert json.loads(out)["pairs"] == len(rows)
    # without it, a text in CSV quotes with doubled quotes is named with the quoting that reads it
    _one_line_error(["fit", "--pairs", path, "--model", tmp_path / "n.npz"] + FILM_FAST,
                    "line 2: the field", "in CSV quotes", "--quoting csv")
    # and with --quoting none, the quoted tab splits the record
    _one_line_error(["fit", "--pairs", path, "--model", tmp_path / "n.npz", "--quoting", "none"] + FILM_FAST,
                    "line 2: 4 field(s), expected the header's 3")


@pytest.fixture(scope="module")
def labelled_csv(tmp_path_factory):
    folder = tmp_path_factory.mktemp("labelled_csv")
    corpus = make_clustered_corpus(n_clusters=4, docs_per_cluster=10, random_state=7)

    def cell(text):
        return '"' + text.replace('"', '""') + '"'

    rows = [(corpus.target_names[t] if hasattr(corpus, "target_names") else str(t), text)
            for t, text in zip(corpus.target, corpus.data)]
    train, test = folder / "train.csv", folder / "test.csv"
    for path, part in ((train, rows[0::2]), (test, rows[1::2])):
        # a comma and doubled quotes inside the quoted texts
        path.write_text("label,text\n" + "".join(f'{label},{cell(text + ", said the " + chr(34) + "doc" + chr(34))}\n'
                                                 for label, text in part), encoding="utf-8")
    return train, test, len(rows) // 2


def test_fit_and_evaluate_take_labelled_csv(labelled_csv, tmp_path):
    train, test, n_test = labelled_csv
    model = tmp_path / "mcd.npz"
    code, out, err = run_cli(["fit", "--input", train, "--model", model, "--json"] + MCD_FIXED)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["documents"] == n_test and summary["clusters"] == 4
    code, out, err = run_cli(["evaluate", "--model", model, "--input", test, "--json"])
    assert code == 0, err
    assert json.dumps(json.loads(out))  # a report


@pytest.fixture(scope="module")
def mcd_model(labelled_csv, tmp_path_factory):
    train, _test, _n = labelled_csv
    model = tmp_path_factory.mktemp("mcd_model") / "mcd.npz"
    code, out, err = run_cli(["fit", "--input", train, "--model", model] + MCD_FIXED)
    assert code == 0, err
    return model


@pytest.mark.parametrize("content, fragment", [
    ('label,text\nsports,"The match" ended\n', "line 2: malformed quoting"),
    ('label,text\nsports,one\nnews,"never closed\n', "line 3: malformed quoting"),
    ("label,text\nsports,a, b\n", "line 2: 3 field(s), expected the header's 2"),
    ("topic,body\nsports,x\n", "line 1: the header of a .csv file must name the columns label,text"),
])
def test_malformed_csv_input_is_one_line_exit_2(tmp_path, mcd_model, content, fragment):
    path = tmp_path / "bad.csv"
    path.write_text(content, encoding="utf-8")
    line = _one_line_error(["fit", "--input", path, "--model", tmp_path / "m.npz"], fragment)
    assert str(path) in line
    line = _one_line_error(["evaluate", "--model", mcd_model, "--input", path], fragment)
    assert str(path) in line


@pytest.mark.parametrize("argv", [
    ["fit", "--input", "x.csv", "--model", "m.npz"],
    ["evaluate", "--model", "m.npz", "--input", "x.csv"],
    ["match", "--model", "m.npz", "--pairs", "x.tsv"],
    ["search", "--model", "m.npz", "--corpus", "c.tsv", "--query", "q"],
    ["index", "build", "--model", "m.npz", "--corpus", "c.tsv", "--out", "idx"],
    ["index", "add", "idx", "--corpus", "c.tsv"],
])
def test_quoting_option_is_on_the_reading_commands(argv):
    from learnsim.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(argv).quoting == "auto"
    assert parser.parse_args(argv + ["--quoting", "csv"]).quoting == "csv"
    assert parser.parse_args(argv + ["--quoting", "none"]).quoting == "none"


def test_bad_quoting_value_is_a_usage_error(quoted_pairs, tmp_path):
    path, _ = quoted_pairs
    code, out, err = run_cli(["fit", "--pairs", path, "--model", tmp_path / "m.npz", "--quoting", "tsv"]
                             + FILM_FAST)
    assert code == 2 and "--quoting" in err


def test_a_runs_queries_in_csv_quotes_ask_for_a_quoting(tmp_path, mcd_model):
    # search --run read a --queries .tsv (read_queries) with its CSV quotes as the query's text
    corpus, queries, run = tmp_path / "docs.tsv", tmp_path / "queries.tsv", tmp_path / "run.trec"
    corpus.write_text("d1\tw001 w002 w003\nd2\tw004 w005\n", encoding="utf-8")
    queries.write_text('q1\tw001 w002\nq2\t"w004 ""w005"""\n', encoding="utf-8")
    search = ["search", "--model", mcd_model, "--corpus", corpus, "--queries", queries, "--run", run]
    _one_line_error(search, "queries.tsv, line 2", "--quoting csv", "--quoting none")
    assert not run.exists()
    code, out, err = run_cli(search + ["--quoting", "csv"])
    assert code == 0, err
    assert {line.split()[0] for line in run.read_text(encoding="utf-8").splitlines()} == {"q1", "q2"}
