"""learnsim demo --out DIR writes DIR/results.json, DIR/demo_pr.png and the index DIR/index/: what
already stands at those names and is not an earlier demo's is refused before any work, never
deleted or overwritten."""
from __future__ import annotations

import json

import pytest

from conftest import run_cli


class _Ran(Exception):
    """Raised by the stand-in of run_demo: the command got past its checks."""


@pytest.fixture
def no_demo(monkeypatch):
    """run_demo replaced: these tests are about what the command refuses before the 30 s of work."""
    import learnsim.demo

    def ran(*args, **kwargs):
        raise _Ran()

    monkeypatch.setattr(learnsim.demo, "run_demo", ran)


def _demo_results(folder):
    (folder / "results.json").write_text(json.dumps([{"experiment": "demo", "setting": "synthetic",
                                                      "method": "mcd", "measure": "ap11", "value": 0.9}]),
                                         encoding="utf-8")


def _an_index(folder):
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"format": "learnsim-index", "format_version": 2}),
                                          encoding="utf-8")


def test_a_folder_named_index_of_the_users_is_refused_not_deleted(tmp_path, no_demo):
    """It was deleted (shutil.rmtree) after the 30 s of work, exit 0."""
    mine = tmp_path / "index"
    mine.mkdir()
    (mine / "notes.txt").write_text("precious", encoding="utf-8")
    code, out, err = run_cli(["demo", "--out", tmp_path])
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "index" in err and "demo" in err
    assert (mine / "notes.txt").read_text(encoding="utf-8") == "precious"


def test_a_learnsim_index_that_no_demo_wrote_is_refused(tmp_path, no_demo):
    """`learnsim demo --out .` beside the user's own index/ replaced it."""
    _an_index(tmp_path / "index")
    code, _, err = run_cli(["demo", "--out", tmp_path])
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert (tmp_path / "index" / "manifest.json").exists()


def test_a_file_named_index_is_refused_before_the_work(tmp_path, no_demo):
    """It failed after the work with '[Errno 20] Not a directory: PosixPath(...)', results.json written."""
    (tmp_path / "index").write_text("x", encoding="utf-8")
    code, _, err = run_cli(["demo", "--out", tmp_path])
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "PosixPath" not in err and "index" in err
    assert not (tmp_path / "results.json").exists()
    assert (tmp_path / "index").read_text(encoding="utf-8") == "x"


def test_a_results_file_that_no_demo_wrote_is_refused(tmp_path, no_demo):
    (tmp_path / "results.json").write_text('{"mine": 1}', encoding="utf-8")
    code, _, err = run_cli(["demo", "--out", tmp_path])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "results.json" in err
    assert (tmp_path / "results.json").read_text(encoding="utf-8") == '{"mine": 1}'


def test_an_earlier_demos_folder_is_run_again(tmp_path, no_demo):
    """Running the demo twice into one folder replaces its own outputs, as before."""
    _demo_results(tmp_path)
    _an_index(tmp_path / "index")
    with pytest.raises(_Ran):
        run_cli(["demo", "--out", tmp_path])
    with pytest.raises(_Ran):
        run_cli(["demo", "--out", tmp_path / "new"])


def test_a_plot_that_no_demo_wrote_is_refused(tmp_path, no_demo):
    (tmp_path / "demo_pr.png").write_bytes(b"mine")
    code, _, err = run_cli(["demo", "--out", tmp_path])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "demo_pr.png" in err
    assert (tmp_path / "demo_pr.png").read_bytes() == b"mine"


def test_run_demo_from_python_refuses_a_folder_named_index_it_did_not_write(tmp_path):
    # the command line was guarded (388d630); learnsim.demo.run_demo itself still deleted OUT/index
    from learnsim.demo import run_demo

    mine = tmp_path / "index"
    mine.mkdir()
    (mine / "notes.txt").write_text("precious", encoding="utf-8")
    with pytest.raises(ValueError, match="index"):
        run_demo(tmp_path)
    assert (mine / "notes.txt").read_text(encoding="utf-8") == "precious"
