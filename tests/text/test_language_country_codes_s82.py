"""--language jp (Japan's country code; Japanese is ja) and --language cn (China's; Chinese is zh)
were taken as 'any other language code': the fit read character bigrams, not the Japanese or
Chinese words asked for, and said nothing (a Japanese user's 'learnsim fit --language jp' fitted
a bigram model). Such a code is now refused, naming the language code meant."""
import pytest

from conftest import run_cli
from cjk_texts import JAPANESE
from learnsim.text import analyzer_for_language, resolve_analysis


@pytest.mark.parametrize("code, meant", [("jp", "'ja'"), ("JP", "'ja'"), ("jp-JP", "'ja'"), ("cn", "'zh'"),
                                         ("cn-ZH", "'zh'"), ("hk", "'zh-HK'")])
def test_a_country_code_is_refused_naming_the_language_code(code, meant):
    with pytest.raises(ValueError, match=f"country code.*{meant}"):
        analyzer_for_language(code)
    with pytest.raises(ValueError, match=meant):
        resolve_analysis(code)


@pytest.mark.parametrize("code", ["ja", "ja-JP", "zh-CN", "zh-TW", "en", "ko", "tw", "kr"])
def test_language_codes_are_taken_as_before(code):
    # tw (Twi) and kr (Kanuri) are language codes: read as any other language, bigrams
    assert analyzer_for_language(code) in ("cjk", "sudachi", "fugashi", "jieba")


def test_fit_language_jp_is_one_line_exit_2(tmp_path):
    data = tmp_path / "ja.tsv"
    data.write_text("".join(f"{label}\t{t}\n" for label, texts in JAPANESE.items() for t in texts), encoding="utf-8")
    code, out, err = run_cli(["fit", "--input", data, "--model", tmp_path / "m.npz", "--language", "jp"])
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "'ja'" in err and "Traceback" not in err, err
    assert not (tmp_path / "m.npz").exists()
