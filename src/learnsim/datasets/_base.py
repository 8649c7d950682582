"""The data directory, where the loaders find the named corpora, and helpers the loaders share."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .._utils.inputs import id_by_value

DATA_ENV_VAR = "LEARNSIM_DATA"


def _package_data_dir() -> Path:
    # src/learnsim/datasets/_base.py -> repository root is parents[3]; the corpora sit beside it.
    return Path(__file__).resolve().parents[4] / "shared" / "data"


def find_data_dir(data_dir=None) -> Path:
    """Return the folder that holds the corpora.

    Tried in order:

    1. ``data_dir`` if given;
    2. the ``LEARNSIM_DATA`` environment variable if set;
    3. ``../shared/data`` relative to the current working directory;
    4. ``../shared/data`` relative to the repository that contains this package.

    An explicitly given ``data_dir`` or ``LEARNSIM_DATA`` must exist: falling back to
    another folder would silently read data the caller did not ask for.

    Parameters
    ----------
    data_dir : str or path-like, optional
        Folder laid out like the project's ``../shared/data``.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FileNotFoundError
        If the chosen folder does not exist, or none of the defaults does.

    Examples
    --------
    >>> from learnsim.datasets import find_data_dir
    >>> find_data_dir().name       # ../shared/data or $LEARNSIM_DATA, where present  # doctest: +SKIP
    'data'
    >>> find_data_dir("no/such/folder")
    Traceback (most recent call last):
        ...
    FileNotFoundError: ...
    """
    hint = (f"pass data_dir (--data-dir on the command line) or set {DATA_ENV_VAR} to a folder "
            "laid out like the project's ../shared/data (20newsgroups/, flickr8k-captions/, ...)")
    if data_dir is not None:
        if isinstance(data_dir, str) and not data_dir.strip():
            raise ValueError("data_dir is an empty string; pass a folder or None to use the defaults")
        path = Path(data_dir).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(f"data_dir {str(path)!r} is not an existing folder; {hint}")
        return path
    env = os.environ.get(DATA_ENV_VAR)
    if env:
        path = Path(env).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(f"{DATA_ENV_VAR}={env!r} is not an existing folder; {hint}")
        return path
    candidates = [Path.cwd().parent / "shared" / "data", _package_data_dir()]
    for path in candidates:
        if path.is_dir():
            return path
    tried = ", ".join(str(p) for p in candidates)
    raise FileNotFoundError(f"no data directory found ({DATA_ENV_VAR} is not set; tried {tried}); {hint}")


def _corpus_file(data_dir, relpaths, corpus, source):
    """Find one of ``relpaths`` under the data dir, or under ``data_dir`` itself when the
    caller pointed straight at the corpus folder."""
    root = find_data_dir(data_dir)
    tried = []
    for rel in relpaths:
        for path in (root / rel, root / Path(rel).name):
            if path.is_file():
                return path
            if path not in tried:
                tried.append(path)
    raise FileNotFoundError(
        f"{corpus} not found: tried {', '.join(str(p) for p in tried)}. {source}")


def _object_array(values):
    # Object arrays, not numpy's fixed-width strings: one long question would otherwise set
    # the width (and the memory) of every entry.
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr


def _readonly_copy(values, dtype=None):
    arr = np.array(values, dtype=dtype)
    arr.setflags(write=False)
    return arr


def _normalise_id(raw):
    # "001" in cran.qry and "1" in a qrels file name the same record
    return id_by_value(raw)


def read_parquet_frame(path):
    """A ``.parquet`` file as a pandas DataFrame; pandas and pyarrow are needed (an ImportError
    names them) and imported only here."""
    path = Path(path)
    if not path.is_file():
        raise (IsADirectoryError(f"{path} is a folder, not a file") if path.is_dir()
               else FileNotFoundError(f"{path}: no such file"))
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(f"{path}: reading a .parquet file needs pandas and pyarrow: pip install pandas pyarrow") \
            from None
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ImportError(f"{path}: reading a .parquet file needs pyarrow: pip install pyarrow") from None
    return pd.read_parquet(path, engine="pyarrow")



def chosen_categories(categories, all_names, what):
    """The sorted names a loader's ``categories=`` keeps (None: ``all_names``), or a ValueError
    naming the unknown ones (``what``: how the loader calls them, "groups", "categories")."""
    if categories is None:
        return list(all_names)
    if isinstance(categories, str):
        categories = [categories]
    unknown = sorted(set(categories) - set(all_names))
    if unknown:
        raise ValueError(f"unknown categories {unknown}; the {what} are {all_names}")
    if not categories:
        raise ValueError(f"categories is empty; pass None for all {what}")
    return sorted(set(categories))
