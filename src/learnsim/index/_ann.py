"""Approximate search of an index's large dense segments (issue 16): the ``ann`` extra.

A segment whose rows are dense only (no posting lists) and number at least ``min_rows`` gets an
approximate nearest-neighbour structure of :mod:`learnsim.ann` (faiss HNSW, IVF or flat, or
usearch) when it is written (build, add, merge, compact, reindex). It is saved in the segment's
directory (``segments/<name>/ann/``) before the segment is renamed into place, and
``segment.json`` records its backend, metric, size and the sha256 of each of its files, so it is
as immutable and as atomically written as the segment's rows. The backend's ids are the rows'
positions within the segment.

Before it is saved, a new structure's recall@10 is measured (issue 45): 200 of the segment's
rows (seeded), each excluding its own row, and 200 vectors drawn from a normal distribution with
the rows' mean and covariance (between the rows, where query texts land) are searched as an
index search does, against an exact scan, ties at the cut counting; the lower of the two
recalls is checked. Under :data:`RECALL_GOAL` (0.95) the search effort (``ef_search``,
``expansion_search``, ``nprobe``) is doubled up to :data:`EFFORT_CAP` and measured again; once
one reached the goal, the span from the last effort under it is halved :data:`BISECT_STEPS` times
and the structure saved with the least effort measured at the goal; if none did, the segment gets no
structure and is scanned exactly (``segment.json``'s ``"ann_exact"``, ``info()["search"]``'s
``exact_because`` and an :class:`AnnFallbackWarning` say why). The measurement, its parameters
and seconds are kept in ``segment.json`` (``"ann"``'s ``"check"``) and shown by ``info()``
(``recall_at_10``, ``recall_checks``) and ``learnsim index info``.

A search asks the structure for ``k x overfetch`` candidates (more when deletes or a filter mask
rows out), drops the rows that are not allowed, and scores the survivors *exactly* from the
segment's rows: every reported score is the exact one (and an explanation still sums to it);
only a document the structure missed can be missing. The candidates then merge with the other
segments' hits as :func:`learnsim.index._scan.best_k` merges segments (ties to the earlier
document). A segment is scanned exactly instead when:

- less than ``MIN_ALLOWED_FRACTION`` of its rows are allowed (a selective filter: the graph's
  neighbours would mostly be masked out, and recall falls);
- the candidates asked for are a large part of the segment (a scan costs no more);
- fewer than k allowed candidates come back while k rows are allowed (k hits are promised);
- its structure cannot be used: its backend is not installed, its files are missing or damaged.
  The search stays exact and right, :func:`search_info` (``Index.info()["search"]``) lists the
  segment and the reason, and an :class:`AnnFallbackWarning` is issued once per segment;
  ``Index.compact()`` or ``Index.reindex()`` writes the structures again.

Distance models ("distance" kind) use the metric "sqeuclidean" on their dense rows, when the
rows' stored squared norms are those of the dense part (the pure dense models); the cosine
models use "inner_product". Term-weight models have no dense rows and are always exact.

Only numpy and the standard library are imported here; :mod:`learnsim.ann` (and faiss or
usearch through it) is imported when a structure is built or opened.

References
----------
Malkov, Y. A. and Yashunin, D. A. (2020). Efficient and robust approximate nearest neighbor
search using hierarchical navigable small world graphs. IEEE TPAMI 42(4), 824-836.

Johnson, J., Douze, M. and Jegou, H. (2021). Billion-scale similarity search with GPUs. IEEE
Transactions on Big Data 7(3), 535-547 (faiss).
"""
from __future__ import annotations

import math
import os
import time
import warnings

import numpy as np

from .._utils.files import sha256_file
from ..exceptions import AnnFallbackWarning  # noqa: F401  (defined there; importable here as in 0.1)
from ._segments import IndexFormatError

__all__ = ["AUTO_BACKENDS", "ANN_MIN_ROWS", "OVERFETCH", "MIN_ALLOWED_FRACTION", "RECALL_GOAL", "AnnFallbackWarning",
           "AnnSearch", "ann_config", "check_ann_config", "segment_writer", "segment_ann", "ann_segment_best",
           "ann_batch_best", "measure_recall", "search_info"]

