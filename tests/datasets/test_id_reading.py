"""Two ids of a collection that judgements and run files read as one are refused, the error
telling them apart."""
import json

import pytest

from learnsim.datasets import read_id_texts


def _jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_ids_one_only_by_unicode_normalisation_are_told_apart_in_the_error(tmp_path):
    # refused as "the document ids 'café' and 'café' are one id ... (an all-digit id is read without
    # its leading zeros)": two ids that print alike, and a reason that was not this one
    path = _jsonl(tmp_path / "corpus.jsonl", [{"_id": "caf\u00e9", "text": "a"}, {"_id": "cafe\u0301", "text": "b"}])
    with pytest.raises(ValueError, match=r"NFC") as caught:
        read_id_texts(path)
    message = str(caught.value)
    assert "leading zeros" not in message and "\\u0301" in message and "\\xe9" in message, message
