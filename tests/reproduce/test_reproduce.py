"""The results writer, and the quick reproduction of paper 000 end to end (needs the corpora)."""
import json

import numpy as np
import pytest

from conftest import require_corpus
from learnsim.reproduce import EXPERIMENTS, run
from learnsim.reproduce.records import FIELDS, Results


def test_records_roundtrip_and_table(tmp_path):
    res = Results()
    res.add("20ng", "1%", "mcd", "ap11", 0.5, 0.45)
    res.add("20ng", "1%", "euclid", "ap11", 0.4, None)
    res.add("20ng", "2%", "mcd", "ap11", float("nan"))
    path = res.write_json(tmp_path / "r.json")
    records = json.loads(path.read_text())
    assert all(set(r) == set(FIELDS) for r in records)
    assert records[2]["value"] is None                      # NaN is not valid JSON: stored as null
    again = Results.read_json(path)
    assert again.records == res.records
    table = res.table("20ng", "ap11", ["euclid", "mcd"], ratio_to="euclid")
    assert "| 1% | 0.400 | 0.500 (0.450) | 1.250 |" in table
    assert res.value(experiment="20ng", setting="1%", method="euclid", measure="ap11") == 0.4


def test_records_refuse_bad_input(tmp_path):
    with pytest.raises(ValueError, match="unknown measure"):
        Results().add("x", "s", "m", "precision", 1.0)
    bad = tmp_path / "bad.json"
    bad.write_text('[{"experiment": "x"}]')
    with pytest.raises(ValueError, match="not a learnsim results file"):
        Results.read_json(bad)


def test_unknown_reproduction():
    with pytest.raises(ValueError, match="unknown reproduction"):
        run("nobody")
    assert "mochihashi" in EXPERIMENTS


@pytest.mark.corpus
@pytest.mark.slow
def test_quick_mochihashi_reproduction(tmp_path):
    for corpus in ("20newsgroups/20news-bydate.tar.gz", "flickr8k-captions/Flickr8k.token.txt.gz"):
        require_corpus(corpus)
    from conftest import shared_data_dir
    res = run("mochihashi", quick=True, out_dir=tmp_path, json_path=tmp_path / "copy.json",
              data_dir=shared_data_dir())
    for name in ("mochihashi.md", "mochihashi.json", "copy.json"):
        assert (tmp_path / name).stat().st_size > 0
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pngs == ["mochihashi_20ng_ap11.png", "mochihashi_flickr_ap11.png", "mochihashi_flickr_pr.png",
                    "mochihashi_uci.png"]
    report = (tmp_path / "mochihashi.md").read_text()
    assert "(0.455)" in report                               # the paper's Table 1 stands beside ours

    def v(exp, setting, method, measure="ap11"):
        return res.value(experiment=exp, setting=setting, method=method, measure=measure)

    # paper 000's claims, in the direction the paper states them, on the quick protocol
    levels = [s for s in dict.fromkeys(r["setting"] for r in res.select(experiment="20ng")) if s != "full"]
    for s in levels:
        assert v("20ng", s, "mcd") > v("20ng", s, "euclid")
        assert v("20ng", s, "mcd-paper") > v("20ng", s, "euclid")   # the paper's own metric, at low dims
    assert max(v("20ng", s, "mcd") for s in levels + ["full"]) > v("20ng", "full", "bm25")
    flickr_levels = [s for s in dict.fromkeys(r["setting"] for r in res.select(experiment="flickr8k")) if s != "full"]
    assert max(v("flickr8k", s, "mcd-paper") / v("flickr8k", s, "euclid") for s in flickr_levels) > 1.1
    assert max(v("flickr8k", s, "mcd") for s in flickr_levels + ["full"]) > v("flickr8k", "full", "cosine")
    fair = [r["setting"] for r in res.select(experiment="uci-kmeans", method="euclid") if "fair" in r["setting"]]
    wins = sum(v("uci-kmeans", s, "mcd", "clustering_precision") >= v("uci-kmeans", s, "euclid", "clustering_precision")
               for s in fair)
    assert len(fair) == 4 and wins >= 3
    assert all(np.isfinite(r["value"]) for r in res.records)