# The backend "auto" takes: the first of these whose package imports. faiss IVF first (issue 45):
# at the recall the build's check asks of query-like vectors, on bench_serve.py's 100k FILM rows
# and queries (one thread), IVF (nlist 1265) reached recall@10 0.966 at nprobe 64 in 0.15 ms a
# query in batches, 0.22 ms alone, where faiss HNSW (M=32) needed ef_search 512 for 0.971 at
# 0.68 / 0.78 ms and usearch expansion_search 512 for 0.972 at 0.76 / 0.96 ms; IVF built in 2 s
# against 28-35 s. Served under load (bench_serve.py --ann faiss-hnsw auto --workers 2
# --threads 1, each at the effort its check chose): p99 44.2 ms at 2,249 requests/s against
# HNSW's 50.5 ms at 1,514/s. IVF loses recall on small segments: the check at build raises its
# nprobe. faiss HNSW next (no training), usearch last.
AUTO_BACKENDS = ("faiss-ivf", "faiss-hnsw", "usearch")
# Segments with fewer rows are scanned exactly. Measured one query at a time, top-10, through
# best_k (the ANN time includes the backend's checks and the exact rescoring of the 40
# candidates), float32 unit rows of 100 dimensions in 200 clusters, one thread (OPENBLAS and
# faiss), faiss-hnsw defaults (M=32, ef_search=128), min of interleaved repeats on a loaded
# 2-core EPYC, exact/ANN time: 2k rows 0.26, 5k 0.29, 10k 0.44, 20k 0.71, 50k 2.0, 100k 5.0
# (recall@10 1.000 throughout). ANN pays from about 30k rows; 50k leaves a margin, and spares
# the segments merged from small adds (up to 80k rows) most of the build: about 1.4 ms a row
# for faiss-hnsw on one core, 68 s for 50k rows.
ANN_MIN_ROWS = 50_000
# candidates asked of the structure per hit wanted, before the rows masked out are accounted for
OVERFETCH = 4
# below this fraction of a segment's rows allowed (deletes, filters), the segment is scanned
MIN_ALLOWED_FRACTION = 0.1
# ... and when the candidates asked for would be more than this fraction of the segment
MAX_CANDIDATE_FRACTION = 0.25
# Recall checked at build (issue 45): a new structure answers RECALL_QUERIES of its segment's own
# rows (a seeded sample, each query excluding its own row) and as many drawn from a normal
# distribution of the rows' mean and covariance, as a search does (k x OVERFETCH candidates
# scored exactly, the best k), against an exact scan; the lower recall@RECALL_K of the two must
# reach RECALL_GOAL. Below it the search effort (the
# backend's EFFORT_PARAM) is doubled, up to EFFORT_CAP, and measured again (the exact scan is done
# once), then narrowed (BISECT_STEPS); still below, the segment is not given the structure (it is scanned exactly, info's
# "exact_because" and an AnnFallbackWarning say why).
RECALL_GOAL = 0.95
RECALL_K = 10
RECALL_QUERIES = 200
RECALL_SEED = 0
EFFORT_PARAM = {"faiss-hnsw": "ef_search", "usearch": "expansion_search", "faiss-ivf": "nprobe"}
EFFORT_CAP = 1024
# ... then narrowed by this many halvings of the last doubling (the least effort measured at the goal kept)
BISECT_STEPS = 2
# exact values within this (relative) of the k-th exact value are ties at the cut: any of them is right
TIE_TOLERANCE = 1e-6
_DIR = "ann"
_META = "meta.json"     # what learnsim.ann's save writes, with the checksums of the other files
_METRIC = {"cosine": "inner_product", "distance": "sqeuclidean"}
_REQUESTS = ("exact", "auto")


def _backends():
    from ..ann import ANN_BACKENDS

    return tuple(ANN_BACKENDS)


def _available():
    try:
        from ..ann import available_backends
    except ImportError:         # pragma: no cover - learnsim.ann ships with learnsim
        return ()
    return tuple(available_backends())


def _check_min_rows(v, where):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
        raise ValueError(f"{where} must be a positive integer; got {v!r}")
    return int(v)


