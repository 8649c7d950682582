"""A Chinese, Japanese or Korean text file in its double-byte code page (GBK, Big5, Shift_JIS,
EUC-KR), read as UTF-8: every line's letters became U+FFFD, and 'learnsim fit' learned from the
garbage after a note that named no encoding ('60 line(s) are not UTF-8 text ... their bad bytes
became U+FFFD'). The note (and the strict error) now name the code pages that read the lines
cleanly as such text, with the option that reads the file."""
import warnings

import pytest

from learnsim.datasets._decode import decoded_lines
from learnsim.exceptions import DocumentFormatError

ZH = ["北京明天有大雨，出门记得带伞。", "这部智能手机电池续航很差，一天要充三次电。", "这家餐厅红烧肉味道很好，肥而不腻。"] * 3
TW = ["臺北明天有大雨，出門記得帶傘。", "這部智慧型手機電池續航很差，一天要充三次電。", "這家餐廳紅燒肉味道很好。"] * 3
KO = ["안녕하세요 친구, 오늘 날씨가 정말 좋네요.", "내일은 비가 온다고 합니다.", "새 휴대폰의 배터리가 오래 갑니다."] * 3
JA = ["東京の天気は明日から崩れる見込みです。", "新しいスマートフォンの価格が発表されました。", "中古の電池の状態を確かめましょう。"] * 3


def _read(path, errors="replace"):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lines = [line for _n, line in decoded_lines(path, encoding_errors=errors)]
    return lines, " ".join(str(w.message) for w in caught)


@pytest.mark.parametrize("texts, codec, named", [(ZH, "gbk", "gb18030"), (TW, "big5", "big5"),
                                                 (JA, "shift_jis", "shift_jis"), (KO, "euc_kr", "euc_kr")])
def test_the_note_names_the_code_page(tmp_path, texts, codec, named):
    path = tmp_path / "notes.tsv"
    path.write_bytes("".join(f"{i}\t{t}\n" for i, t in enumerate(texts)).encode(codec))
    _lines, said = _read(path)
    assert f"--encoding {named}" in said, said
    assert "cp1254" not in said             # not a single-byte code page
    with pytest.raises(DocumentFormatError, match=f"--encoding {named}"):
        _read(path, "strict")


def test_the_named_code_page_reads_the_file(tmp_path):
    from learnsim.datasets._decode import set_default_encoding

    path = tmp_path / "notes.tsv"
    path.write_bytes("".join(f"{t}\n" for t in ZH).encode("gbk"))
    old = set_default_encoding("gb18030")
    try:
        lines, said = _read(path, "strict")
    finally:
        set_default_encoding(old)
    assert lines == ZH and said == ""


def test_a_utf8_file_with_a_stray_byte_names_no_code_page(tmp_path):
    path = tmp_path / "notes.tsv"
    path.write_bytes(("".join(f"{t}\n" for t in ZH)).encode("utf-8") + b"one stray \xff byte\n")
    _lines, said = _read(path)
    assert "not UTF-8" in said and "gb18030" not in said and "big5" not in said
