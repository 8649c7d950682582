"""The Examples sections of learnsim's docstrings run (issue 31, part 5): every module of the
package is imported and its doctests executed, as ``pytest --doctest-modules`` would, except that
a module whose optional dependency is missing (the serve, distributed, ann or dense extras) is
skipped with the reason instead of failing the collection.

An example that needs a corpus of ``../shared/data`` marks the line ``# doctest: +SKIP``; every
other example runs on data it makes itself, in a few seconds at most.
"""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import learnsim

MODULES = sorted(["learnsim"] + [m.name for m in pkgutil.walk_packages(learnsim.__path__, "learnsim.")
                                 if m.name != "learnsim.__main__"])
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _module(name):
    try:
        return importlib.import_module(name)
    except ImportError as exc:   # an optional extra that is not installed
        pytest.skip(f"{name} needs {exc.name or exc}: not installed")


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name, tmp_path, monkeypatch):
    module = _module(name)
    monkeypatch.chdir(tmp_path)   # an example that writes a file writes it here
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    tests = [t for t in finder.find(module, name) if t.examples]   # in the module's globals, as pytest runs them
    # only the module's own objects (the finder also walks what a package re-exports)
    tests = [t for t in tests if t.name == name or t.name.startswith(name + ".")]
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed (see the output above)"


def test_the_runner_can_fail(tmp_path, monkeypatch):
    """A docstring whose example is wrong fails the runner (so a green run means something)."""
    def wrong():
        """
        >>> 1 + 1
        3
        """

    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in doctest.DocTestFinder().find(wrong, "wrong", globs={}):
        runner.run(test, out=lambda text: None)
    assert runner.summarize(verbose=False).failed == 1