def ann_config(ann):
    """The manifest's ``"ann"`` entry for the ``ann`` argument of :meth:`Index.build`.

    Parameters
    ----------
    ann : None, str or dict
        ``None`` or ``"exact"``: always exact. ``"auto"``: the first installed backend of
        :data:`AUTO_BACKENDS` (exact when none is). A backend name of
        :data:`learnsim.ann.ANN_BACKENDS`. Or ``{"backend": name or "auto", "min_rows": N,
        **params}``, the params going to :func:`learnsim.ann.make_ann`.

    Returns
    -------
    dict
        ``{"requested", "min_rows", "params"}`` (JSON).
    """
    params = {}
    min_rows = ANN_MIN_ROWS
    if ann is None:
        ann = "exact"
    if isinstance(ann, dict):
        params = dict(ann)
        if "backend" not in params:
            raise ValueError(f"an ann dict needs a 'backend' (a name of {_backends()} or 'auto'); got {ann!r}")
        requested = params.pop("backend")
        if "min_rows" in params:
            min_rows = _check_min_rows(params.pop("min_rows"), "ann['min_rows']")
    else:
        requested = ann
    if not isinstance(requested, str):
        raise TypeError(f"ann must be None, 'exact', 'auto', a backend name or a dict; got {type(requested).__name__}")
    if requested not in _REQUESTS and requested not in _backends():
        raise ValueError(f"unknown ann {requested!r}; expected one of {list(_REQUESTS + _backends())}")
    for key, v in params.items():
        if not isinstance(key, str) or not (v is None or isinstance(v, (str, int, float, bool))):
            raise TypeError(f"ann parameter {key!r} must be a str, number, bool or None; got {type(v).__name__}")
    if requested == "exact" and params:
        raise ValueError(f"ann 'exact' takes no backend parameters; got {sorted(params)}")
    config = {"requested": requested, "min_rows": min_rows, "params": params}
    backend = _resolve(config, warn=False)
    if requested not in _REQUESTS:
        # a named backend must be installed at build (make_ann raises the ImportError naming the extra)
        from ..ann import make_ann

        make_ann(requested, metric="inner_product", **params)
    elif backend is not None and params:
        from ..ann import make_ann

        make_ann(backend, metric="inner_product", **params)      # unknown parameters: ValueError now
    return config


def check_ann_config(m, where):
    """Check the ``"ann"`` entry of a manifest read from disk (absent: an index of before the
    extra, searched exactly); raises IndexFormatError."""
    config = m.get("ann")
    if config is None:
        return
    try:
        ok = (isinstance(config, dict) and set(config) == {"requested", "min_rows", "params"}
              and isinstance(config["params"], dict) and isinstance(config["requested"], str))
        if ok:
            # what build would have accepted
            _check_min_rows(config["min_rows"], "min_rows")
            if config["requested"] not in _REQUESTS and config["requested"] not in _backends():
                ok = False
            ok = ok and all(isinstance(k, str) and (v is None or isinstance(v, (str, int, float, bool)))
                            for k, v in config["params"].items())
    except (ValueError, TypeError):
        ok = False
    if not ok:
        raise IndexFormatError(f"{where}: the manifest's 'ann' entry is not valid: {config!r}")


def _resolve(config, warn=True):
    """The backend a new segment gets under ``config``, or None (exact)."""
    if not config or config["requested"] == "exact":
        return None
    available = _available()
    if config["requested"] == "auto":
        return next((b for b in AUTO_BACKENDS if b in available), None)
    if config["requested"] in available:
        return config["requested"]
    if warn:
        warnings.warn(f"the index asks for the {config['requested']!r} approximate search, whose package is not "
                      f"installed (pip install learnsim[ann]): the new segment is searched exactly",
                      AnnFallbackWarning, stacklevel=4)
    return None


def _fsync(path):
    with open(path, "rb+") as fh:
        os.fsync(fh.fileno())


