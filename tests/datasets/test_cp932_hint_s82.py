"""A Japanese file as Windows writes it (cp932: what Excel saves as "CSV" on a Japanese Windows,
called Shift_JIS) with a circled digit, an NEC or IBM extension kanji (髙, 﨑) or a numbered
unit: Python's shift_jis cannot read those bytes, so the note about a file read as UTF-8 named no
code page at all ('24 line(s) are not UTF-8 text ...; their bad bytes became U+FFFD'), and
--encoding shift_jis, which it names for a file without them, lost them to U+FFFD. The note now
names cp932, which reads them."""
import warnings

import pytest

from learnsim.datasets._decode import decoded_lines, set_default_encoding
from learnsim.exceptions import DocumentFormatError

# two lines of Windows' extensions (① is 0x8740, 髙 0xFBFC, ㈱ 0x878D), the others plain Shift_JIS
JA = ["髙橋さんの会議は①番の部屋です。", "東京の天気は明日から崩れる見込みです。", "㈱山田商事の新しい電池を買いました。",
      "新しいスマートフォンの価格が発表されました。", "中古の電池の状態を確かめましょう。"] * 2


def _read(path, errors="replace"):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lines = [line for _n, line in decoded_lines(path, encoding_errors=errors)]
    return lines, " ".join(str(w.message) for w in caught)


def test_the_note_names_cp932_for_a_windows_japanese_file(tmp_path):
    path = tmp_path / "notes.tsv"
    path.write_bytes("".join(f"{i}\t{t}\n" for i, t in enumerate(JA)).encode("cp932"))
    _lines, said = _read(path)
    assert "--encoding cp932" in said, said
    assert "--encoding shift_jis" not in said       # it would lose ①, 髙 and ㈱
    with pytest.raises(DocumentFormatError, match="--encoding cp932"):
        _read(path, "strict")


def test_cp932_reads_the_file_it_names(tmp_path):
    path = tmp_path / "notes.tsv"
    path.write_bytes("".join(f"{t}\n" for t in JA).encode("cp932"))
    old = set_default_encoding("cp932")
    try:
        lines, said = _read(path, "strict")
    finally:
        set_default_encoding(old)
    assert lines == JA and said == ""
