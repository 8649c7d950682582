"""'-' for a file that is not read from standard input: --corpus, --queries, --links and --out said
"'-' is not standard input here", but --qrels and evaluate's --run said "qrels: '-' does not exist"
and index delete --ids "--ids -: cannot read it (No such file or directory)", naming neither the
option (qrels, run) nor why '-' is refused. And fit --method linklearn/relative over a .jsonl with a
"label" said the label "is read but not used (this command uses the id, the title, the text, the
label)", contradicting itself."""
from __future__ import annotations

import json

import pytest

from conftest import run_cli


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dash")
    (folder / "q.tsv").write_text("q1\tcharged twice\n", encoding="utf-8")
    (folder / "qrels.tsv").write_text("q1\t0\td1\t1\n", encoding="utf-8")
    (folder / "docs.jsonl").write_text("".join(json.dumps({"id": f"d{i}", "label": "a" if i % 2 else "b",
                                                           "text": f"text number {i} about topic {i % 2}"}) + "\n"
                                               for i in range(8)), encoding="utf-8")
    (folder / "links.tsv").write_text("d1\tnowhere\n", encoding="utf-8")
    import learnsim
    from learnsim.index import Index

    texts = [f"alpha beta {w}" for w in ("one", "two", "three")] + [f"delta zeta {w}" for w in ("one", "two", "three")]
    model = learnsim.fit(texts, clusters=[0] * 3 + [1] * 3, method="film", baseline_holdout=None, n_components=2)
    Index.build(folder / "idx", model, texts).close()
    return folder


@pytest.mark.parametrize("args, option", [
    (["evaluate", "--queries", "{f}/q.tsv", "--qrels", "-", "--corpus", "{f}/docs.jsonl"], "--qrels"),
    (["evaluate", "--run", "-", "--qrels", "{f}/qrels.tsv"], "--run"),
    (["evaluate", "--run", "{f}/qrels.tsv", "--qrels", "-"], "--qrels"),
    (["fit", "--qrels", "-", "--queries", "{f}/q.tsv", "--corpus", "{f}/docs.jsonl", "--model", "{f}/m.npz"],
     "--qrels"),
    (["index", "delete", "{f}/idx", "--ids", "-"], "--ids"),
])
def test_dash_is_refused_as_standard_input_naming_the_option(files, args, option):
    code, _, err = run_cli([a.format(f=files) for a in args])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert f"{option} -: give a file name; '-' is not standard input here" in lines[0]


@pytest.mark.parametrize("method, extra", [("linklearn", ["--links", "links.tsv"]),
                                           ("relative", ["--triplets", "links.tsv"])])
def test_the_unused_label_is_not_also_said_to_be_used(files, method, extra):
    code, _, err = run_cli(["fit", "--method", method, "--input", files / "docs.jsonl", "--model", files / "m.npz",
                            *[str(files / e) if e.endswith(".tsv") else e for e in extra]])
    note = next(line for line in err.splitlines() if "read but not used" in line)
    assert '"label"' in note and "the label" not in note.split("this command uses", 1)[1]


@pytest.mark.parametrize("command", [["fit", "--method", "film", "--model", "{f}/m.npz"], ["fit", "--model", "{f}/m.npz"]])
def test_a_pairs_file_of_unknown_type_gets_advice_the_command_line_can_follow(files, command):
    """'pp.dat: unknown file type '.dat'; use .tsv, ... or pass format='tsv'': format= is the Python
    reader's argument, no option of any command."""
    (files / "pp.dat").write_text("1\ta b\ta c\n", encoding="utf-8")
    code, _, err = run_cli([a.format(f=files) for a in command] + ["--pairs", files / "pp.dat"])
    assert code == 2 and err.count("\n") == 1
    assert "unknown file type '.dat'" in err and "format=" not in err and ".tsv" in err


@pytest.mark.parametrize("item", ["label>", "label=", "label!=", "label<=  ", "year>="])
def test_a_filter_without_a_value_is_refused(files, item):
    """--filter "year>$YEAR" with YEAR unset ('year>') compared with the empty string, exit 0: every
    document with a year passed 'label>', none passed 'label=' (an unset variable, as --out "$OUT"
    is refused)."""
    code, _, err = run_cli(["search", "--index", files / "idx", "--query", "alpha", "--filter", item])
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "no value after" in err and "'\"\"'" in err


def test_the_empty_string_given_as_json_still_filters(files):
    code, out, err = run_cli(["search", "--index", files / "idx", "--query", "alpha", "--filter", 'label=""'])
    assert code == 0, err
