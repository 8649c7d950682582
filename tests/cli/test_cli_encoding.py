"""--encoding NAME: the user's text files of every command that reads them (fit --input/--pairs,
index build --corpus, search --corpus/--queries, evaluate's files) in a code page, as pandas'
read_csv(encoding=) reads them; an unknown or unreadable encoding is one line, exit 2."""
from __future__ import annotations

import json

import pytest

from learnsim.datasets import make_clustered_corpus
from conftest import run_cli

TURKISH = ["ağaç şeker ığdır", "çiçek güneş öğle", "şarkı ışık ülke", "gölge çay kış"]


def _labelled_lines():
    corpus = make_clustered_corpus(n_clusters=4, docs_per_cluster=8, random_state=0)
    return [f"c{label}\t{TURKISH[label]} {text}" for text, label in zip(corpus.data, corpus.target)]


@pytest.mark.parametrize("codec", ["cp1254", "iso-8859-9"])
def test_fit_and_search_read_a_code_page_file_with_encoding(tmp_path, codec):
    # without --encoding such a file read as UTF-8, every Turkish letter U+FFFD under a note
    train, docs, model = tmp_path / "train.tsv", tmp_path / "docs.tsv", tmp_path / "m.npz"
    lines = _labelled_lines()
    train.write_bytes(("\n".join(lines) + "\n").encode(codec))
    docs.write_bytes("".join(f"d{i}\t{line.split(chr(9))[1]}\n" for i, line in enumerate(lines)).encode(codec))
    code, out, err = run_cli(["fit", "--input", train, "--model", model, "--encoding", codec])
    assert code == 0, err
    assert "UTF-8" not in err and "U+FFFD" not in err, err
    code, out, err = run_cli(["search", "--model", model, "--corpus", docs, "--query", "şeker ığdır", "-k", "3",
                              "--json", "--encoding", codec])
    assert code == 0, err
    assert "U+FFFD" not in err, err
    hits = json.loads(out)[0]["hits"]
    assert hits and all("\ufffd" not in h["text"] for h in hits)
    assert hits[0]["text"].startswith("ağaç şeker ığdır")


def test_the_encoding_reaches_pairs_and_is_undone_after_the_command(tmp_path):
    pairs = tmp_path / "pairs.tsv"
    rows = [f"{i % 2}\tΚαλημέρα κόσμε {i}\tΚαλησπέρα {i if i % 2 else i + 1}" for i in range(40)]
    pairs.write_bytes(("\n".join(rows) + "\n").encode("cp1253"))
    code, out, err = run_cli(["fit", "--pairs", pairs, "--model", tmp_path / "m.npz", "--method", "film",
                              "--dimensions", "2", "--max-iter", "3", "--encoding", "cp1253"])
    assert code == 0, err
    assert "UTF-8" not in err and "U+FFFD" not in err, err
    # the next command, without --encoding, reads UTF-8 again: the code-page note is back
    code, out, err = run_cli(["fit", "--pairs", pairs, "--model", tmp_path / "m2.npz", "--method", "film",
                              "--dimensions", "2", "--max-iter", "3"])
    assert "code page" in err, err


@pytest.mark.parametrize("name, fragment", [("cp9999", "unknown encoding 'cp9999'"),
                                            ("rot13", "not a text encoding"),
                                            ("utf-16", "does not write ASCII as ASCII")])
def test_a_bad_encoding_is_one_line(tmp_path, name, fragment):
    train = tmp_path / "train.tsv"
    train.write_text("a\tx y\n", encoding="utf-8")
    for args in (["fit", "--input", train, "--model", tmp_path / "m.npz"],
                 ["index", "build", "--model", tmp_path / "m.npz", "--corpus", train, "--out", tmp_path / "idx"],
                 ["evaluate", "--run", train, "--qrels", train]):
        code, out, err = run_cli(args + ["--encoding", name])
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
        assert "--encoding" in lines[0] and fragment in lines[0], lines[0]


