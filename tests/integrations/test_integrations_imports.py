"""learnsim.integrations costs nothing until used: ``import learnsim`` and ``import
learnsim.integrations`` import neither LangChain nor LlamaIndex, and an integration whose
framework is missing says which extra to install (each run in a fresh interpreter, the framework
hidden where it is installed)."""
from __future__ import annotations

import subprocess
import sys

import pytest


def _run(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120).stdout


def test_importing_learnsim_and_the_package_imports_no_framework():
    out = _run("import sys, learnsim, learnsim.integrations\n"
               "print(sorted(m for m in sys.modules if m.split('.')[0] in "
               "('langchain_core', 'langchain', 'llama_index', 'httpx')))")
    assert out.strip() == "[]"


@pytest.mark.parametrize("module, hidden, extra", [("langchain", "langchain_core", "langchain"),
                                                   ("llamaindex", "llama_index", "llamaindex")])
def test_a_missing_framework_names_the_extra(module, hidden, extra):
    out = _run(f"import sys\nsys.modules[{hidden!r}] = None\n"
               "try:\n"
               f"    import learnsim.integrations.{module}\n"
               "except ImportError as exc:\n"
               "    print(exc.name)\n    print(exc)\n")
    name, message = out.splitlines()[:2]
    assert name == hidden
    assert message.startswith(f'learnsim.integrations.{module} needs ')
    assert f'pip install "learnsim[{extra}]"' in message


def test_the_integrations_are_a_top_layer():
    # they use the index and the client; no module of learnsim uses them (read from the source,
    # as tests/test_layout.py reads the import graph)
    from test_layout import import_graph

    graph = import_graph()
    ours = [m for m in graph if m == "learnsim.integrations" or m.startswith("learnsim.integrations.")]
    assert {"learnsim.integrations.langchain", "learnsim.integrations.llamaindex"} <= set(ours)

    def inside(name, *packages):
        return any(name == p or name.startswith(p + ".") for p in packages)

    into = sorted(f"{m} -> {t}" for m in graph if m not in ours for t in graph[m] if inside(t, "learnsim.integrations"))
    assert not into, f"modules importing learnsim.integrations: {into}"
    beyond = sorted(f"{m} -> {t}" for m in ours for t in graph[m]
                    if not inside(t, "learnsim.integrations", "learnsim.index", "learnsim.client"))
    assert not beyond, f"learnsim.integrations imports more than the index and the client: {beyond}"


def test_both_retrievers_read_explain_with_one_check():
    # the LlamaIndex retriever read explain with bool(): "false" turned explanations on
    import numpy as np
    import pytest

    from learnsim.integrations._source import check_flag

    assert check_flag(True, "explain") is True and check_flag(np.bool_(False), "explain") is False
    for value in ("false", "0", 1, None):
        with pytest.raises(TypeError, match="explain must be True or False"):
            check_flag(value, "explain")
