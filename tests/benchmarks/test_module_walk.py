"""benchmarks/module_walk.py counts the modules of the fit -> index build -> search walk."""
import sys

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import module_walk  # noqa: E402


def test_each_step_of_the_walk_is_counted(capsys):
    module_walk.main()
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert [r.split("|")[1].strip() for r in rows] == ["fit", "index build", "search"]
    for row in rows:
        modules, inits, commands = (int(c) for c in row.split("|")[2:5])
        assert modules > inits >= 1 and modules > commands >= 1
