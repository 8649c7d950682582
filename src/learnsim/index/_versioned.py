"""The model versions of an index (:class:`ModelVersions`, a base of :class:`~learnsim.index.Index`):
list them, stage a candidate, promote one, roll back, and record what a comparison found. The
record and the order of the writes that keep a promotion atomic are :mod:`._versions`'."""
from __future__ import annotations

from .._utils.progress import stage_for, with_show_progress_bar
from . import _versions
from ._integrity import sqlite_guarded as _sqlite_guarded

__all__ = ["ModelVersions"]


class ModelVersions:
    """The version methods of :class:`~learnsim.index.Index` (they use its path, manifest, lock
    and loading)."""

    @property
    def model_version(self):
        """The number of the model version this handle serves (1 for an index built before
        versions were recorded), as of the last change it saw; see :meth:`versions`."""
        # read once per model: only a new manifest (a promotion, a rollback) changes the model it
        # serves, and the service asks at every search it logs
        sha = self.manifest["model_sha256"]
        cached = getattr(self, "_model_version", None)
        if cached is None or cached[0] != sha:
            cached = self._model_version = (sha, _versions.served_version(self.path, self.manifest))
        return cached[1]

    @_sqlite_guarded
    def versions(self):
        """Every model version of the index, oldest first: the model it was built with (version 1),
        those staged (:meth:`stage`) and those promoted or rolled back to.

        Each is a dict: ``version``, ``sha256`` (of its file, ``versions/v<N>.npz``), ``created``
        and ``served_from`` (seconds since 1970; ``served_from`` None for one never served),
        ``source`` (a note: the model file it came from, ...), ``status`` ("served" for exactly
        one, "candidate" for one staged and never served, "retired" for one served before),
        ``comparison`` (the evidence its last promotion was given, or None) and, where written,
        ``staged_at`` and ``retired_at`` (when it was last staged and last stopped being served:
        the evidence of a promotion counts from them, :func:`learnsim.feedback.promotion_evidence`).
        An index built before versions has one, its model; it is written down at the first write
        of a version (a read writes nothing: the service reads versions at each page view and
        interleaved search).

        Examples
        --------
        >>> import os, tempfile
        >>> import learnsim
        >>> from learnsim.index import Index
        >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
        ...          "refund for a double charge", "app crashes on start", "crash after the update"]
        >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])   # too few to check: warns
        >>> index = Index.build(os.path.join(tempfile.mkdtemp(), "index"), model, texts)
        >>> [(v["version"], v["status"], v["source"]) for v in index.versions()]
        [(1, 'served', 'build')]
        >>> index.model_version
        1
        """
        self._see_changes()
        # read_view gives an index built before versions its implicit record, without writing
        state, _ = _versions.read_view(self.path)
        return [dict(v) for v in state["versions"]]

    @_sqlite_guarded
    def stage(self, pipeline, *, source=None):
        """Add a model as a candidate version, to :meth:`promote` later; returns its number.

        Nothing served changes: the model file is copied into ``versions/`` (a model whose
        content is that of a version already there is that version: its number is returned).
        Any fitted pipeline can serve the index's documents: its rows are computed from their
        texts when it is promoted.

        Parameters
        ----------
        pipeline : learnsim.pipeline.Pipeline or str or Path
            The fitted pipeline, or a model file written by ``learnsim fit`` (a damaged one is
            refused: ModelFormatError).
        source : str, optional
            A note kept with the version (default: the model file's path, or the metric's name).

        Returns
        -------
        int

        Examples
        --------
        >>> import os, tempfile
        >>> import learnsim
        >>> from learnsim.index import Index
        >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
        ...          "refund for a double charge", "app crashes on start", "crash after the update"]
        >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])   # too few to check: warns
        >>> index = Index.build(os.path.join(tempfile.mkdtemp(), "index"), model, texts)
        >>> other = learnsim.fit(texts, clusters=[0, 0, 0, 1, 1, 1], baseline_holdout=None)  # mcd: not the baseline
        >>> index.stage(other, source="refit"), index.stage(other), index.stage(model)
        (2, 2, 1)
        >>> [(v["version"], v["status"]) for v in index.versions()]
        [(1, 'served'), (2, 'candidate')]
        """
        with self._lock():
            self._begin_write()
            return _versions.stage(self, pipeline, source)

    @_sqlite_guarded
    @with_show_progress_bar
    def promote(self, version=None, *, comparison=None):
        """Serve another model version: every row (and the collection statistics, the query plan,
        the re-ranker's setting) recomputed under its pipeline, as :meth:`reindex` does; the index
        then equals one built from its live documents under that model.

        The manifest, written last and atomically, is the commit point: a crash at any moment
        leaves the old model with the old rows or the new with the new, and a handle open in
        another process serves the new model from its next read on (see
        :mod:`learnsim.index._versions`). The version served before is marked "retired";
        :meth:`rollback` serves it again.

        Parameters
        ----------
        version : int, optional
            The version to serve (a candidate, or a retired one); default: the newest candidate.
        comparison : dict, optional
            The evidence the promotion rests on (learnsim.feedback's comparison of the candidate
            with the served model), JSON, kept with the version.
        show_progress_bar : bool or None, default=None
            As for :meth:`reindex`.

        Returns
        -------
        dict
            ``action``, ``version``, ``previous``, ``documents``, ``scoring``, ``method``,
            ``comparison``, ``seconds``.

        Examples
        --------
        >>> import os, tempfile
        >>> import learnsim
        >>> from learnsim.index import Index
        >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
        ...          "refund for a double charge", "app crashes on start", "crash after the update"]
        >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])   # too few to check: warns
        >>> index = Index.build(os.path.join(tempfile.mkdtemp(), "index"), model, texts)
        >>> index.stage(learnsim.fit(texts, clusters=[0, 0, 0, 1, 1, 1], baseline_holdout=None))  # mcd
        2
        >>> result = index.promote(comparison={"better": True, "reason": "more clicks"})
        >>> result["version"], result["previous"], index.model_version
        (2, 1, 2)
        >>> [(v["version"], v["status"]) for v in index.versions()]
        [(1, 'retired'), (2, 'served')]
        """
        n = len(self)
        with self._lock(), stage_for(f"index: promoting a model version over {n} documents", n):
            self._begin_write()
            return _versions.serve(self, version, "promote", comparison)

    @_sqlite_guarded
    @with_show_progress_bar
    def rollback(self):
        """Serve again the model version served before the current one (as :meth:`promote`
        does); a second rollback goes one further back. ValueError when none was served before.

        Returns
        -------
        dict
            As :meth:`promote` returns (``action`` "rollback").

        Examples
        --------
        >>> import os, tempfile
        >>> import learnsim
        >>> from learnsim.index import Index
        >>> texts = ["how do I reset my password", "forgot my password", "I was charged twice",
        ...          "refund for a double charge", "app crashes on start", "crash after the update"]
        >>> model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])   # too few to check: warns
        >>> index = Index.build(os.path.join(tempfile.mkdtemp(), "index"), model, texts)
        >>> other = learnsim.fit(texts, clusters=[0, 0, 0, 1, 1, 1], baseline_holdout=None)  # mcd: not the baseline
        >>> index.promote(index.stage(other))["version"]
        2
        >>> index.rollback()["version"], index.model_version
        (1, 1)
        """
        n = len(self)
        with self._lock(), stage_for(f"index: rolling back the model over {n} documents", n):
            self._begin_write()
            return _versions.serve(self, None, "rollback")

    @_sqlite_guarded
    def version_pipeline(self, version):
        """The fitted pipeline of model ``version`` (its file checked against its record), served
        or not: what interleaving ranks a candidate with."""
        self._see_changes()
        return _versions.load_version(self, version)

    @_sqlite_guarded
    def record_comparison(self, version, comparison):
        """Keep ``comparison`` (a JSON dict: the evidence of a promotion that was refused) as model
        ``version``'s last comparison, shown by :meth:`versions` and the service's ``/v1/info``."""
        with self._lock():
            self._begin_write()
            _versions.note_comparison(self, version, comparison)
