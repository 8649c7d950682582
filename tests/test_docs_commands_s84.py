"""What README.md and docs/*.md tell a user to run still exists and still answers as they say.

A user follows the documentation: a relative link or #anchor that leads nowhere, an option a
command no longer takes, a benchmark script's option that is gone, or an example's printed
answer that drifted from what the code gives is a dead end for them. Stop 84's walk of the docs
found such drift (docs/client.md promised the ids t001, t007, t043 and the score name
"similarity" for README's tickets index, which answers t044 and "score"; README's and
docs/feedback.md's click walks clicked t014, which their search never shows: a 422). These
checks read the files and parse the command line in-process: no command is run (a few seconds).
"""
import argparse
import ast
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "docs" / "reproductions").glob("*.md"))
PAGES = [ROOT / "README.md", *DOCS]
COMMANDS = {"demo", "fit", "index", "search", "match", "dedupe", "cluster", "evaluate", "explain", "reproduce",
            "serve", "feedback"}


def _rel(path):
    return path.relative_to(ROOT).as_posix()


def _prose_lines(path):
    """(line number, line) of a markdown file outside its fenced blocks."""
    fenced = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def _slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, spaces to -."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.replace("`", ""))
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _anchors(path):
    seen, anchors = {}, set()
    for _, line in _prose_lines(path):
        match = re.match(r"#{1,6}\s+(.*)", line)
        if match:
            slug = _slug(match.group(1))
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            anchors.add(slug if count == 0 else f"{slug}-{count}")
        anchors.update(re.findall(r'<a (?:name|id)="([^"]+)"', line))
    return anchors


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_relative_links_and_anchors_lead_somewhere(page):
    broken = []
    for number, line in _prose_lines(page):
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                broken.append(f"{_rel(page)}:{number}: {target}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                broken.append(f"{_rel(page)}:{number}: {target}: no such section")
    assert not broken, "\n".join(broken)


def _subparsers(parser):
    return next((a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction)), {})


def _options(parser):
    return {s for a in parser._actions for s in a.option_strings}


def _command_texts(page):
    """(line number, text) of each line of a fenced block (up to its comment) and each code span
    of the prose (a span may run over lines: docs/service.md's `learnsim serve` options)."""
    text = page.read_text(encoding="utf-8")
    fenced, prose = False, []
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif fenced:
            yield number, re.sub(r"\s#.*", "", line)
        else:
            prose.append(line)
            continue
        prose.append("")            # keeps the prose's line numbers
    joined = "\n".join(prose)
    for span in re.finditer(r"`([^`]+)`", joined):
        yield joined.count("\n", 0, span.start()) + 1, span.group(1).replace("\n", " ")


def _documented_commands(page):
    """(line number, command, sub-commands, options) of each `learnsim COMMAND [SUB] --option ...`
    of a page; `index add|delete` names two sub-commands."""
    for number, text in _command_texts(page):
        for match in re.finditer(r"\blearnsim ([a-z]+)((?: [a-z|]+)?)(.*)", text):
            command = match.group(1)
            if command not in COMMANDS:
                continue
            subs = [s for s in match.group(2).strip().split("|") if s] or [None]
            options = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*|-k)\b", match.group(0)))
            yield number, command, subs, options


def test_every_documented_option_is_one_its_command_takes():
    from learnsim.cli import build_parser

    commands = _subparsers(build_parser())
    missing = []
    for page in PAGES:
        for number, command, subs, options in _documented_commands(page):
            parser = commands[command]
            nested = _subparsers(parser)
            parsers = [nested[s] for s in subs if s in nested] or [parser]
            for sub_parser in parsers:
                for option in sorted(options - _options(sub_parser)):
                    missing.append(f"{_rel(page)}:{number}: {sub_parser.prog} has no {option}")
    assert not missing, "\n".join(missing)


def test_every_documented_benchmark_command_exists_with_its_options():
    missing = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r"`(?:python3? )?((?:benchmarks/)?bench_\w+\.py|benchmarks/\w+\.py)([^`]*)`", text):
            script = ROOT / "benchmarks" / Path(match.group(1)).name
            where = f"{_rel(page)}:{text.count(chr(10), 0, match.start()) + 1}"
            if not script.exists():
                missing.append(f"{where}: no {_rel(script)}")
                continue
            source = script.read_text(encoding="utf-8")
            for option in set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", match.group(2))):
                if f'"{option}"' not in source and f"'{option}'" not in source:
                    missing.append(f"{where}: {_rel(script)} takes no {option}")
    assert not missing, "\n".join(missing)


