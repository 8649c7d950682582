"""Index.match and Index.dedupe with the duplicate rule of a FILM fitted on pairs: calibrated
probabilities, planted near-duplicates found, the same decisions as the pipeline; a model
without a duplicate rule is refused by name."""
from __future__ import annotations

import pytest

from index_models import corpus, model, near_duplicate

from learnsim.index import Index


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A FILM-pairs index of the collection plus a near-duplicate of d100 ("dup100")."""
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("match") / "idx"
    dup = near_duplicate(texts[100], seed=100)
    return Index.build(path, model("film_pairs"), texts + [dup], ids + ["dup100"], meta + [{"topic": meta[100]["topic"]}])


def test_match_finds_a_near_duplicate_with_a_calibrated_probability(planted):
    texts = corpus()[0]
    query = near_duplicate(texts[110], seed=7)
    found = planted.match(query, k=10)
    assert found and found[0]["id"] == "d110"
    assert [h["rank"] for h in found] == list(range(1, len(found) + 1))
    probabilities = [h["probability"] for h in found]
    assert all(0.0 <= p <= 1.0 for p in probabilities)
    assert probabilities == sorted(probabilities, reverse=True)
    assert found[0]["probability"] > 0.5
    # the accepted hits are among the k searched, with the pipeline's own decisions
    searched = {h["id"]: h for h in planted.search(query, k=10)}
    decisions = model("film_pairs").match([(query, h["text"]) for h in searched.values()])
    accepted = {i for i, d in zip(searched, decisions) if d["duplicate"]}
    assert {h["id"] for h in found} == accepted
    for h in found:
        d = decisions[list(searched).index(h["id"])]
        assert h["probability"] == pytest.approx(d["probability"], abs=1e-9)
    # a filter applies to the candidates
    other = planted.match(query, k=10, filter={"topic": (corpus()[1][110] + 1) % 6})
    assert "d110" not in {h["id"] for h in other}
    with pytest.raises(TypeError, match="text must be a str"):
        planted.match([query])


def test_dedupe_groups_the_planted_near_duplicate(planted):
    groups = planted.dedupe(k=5)
    assert groups
    assert [len(g) for g in groups] == sorted((len(g) for g in groups), reverse=True)
    seen = [m["id"] for g in groups for m in g]
    assert len(seen) == len(set(seen))                   # a document is in one group
    (group,) = [g for g in groups if "dup100" in {m["id"] for m in g}]
    assert "d100" in {m["id"] for m in group}
    assert all(0.0 <= m["probability"] <= 1.0 for g in groups for m in g)
    # deleted documents leave the groups
    planted_copy = planted
    assert planted_copy.delete("dup100") == 1
    try:
        assert "dup100" not in {m["id"] for g in planted_copy.dedupe(k=5) for m in g}
    finally:
        planted_copy.add([near_duplicate(corpus()[0][100], seed=100)], ["dup100"], [{"topic": corpus()[1][100]}])


@pytest.mark.parametrize("family", ["mcd", "linklearn"])
def test_match_and_dedupe_without_a_duplicate_rule_are_refused(family, tmp_path):
    texts, _, ids, meta = corpus()
    idx = Index.build(tmp_path / "idx", model(family), texts[:30], ids[:30], meta[:30])
    with pytest.raises(ValueError, match="no validated duplicate rule"):
        idx.match(texts[3], k=5)
    with pytest.raises(ValueError, match="no validated duplicate rule"):
        idx.dedupe(k=3)


def test_dedupe_groups_exact_copies_that_the_search_ranks_below_k_others(tmp_path):
    """A FILM fitted on the example pairs searches by BM25 and decides duplicates by the input
    cosine. BM25 ranks 12 texts repeating "refund" and "policy" above an exact copy of "refund
    policy", so with k=10 the two copies were never compared, and sat in no group. A document is
    now checked against the first document of the very same text, wherever the search ranks it."""
    import json
    from pathlib import Path

    from conftest import run_cli

    import learnsim

    examples = Path(__file__).resolve().parents[2] / "examples"
    code, _, err = run_cli(["fit", "--method", "film", "--pairs", examples / "pairs.tsv", "--model", tmp_path / "m.npz"])
    assert code == 0, err
    pipeline = learnsim.load(tmp_path / "m.npz")
    rows = [json.loads(line) for line in (examples / "tickets.jsonl").read_text(encoding="utf-8").splitlines()]
    stuffed = " ".join(["refund"] * 4 + ["policy"] * 4 + ["courier"] * 10)
    texts = [r["text"] for r in rows] + ["refund policy", "refund policy"] + [stuffed] * 12
    ids = [r["id"] for r in rows] + ["A1", "A2"] + [f"x{i}" for i in range(12)]
    index = Index.build(tmp_path / "idx", pipeline, texts, ids)
    assert "A2" not in [h["id"] for h in index.search("refund policy", k=11)]     # the copy ranks below k
    groups = [[d["id"] for d in g] for g in index.dedupe(k=10)]
    assert ["A1", "A2"] in groups, groups


# ---------------------------------------------------------------------------- exact copies in match
@pytest.fixture(scope="module")
def refund_model(tmp_path_factory):
    """A FILM fitted on the example pairs: it searches by BM25 and decides duplicates by the input
    cosine (the model of test_dedupe_groups_exact_copies_that_the_search_ranks_below_k_others)."""
    from pathlib import Path

    from conftest import run_cli

    import learnsim

    examples = Path(__file__).resolve().parents[2] / "examples"
    path = tmp_path_factory.mktemp("refund") / "m.npz"
    code, _, err = run_cli(["fit", "--method", "film", "--pairs", examples / "pairs.tsv", "--model", path])
    assert code == 0, err
    return learnsim.load(path)


def _refund_index(path, pipeline):
    """The tickets, two exact copies of "refund policy" (A1, A2: topic "a" and "b") and 12 texts
    repeating "refund" and "policy", which BM25 ranks above them."""
    import json
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"
    rows = [json.loads(line) for line in (examples / "tickets.jsonl").read_text(encoding="utf-8").splitlines()]
    stuffed = " ".join(["refund"] * 4 + ["policy"] * 4 + ["courier"] * 10)
    texts = [r["text"] for r in rows] + ["refund policy", "refund policy"] + [stuffed] * 12
    ids = [r["id"] for r in rows] + ["A1", "A2"] + [f"x{i}" for i in range(12)]
    meta = [{"topic": "t"} for _ in rows] + [{"topic": "a"}, {"topic": "b"}] + [{"topic": "t"}] * 12
    return Index.build(path, pipeline, texts, ids, meta)


def test_match_finds_exact_copies_the_search_ranks_below_k(refund_model, tmp_path):
    """BM25 ranks the 12 stuffed texts above both copies of "refund policy": with k=10 match
    never saw them. Exact copies are now candidates beside the k hits, as search hits (the same
    keys, the score the search gives them), and at most k documents come back."""
    with _refund_index(tmp_path / "idx", refund_model) as index:
        searched = index.search("refund policy", k=10)
        assert not {"A1", "A2"} & {h["id"] for h in searched}          # both below k
        found = index.match("refund policy", k=10)
        assert {"A1", "A2"} <= {h["id"] for h in found}
        assert [h["rank"] for h in found] == list(range(1, len(found) + 1))
        deep = {h["id"]: h for h in index.search("refund policy", k=20)}
        for hit in found:
            if hit["id"] in ("A1", "A2"):
                assert hit["text"] == "refund policy" and 0.5 < hit["probability"] <= 1.0
                want = deep[hit["id"]]
                assert set(hit) == set(want) | {"probability", "match_score"}
                assert hit["score"] == pytest.approx(want["score"], rel=1e-6)
                assert hit["metadata"] == want["metadata"]
        # at most k, the copies among them where the rule prefers them
        assert len(index.match("refund policy", k=1)) == 1
        assert index.match("refund policy", k=1)[0]["id"] in ("A1", "A2")
        # a text no document is a copy of: the k hits alone, as before
        assert all(h["text"] != "refund  policy" for h in index.match("refund  policy", k=10))


def test_match_leaves_out_a_deleted_copy(refund_model, tmp_path):
    path = tmp_path / "idx"
    with _refund_index(path, refund_model) as index:
        assert index.delete(["A1"]) == 1
        ids = [h["id"] for h in index.match("refund policy", k=10)]
        assert "A2" in ids and "A1" not in ids
    # another handle's delete, seen by a handle opened before it
    with Index.open(path) as reader, Index.open(path) as writer:
        assert "A2" in [h["id"] for h in reader.match("refund policy", k=10)]
        writer.delete(["A2"])
        assert not {"A1", "A2"} & {h["id"] for h in reader.match("refund policy", k=10)}
        # an update to another text leaves the copies, its re-add with the text is one again
        writer.add(["refund policy"], ["A3"], [{"topic": "a"}])
        writer.update(["A3"], ["refund policies"])
        assert "A3" not in [h["id"] for h in reader.match("refund policy", k=10)]
        writer.update(["A3"], ["refund policy"])
        assert "A3" in [h["id"] for h in reader.match("refund policy", k=10)]
    assert Index.verify_at(path)["ok"]


def test_match_leaves_out_a_copy_the_filter_excludes(refund_model, tmp_path):
    with _refund_index(tmp_path / "idx", refund_model) as index:
        ids = [h["id"] for h in index.match("refund policy", k=10, filter={"topic": "a"})]
        assert ids == ["A1"]
        assert [h["id"] for h in index.match("refund policy", k=10, filter={"topic": {"$ne": "a"}})
                if h["id"].startswith("A")] == ["A2"]
        assert index.match("refund policy", k=10, filter={"topic": "nothing"}) == []


def test_an_edited_text_key_never_makes_a_match_of_another_text(refund_model, tmp_path):
    """A text key points at candidates; the text served for one is compared with the query
    before it is taken. A key edited with sqlite3 is damage that verify names."""
    import sqlite3

    from learnsim.index._store import text_key

    path = tmp_path / "idx"
    _refund_index(path, refund_model).close()
    conn = sqlite3.connect(path / "docs.sqlite")
    with conn:
        # x11: a stuffed text below the k hits, keyed as "refund policy"; A2: keyed as another text
        conn.execute("UPDATE docs SET text_key = ? WHERE id = 'x11' AND deleted_seq IS NULL",
                     (text_key("refund policy"),))
        conn.execute("UPDATE docs SET text_key = ? WHERE id = 'A2' AND deleted_seq IS NULL", (text_key("other"),))
    conn.close()
    with Index.open(path) as index:
        assert len(index.store.live_seqs_with_text("refund policy")) == 2        # A1's and x11's
        assert "x11" not in {h["id"] for h in index.search("refund policy", k=10)}
        ids = {h["id"] for h in index.match("refund policy", k=10)}
        assert "A1" in ids                                            # the copy whose key is its text's
        assert "x11" not in ids                                       # compared, and refused
        assert "A2" not in ids                                        # its key hides it
    report = Index.verify_at(path)
    assert not report["ok"]
    (damage,) = report["damaged"]
    assert damage["file"] == str(path / "docs.sqlite") and "2 document(s) carry a text key" in damage["problem"]


def _index_without_text_keys(refund_model, tmp_path):
    """The refund index with docs.sqlite as learnsim wrote it before text keys (no column, no index)."""
    import sqlite3

    path = tmp_path / "idx"
    _refund_index(path, refund_model).close()
    conn = sqlite3.connect(path / "docs.sqlite")
    with conn:
        conn.execute("DROP INDEX docs_text_key")
        conn.execute("ALTER TABLE docs DROP COLUMN text_key")
    conn.close()
    return path


def test_an_index_written_before_text_keys_opens_searches_and_matches(refund_model, tmp_path):
    """docs.sqlite without the text_key column (and its index), as learnsim wrote it before: a
    read-only open changes nothing, searches and matches as before (no exact-copy candidates),
    verify passes; the next write adds the column and keys every live document."""
    import sqlite3

    path = _index_without_text_keys(refund_model, tmp_path)

    def schema():
        conn = sqlite3.connect(f"file:{path / 'docs.sqlite'}?mode=ro", uri=True)
        try:
            return ({r[1] for r in conn.execute("PRAGMA table_info(docs)")},
                    {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")})
        finally:
            conn.close()

    before = schema()
    assert "text_key" not in before[0] and "docs_text_key" not in before[1]
    with Index.open(path) as index:
        assert index.search("refund policy", k=3)
        found = index.match("refund policy", k=10)            # the k hits alone, as before
        assert not {"A1", "A2"} & {h["id"] for h in found}
        assert index.match("refund policy", k=10, filter={"topic": "a"})[0]["id"] == "A1"
        assert index.dedupe(k=10)                              # reads every text: no key needed
    assert schema() == before                                  # the reads wrote nothing
    report = Index.verify_at(path)
    assert report["ok"] and report["notes"] == [], report
    with Index.open(path) as index:
        index.add(["a new ticket about a parcel"], ["new1"])
        assert schema()[0] >= {"text_key"} and "docs_text_key" in schema()[1]
        assert {"A1", "A2"} <= {h["id"] for h in index.match("refund policy", k=10)}
    with Index.open(path) as index:
        assert {"A1", "A2"} <= {h["id"] for h in index.match("refund policy", k=10)}
    assert Index.verify_at(path)["ok"]


def test_a_failed_first_write_leaves_no_text_keys_behind(refund_model, tmp_path):
    """The first write of an index written before text keys adds them in its transaction: a write
    that fails (an id already there) rolls them back, and the handle does not look for them."""
    path = _index_without_text_keys(refund_model, tmp_path)
    with Index.open(path) as index:
        with pytest.raises(ValueError, match="already in the index"):
            index.add(["refund policy"], ["A1"])
        assert not index.store.text_keys
        assert not {"A1", "A2"} & {h["id"] for h in index.match("refund policy", k=10)}
