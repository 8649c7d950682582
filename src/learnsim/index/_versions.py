"""Model versions of an index (issue 34): every model an index has served or been offered, so that
a promotion can be rolled back (:meth:`learnsim.index.Index.promote`, ``learnsim index promote``).

Layout::

    versions/versions.json   {"format": "learnsim-versions", "versions": [...], "history": [...],
                             "pending": null or the promotion under way, "versions_sha256": ...}
    versions/v<N>.npz        a copy of each model file ever staged or served, written once

Each version: ``version`` (1, 2, ...), ``sha256`` (of its file), ``content_sha256`` (of its
arrays, the file's save time left out: the same model saved twice is one version), ``created``,
``source`` (a note: the model file it came from, "build", ...), ``status`` ("served", "candidate"
or "retired"), ``served_from`` (when it last became the served one), ``staged_at`` (when it was
last staged as a candidate: ``created``, or the time a retired version was staged again),
``retired_at`` (when it last stopped being served) and ``comparison`` (the evidence its promotion
was given). ``staged_at`` and ``retired_at`` are absent from records written before them.
:func:`evidence_start` says from when clicks are evidence about a version: a version staged again
after a rollback, or a retired one promoted by number, is judged on clicks recorded since, never
on those it was promoted on before. ``history``: ``{"version", "time", "action"}`` for each
build, promote and rollback. versions.json is written atomically (a fsynced temporary file and a
rename) and sealed with its own sha256; a damaged or edited one is an IndexDamagedError naming it.

Which model is served. The manifest is the one commit point of a promotion: its
``model_sha256`` says which model the rows were computed with, and its ``model_file`` names the
file that holds that model ("versions/v<N>.npz"; absent, as in an index built before versions,
"model.npz"). A version file is written once (before any manifest names it) and never changed,
so a reader holding any manifest finds, under the name it gives, the file with the checksum it
gives, however many promotions happened since. ``model.npz`` stays a copy of the served model for
tools and older learnsims; it is replaced (atomically) after the manifest, so it lags for a moment
and, after a crash between the two, until the next versions operation copies it again. A reader
holding a manifest without ``model_file`` (written before the first promotion) whose model.npz was
replaced meanwhile reads the same model from the version file with the manifest's checksum
(:func:`load_model`). Replacing model.npz in place and keeping readers on it could not be made
safe: a reader holding the manifest of before would find the file changed under it, and a reader
of the new manifest, before the rename, the old file.

A promotion writes, in this order: versions.json with ``pending`` (the version, the action, its
comparison), the new statistics, plan and segments, the manifest (the commit), model.npz, and
versions.json with the promotion applied. A crash before the manifest leaves the old model with
the old rows (the new files are listed by no manifest and removed by the next writer; the pending
promotion is dropped when read); after it, the new model with the new rows (the pending promotion
is applied when read: :func:`reconcile`). What versions.json says is served is therefore always
read against the manifest: the served version is the one whose sha256 is the manifest's.

Only numpy and the standard library are imported here (the pipeline loads on use).
"""
from __future__ import annotations

import hashlib
import json
import math
import numbers
import os
import re
import secrets
import shutil
import time
from pathlib import Path

import numpy as np

from .._utils.files import open_regular, sha256_file
from ._integrity import collection_rows, load_pipeline, model_encoder
from ._segments import FORMAT_NAME as INDEX_FORMAT, FORMAT_VERSION as INDEX_FORMAT_VERSION, IndexDamagedError, \
    IndexFormatError, fsync_dir, read_manifest, write_json_atomic

__all__ = ["VERSIONS_DIR", "VERSIONS_FILE", "model_file", "load_model", "read_view", "served_version",
           "record_build", "ensure", "stage", "serve", "rollback_target", "load_version", "check_versions",
           "evidence_start"]