def segment_writer(config, kind):
    """The ``extra`` hook of :func:`learnsim.index._segments.write_segment` that builds a new
    segment's structure under the manifest's ``config`` for a model of ``kind``, or None."""
    if not config or config["requested"] == "exact" or kind not in _METRIC:
        return None

    def write(directory, rows, meta):
        dense = rows.dense
        n = 0 if dense is None else dense.shape[0]
        if rows.sparse is not None or dense is None or n < config["min_rows"]:
            return
        metric = _METRIC[kind]
        if metric == "sqeuclidean":
            # the distance ranks by |d|^2 - 2 q.d: the structure's when |d|^2 is the dense part's
            sq = np.einsum("ij,ij->i", dense, dense, dtype=np.float64)
            if rows.sq is None or not np.allclose(rows.sq, sq, rtol=1e-6, atol=1e-9):
                return
        backend = _resolve(config)
        if backend is None:
            return
        from ..ann import make_ann

        params = config["params"] if config["requested"] == backend else {}
        ann = make_ann(backend, metric=metric, **params)
        ann.fit(np.ascontiguousarray(dense))
        check = _check_recall(ann, backend, dense, rows.sq if metric == "sqeuclidean" else None)
        if check["recall_at_10"] < RECALL_GOAL:
            reason = _low_recall_reason(backend, check)
            meta["ann_exact"] = {"backend": backend, "reason": reason, "check": check}
            warnings.warn(f"a new segment of {int(n)} rows: {reason}", AnnFallbackWarning, stacklevel=2)
            return
        target = directory / _DIR
        ann.save(target)
        files = {}
        for f in sorted(p for p in target.rglob("*") if p.is_file()):
            _fsync(f)
            files[f.relative_to(target).as_posix()] = f.stat().st_size
        # the backend's meta.json holds the sha256 of its other files (load_ann checks them):
        # its own sha256 here closes the chain, and the files are read once at load, not twice
        meta["ann"] = {"backend": backend, "metric": metric, "n": int(n), "dim": int(dense.shape[1]),
                       "files": files, "meta_sha256": sha256_file(target / _META), "check": check}

    return write


def _values64(dense, sq, q, rows):
    """float64 higher-is-closer values of the segment's ``rows`` for the query vector ``q``
    (inner products; with ``sq``, 2 q.d - |d|^2, the squared distance's order)."""
    v = dense[rows].astype(np.float64) @ q
    return v if sq is None else 2.0 * v - sq[rows]


