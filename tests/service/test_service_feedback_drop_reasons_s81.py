"""serve --learn-from-clicks past --feedback-max-bytes: the server's log said the impressions it
dropped were "bytes_bound", a reason /v1/info's ``learn_from_clicks.dropped`` (which the line
points to) never names: it counts them as "client_bytes" or "total_bytes", the bound each would
have crossed. The line now names the same reasons as /v1/info, with the same counts."""
from __future__ import annotations

import logging
import re
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from index_models import corpus, model  # noqa: E402

from learnsim.index import Index  # noqa: E402
from learnsim.service import create_app  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
BASE = "http://127.0.0.1"


def test_the_log_line_names_the_reasons_info_counts(tmp_path, caplog):
    texts, _, ids, meta = corpus()
    Index.build(tmp_path / "idx", model("bm25"), texts[:40], ids[:40], meta[:40]).close()
    caplog.set_level(logging.WARNING, logger="learnsim.service")
    with TestClient(create_app(tmp_path / "idx", learn_from_clicks=True, feedback_max_bytes=65536),
                    raise_server_exceptions=False, base_url=BASE) as c:
        answers = [c.get("/v1/search", params={"q": texts[i % 40], "k": 10}) for i in range(40)]
        assert all(a.status_code == 200 for a in answers)
        dropped = c.get("/v1/info").json()["learn_from_clicks"]["dropped"]
    assert sum(a.json()["impression"] is None for a in answers) == sum(dropped.values()) > 0, dropped
    lines = [r.getMessage() for r in caplog.records if "impressions were not logged" in r.getMessage()]
    assert len(lines) == 1, lines                       # at most one a minute
    said = dict((k, int(v)) for k, v in re.findall(r"([a-z_]+) (\d+)", lines[0].split("(")[1].split(")")[0]))
    assert said and set(said) <= set(dropped), (lines[0], dropped)
    assert all(said[k] <= dropped[k] for k in said), (lines[0], dropped)