VERSIONS_DIR = "versions"
VERSIONS_FILE = "versions.json"
FORMAT = "learnsim-versions"
_SEAL = "versions_sha256"
_MODEL = "model.npz"
_MANIFEST = "manifest.json"
STATUSES = ("served", "candidate", "retired")
ACTIONS = ("build", "promote", "rollback")
_FILE_NAME = re.compile(r"versions/v([1-9][0-9]{0,8})\.npz")
_HEX = re.compile(r"[0-9a-f]{64}")
# reads of versions.json around the manifest's before a reader gives up on a stable pair
_READ_TRIES = 20


def version_path(path, n):
    return Path(path) / VERSIONS_DIR / f"v{int(n)}.npz"


def model_file(path, manifest):
    """The file the manifest names as its model (``model_file``, else model.npz); an
    IndexFormatError for a name that is not one of those an index writes."""
    name = manifest.get("model_file")
    if name is None:
        return Path(path) / _MODEL
    if not isinstance(name, str) or not _FILE_NAME.fullmatch(name):
        raise IndexFormatError(f"{path}: {_MANIFEST} names the model file {name!r}, not versions/v<N>.npz")
    return Path(path) / name


def load_model(path, manifest):
    """The served pipeline: the file the manifest names, checked against its model_sha256; for a
    manifest naming model.npz that a promotion replaced since (the manifest on disk serves another
    model now), the version file with that checksum (the same model: see the module notes). A
    model.npz that does not match while the manifest still serves it is damage."""
    file = model_file(path, manifest)
    sha = manifest["model_sha256"]
    try:
        return load_pipeline(file, sha)
    except IndexDamagedError:
        if file.name != _MODEL:
            raise
        try:
            now = read_manifest(Path(path), _MANIFEST, INDEX_FORMAT, INDEX_FORMAT_VERSION)
        except IndexFormatError:
            raise IndexDamagedError(file, "it does not match the checksum in the manifest (edited or damaged)") \
                from None
        if now.get("model_sha256") == sha:
            raise
        state = _read_state(path)
        same = [v for v in (state or {}).get("versions", []) if v["sha256"] == sha]
        if not same:
            raise
        return load_pipeline(version_path(path, same[0]["version"]), sha)


# --------------------------------------------------------------------------- versions.json

def _canonical(obj):
    return json.dumps({k: v for k, v in obj.items() if k != _SEAL}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True, allow_nan=False).encode("ascii")


