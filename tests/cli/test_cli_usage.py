"""The command line as a new user meets it: JSON errors, progress, output paths, the demo folder,
and the input layouts each command's --help lists."""
from __future__ import annotations

import io
import re
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from learnsim._utils import progress as _progress
from conftest import run_cli

REPO = Path(__file__).resolve().parents[2]
FIXED = ["--n-basis", "8", "--shrinkage", "0.01", "--complement-weight", "0.3"]


@pytest.fixture(scope="module")
def train(clustered_train_tsv):
    return clustered_train_tsv


# --------------------------------------------------------------------------- 6. JSON errors

@pytest.mark.parametrize("args, fragment", [
    (["fit", "--input", "{tmp}/missing.tsv", "--model", "{tmp}/m.npz", "--json"], "no such file"),
    (["fit", "--model", "{tmp}/m.npz", "--json"], "one of the arguments --input --pairs --qrels --beir --clicks-from is required"),
    (["search", "--model", "{tmp}/none.npz", "--corpus", "{tmp}/c.tsv", "--query", "x", "--json", "-k", "0"],
     "expected a positive integer"),
    (["search", "--model", "{tmp}/none.npz", "--corpus", "{train}", "--query", "x", "--json"], "none.npz"),
    (["evaluate", "--json", "--model", "{tmp}/none.npz", "--input", "{train}"], "none.npz"),
    (["--json", "nonsense"], "invalid choice"),
])
def test_json_errors_print_an_error_object_on_stdout(args, fragment, tmp_path, train):
    code, out, err = run_cli([a.format(tmp=tmp_path, train=train) for a in args])
    assert code == 2
    obj = json.loads(out)
    assert set(obj) == {"error", "exit_code"} and obj["exit_code"] == 2
    assert fragment in obj["error"]
    assert len(err.strip().splitlines()) == 1 and obj["error"] in err and "Traceback" not in err


def test_a_single_valued_option_given_twice_is_refused_not_the_last_taken(train, tmp_path):
    """--corpus a --corpus b searched b alone, with exit 0 (a user of bm25s or Pyserini may read
    it as two collections); -k 1 -k 3 showed 3. The same value twice is harmless."""
    other = tmp_path / "other.tsv"
    other.write_text("o1\tan apple pie\no2\ta pear tart\n", encoding="utf-8")
    model = tmp_path / "m.npz"
    code, _, err = run_cli(["fit", "--input", train, "--model", model] + FIXED)
    assert code == 0, err
    search = ["search", "--model", model, "--query", "apple"]
    for args, option in ((search + ["--corpus", train, "--corpus", other], "--corpus"),
                         (search + ["--corpus", other, "-k", "1", "--k", "2"], "-k/--k"),
                         (["explain", "--model", model, "--pair", "a b", "c", "--pair", "a b", "d"], "--pair")):
        code, out, err = run_cli(args)
        lines = err.strip().splitlines()
        assert code == 2 and out == "" and len(lines) == 1, (code, out, err)
        assert f"argument {option}: given twice" in lines[0] and "give it once" in lines[0]
    code, out, err = run_cli(search + ["--corpus", other, "--corpus", other, "-k", "1", "--json"])
    assert code == 0, err
    assert [h["id"] for h in json.loads(out)[0]["hits"]] == ["o1"]
    # an option that collects its values still does (--query, one query each)
    code, out, err = run_cli(search + ["--corpus", other, "--query", "pear", "-k", "1", "--json"])
    assert code == 0, err
    assert [q["hits"][0]["id"] for q in json.loads(out)] == ["o1", "o2"]


def test_without_json_stdout_stays_empty_on_error(tmp_path):
    code, out, err = run_cli(["fit", "--input", tmp_path / "missing.tsv", "--model", tmp_path / "m.npz"])
    assert code == 2 and out == "" and "no such file" in err


# --------------------------------------------------------------------------- 7. progress

def test_progress_flag_beats_the_terminal_test(train, tmp_path, monkeypatch):
    monkeypatch.delenv("LEARNSIM_PROGRESS", raising=False)
    code, _, err = run_cli(["--progress", "fit", "--input", train, "--model", tmp_path / "m.npz"] + FIXED)
    assert code == 0
    assert re.search(r"mcd: learning the metric[^\n]*: \d", err)   # the stage covering the whole fit, with its time
    code, _, err = run_cli(["--no-progress", "fit", "--input", train, "--model", tmp_path / "m.npz"] + FIXED)
    assert code == 0 and "learning the metric" not in err
    code, _, err = run_cli(["fit", "--input", train, "--model", tmp_path / "m.npz", "--progress"] + FIXED)
    assert code == 0 and re.search(r"mcd: learning the metric[^\n]*: \d", err)
    assert _progress._override is None                  # main() restores the default


