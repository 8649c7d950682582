"""Which dictionary a morphological analyser reads with, as a fitted model records it.

A model's vocabulary holds the words its analyser's dictionary cut: read with another dictionary
(a newer sudachidict_core, the full UniDic rather than UniDic lite), a query is cut into other
words, some of which the vocabulary does not hold, and it matches less without a word said.
So a fit records the dictionary's distribution and version (:func:`installed_dictionary`) and a
load compares it with the installed one (:func:`check_dictionary`)."""
from __future__ import annotations

from .._utils.callers import warn_outside

__all__ = ["DICTIONARY_PACKAGES", "installed_dictionary", "check_dictionary", "checked_dictionary"]

#: analyzer -> the distribution holding the dictionary it reads: SudachiPy's ``Dictionary()``
#: without a configuration (as learnsim builds it) loads sudachidict_core's, fugashi is given
#: UniDic lite by name, and jieba's dictionary ships inside jieba.
DICTIONARY_PACKAGES = {"sudachi": "sudachidict-core", "fugashi": "unidic-lite", "jieba": "jieba"}

_WARNED = set()         # (analyzer, recorded, installed) pairs already warned of in this process


def installed_dictionary(analyzer):
    """``{"name": ..., "version": ...}`` of the dictionary ``analyzer`` reads here (importlib
    metadata only: nothing is loaded); None for the rule-based analyzers or where the
    dictionary is not installed."""
    name = DICTIONARY_PACKAGES.get(analyzer)
    if name is None:
        return None
    # imported here: importlib.metadata takes about 20 ms to import, which an index's first
    # search paid for every analyser (this module is on the query plan's path)
    from importlib import metadata

    try:
        return {"name": name, "version": metadata.version(name)}
    except metadata.PackageNotFoundError:
        return None


def checked_dictionary(recorded, where):
    """``recorded`` (a saved model's or plan's record) checked: None or a dict of two str."""
    if recorded is None:
        return None
    if (not isinstance(recorded, dict) or set(recorded) != {"name", "version"}
            or not all(isinstance(v, str) and v for v in recorded.values())):
        raise ValueError(f"{where}: 'dictionary' must be None or {{'name': str, 'version': str}}; got {recorded!r}")
    return dict(recorded)


def check_dictionary(analyzer, recorded, what="the model"):
    """Warn (once a process for one pair) where the dictionary ``recorded`` at fit is not the one
    installed. Nothing recorded (a model saved before the record existed, or a rule-based
    analyzer): nothing said. A dictionary not installed: nothing said here, as the analyser's
    loader raises its own error naming what to install. A record that is not one: ValueError."""
    recorded = checked_dictionary(recorded, what)
    if recorded is None:
        return
    installed = installed_dictionary(analyzer)
    if installed is None or installed == recorded:
        return
    key = (analyzer, recorded["name"], recorded["version"], installed["name"], installed["version"])
    if key in _WARNED:
        return
    _WARNED.add(key)
    warn_outside(f"{what} was fitted with analyzer={analyzer!r} reading the dictionary {recorded['name']} "
                 f"{recorded['version']}, but {installed['name']} {installed['version']} is installed: queries "
                 "may be cut into words its vocabulary does not hold and match less; install "
                 f"{recorded['name']}=={recorded['version']} or fit the model again", UserWarning, stacklevel=2)
