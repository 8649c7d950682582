"""Where embeddings are kept when no :func:`learnsim.text.encoders.embedding_cache` block says
otherwise: the command line sets the folder beside the model or index of each command, without
importing the encoders (standard library only: an index search must start without
scikit-learn)."""
from __future__ import annotations

__all__ = ["default_embedding_folder", "set_default_embedding_folder"]

_DEFAULT = [None]


def set_default_embedding_folder(path):
    """Make ``path`` (or None: none) the embedding cache of encoders outside any
    ``embedding_cache`` block; returns the previous one."""
    previous, _DEFAULT[0] = _DEFAULT[0], None if path is None else str(path)
    return previous


def default_embedding_folder():
    """The folder :func:`set_default_embedding_folder` set, or None."""
    return _DEFAULT[0]