def _exact_kth(dense, sq, Q, exclude, k):
    """The exact k-th best value of each query of ``Q`` over the segment's rows, the row
    ``exclude[j]`` left out (-1: none), by a scan (float32 products in blocks, the top few
    rescored in float64)."""
    n = dense.shape[0]
    sq32 = None if sq is None else sq.astype(dense.dtype)
    margin = min(k + 8, n - 1)        # the exact top k are among the float32 top k + 8
    kth = np.empty(Q.shape[0])
    step = max(1, min(32, (1 << 22) // n))      # queries a block: at most 4M exact values at a time
    for lo in range(0, Q.shape[0], step):
        vals = np.asarray(Q[lo:lo + step], dtype=dense.dtype) @ dense.T
        if sq32 is not None:
            vals = 2 * vals - sq32
        ex = exclude[lo:lo + step]
        own = np.flatnonzero(ex >= 0)
        vals[own, ex[own]] = -np.inf
        tops = np.argpartition(-vals, margin - 1, axis=1)[:, :margin]
        for j in range(tops.shape[0]):
            top = tops[j][tops[j] != ex[j]]
            kth[lo + j] = np.sort(_values64(dense, sq, Q[lo + j], top))[::-1][k - 1]
    return kth


def _hits(ann, dense, sq, Q, exclude, kth, k, overfetch):
    """How many of each query's k best, as an index search gets them from ``ann`` (k x
    ``overfetch`` candidates scored exactly), are at least its exact k-th value (ties count)."""
    n = dense.shape[0]
    # one more than a search asks: a query's own row is among them
    ids, _ = ann.search(np.ascontiguousarray(Q, dtype=np.float32), int(math.ceil(k * overfetch)) + 1)
    out = np.zeros(Q.shape[0], dtype=np.int64)
    for j in range(Q.shape[0]):
        cand = np.unique(ids[j])
        cand = cand[(cand >= 0) & (cand < n) & (cand != exclude[j])]
        best = np.sort(_values64(dense, sq, Q[j], cand))[::-1][:k]
        out[j] = np.count_nonzero(best >= kth[j] - TIE_TOLERANCE * max(1.0, abs(kth[j])))
    return out


def measure_recall(ann, dense, sq, queries, exclude=None, k=RECALL_K, overfetch=OVERFETCH):
    """Tie-aware recall@k of what an index search gets from the structure ``ann`` of a segment's
    ``dense`` rows (k x ``overfetch`` candidates, scored exactly, the best k) for the query
    vectors ``queries``, against an exact scan of the rows.

    A hit counts when its exact value is at least the k-th exact value (less
    :data:`TIE_TOLERANCE`): of items tied at the cut, any are a right answer. ``exclude``: a row
    each query must not return (-1: none), as a row searched as a query excludes itself; ``sq``:
    the rows' squared norms for a squared-distance structure, None for inner products.
    """
    dense = np.asarray(dense)
    Q = np.asarray(queries, dtype=np.float64)
    k = min(k, dense.shape[0] - 1)
    if k < 1 or not Q.shape[0]:
        return 1.0
    exclude = np.full(Q.shape[0], -1, dtype=np.int64) if exclude is None else np.asarray(exclude, dtype=np.int64)
    sq = None if sq is None else np.asarray(sq, dtype=np.float64)
    kth = _exact_kth(dense, sq, Q, exclude, k)
    return float(_hits(ann, dense, sq, Q, exclude, kth, k, overfetch).sum() / (k * Q.shape[0]))


def _check_recall(ann, backend, dense, sq):
    """Measure a new structure's recall at build (see :data:`RECALL_GOAL`), raising its search
    effort while under the goal; the record kept in segment.json (JSON).

    The queries: RECALL_QUERIES of the segment's rows (each excluding itself), and as many
    drawn from a normal distribution with the rows' mean and covariance (the mean plus a normally
    weighted sum of 8 centred rows). A row is where the structure is densest; a query text lands
    between the rows, where a graph or a list search goes astray more often. On bench_serve.py's
    100k FILM rows, recall@10 of its real queries / of these / of the rows: faiss HNSW
    ef_search 128 0.897 / 0.874 / 0.994, 256 0.943 / 0.935, 512 0.971 / 0.964; faiss IVF nprobe
    16 0.911 / 0.904, 32 0.944 / 0.935, 64 0.966 / 0.959 (midpoints of two rows gave IVF 0.992
    at nprobe 16: too easy). The recall checked is the lower of the two.
    """
    start = time.perf_counter()
    n = dense.shape[0]
    dense = np.asarray(dense)
    sq = None if sq is None else np.asarray(sq, dtype=np.float64)
    k = min(RECALL_K, n - 1)
    rng = np.random.default_rng(RECALL_SEED)
    m = min(RECALL_QUERIES, n)
    rows = np.sort(rng.choice(n, size=m, replace=False))
    mean = dense.mean(axis=0, dtype=np.float64)
    mix = rng.integers(0, n, size=(m, 8))
    weights = rng.standard_normal((m, 8, 1)) / np.sqrt(8)
    Q = np.concatenate([dense[rows].astype(np.float64),
                        mean + (weights * (dense[mix].astype(np.float64) - mean)).sum(axis=1)])
    exclude = np.concatenate([rows, np.full(m, -1)]).astype(np.int64)
    kth = _exact_kth(dense, sq, Q, exclude, k) if k >= 1 else None
    name = EFFORT_PARAM.get(backend)
    if name not in ann.get_search_params():
        name = None
    cap = EFFORT_CAP
    if name == "nprobe":
        cap = min(cap, int(getattr(ann, "nlist_", cap)))
    tries = []

    def measure():
        if k >= 1:
            hits = _hits(ann, dense, sq, Q, exclude, kth, k, OVERFETCH)
            on_rows, between = float(hits[:m].sum() / (k * m)), float(hits[m:].sum() / (k * m))
        else:
            on_rows = between = 1.0
        value = None if name is None else int(ann.get_search_params()[name])
        tries.append([value, min(on_rows, between)])
        return value, (min(on_rows, between), on_rows, between)

    while True:
        value, found = measure()
        if found[0] >= RECALL_GOAL or name is None or value >= cap:
            break
        ann.set_search_params(**{name: min(value * 2, cap)})
    if name is not None and found[0] >= RECALL_GOAL and len(tries) > 1:
        # between the last effort under the goal and the first at it, BISECT_STEPS halvings: the
        # search costs about in proportion to the effort, and doubling overshoots by up to 2x
        # (bench_serve.py's 100k FILM rows: nprobe 64 0.948, 128 0.973)
        low, high = tries[-2][0], value
        for _ in range(BISECT_STEPS):
            mid = (low + high) // 2
            if mid <= low:
                break
            ann.set_search_params(**{name: mid})
            mid_value, mid_found = measure()
            if mid_found[0] >= RECALL_GOAL:
                high, found = mid_value, mid_found
            else:
                low = mid_value
        ann.set_search_params(**{name: high})
        value = high
    recall, on_rows, between = found
    check = {"recall_at_10": recall, "rows_recall_at_10": on_rows, "drawn_recall_at_10": between,
             "goal": RECALL_GOAL, "k": k, "queries": int(2 * m), "seed": RECALL_SEED, "overfetch": OVERFETCH,
             "search_params": {} if name is None else {name: value},
             "seconds": round(time.perf_counter() - start, 3)}
    if len(tries) > 1:
        check["tries"] = tries      # [effort, recall] of each measurement
    return check


def _low_recall_reason(backend, check):
    params = ", ".join(f"{k} {v}" for k, v in check["search_params"].items())
    return (f"its {backend} structure reached recall@10 {check['recall_at_10']:.3f} at build, under "
            f"{check['goal']}" + (f" even at {params}" if params else "") + f" ({check['queries'] // 2} of its rows "
            f"and as many drawn like them as queries, against an exact scan): it is scanned exactly")


class AnnSearch:
    """How a handle searches its segments' structures: its search parameters (``ef_search``,
    ``nprobe``, ...) and the candidates asked per hit (``overfetch``). See
    :meth:`learnsim.index.Index.set_search_params`."""

    def __init__(self):
        self.overfetch = OVERFETCH
        self.params = {}
        self.version = 0

    def set(self, params, segments):
        params = dict(params)
        if "overfetch" in params:
            v = params.pop("overfetch")
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not v >= 1:
                raise ValueError(f"overfetch must be a number >= 1; got {v!r}")
            self.overfetch = float(v)
        loaded = [(s, a) for s, a in ((s, segment_ann(s, None)) for s in segments) if a is not None]
        known = set()
        for _, a in loaded:
            known.update(a.get_search_params())
        unknown = sorted(set(params) - known) if loaded else []
        if unknown:
            raise ValueError(f"unknown search parameter(s) {unknown} of the index's backends; they take "
                             f"{sorted(known)} and overfetch")
        # now, so that a bad value is refused here (the backend checks it), not at the next search
        for _, a in loaded:
            own = {k: v for k, v in params.items() if k in a.get_search_params()}
            if own:
                a.set_search_params(**own)
        self.params.update(params)
        self.version += 1
        for s, _ in loaded:
            s._ann_applied = self.version

    def apply(self, seg, ann):
        if getattr(seg, "_ann_applied", 0) != self.version:
            own = ann.get_search_params()
            mine = {k: v for k, v in self.params.items() if k in own}
            if mine:
                ann.set_search_params(**mine)
            seg._ann_applied = self.version


def _problem(seg, reason):
    warnings.warn(f"segment {seg.name!r}: {reason}; it is searched exactly", AnnFallbackWarning, stacklevel=5)
    return None, reason


def _open(seg, kind):
    """(structure or None, reason it cannot be used or None) of a segment."""
    meta = seg.ann_meta
    where = f"segment {seg.name!r}"
    if (not isinstance(meta, dict) or not isinstance(meta.get("files"), dict) or _META not in meta["files"]
            or meta.get("metric") not in _METRIC.values() or meta.get("n") != seg.n or seg.has("indptr")
            or not seg.has("dense") or meta.get("dim") != seg.dense.shape[1] or not isinstance(meta.get("backend"), str)
            or not isinstance(meta.get("meta_sha256"), str)
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in meta["files"].values())):
        raise IndexFormatError(f"{where}: segment.json describes its approximate structure wrongly: {meta!r}")
    if meta["metric"] != _METRIC.get(kind):
        raise IndexFormatError(f"{where}: its structure's metric {meta['metric']!r} is not the model's")
    if meta["backend"] not in _available():
        return _problem(seg, f"its {meta['backend']!r} structure needs a package that is not installed "
                             f"(pip install learnsim[ann])")
    target = seg.path / _DIR
    for name, size in meta["files"].items():
        f = target / name
        if ".." in name.split("/") or not f.is_file():
            return _problem(seg, f"its approximate structure's file {name!r} is missing")
        if f.stat().st_size != size:
            return _problem(seg, f"its approximate structure's file {name!r} is damaged (its size changed)")
    if sha256_file(target / _META) != meta["meta_sha256"]:
        return _problem(seg, f"its approximate structure's {_META} is damaged (checksum)")
    from ..ann import load_ann

    try:
        # read into memory, not mapped: load_ann checks the files' sha256, and a file truncated
        # under a mapping would crash the process (SIGBUS) at the next search
        ann = load_ann(target, mmap=False)
    except (ValueError, OSError, RuntimeError, ImportError) as exc:
        # load_ann checks the sha256 of every file its meta.json lists
        return _problem(seg, f"its approximate structure is damaged or cannot be read ({exc})")
    if (ann.backend_name != meta["backend"] or ann.metric != meta["metric"] or ann.n_items_ != seg.n
            or ann.n_features_in_ != seg.dense.shape[1]):
        return _problem(seg, "its approximate structure is not the one segment.json describes")
    return ann, None


def segment_ann(seg, settings):
    """The segment's opened structure (loaded and checked on first use), or None: scan it."""
    if getattr(seg, "ann_meta", None) is None:
        return None
    state = getattr(seg, "_ann_state", None)
    if state is None:
        state = seg._ann_state = _open(seg, seg.kind)
    ann = state[0]
    if ann is not None and settings is not None:
        settings.apply(seg, ann)
    return ann


def _candidates_wanted(seg, k, n_allowed, n_excluded, settings):
    """How many candidates to ask of a segment's structure, or None: scan the segment."""
    n = seg.n
    if n_allowed < MIN_ALLOWED_FRACTION * n:
        return None
    want = int(math.ceil(k * settings.overfetch * n / max(n_allowed, 1))) + n_excluded
    if want > MAX_CANDIDATE_FRACTION * n:
        return None
    return want


def _rescored(seg, cand, q_dense, q_sq, distance):
    """Exact higher-is-closer values of the rows ``cand``, as the exact scan computes them."""
    inner = (seg.dense[cand] @ np.asarray(q_dense, dtype=seg.dtype)).astype(np.float64)
    if distance:
        return -np.sqrt(np.maximum(q_sq + np.asarray(seg.sq)[cand] - 2.0 * inner, 0.0))
    return inner


def _best_of(seg, ids, q_dense, q_sq, distance, k, mask, n_ok):
    """The k best allowed candidates of ``ids`` (a row of the structure's answer), exactly
    scored, best first, ties to the lower position; None when too few came back."""
    cand = np.unique(np.asarray(ids, dtype=np.int64))
    cand = cand[cand >= 0]          # -1: padding where fewer were found
    if cand.size and cand[-1] >= seg.n:
        raise IndexFormatError(f"segment {seg.name!r}: its approximate structure returned row {int(cand[-1])} "
                               f"of a segment of {seg.n}")
    if mask is not None:
        cand = cand[mask[cand]]
    if cand.shape[0] < min(k, n_ok):
        return None
    vals = _rescored(seg, cand, q_dense, q_sq, distance)
    order = np.lexsort((cand, -vals))[:k]
    return cand[order], vals[order]


def ann_segment_best(seg, q_dense, q_sq, distance, k, allowed, excluded, settings):
    """(local positions, values) of the k best rows of one segment through its structure, as
    :func:`learnsim.index._scan._segment_best` gives them, or None: scan the segment.

    ``allowed``: a mask of the segment's rows (None: all), before ``excluded`` (local positions
    the query must not return) is taken out of it.
    """
    ann = segment_ann(seg, settings)
    if ann is None or q_dense is None:
        return None
    n_allowed = seg.n if allowed is None else int(np.count_nonzero(allowed))
    n_excl = 0 if excluded is None else int(excluded.shape[0])
    want = _candidates_wanted(seg, k, n_allowed, n_excl, settings)
    if want is None:
        return None
    mask = allowed
    if excluded is not None and excluded.size:
        mask = np.ones(seg.n, dtype=bool) if allowed is None else allowed.copy()
        mask[excluded] = False
    n_ok = seg.n if mask is None else int(np.count_nonzero(mask))
    q = np.asarray(q_dense, dtype=np.float32)[None, :]
    ids, _ = ann.search(q, want)
    return _best_of(seg, ids[0], q_dense, q_sq, distance, k, mask, n_ok)


def ann_batch_best(seg, Q, k, allowed, excluded, settings):
    """For each query of ``Q`` (B, d), what :func:`ann_segment_best` gives it (None: scan the
    segment for that query), with one call of the structure per number of candidates asked
    (one call in all but when the queries exclude different numbers of rows), or None for all."""
    ann = segment_ann(seg, settings)
    if ann is None:
        return None
    B = Q.shape[0]
    n_allowed = seg.n if allowed is None else int(np.count_nonzero(allowed))
    wants = [_candidates_wanted(seg, k, n_allowed, 0 if e is None else int(e.shape[0]), settings)
             for e in excluded]
    out = [None] * B
    for want in sorted({w for w in wants if w is not None}):
        group = [i for i in range(B) if wants[i] == want]
        ids, _ = ann.search(np.ascontiguousarray(Q[group], dtype=np.float32), want)
        for row, i in enumerate(group):
            mask = allowed
            e = excluded[i]
            if e is not None and e.size:
                mask = np.ones(seg.n, dtype=bool) if allowed is None else allowed.copy()
                mask[e] = False
            n_ok = seg.n if mask is None else int(np.count_nonzero(mask))
            out[i] = _best_of(seg, ids[row], Q[i], None, False, k, mask, n_ok)
    return out


def search_info(index):
    """``Index.info()["search"]``: which search the index's live rows get."""
    config = index.manifest.get("ann") or {"requested": "exact", "min_rows": ANN_MIN_ROWS, "params": {}}
    ann_rows = exact_rows = offset = 0
    backends, fallback, exact_because, checks = {}, [], {}, []
    for seg in index.segments:
        live = int(index._live[offset:offset + seg.n].sum())
        offset += seg.n
        ann = segment_ann(seg, None)
        if ann is not None:
            ann_rows += live
            backends[ann.backend_name] = backends.get(ann.backend_name, 0) + live
            check = seg.ann_meta.get("check")
            if isinstance(check, dict) and isinstance(check.get("recall_at_10"), (int, float)):
                # the recall measured when the structure was built (structures of before issue 45 have none)
                checks.append({"segment": seg.name, "rows": int(seg.n), "recall_at_10": check["recall_at_10"],
                               "search_params": check.get("search_params") or {}})
            continue
        exact_rows += live
        reason = getattr(seg, "_ann_state", (None, None))[1]
        if reason:
            fallback.append({"segment": seg.name, "reason": reason})
        elif live:
            why = _why_exact(seg, config, index.manifest["kind"])
            exact_because[why] = exact_because.get(why, 0) + live
    mode = "exact" if not ann_rows else ("approximate" if not exact_rows else "mixed")
    settings = index._ann_search
    out = {"mode": mode, "backend": max(backends, key=backends.get) if backends else None,
           "ann_rows": ann_rows, "exact_rows": exact_rows, "min_rows": int(config["min_rows"]),
           "requested": config["requested"], "overfetch": settings.overfetch}
    if len(backends) > 1:
        out["backends"] = backends
    if settings.params:
        out["search_params"] = dict(settings.params)
    if checks:
        out["recall_at_10"] = min(c["recall_at_10"] for c in checks)
        out["recall_checks"] = checks
    if fallback:
        out["fallback"] = fallback
    if exact_because:
        out["exact_because"] = exact_because
    return out


def _why_exact(seg, config, kind):
    """Why a segment with no structure (and no damaged one) is searched exactly: the reason in
    words, so that ``index info`` answers "I asked for faiss-hnsw: why is it exact?"."""
    if config["requested"] == "exact":
        return "exact search was asked for (ann='exact')"
    low = getattr(seg, "ann_exact", None)
    if isinstance(low, dict) and isinstance(low.get("reason"), str):
        return low["reason"]        # its structure missed the recall goal at build
    if kind not in _METRIC:
        return f"a {kind} model's scores have no approximate search (only dense cosine and distance rows)"
    if seg.has("indptr") or not seg.has("dense"):
        return ("its rows are sparse (posting lists: term weights, or a FILM that fell back to the input "
                "cosine): approximate search needs dense rows only")
    if seg.n < config["min_rows"]:
        return f"segments under min_rows ({int(config['min_rows'])} rows) are scanned exactly"
    if _resolve(config, warn=False) is None:
        return f"the {config['requested']!r} backend is not installed (pip install learnsim[ann])"
    return "written before the index asked for approximate search (compact or reindex builds it)"


def write_segment_of(directory, name, seqs, rows, manifest, docs=None):
    """:func:`learnsim.index._segments.write_segment` in the manifest's dtype, with the
    approximate structure its ``"ann"`` entry asks for and the copy of the documents ``docs``
    (None: none; learnsim.index._segment_docs)."""
    from ._segments import write_segment

    extra = segment_writer(manifest.get("ann"), manifest["kind"])
    return write_segment(directory, name, seqs, rows, manifest["dtype"], extra=extra, docs=docs)
