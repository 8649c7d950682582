"""'learnsim serve IDX --feedback-days 5' (or --feedback-rows, --interleave-pool) without
--learn-from-clicks started the server with the option silently doing nothing, where
--feedback-max-bytes, --feedback-client-share and --ipv6-prefix without it are refused: every
option of the click log now needs --learn-from-clicks, exit 2 and one line, before anything is
served; with it, the defaults (90 days, 1,000,000 impressions, a pool of 100) are as before."""
from __future__ import annotations

import pytest

from conftest import run_cli


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    import learnsim
    from learnsim.index import Index

    folder = tmp_path_factory.mktemp("serve_opts")
    texts = [f"alpha beta {w}" for w in ("one", "two", "three")] + [f"delta zeta {w}" for w in ("one", "two", "three")]
    model = learnsim.fit(texts, clusters=[0] * 3 + [1] * 3, method="film", baseline_holdout=None, n_components=2)
    Index.build(folder / "idx", model, texts).close()
    return folder / "idx"


@pytest.mark.parametrize("option", [["--feedback-days", "5"], ["--feedback-rows", "10"], ["--interleave-pool", "20"],
                                    ["--feedback-max-bytes", "1M"]])
def test_a_click_log_option_without_learning_from_clicks_is_refused(index, option, monkeypatch):
    import learnsim.service

    def served(*args, **kwargs):      # (it served: the test ends rather than serving for ever)
        raise KeyboardInterrupt

    monkeypatch.setattr(learnsim.service, "create_app", served)
    code, _, err = run_cli(["serve", index, "--port", "0", *option])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert option[0] in lines[0] and "--learn-from-clicks" in lines[0]


def test_the_defaults_with_learning_from_clicks_are_as_before(index, monkeypatch):
    from learnsim.cli import serve

    seen = {}

    def stop(args):
        seen.update(days=args.feedback_days, rows=args.feedback_rows, pool=args.interleave_pool)
        raise KeyboardInterrupt

    monkeypatch.setattr(serve, "_check_feedback_log", stop)
    code, _, err = run_cli(["serve", index, "--port", "0", "--learn-from-clicks"])
    assert code == 130, err
    assert seen == {"days": 90.0, "rows": 1_000_000, "pool": 100}
