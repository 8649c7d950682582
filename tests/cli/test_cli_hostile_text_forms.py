"""``learnsim search`` on a query written another way than the documents: in NFD (an accent apart
from its letter), with invisible characters inside its words (a soft hyphen, a right-to-left mark,
a bidirectional override, a word joiner). Each reads as the plain query and finds the same hits
at the same distances, with a Turkish reading too (its capital I's)."""
from __future__ import annotations

import json
import unicodedata

import pytest

from conftest import run_cli

TURKISH = ["Millî eğitim bakanlığı okullar için yeni bir program açıkladı",
           "Millî eğitim müfredatı bu yıl değişiyor ve okullar hazırlanıyor",
           "Okullarda millî eğitim programı için öğretmenler toplandı",
           "İktisadî kriz piyasalarda büyük bir düşüşe neden oldu",
           "İktisadî büyüme bu çeyrekte beklenenden yavaş gerçekleşti",
           "Merkez bankası iktisadî göstergeleri açıkladı ve faiz kararı verdi",
           "Futbol takımı dün akşam maçı kazandı ve taraftarlar sevindi",
           "Takım kaptanı maçtan sonra basına açıklama yaptı",
           "Futbol sezonu heyecanlı bir maçla başladı ve stadyum doldu"]
QUERY = "MİLLÎ EĞİTİM İKTİSADÎ"


@pytest.fixture(scope="module")
def turkish_model(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("turkish")
    train = tmp / "train.tsv"
    train.write_text("".join(f"{i // 3}\t{t}\n" for i, t in enumerate(TURKISH)), encoding="utf-8")
    docs = tmp / "docs.txt"
    docs.write_text("".join(f"{t}\n" for t in TURKISH), encoding="utf-8")
    model = tmp / "tr.npz"
    code, _, err = run_cli(["fit", "--input", train, "--model", model, "--baseline-holdout", "none",
                            "--language", "tr", "--stem"])
    assert code == 0, err
    return model, docs


def _hits(model, docs, query):
    code, out, err = run_cli(["search", "--model", model, "--corpus", docs, "--query", query, "-k", "9", "--json"])
    assert code == 0 and "Traceback" not in err, err
    return [(h["index"], round(h["distance"], 6)) for h in json.loads(out)[0]["hits"]]


@pytest.mark.parametrize("variant", [
    # 'MİLLÎ' in NFD read 'millı̂' (a dotless ı and a circumflex), another term than the documents' millî
    pytest.param(lambda q: unicodedata.normalize("NFD", q), id="nfd"),
    pytest.param(lambda q: q.replace("EĞ", "E\u00adĞ"), id="soft-hyphen"),
    pytest.param(lambda q: q.replace("LL", "L\u200fL"), id="rlm"),
    pytest.param(lambda q: q.replace("İKTİ", "İK\u202eTİ\u202c"), id="bidi-override"),
    pytest.param(lambda q: q.replace("İM", "İ\u2060M"), id="word-joiner"),
])
def test_a_query_written_another_way_finds_what_the_plain_one_finds(turkish_model, variant):
    model, docs = turkish_model
    plain = _hits(model, docs, QUERY)
    assert len(plain) == 9
    assert _hits(model, docs, variant(QUERY)) == plain
