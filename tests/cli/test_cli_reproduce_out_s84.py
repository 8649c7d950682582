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


def test_a_folder_given_for_an_output_file_is_offered_a_name_of_its_kind(tmp_path):
    """'reproduce mochihashi --json adir' suggested 'adir/out.txt' for a JSON file, and 'search
    --run adir' the same for a run."""
    folder = tmp_path / "adir"
    folder.mkdir()
    for args, name in ((["reproduce", "mochihashi", "--json", folder, "--data-dir", tmp_path], "records.json"),
                       (["cluster", "--index", tmp_path / "idx", "--k", "2", "--out", folder], "clusters.tsv")):
        code, _, err = run_cli(args)
        assert code == 2 and err.count("\n") == 1 and "is a folder" in err, err
        assert f"such as {folder / name}" in err
