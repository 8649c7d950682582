"""The thread counts BLAS has now, for the tests that check where learnsim holds it to one
(FILM's small products, the pair models' solvers; conftest.py's ``two_blas_threads`` sets two)."""
from __future__ import annotations

from learnsim._utils.linalg import _blas_controller


def blas_threads():
    return {i["num_threads"] for i in _blas_controller().info() if i["user_api"] == "blas"}
