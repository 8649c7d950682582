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
#: without a configuration (as learnsim builds it) loads sudachidict_core's unless SudachiPy is
#: set to another (:func:`_sudachi_dictionary`), fugashi is given
#: UniDic lite by name, and jieba's dictionary ships inside jieba.
DICTIONARY_PACKAGES = {"sudachi": "sudachidict-core", "fugashi": "unidic-lite", "jieba": "jieba"}

_WARNED = set()         # (analyzer, recorded, installed) pairs already warned of in this process


def installed_dictionary(analyzer):
    """``{"name": ..., "version": ...}`` of the dictionary ``analyzer`` reads here (importlib
    metadata and SudachiPy's settings file only: nothing is loaded); None for the rule-based
    analyzers or where the dictionary is not installed."""
    name = DICTIONARY_PACKAGES.get(analyzer)
    if name is None:
        return None
    # imported here: importlib.metadata takes about 20 ms to import, which an index's first
    # search paid for every analyser (this module is on the query plan's path)
    from importlib import metadata

    if analyzer == "sudachi":
        return _sudachi_dictionary(metadata)
    try:
        return {"name": name, "version": metadata.version(name)}
    except metadata.PackageNotFoundError:
        return None


_SUDACHI_TYPES = ("small", "core", "full")


def _sudachi_dictionary(metadata):
    """The system dictionary SudachiPy's ``Dictionary()`` without arguments reads (as
    learnsim's analyser builds it), found as SudachiPy finds it: not always sudachidict_core.
    SudachiPy before 0.6 reads the package ``sudachidict``, the link ``sudachipy link -t full``
    makes to sudachidict_full (or _small); any version reads the ``systemDict`` of its own
    settings file (``sudachipy/resources/sudachi.json``) where one is set there. Recording core
    for these made a model fitted with the full dictionary check itself against core."""
    import importlib.util
    import json
    import os

    spec = importlib.util.find_spec("sudachipy")
    if spec is None or spec.origin is None:
        return None
    resources = os.path.join(os.path.dirname(spec.origin), "resources")
    try:
        with open(os.path.join(resources, "sudachi.json"), encoding="utf-8") as f:
            system = json.load(f).get("systemDict")
    except (OSError, ValueError, AttributeError):
        system = None
    try:
        legacy = tuple(int(p) for p in metadata.version("sudachipy").split(".")[:2]) < (0, 6)
    except (metadata.PackageNotFoundError, ValueError):
        legacy = False
    if isinstance(system, str) and system:
        path = os.path.join(resources, system)     # an absolute path stays itself
        if not legacy and system in _SUDACHI_TYPES and not os.path.exists(path):
            path = _package_dictionary(f"sudachidict_{system}")    # 0.6 and later: a type named
    elif legacy and importlib.util.find_spec("sudachidict") is not None:
        path = _package_dictionary("sudachidict")
    else:
        path = _package_dictionary("sudachidict_core")
    if path is None or not os.path.isfile(path):
        return None
    real = os.path.realpath(path)
    for kind in _SUDACHI_TYPES:
        packaged = _package_dictionary(f"sudachidict_{kind}")
        if packaged is not None and os.path.realpath(packaged) == real:
            try:
                return {"name": f"sudachidict-{kind}", "version": metadata.version(f"sudachidict-{kind}")}
            except metadata.PackageNotFoundError:
                break
    # a dictionary file of no package (one built with sudachipy build): its name, size and time
    stat = os.stat(real)
    return {"name": os.path.basename(real), "version": f"{stat.st_size} bytes, modified {int(stat.st_mtime)}"}


def _package_dictionary(package):
    """``<package>/resources/system.dic`` of an installed package, or None."""
    import importlib.util
    import os

    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    return os.path.join(os.path.dirname(spec.origin), "resources", "system.dic")


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
    read here. Nothing recorded (a model saved before the record existed, or a rule-based
    analyzer): nothing said, but for fugashi where the full UniDic is installed
    (:func:`_check_unrecorded_fugashi`). A dictionary not installed: nothing said here, as the
    analyser's loader raises its own error naming what to install. A record that is not one:
    ValueError."""
    recorded = checked_dictionary(recorded, what)
    if recorded is None:
        if analyzer == "fugashi":
            _check_unrecorded_fugashi(what)
        return
    installed = installed_dictionary(analyzer)
    if installed is None or installed == recorded:
        return
    key = (analyzer, recorded["name"], recorded["version"], installed["name"], installed["version"])
    if key in _WARNED:
        return
    _WARNED.add(key)
    warn_outside(f"{what} was fitted with analyzer={analyzer!r} reading the dictionary {recorded['name']} "
                 f"{recorded['version']}, but it reads {installed['name']} {installed['version']} here: queries "
                 "may be cut into words its vocabulary does not hold and match less; install "
                 f"{recorded['name']}=={recorded['version']} (and read with it) or fit the model again",
                 UserWarning, stacklevel=2)


def _check_unrecorded_fugashi(what):
    """A fugashi model that records no dictionary was fitted before learnsim recorded one, and
    perhaps before it gave fugashi UniDic lite by name: ``fugashi.Tagger()`` then read with the
    full UniDic (the ``unidic`` distribution) wherever that was installed, and its queries are
    now read with UniDic lite, cut into other words, without a word said. Where the full UniDic
    is installed here, it is likely the one such a model was fitted with: warn, naming both."""
    from importlib import metadata

    try:
        full = f"unidic {metadata.version('unidic')}"
    except metadata.PackageNotFoundError:
        return
    lite = installed_dictionary("fugashi")
    lite = "UniDic lite" if lite is None else f"{lite['name']} {lite['version']}"
    key = ("fugashi", None, None, full, lite)
    if key in _WARNED:
        return
    _WARNED.add(key)
    warn_outside(f"{what} was fitted with analyzer='fugashi' and records no dictionary: learnsim read "
                 f"with the full UniDic ({full}, installed here) wherever it was installed before it took "
                 f"UniDic lite by name and recorded the dictionary, and queries are now read with {lite}, which cuts some words otherwise, so they may match "
                 "less; fit the model again to record the dictionary (it is then read with UniDic lite)",
                 UserWarning, stacklevel=2)