def _number(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


def _int(x):
    return isinstance(x, int) and not isinstance(x, bool) and x >= 1


def _check_state(state, file):
    """IndexDamagedError naming versions.json unless ``state`` is a versions record, sealed."""
    def bad(problem):
        raise IndexDamagedError(file, problem)

    if not isinstance(state, dict) or state.get("format") != FORMAT:
        bad(f"it is not a learnsim versions record (no \"format\": {FORMAT!r})")
    seal = state.get(_SEAL)
    try:
        sealed = isinstance(seal, str) and hashlib.sha256(_canonical(state)).hexdigest() == seal
    except (TypeError, ValueError):
        sealed = False
    if not sealed:
        bad("its checksum does not match its content (edited or damaged)")
    versions, history = state.get("versions"), state.get("history")
    if not isinstance(versions, list) or not versions or not isinstance(history, list):
        bad("it lists no versions or no history")
    numbers_seen = set()
    for v in versions:
        ok = (isinstance(v, dict) and _int(v.get("version")) and isinstance(v.get("sha256"), str)
              and _HEX.fullmatch(v["sha256"]) and _number(v.get("created")) and isinstance(v.get("source"), str)
              and v.get("status") in STATUSES and (v.get("served_from") is None or _number(v["served_from"]))
              and all(v.get(k) is None or _number(v[k]) for k in ("staged_at", "retired_at"))
              and (v.get("comparison") is None or isinstance(v["comparison"], dict))
              and (v.get("content_sha256") is None or isinstance(v["content_sha256"], str)))
        if not ok:
            bad(f"a version entry is malformed: {json.dumps(v)[:200]}")
        if v["version"] in numbers_seen:
            bad(f"version {v['version']} is listed twice")
        numbers_seen.add(v["version"])
    if sum(v["status"] == "served" for v in versions) != 1:
        bad("it does not list exactly one served version")
    for h in history:
        if not (isinstance(h, dict) and h.get("version") in numbers_seen and _number(h.get("time"))
                and h.get("action") in ACTIONS):
            bad(f"a history entry is malformed: {json.dumps(h)[:200]}")
    pending = state.get("pending")
    if pending is not None and not (isinstance(pending, dict) and pending.get("version") in numbers_seen
                                    and pending.get("action") in ACTIONS[1:] and _number(pending.get("time"))
                                    and (pending.get("comparison") is None or isinstance(pending["comparison"], dict))):
        bad("its pending promotion is malformed")
    return state


def _read_bytes(path):
    try:
        with open_regular(Path(path) / VERSIONS_DIR / VERSIONS_FILE) as fh:
            return fh.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise IndexDamagedError(Path(path) / VERSIONS_DIR / VERSIONS_FILE,
                                f"it cannot be read ({exc.strerror or exc})") from None


def _parse(path, raw):
    file = Path(path) / VERSIONS_DIR / VERSIONS_FILE
    if raw is None:
        return None
    try:
        state = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise IndexDamagedError(file, f"it is not valid UTF-8 JSON ({exc})") from None
    return _check_state(state, file)


def _read_state(path):
    """versions.json as written (checked), or None where there is none."""
    return _parse(path, _read_bytes(path))


def _write_state(path, state):
    state = dict(state, format=FORMAT)
    state.pop(_SEAL, None)
    state[_SEAL] = hashlib.sha256(_canonical(state)).hexdigest()
    write_json_atomic(Path(path) / VERSIONS_DIR / VERSIONS_FILE, state)
    return state


def _served(state):
    return next(v for v in state["versions"] if v["status"] == "served")


def _entry(state, n):
    for v in state["versions"]:
        if v["version"] == n:
            return v
    known = ", ".join(str(v["version"]) for v in state["versions"])
    raise ValueError(f"the index has no model version {n} (its versions: {known})")


def _apply(state, n, action, when, comparison):
    """``state`` with version ``n`` served by ``action`` at ``when`` (a new dict)."""
    state = json.loads(json.dumps(state))
    for v in state["versions"]:
        if v["status"] == "served" and v["version"] != n:
            v.update(status="retired", retired_at=when)     # clicks from before are no evidence for it again
    entry = _entry(state, n)
    entry.update(status="served", served_from=when)
    if comparison is not None:
        entry["comparison"] = comparison
    state["history"].append({"version": n, "time": when, "action": action})
    state["pending"] = None
    return state


def reconcile(path, state, manifest):
    """The versions record as the manifest commits it: a pending promotion the manifest shows
    applied, one it does not dropped; the served version the one with the manifest's sha256."""
    file = Path(path) / VERSIONS_DIR / VERSIONS_FILE
    sha = manifest["model_sha256"]
    pending = state.get("pending")
    if pending is not None:
        target = _entry(state, pending["version"])
        if target["sha256"] == sha and _served(state)["sha256"] != sha:
            state = _apply(state, target["version"], pending["action"], pending["time"], pending.get("comparison"))
        else:
            state = dict(state, pending=None)
    if _served(state)["sha256"] != sha:
        raise IndexDamagedError(file, f"its served version {_served(state)['version']} is not the model the "
                                      f"manifest serves (sha256 {sha[:12]}...)")
    return state


def _implicit(path, manifest):
    """The record of an index built before versions: one version, its model, served since built."""
    when = manifest.get("created") if _number(manifest.get("created")) else time.time()
    return {"format": FORMAT, "versions": [{"version": 1, "sha256": manifest["model_sha256"], "created": when,
                                            "source": _MODEL, "status": "served", "served_from": when,
                                            "comparison": None}],
            "history": [{"version": 1, "time": when, "action": "build"}], "pending": None}


def read_view(path):
    """(versions record, manifest) as they stand, without writing: versions.json and the manifest
    read in an order that a concurrent promotion cannot make disagree (versions.json read twice
    around the manifest, the same both times), then :func:`reconcile` d; the implicit record of an
    index built before versions (a manifest without ``model_file``) where there is none."""
    path = Path(path)
    for _ in range(_READ_TRIES):
        before = _read_bytes(path)
        manifest = read_manifest(path, _MANIFEST, INDEX_FORMAT, INDEX_FORMAT_VERSION)
        if _read_bytes(path) == before:
            break
    else:
        raise IndexFormatError(f"{path}: {VERSIONS_DIR}/{VERSIONS_FILE} kept changing while it was read")
    if not isinstance(manifest.get("model_sha256"), str):
        raise IndexFormatError(f"{path}: {_MANIFEST} has no valid 'model_sha256'")
    state = _parse(path, before)
    if state is None:
        if manifest.get("model_file") is not None:
            raise IndexDamagedError(path / VERSIONS_DIR / VERSIONS_FILE, "the file is missing (the manifest serves "
                                                                         f"{manifest['model_file']})")
        return _implicit(path, manifest), manifest
    return reconcile(path, state, manifest), manifest


def served_version(path, manifest):
    """The version number of the model ``manifest`` serves (1 for an index without versions)."""
    state = _read_state(path)
    if state is None:
        if manifest.get("model_file") is not None:
            raise IndexDamagedError(Path(path) / VERSIONS_DIR / VERSIONS_FILE, "the file is missing (the manifest "
                                                                               f"serves {manifest['model_file']})")
        return 1
    for v in state["versions"]:
        if v["sha256"] == manifest["model_sha256"]:
            return v["version"]
    raise IndexDamagedError(Path(path) / VERSIONS_DIR / VERSIONS_FILE,
                            "it lists no version of the model the manifest serves")


# --------------------------------------------------------------------------- files

def content_digest(file):
    """The sha256 of a model file's arrays and meta, its save time left out: the same model saved
    twice has one digest (the file's own sha256 differs: the zip's and the meta's times)."""
    from ..persistence import MANIFEST_KEY, open_npz_checked

    digest = hashlib.sha256()
    # checked as load checks a model: the file an index folder brings along is read here before
    # any load (a zip bomb took 2.2 GB and a MemoryError, an entry's forged header 7.3 TiB)
    with open_npz_checked(file) as (keys, read):
        for key in keys:
            arr = read(key)
            if key == MANIFEST_KEY:
                meta = json.loads(arr.tobytes().decode("utf-8"))
                meta.pop("created", None)
                raw = json.dumps(meta, sort_keys=True).encode("utf-8")
            else:
                raw = arr.tobytes()
            digest.update(f"{key}|{arr.dtype.str}|{arr.shape}|{len(raw)}|".encode())
            digest.update(raw)
    return digest.hexdigest()


def _copy_durably(src, dst):
    """Copy ``src`` to ``dst`` through a fsynced temporary file and a rename (then the folder)."""
    dst = Path(dst)
    tmp = dst.with_name(f".{dst.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(src, "rb") as fin, open(tmp, "wb") as fout:
            shutil.copyfileobj(fin, fout, 1 << 20)
            fout.flush()
            os.fsync(fout.fileno())
        os.replace(tmp, dst)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(dst.parent)


def _sync_model_copy(path, manifest):
    """Make model.npz the served model again where a promotion stopped before copying it."""
    if manifest.get("model_file") is None:
        return
    target = Path(path) / _MODEL
    try:
        if sha256_file(target) == manifest["model_sha256"]:
            return
    except OSError:
        pass
    source = model_file(path, manifest)
    if sha256_file(source) != manifest["model_sha256"]:
        raise IndexDamagedError(source, "it does not match the checksum in the manifest (edited or damaged)")
    _copy_durably(source, target)


def _default_dtype(kind):
    return "float64" if kind == "distance" else "float32"


def _remove_temporary(path):
    for f in (Path(path) / VERSIONS_DIR).glob(".*.tmp"):
        f.unlink(missing_ok=True)


# --------------------------------------------------------------------------- writers (the lock held)

def record_build(path, source=None):
    """At build: version 1, the model just written, served (the lock need not be held: nobody
    else knows the index yet)."""
    path = Path(path)
    manifest = read_manifest(path, _MANIFEST, INDEX_FORMAT, INDEX_FORMAT_VERSION)
    _create(path, manifest, source or "build")


def _create(path, manifest, source):
    (path / VERSIONS_DIR).mkdir(exist_ok=True)
    file = model_file(path, manifest)
    if sha256_file(file) != manifest["model_sha256"]:
        raise IndexDamagedError(file, "it does not match the checksum in the manifest (edited or damaged)")
    # of the index's own file, before the copy: a hostile one is refused naming it, and leaves no
    # copy behind (the file and its copy have one content)
    content = content_digest(file)
    _copy_durably(file, version_path(path, 1))
    state = _implicit(path, manifest)
    state["versions"][0].update(source=source, content_sha256=content)
    return _write_state(path, state)


def ensure(index):
    """The versions record of ``index`` (its lock held, its manifest current): created for an
    index built before versions, a promotion a crash interrupted settled, model.npz made the
    served model's copy again, temporary files removed."""
    path, manifest = index.path, index.manifest
    raw = _read_bytes(path)
    if raw is None:
        if manifest.get("model_file") is not None:
            raise IndexDamagedError(path / VERSIONS_DIR / VERSIONS_FILE, "the file is missing (the manifest serves "
                                                                         f"{manifest['model_file']})")
        return _create(path, manifest, _MODEL)
    state = _parse(path, raw)
    settled = reconcile(path, state, manifest)
    _remove_temporary(path)
    _sync_model_copy(path, manifest)
    if settled != state:
        settled = _write_state(path, settled)
    return settled


def stage(index, model, source):
    """Add ``model`` (a Pipeline or a model file) as a candidate; its version number (an existing
    version's where it is the same model)."""
    from ..pipeline import Pipeline

    path = index.path
    state = ensure(index)
    tmp = path / VERSIONS_DIR / f".stage-{secrets.token_hex(4)}.tmp"
    try:
        if isinstance(model, Pipeline):
            if source is None:
                source = f"{model.method} (Python)"
            model.save(tmp)
        elif isinstance(model, (str, os.PathLike)):
            if source is None:
                source = str(model)
            if not Path(model).is_file():
                raise FileNotFoundError(f"{model}: no such model file" if not Path(model).exists()
                                        else f"{model} is not a model file")
            Pipeline.load(model)      # a damaged file (or not a pipeline's) is refused, named as given
            _copy_durably(model, tmp)
        else:
            raise TypeError(f"a model to stage is a fitted Pipeline or a model file; got {type(model).__name__}")
        if not isinstance(source, str):
            raise TypeError(f"source must be a str; got {type(source).__name__}")
        sha, content = sha256_file(tmp), content_digest(tmp)
        for v in state["versions"]:
            if v["sha256"] == sha or v.get("content_sha256") == content:
                if v["status"] == "retired":
                    # staged again (after a rollback, say): a candidate again, as the caller is told;
                    # it stayed retired, and the next promote found no candidate. Its evidence
                    # starts now: kept from its first staging, the clicks it was promoted on before
                    # the rollback promoted it again at once, with no new search
                    state = json.loads(json.dumps(state))
                    next(e for e in state["versions"] if e["version"] == v["version"]).update(
                        status="candidate", staged_at=time.time())
                    _write_state(path, state)
                return v["version"]
        n = max(v["version"] for v in state["versions"]) + 1
        os.replace(tmp, version_path(path, n))
        fsync_dir(path / VERSIONS_DIR)
    finally:
        tmp.unlink(missing_ok=True)
    state = json.loads(json.dumps(state))
    when = time.time()
    state["versions"].append({"version": n, "sha256": sha, "content_sha256": content, "created": when,
                              "staged_at": when, "source": source, "status": "candidate", "served_from": None,
                              "comparison": None})
    _write_state(path, state)
    return n


def evidence_start(entry):
    """From when clicks are evidence about the version ``entry`` (a dict of :meth:`Index.versions`),
    seconds since 1970: when it was last staged (``staged_at``; ``created`` in a record written
    before it), and for a retired version no earlier than when it was retired (``retired_at``;
    ``served_from`` in an older record: its interleaved searches were all made before it served).
    A version promoted, rolled back and promoted again, staged anew or by number, needs new
    evidence: a candidate is interleaved only while it is one."""
    start = entry.get("staged_at")
    if start is None:
        start = entry["created"]
    if entry.get("status") == "retired":
        retired = entry.get("retired_at")
        if retired is None:
            retired = entry.get("served_from")
        if retired is not None:
            start = max(start, retired)
    return float(start)


def load_version(index, n):
    """The pipeline of version ``n`` (its file checked against versions.json)."""
    state, _ = read_view(index.path)
    entry = _entry(state, _check_version(n))
    return load_pipeline(version_path(index.path, n), entry["sha256"])


def note_comparison(index, n, comparison):
    """Record ``comparison`` (the evidence of a promotion refused) on version ``n``, served or
    not. The lock is held and ``_begin_write`` done by the caller."""
    comparison = _json_safe(comparison)
    state = json.loads(json.dumps(ensure(index)))
    _entry(state, _check_version(n))["comparison"] = comparison
    _write_state(index.path, state)


def _check_version(n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"a model version is a positive integer; got {n!r}")
    return int(n)


def _json_safe(comparison):
    if comparison is None:
        return None
    if not isinstance(comparison, dict):
        raise TypeError(f"comparison must be a dict (the evidence of the promotion); got {type(comparison).__name__}")

    def plain(x):
        if isinstance(x, np.generic):
            return x.item()
        if isinstance(x, np.ndarray):
            return x.tolist()
        raise TypeError(f"{type(x).__name__} is not JSON")

    try:
        return json.loads(json.dumps(comparison, default=plain, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"comparison must be JSON (str keys; numbers, str, lists, dicts; no NaN): {exc}") from None


def rollback_target(state):
    """The version served before the current one: the history replayed as a stack (build and
    promote push, rollback pops), so a second rollback goes one further back."""
    stack = []
    for h in state["history"]:
        if h["action"] == "rollback" and h["version"] in stack:
            while stack[-1] != h["version"]:
                stack.pop()
        elif not stack or stack[-1] != h["version"]:
            stack.append(h["version"])
    current = _served(state)["version"]
    while stack and stack[-1] == current:
        stack.pop()
    if not stack:
        raise ValueError(f"there is no earlier model version to roll back to (version {current} is served and "
                         "no other was served before it)")
    return stack[-1]


def serve(index, version, action, comparison=None):
    """Serve ``version`` (None: the newest candidate): every row recomputed under its pipeline as
    :meth:`Index.reindex` does, in the order of the module notes. The lock is held and
    ``_begin_write`` done by the caller. Returns what :meth:`Index.promote` returns."""

    started = time.perf_counter()
    path = index.path
    comparison = _json_safe(comparison)
    state = ensure(index)
    previous = _served(state)
    if action == "rollback":
        version = rollback_target(state)
    elif version is None:
        candidates = [v["version"] for v in state["versions"] if v["status"] == "candidate"]
        if not candidates:
            raise ValueError("there is no candidate model version to promote: stage one first (Index.stage, or "
                             "'learnsim index promote --model FILE'), or name a version")
        version = max(candidates)
    target = _entry(state, _check_version(version))
    if target["version"] == previous["version"]:
        raise ValueError(f"model version {target['version']} is already served")
    pipeline = load_pipeline(version_path(path, target["version"]), target["sha256"])
    texts, seqs = [], []
    for batch in index.store.live_rows():
        seqs.extend(r[0] for r in batch)
        texts.extend(r[2] for r in batch)
    if not texts:
        raise ValueError("the index has no live document to compute statistics from")
    if model_encoder(pipeline) is not None:
        # the documents' embeddings from the folder beside the index: an adapter over the same
        # encoder re-embeds nothing
        from ..text.encoders import index_embedding_cache

        with index_embedding_cache(path):
            X, statistics = collection_rows(pipeline, texts)     # before anything is written
    else:
        X, statistics = collection_rows(pipeline, texts)         # before anything is written
    when = time.time()
    _write_state(path, dict(state, pending={"version": target["version"], "action": action, "time": when,
                                            "comparison": comparison, "previous": previous["version"]}))
    old = index.manifest
    scorer = pipeline.scorer
    dtype = old["dtype"]
    if dtype == _default_dtype(old["kind"]):
        # the old kind's default dtype (not one the build was asked for): the new kind's, as a
        # build under the new model would choose (a distance needs float64: Index.build)
        dtype = _default_dtype(scorer.kind)
    manifest = dict(old, model_sha256=target["sha256"], model_file=f"{VERSIONS_DIR}/v{target['version']}.npz",
                    kind=scorer.kind, scoring=scorer.name, column=scorer.column,
                    higher_is_closer=bool(scorer.higher_is_closer), method=pipeline.method,
                    encoder=model_encoder(pipeline),
                    rerank=None if pipeline.rerank is None else int(pipeline.rerank.n_candidates), dtype=dtype,
                    covered_seq=max(old["covered_seq"], int(seqs[-1])))
    index.store.close()
    try:
        # statistics, plan, segments, then the manifest: the commit point
        type(index)._finish_build(path, pipeline, manifest, statistics, texts, X, seqs, np.dtype(dtype))
        _sync_model_copy(path, manifest)
        _write_state(path, _apply(state, target["version"], action, when, comparison))
    finally:
        index._load()           # the new manifest, or the old one where the promotion failed before it
    index._pipeline = pipeline if index.manifest["model_sha256"] == target["sha256"] else index._pipeline
    return {"action": action, "version": target["version"], "previous": previous["version"],
            "documents": len(seqs), "scoring": scorer.name, "method": manifest["method"], "comparison": comparison,
            "seconds": round(time.perf_counter() - started, 3)}


# --------------------------------------------------------------------------- verify

def check_versions(path, manifest, bad, check_file):
    """For :func:`learnsim.index._verify.verify_index`: versions.json (its seal and fields, and
    against the manifest) and every version file against its sha256; ``bad(file, problem)``
    records damage, ``check_file(file, sha256)`` checks one file. Returns the sha256s of the
    versions (None where there is no record)."""
    path = Path(path)
    file = path / VERSIONS_DIR / VERSIONS_FILE
    try:
        state = _read_state(path)
        if state is None:
            if manifest.get("model_file") is not None:
                bad(file, f"the file is missing (the manifest serves {manifest['model_file']})")
            elif any(p.name != "v1.npz" for p in (path / VERSIONS_DIR).glob("v*.npz")):
                # later model versions without their record: this index lost its history (deleted
                # or damaged). v1.npz alone is a first record's copy that a crash left before the
                # record was written: the next write writes it, and nothing is lost
                bad(file, "the file is missing, and the versions folder holds later model versions")
            return None
        reconcile(path, state, manifest)
    except IndexDamagedError as exc:
        bad(exc.path, exc.problem)
        return None
    except (IndexFormatError, ValueError) as exc:
        bad(file, str(exc))
        return None
    for v in state["versions"]:
        check_file(version_path(path, v["version"]), v["sha256"])
    return {v["sha256"] for v in state["versions"]}
