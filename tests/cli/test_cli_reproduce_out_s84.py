"""'learnsim reproduce NAME' without --out wrote its report into ./learnsim-reproduce-NAME, which
neither its help ("--out DIR  output folder") nor its last line ("learnsim reproduce mochihashi:
done, 12 result records.") named, and a file of that name failed only after the experiments ran."""
from __future__ import annotations

from conftest import run_cli


def test_the_help_names_the_default_folder():
    code, out, _ = run_cli(["reproduce", "--help"])
    assert code == 0
    assert "(default:./learnsim-reproduce-NAME)" in "".join(out.split())


def test_the_default_folder_is_named_and_checked_first(tmp_path, monkeypatch):
    import learnsim.reproduce

    calls = []
    monkeypatch.setattr(learnsim.reproduce, "run",
                        lambda name, quick=False, out_dir=None, json_path=None, data_dir=None, **options:
                        calls.append(out_dir) or [1, 2])
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LEARNSIM_DATA", str(tmp_path))
    code, out, err = run_cli(["reproduce", "mochihashi", "--quick"])
    assert code == 0, err
    assert "in learnsim-reproduce-mochihashi" in out and calls == ["learnsim-reproduce-mochihashi"]
    (tmp_path / "learnsim-reproduce-film").write_text("a file", encoding="utf-8")
    code, _, err = run_cli(["reproduce", "film", "--quick"])
    assert code == 2 and err.count("\n") == 1 and "learnsim-reproduce-film is a file, not a folder" in err
    assert calls == ["learnsim-reproduce-mochihashi"]         # refused before any experiment ran