def test_progress_environment_variable(train, tmp_path, monkeypatch):
    monkeypatch.setenv("LEARNSIM_PROGRESS", "1")
    code, _, err = run_cli(["fit", "--input", train, "--model", tmp_path / "m.npz"] + FIXED)
    assert code == 0 and re.search(r"mcd: learning the metric[^\n]*: \d", err)
    monkeypatch.setenv("LEARNSIM_PROGRESS", "0")
    code, _, err = run_cli(["fit", "--input", train, "--model", tmp_path / "m.npz"] + FIXED)
    assert code == 0 and "learning the metric" not in err
    code, out, _ = run_cli(["--help"])
    assert "LEARNSIM_PROGRESS=1|0" in out


def test_stage_covers_the_whole_work_and_bars_are_relabelled():
    stream = io.StringIO()
    with _progress.relabel({"Stiefel": "FILM: learning the metric (optimiser steps)"}):
        with _progress.stage("FILM: learning the metric", enabled=True, stream=stream, interval=0.01):
            import time
            time.sleep(0.05)
            bar = _progress.progress(range(3), desc="Stiefel", enabled=True, stream=stream)
            for _ in bar:
                pass
            time.sleep(0.05)
    text = stream.getvalue()
    assert "FILM: learning the metric (optimiser steps) [" in text and "Stiefel" not in text
    assert text.rstrip().endswith("s") and "FILM: learning the metric: " in text.splitlines()[-1]


# --------------------------------------------------------------------------- 8. output paths

def test_model_in_a_missing_folder_is_refused_before_fitting(train, tmp_path):
    target = tmp_path / "nonexistent" / "dir" / "m.npz"
    code, out, err = run_cli(["fit", "--input", train, "--model", target] + FIXED)
    assert code == 2 and "does not exist" in err and str(target) in err
    assert not (tmp_path / "nonexistent").exists()


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_model_folder_is_refused_before_fitting(train, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        code, _, err = run_cli(["fit", "--input", train, "--model", locked / "m.npz"] + FIXED)
    finally:
        locked.chmod(stat.S_IRWXU)
    assert code == 2 and "permission denied" in err and str(locked / "m.npz") in err


def test_save_failure_names_the_users_path(train, tmp_path, monkeypatch):
    import learnsim.persistence as persistence

    def fail(obj, path, **kw):
        raise PermissionError(13, "Permission denied", str(path) + ".tmp12345")

    monkeypatch.setattr(persistence, "save", fail)
    target = tmp_path / "m.npz"
    code, _, err = run_cli(["fit", "--input", train, "--model", target] + FIXED)
    assert code == 2 and f"cannot write --model {target}" in err and ".tmp" not in err


def test_an_output_named_dash_is_refused_not_written_as_a_file_named_dash(train, tmp_path, monkeypatch):
    # '-' is not standard output here: --run - wrote a file named '-' ("Wrote 8 lines to -")
    monkeypatch.chdir(tmp_path)
    for args in (["fit", "--input", train, "--model", "-"] + FIXED,
                 ["search", "--model", tmp_path / "none.npz", "--corpus", train, "--queries", train, "--run", "-"]):
        code, _, err = run_cli(args)
        assert code == 2 and "'-' is not standard output here" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "-").exists()
    code, _, err = run_cli(["search", "--model", tmp_path / "none.npz", "--corpus", train, "--queries", train,
                            "--run", tmp_path])
    assert code == 2 and "is a folder" in err and "model.npz" not in err


