"""What the ``learnsim`` command imports before it answers, on the paths that must start fast
(stop 85): a refusal of a missing file or a bad option, ``--help``, a search of an index.

``learnsim fit --input missing.tsv`` imported learnsim.mcd for a constant of ``--paper`` and
learnsim.fitting before reading its input: scikit-learn, scipy (whose array-API layer imports
numpy.f2py and, through it, charset_normalizer), 1.5-2.5 s for a one-line refusal;
``learnsim evaluate --model missing.npz`` imported scikit-learn and scipy.sparse first, then
learnsim.pipeline's reader; ``fit --qrels`` with a missing queries file imported scipy.sparse
with the queries reader. Each module is checked in a process of its own, as the console script
runs the command (``learnsim._console.run``, the quick exit of a search included).
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

# sys.modules when the process ends (atexit: a search ends with os._exit, after the handlers)
_SCRIPT = ("import atexit, json, sys\n"
           "out = sys.argv.pop(1)\n"
           "atexit.register(lambda: open(out, 'w').write(json.dumps(sorted(sys.modules))))\n"
           "from learnsim._console import run\n"
           "raise SystemExit(run(sys.argv[1:]))\n")

#: scikit-learn, scipy and what scipy's import pulls in (numpy.f2py, charset_normalizer)
HEAVY = ("sklearn", "scipy", "numpy.f2py", "charset_normalizer", "learnsim.fitting", "learnsim.pipeline")


def _imported(tmp_path, *argv):
    """(exit status, stderr, the modules imported) of ``learnsim ARGV`` run in tmp_path."""
    out = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-c", _SCRIPT, str(out), *map(str, argv)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    return done.returncode, done.stderr, set(json.loads(out.read_text(encoding="utf-8")))


@pytest.mark.parametrize("argv, says", [
    (["fit", "--input", "missing.tsv", "--model", "m.npz"], "missing.tsv: no such file"),
    (["fit", "--pairs", "missing.tsv", "--model", "m.npz"], "missing.tsv: no such file"),
    (["fit", "--qrels", "qrels.txt", "--queries", "missing.tsv", "--corpus", "c.tsv", "--model", "m.npz"],
     "no such file"),
    (["evaluate", "--model", "missing.npz", "--input", "train.tsv"], "model file missing.npz does not exist"),
    (["evaluate", "--model", "folder", "--input", "train.tsv"], "folder is a directory, not a model file"),
    (["match", "--model", "missing.npz", "--pairs", "train.tsv"], "model file missing.npz does not exist"),
])
def test_a_refused_missing_file_imports_neither_scikit_learn_nor_scipy(tmp_path, argv, says):
    (tmp_path / "train.tsv").write_text("0\tred apple\n0\tgreen apple\n1\tblue sky\n1\tgrey sky\n", encoding="utf-8")
    (tmp_path / "qrels.txt").write_text("1 d1 1\n", encoding="utf-8")
    (tmp_path / "folder").mkdir()
    code, err, modules = _imported(tmp_path, *argv)
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err
    assert sorted(m for m in HEAVY if m in modules) == []


@pytest.mark.parametrize("argv", [
    ["--help"], ["index", "build", "--help"], ["serve", "--help"], ["fit", "--help"],
    ["evaluate", "--model", "m.npz", "--input", "train.tsv", "--no-such-option"],
    ["evaluate", "--model", "m.npz"],
    ["search", "--index"],
])
def test_help_and_a_refused_option_import_no_numpy(tmp_path, argv):
    """Every command's module is imported to build the parser of --help and of an error
    naming the commands: cli._common, evaluate, match, explain, _fit_text and _pairs imported numpy
    at their top, and fit's parser learnsim._fit_common (for --matcher's choices), 0.1-0.2 s of a
    0.3 s answer. numpy now loads with the work that uses it."""
    code, err, modules = _imported(tmp_path, *argv)
    assert code in (0, 2), err
    assert code == 0 or len(err.strip().splitlines()) == 1, err
    assert sorted(m for m in ("numpy", *HEAVY) if m in modules) == []


def test_a_search_of_an_index_imports_its_command_alone(tmp_path):
    """``learnsim search`` imported the module of every command (fit's, evaluate's, match's, ...:
    0.05-0.1 s of a 0.3 s search); it imports its own (and index's), and a search of an index
    still neither scikit-learn nor scipy."""
    (tmp_path / "train.tsv").write_text("".join(f"{i % 2}\t{'red apple pie' if i % 2 else 'blue sky above'} {i}\n"
                                                for i in range(12)), encoding="utf-8")
    (tmp_path / "docs.tsv").write_text("d1\tred apple tart\nd2\tgrey sky below\nd3\tgreen apple\n", encoding="utf-8")
    for argv in (["fit", "--input", "train.tsv", "--model", "m.npz"],
                 ["index", "build", "--model", "m.npz", "--corpus", "docs.tsv", "--out", "idx"]):
        done = subprocess.run([sys.executable, "-m", "learnsim", *argv], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    code, err, modules = _imported(tmp_path, "search", "--index", "idx", "--query", "apple", "--json")
    assert code == 0, err
    commands = sorted(m for m in modules if m.startswith("learnsim.cli.") and not m.startswith("learnsim.cli._"))
    # (learnsim.cli.index for its open_index, the one check of an index folder every command shares)
    assert commands == ["learnsim.cli.index", "learnsim.cli.search"]
    assert sorted(m for m in ("sklearn", "scipy", "learnsim.fitting", "learnsim.pipeline") if m in modules) == []
