"""Shared test fixtures. Corpora live in ../shared/data (or $LEARNSIM_DATA); tests that need
one skip with a clear reason when it is absent. CI has the corpora, so those tests run there."""
from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def shared_data_dir() -> Path:
    env = os.environ.get("LEARNSIM_DATA")
    return Path(env) if env else REPO_ROOT.parent / "shared" / "data"


def require_corpus(relpath: str) -> Path:
    """Return the path of a corpus file or folder under the data dir, or skip the test."""
    path = shared_data_dir() / relpath
    if not path.exists():
        pytest.skip(f"corpus {relpath!r} not found under {shared_data_dir()} "
                    "(set LEARNSIM_DATA to a folder laid out like ../shared/data)")
    return path


@pytest.fixture
def data_dir() -> Path:
    d = shared_data_dir()
    if not d.exists():
        pytest.skip(f"data dir {d} not found (set LEARNSIM_DATA)")
    return d


def run_cli(args):
    """``learnsim.cli.main(args)`` in-process: (exit status, stdout, stderr)."""
    from learnsim import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def clustered_train_tsv(tmp_path_factory):
    """A small labelled collection (4 clusters of 8 synthetic documents), label<TAB>text per line:
    what the command-line tests fit on when the data does not matter."""
    from learnsim.datasets import make_clustered_corpus

    path = tmp_path_factory.mktemp("clustered") / "train.tsv"
    corpus = make_clustered_corpus(n_clusters=4, docs_per_cluster=8, random_state=1)
    path.write_text("".join(f"{corpus.target[i]}\t{t}\n" for i, t in enumerate(corpus.data)), encoding="utf-8")
    return path


@pytest.fixture
def two_blas_threads():
    """BLAS on two threads, as on the 2-core machine; skipped where BLAS cannot have two."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from learnsim._utils.linalg import _blas_controller

    if _blas_controller() is None:
        pytest.skip("threadpoolctl is not installed")
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        from blas_threads import blas_threads

        if blas_threads() != {2}:
            pytest.skip("this BLAS runs on one thread only")
        yield