def test_an_input_named_dash_says_standard_input_is_not_read(train, tmp_path, monkeypatch):
    """'-' as an input file (a pipe from pandas or jq) was refused as "-: unknown file type
    '(no extension)'" or "-: no such file", naming nothing a user who meant stdin could see."""
    monkeypatch.chdir(tmp_path)
    model = tmp_path / "m.npz"
    code, _, err = run_cli(["fit", "--input", train, "--model", model] + FIXED)
    assert code == 0, err
    for args in (["search", "--model", model, "--corpus", "-", "--query", "apple"],
                 ["search", "--model", model, "--corpus", train, "--queries", "-"],
                 ["search", "--model", model, "--corpus", train, "--queries", "-", "--run", tmp_path / "run.txt"],
                 ["fit", "--method", "film", "--pairs", "-", "--model", tmp_path / "other.npz"],
                 ["fit", "--input", "-", "--model", tmp_path / "other.npz"],
                 ["index", "build", "--model", model, "--corpus", "-", "--out", tmp_path / "idx"]):
        code, out, err = run_cli(args)
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1, (args, code, err)
        assert "'-' is not standard input here" in lines[0], (args, lines[0])
    assert not (tmp_path / "other.npz").exists() and not (tmp_path / "idx").exists()


def test_a_run_to_standard_output_is_the_run_alone(train, tmp_path, monkeypatch):
    """--run /dev/stdout: the summary was the run's last line (read by trec_eval), and stdout
    redirected to a file was opened again by name, truncated ('>>' lost what it held) and written
    from its start, where the summary then wrote over the first run lines. A device needs no
    writable folder (/dev is not writable but to root)."""
    model = tmp_path / "m.npz"
    assert run_cli(["fit", "--input", train, "--model", model, "--baseline-holdout", "none"] + FIXED)[0] == 0
    queries = tmp_path / "q.tsv"
    texts = [line.split("\t", 1)[1] for line in Path(train).read_text(encoding="utf-8").splitlines()]
    queries.write_text(f"q1\t{texts[0]}\nq2\t{texts[-1]}\n", encoding="utf-8")
    corpus = tmp_path / "docs.tsv"
    corpus.write_text("".join(f"d{i}\t{text}\n" for i, text in enumerate(texts)), encoding="utf-8")
    out = tmp_path / "run.txt"
    out.write_text("kept\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    with open(out, "a", encoding="utf-8") as stdout:
        done = subprocess.run([sys.executable, "-m", "learnsim", "search", "--model", str(model), "--corpus", str(corpus),
                               "--queries", str(queries), "--run", "/dev/stdout", "-k", "3"],
                              stdout=stdout, stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "kept" and len(lines) == 7
    assert all(re.fullmatch(r"q[12] Q0 \S+ [123] \S+ learnsim", line) for line in lines[1:]), lines
    assert "wrote 6 run lines to standard output" in done.stderr
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if str(p) == "/dev" else real_access(p, mode, **kw))
    code, _, err = run_cli(["search", "--model", model, "--corpus", corpus, "--queries", queries, "--run", "/dev/null"])
    assert code == 0, err


def test_a_table_to_standard_output_or_through_a_link_is_written_there(train, tmp_path):
    """cluster --out /dev/fd/1 (stdout): opened again by name, a '>>' file was truncated, and as a
    file /dev/stdout was replaced by the temporary file written beside it (as root); the summary
    was the table's last rows. --out LINK: the link was replaced by a file, its target unchanged."""
    model, index = tmp_path / "m.npz", tmp_path / "idx"
    assert run_cli(["fit", "--input", train, "--model", model, "--baseline-holdout", "none"] + FIXED)[0] == 0
    texts = [line.split("\t", 1)[1] for line in Path(train).read_text(encoding="utf-8").splitlines()]
    corpus = tmp_path / "docs.tsv"
    corpus.write_text("".join(f"d{i}\t{text}\n" for i, text in enumerate(texts)), encoding="utf-8")
    assert run_cli(["index", "build", "--model", model, "--corpus", corpus, "--out", index])[0] == 0
    out = tmp_path / "clusters.tsv"
    out.write_text("kept\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    with open(out, "a", encoding="utf-8") as stdout:
        done = subprocess.run([sys.executable, "-m", "learnsim", "cluster", "--index", str(index), "--k", "2",
                               "--out", "/dev/fd/1"], stdout=stdout, stderr=subprocess.PIPE, text=True, env=env,
                              timeout=120)
    assert done.returncode == 0, done.stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[:2] == ["kept", "cluster\tid"] and len(lines) == 2 + len(texts)
    assert all(re.fullmatch(r"[01]\td\d+", line) for line in lines[2:]) and "2 cluster(s)" in done.stderr
    target, link = tmp_path / "target.tsv", tmp_path / "link.tsv"
    target.write_text("old\n", encoding="utf-8")
    link.symlink_to(target)
    assert run_cli(["cluster", "--index", index, "--k", "2", "--out", link])[0] == 0
    assert link.is_symlink() and target.read_text(encoding="utf-8").startswith("cluster\tid\n")


def test_every_out_is_checked(tmp_path, monkeypatch):
    import learnsim.reproduce

    calls = []
    monkeypatch.setattr(learnsim.reproduce, "run", lambda *a, **kw: calls.append(a), raising=False)
    missing = tmp_path / "no" / "such"
    code, _, err = run_cli(["reproduce", "mochihashi", "--quick", "--out", missing])
    assert code == 2 and "does not exist" in err and not calls
    code, _, err = run_cli(["reproduce", "mochihashi", "--quick", "--json", missing / "r.json"])
    assert code == 2 and "does not exist" in err and not calls
    code, _, err = run_cli(["demo", "--out", missing])
    assert code == 2 and "does not exist" in err and not missing.parent.exists()


# --------------------------------------------------------------------------- 9. demo folder

def test_demo_folder_is_ignored_by_git():
    lines = (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "learnsim-demo/" in lines
    code, out, _ = run_cli(["demo", "--help"])
    assert "--out DIR" in out


# --------------------------------------------------------------------------- 10. layouts in --help

@pytest.mark.parametrize("command, layouts", [
    ("fit", ["label<TAB>text", '{"label": "sports"', "label<TAB>text_a<TAB>text_b<TAB>pair_id",
             "id<TAB>text", "source_id<TAB>target_id", "anchor_id<TAB>closer_id<TAB>farther_id",
             "query_text<TAB>clicked_id<TAB>skipped_id", "--columns"]),
    ("search", ["id<TAB>text", "one document per line", '{"id": "q17"']),
    ("match", ["text_a<TAB>text_b", "label<TAB>text_a<TAB>text_b<TAB>pair_id", "--columns label=0,text_a=3,text_b=4",
               "id<TAB>text per line"]),
    ("evaluate", ["label<TAB>text", "text_a<TAB>text_b", "source_id<TAB>target_id", "id<TAB>text"]),
])
def test_help_lists_input_layouts_with_an_example(command, layouts):
    code, out, _ = run_cli([command, "--help"])
    assert code == 0
    flat = " ".join(out.split())
    for layout in layouts:
        assert layout in flat, (command, layout)


def test_help_starts_fast_without_scikit_learn():
    code = ("import sys, learnsim.cli, contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    learnsim.cli.main(['fit', '--help'])\n"
            "print('sklearn' in sys.modules, 'scipy.sparse' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


# --------------------------------------------------------------------------- the parser a command builds

def test_a_command_builds_its_own_parser_alone(monkeypatch, capsys):
    """``learnsim search ...`` builds the search parser and no other (each takes 1-3 ms); a
    line that names no command, or a word that is none, gets every one: the help lists them
    all and a typo's error names them."""
    import learnsim.cli as cli
    from learnsim.cli import main

    built = []
    for module in map(cli._command_module, cli._COMMANDS):
        original = module.register

        def spy(commands, _original=original, _name=module.__name__):
            built.append(_name.rsplit(".", 1)[-1])
            return _original(commands)

        monkeypatch.setattr(module, "register", spy)
    names = list(cli._COMMANDS)
    for argv, want in ((["search", "--help"], ["search"]), (["--debug", "index", "--help"], ["index"]),
                       (["--help"], names), (["serach"], names), (["--", "search"], names), ([], names)):
        built.clear()
        with pytest.raises((SystemExit, cli._UsageExit)):      # help, or a usage error
            cli.build_parser(argv).parse_args(argv)
        assert built == want, argv
    capsys.readouterr()
    built.clear()
    assert main(["serach"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'serach'" in err and all(f"'{n}'" in err for n in names)
    assert main(["search", "--help"]) == 0 and built[-1] == "search"
    assert "usage: learnsim search" in capsys.readouterr().out


# --------------------------------------------------------------------------- the quick exit of a search

def test_a_search_ends_its_process_with_its_status_and_its_output(tmp_path, monkeypatch, capsys):
    """``learnsim search`` (the console script's ``run``) ends its process once its output is
    flushed and the exit handlers have run, with the command's status; another command returns
    its status to Python's own exit."""
    import atexit

    import learnsim.cli as cli

    exits, handled = [], []

    class Exited(BaseException):
        pass

    def fake_exit(code):
        exits.append(code)
        raise Exited

    monkeypatch.setattr("os._exit", fake_exit)
    monkeypatch.setattr(cli, "main", lambda argv: 7)
    atexit.register(handled.append, "ran")
    try:
        with pytest.raises(Exited):
            cli.run(["search", "--index", str(tmp_path), "--query", "x"])
    finally:
        atexit.unregister(handled.append)
    assert exits == [7] and handled == ["ran"]
    assert cli.run(["fit", "--input", "x"]) == 7 and exits == [7]       # no quick exit for a command that writes

    # output that cannot be written is no success (status 120, a line on stderr); a reader that
    # went away is not an error of ours
    class Stdout:
        def __init__(self, error):
            self.error = error

        def write(self, text):
            return len(text)

        def flush(self):
            raise self.error

    monkeypatch.setattr(cli, "main", lambda argv: 0)
    for error, code in ((OSError(28, "No space left on device"), 120), (BrokenPipeError(32, "Broken pipe"), 0)):
        exits.clear()
        monkeypatch.setattr("sys.stdout", Stdout(error))
        with pytest.raises(Exited):
            cli.run(["search", "--index", str(tmp_path), "--query", "x"])
        assert exits == [code]
    assert "cannot write the output (No space left on device)" in capsys.readouterr().err


def test_learnsim_search_as_a_process(tmp_path):
    """The whole process, as a user runs it: the hits, status 0; a user error, one line and 2;
    a reader that closes the pipe early, no traceback."""
    import learnsim
    from learnsim.index import Index

    texts = [f"alpha beta {w} gamma" for w in ("one", "two", "three", "four")] + \
        [f"delta epsilon {w} zeta" for w in ("one", "two", "three", "four")]
    model = learnsim.fit(texts, clusters=[0] * 4 + [1] * 4, method="film", baseline_holdout=None,
                         n_components=2)
    Index.build(tmp_path / "idx", model, texts).close()
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "learnsim", "search", "--index", str(tmp_path / "idx"), "--query", "alpha beta"]
    done = subprocess.run(cmd + ["--json", "-k", "3"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [len(q["hits"]) for q in json.loads(done.stdout)] == [3]
    done = subprocess.run(cmd + ["--filter", "nonsense"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    # more output than a pipe holds (64 KB): the command meets the closed pipe
    (tmp_path / "queries.txt").write_text("alpha beta gamma delta\n" * 600, encoding="utf-8")
    many = cmd[:-2] + ["--queries", str(tmp_path / "queries.txt"), "-k", "8"]
    reader = subprocess.Popen(many, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    reader.stdout.read(10)
    reader.stdout.close()
    assert reader.wait(timeout=120) == 0
    assert "Traceback" not in reader.stderr.read().decode()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (a device whose writes fail: no space)")
def test_output_to_a_full_disk_is_one_line_not_a_traceback(tmp_path):
    """``learnsim search ... > /dev/full`` (and a command that ends as Python does): status 2 and
    one line naming the problem, never a traceback nor a success."""
    import learnsim
    from learnsim.index import Index

    texts = [f"alpha beta {w}" for w in ("one", "two", "three")] + [f"delta zeta {w}" for w in ("one", "two", "three")]
    model = learnsim.fit(texts, clusters=[0] * 3 + [1] * 3, method="film", baseline_holdout=None, n_components=2)
    Index.build(tmp_path / "idx", model, texts).close()
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for args in (["search", "--index", str(tmp_path / "idx"), "--query", "alpha", "-k", "3"],
                 ["search", "--index", str(tmp_path / "idx"), "--query", "alpha", "-k", "3", "--json"],
                 ["index", "info", str(tmp_path / "idx")]):
        with open("/dev/full", "w") as full:
            done = subprocess.run([sys.executable, "-m", "learnsim", *args], stdout=full, stderr=subprocess.PIPE,
                                  text=True, env=env, timeout=120)
        assert done.returncode == 2, (args, done.stderr)
        assert "No space left on device" in done.stderr and "Traceback" not in done.stderr
        assert done.stderr.count("error:") == 1 and "Exception ignored" not in done.stderr