# Names the docs give as history (what a change removed), not as something to import.
HISTORICAL_NAMES = {"learnsim.service._worker.Turns"}      # docs/service.md: "until stop 62"


def _resolves(dotted):
    import importlib
    import importlib.util

    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        module = ".".join(parts[:end])
        try:
            target = importlib.import_module(module)
        except ImportError:
            try:
                found = importlib.util.find_spec(module) is not None
            except ImportError:
                found = False
            if found:
                return True     # the module is there but needs an extra not installed (llama-index-core)
            continue
        for part in parts[end:]:
            target = getattr(target, part, None)
            if target is None:
                return False
        return True
    return False


def test_every_named_learnsim_object_and_import_exists():
    """A `learnsim.a.b` in a code span, or a `from learnsim.a import b` line, names something there."""
    missing = []
    for page in PAGES:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            names = re.findall(r"`(learnsim(?:\.[A-Za-z_]\w*)+)", line)
            imported = re.match(r"\s*from (learnsim[\w.]*) import ([\w, ]+)", line)
            if imported:
                names += [f"{imported.group(1)}.{n.strip()}" for n in imported.group(2).split(",") if n.strip()]
            missing += [f"{_rel(page)}:{number}: {n}" for n in names if n not in HISTORICAL_NAMES and not _resolves(n)]
    assert not missing, "\n".join(missing)


@pytest.fixture(scope="module")
def tickets_index(tmp_path_factory):
    """README's tickets-idx/: its fit on examples/tickets.jsonl ends as the tf.idf cosine (README
    says so and shows its search), which is this baseline pipeline over the same texts."""
    from learnsim._baseline_models import baseline_pipeline
    from learnsim.index import Index

    rows = [json.loads(line) for line in (ROOT / "examples" / "tickets.jsonl").open(encoding="utf-8")]
    texts = [r["text"] for r in rows]
    index = Index.build(tmp_path_factory.mktemp("docs") / "tickets-idx", baseline_pipeline("cosine", texts),
                        texts, ids=[r["id"] for r in rows], metadata=[{"label": r["label"]} for r in rows])
    yield index
    index.close()


def _hits(index, query, k):
    return [(h["id"], round(h["score"], 4)) for h in index.search(query, k=k)]


def test_readmes_search_is_what_the_baseline_index_answers(tickets_index):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = re.findall(r"^\s+\d+  (\d\.\d{4})  (t\d{3})  ", readme.split("I paid twice for one order\nrank")[1][:400],
                       flags=re.M)
    assert [(doc, float(score)) for score, doc in shown] == _hits(tickets_index, "I paid twice for one order", 3)


def test_client_and_integration_examples_show_the_tickets_answers(tickets_index):
    client = (ROOT / "docs" / "client.md").read_text(encoding="utf-8")
    ids, score_name = ast.literal_eval(re.search(r'answer\["score"\]\s+# (\(.*\))', client).group(1))
    assert ids == [doc for doc, _ in _hits(tickets_index, "I paid twice for one order", 3)]
    assert score_name == tickets_index.info()["score"]
    integrations = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    shown = ast.literal_eval(re.search(r'd\.metadata\["score"\], 4\)\) for d in docs\]\s+# (\[.*\])',
                                       integrations).group(1))
    assert shown == _hits(tickets_index, "I paid twice for one order", 3)


@pytest.mark.parametrize("page", ["README.md", "docs/feedback.md"])
def test_the_click_walks_click_a_hit_their_search_showed(tickets_index, page):
    text = (ROOT / page).read_text(encoding="utf-8")
    click = text.index('"clicked": [')
    searches = list(re.finditer(r"curl '[^']*/v1/search\?q=([^&']+)&k=(\d+)'", text[:click]))
    assert searches, f"{page}'s click walk searches before it clicks (a click names the search's impression)"
    search = searches[-1]
    clicked = re.findall(r'"clicked": \["([^"]+)"\]', text)
    shown = [doc for doc, _ in _hits(tickets_index, search.group(1).replace("+", " "), int(search.group(2)))]
    assert clicked and all(doc in shown for doc in clicked), (clicked, shown)
