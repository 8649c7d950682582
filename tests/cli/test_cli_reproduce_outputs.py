"""learnsim reproduce never writes over or among the corpora it reads: --json or --out that is the data
folder (--data-dir, else $LEARNSIM_DATA), exists in it, or lies in one of its corpus folders is refused
before the experiments, exit 2 and one line (--json DATA/README.md replaced it). A new name directly in
the data folder is taken, as before (tests/cli/test_cli.py::test_reproduce_dispatches_arguments)."""
from __future__ import annotations

import pytest

from conftest import run_cli


class _Ran(Exception):
    """Raised by the stand-in of learnsim.reproduce.run: the command got past its checks."""


@pytest.fixture
def data(tmp_path, monkeypatch):
    import learnsim.reproduce

    def ran(*args, **kwargs):
        raise _Ran()

    monkeypatch.setattr(learnsim.reproduce, "run", ran)
    folder = tmp_path / "data"
    (folder / "20newsgroups").mkdir(parents=True)
    (folder / "README.md").write_text("the corpora", encoding="utf-8")
    monkeypatch.setenv("LEARNSIM_DATA", str(folder))
    return folder


@pytest.mark.parametrize("given", [True, False], ids=["--data-dir", "LEARNSIM_DATA"])
@pytest.mark.parametrize("option, target", [("--json", "README.md"), ("--json", "20newsgroups/records.json"),
                                            ("--out", "."), ("--out", "20newsgroups/report")])
def test_an_output_in_the_data_folder_is_refused(data, option, target, given):
    args = ["reproduce", "mochihashi", "--quick", option, data / target]
    if given:
        args += ["--data-dir", data]
    code, out, err = run_cli(args)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and option in err
    assert (data / "README.md").read_text(encoding="utf-8") == "the corpora"


def test_outputs_beside_the_data_folder_are_taken(data, tmp_path):
    with pytest.raises(_Ran):
        run_cli(["reproduce", "mochihashi", "--quick", "--out", tmp_path / "report", "--json",
                 tmp_path / "records.json", "--data-dir", data])
