"""Where embeddings are kept when no :func:`learnsim.text.encoders.embedding_cache` block says
otherwise: the command line sets the folder beside the model or index of each command, without
importing the encoders (standard library only: an index search must start without
scikit-learn)."""
from __future__ import annotations

__all__ = ["default_embedding_fallbacks", "default_embedding_folder", "set_default_embedding_folder"]

_DEFAULT = [(None, ())]


def set_default_embedding_folder(path, also_read=()):
    """Make ``path`` (or None: none) the embedding cache of encoders outside any
    ``embedding_cache`` block, and ``also_read`` folders whose vectors are taken (and copied into
    ``path``) where ``path`` lacks them, e.g. the model's beside an index built from it; returns
    the previous ``(path, also_read)`` (``set_default_embedding_folder(*previous)`` restores it)."""
    previous = _DEFAULT[0]
    _DEFAULT[0] = (None if path is None else str(path), tuple(str(p) for p in also_read))
    return previous


def default_embedding_folder():
    """The folder :func:`set_default_embedding_folder` set, or None."""
    return _DEFAULT[0][0]


def default_embedding_fallbacks():
    """The folders read where :func:`default_embedding_folder` lacks a vector."""
    return _DEFAULT[0][1] if _DEFAULT[0][0] is not None else ()