def test_index_delete_reads_its_ids_file_in_the_encoding(tmp_path):
    # the --ids file was read as UTF-8 whatever the command's encoding: a cp1254 file of ids named
    # 'a\ufffd' (or refused it), and index delete took no --encoding at all
    train, docs, model, idx = tmp_path / "train.tsv", tmp_path / "docs.tsv", tmp_path / "m.npz", tmp_path / "idx"
    lines = _labelled_lines()
    train.write_bytes(("\n".join(lines) + "\n").encode("cp1254"))
    ids = [f"ağ{i}" for i in range(len(lines))]
    docs.write_bytes("".join(f"{i}\t{line.split(chr(9))[1]}\n" for i, line in zip(ids, lines)).encode("cp1254"))
    for args in (["fit", "--input", train, "--model", model], ["index", "build", "--model", model, "--corpus", docs,
                                                              "--out", idx]):
        code, out, err = run_cli(args + ["--encoding", "cp1254"])
        assert code == 0, err
    id_file = tmp_path / "ids.txt"
    id_file.write_bytes(f"{ids[0]}\r\n{ids[1]}\n".encode("cp1254"))
    code, out, err = run_cli(["index", "delete", idx, "--ids", id_file, "--encoding", "cp1254", "--json"])
    assert code == 0, err
    assert json.loads(out) == {"deleted": 2, "documents": len(ids) - 2}
    # without it, a file that is no UTF-8 is refused in one line naming it, as before
    id_file.write_bytes(f"{ids[2]}\n".encode("cp1254"))
    code, out, err = run_cli(["index", "delete", idx, "--ids", id_file])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert "ids.txt" in lines[0] and "UTF-8" in lines[0], lines[0]
    assert "--encoding-errors" not in lines[0], lines[0]       # an option delete does not take


@pytest.mark.parametrize("bom", ["utf-16", "utf-16-le"])
def test_a_utf16_file_given_a_code_page_is_one_line_naming_utf16(tmp_path, bom):
    # --encoding cp1254 read a UTF-16 file one character a byte (a NUL between every two letters)
    train = tmp_path / "train.tsv"
    train.write_bytes(("\n".join(_labelled_lines()) + "\n").encode(bom))
    code, out, err = run_cli(["fit", "--input", train, "--model", tmp_path / "m.npz", "--encoding", "cp1254"])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert "UTF-16" in lines[0] and "cp1254" in lines[0] and "iconv" in lines[0], lines[0]
    assert not (tmp_path / "m.npz").exists()


def test_a_commands_encoding_is_not_seen_by_readers_in_other_threads(tmp_path, monkeypatch):
    # --encoding was a module-level default: while one thread ran a command with --encoding
    # cp1254, a read_documents of a UTF-8 file in another thread (the Python API beside it) read
    # cp1254, 'ağaç' as 'aÄŸaÃ§', without a word; and two such commands in threads could leave
    # the process's default set after both ended
    import threading

    import learnsim.cli._fit_text as fit_text
    from learnsim.datasets import read_documents

    train = tmp_path / "train.tsv"
    train.write_bytes(("\n".join(_labelled_lines()) + "\n").encode("cp1254"))
    utf8 = tmp_path / "docs.tsv"
    utf8.write_text("d1\tağaç şeker\n", encoding="utf-8")
    inside, release, seen = threading.Event(), threading.Event(), {}
    original = fit_text._read_clusters

    def held(*args, **kwargs):
        inside.set()
        assert release.wait(60)
        return original(*args, **kwargs)

    monkeypatch.setattr(fit_text, "_read_clusters", held)

    def command():
        seen["result"] = run_cli(["fit", "--input", train, "--model", tmp_path / "m.npz", "--encoding", "cp1254"])

    thread = threading.Thread(target=command)
    thread.start()
    try:
        assert inside.wait(60)
        seen["other"] = read_documents(utf8).texts
    finally:
        release.set()
        thread.join(120)
    assert seen["other"] == ["ağaç şeker"]
    code, out, err = seen["result"]
    # the command's own reading had its encoding (read as UTF-8: U+FFFD and a code-page note), and
    # none is left behind for the next reader
    assert code == 0 and "U+FFFD" not in err and "code page" not in err, err
    assert read_documents(utf8).texts == ["ağaç şeker"]
