"""What a model was fitted on, kept small enough to travel in its model file.

A figure measured on the texts a model was fitted on says what it remembers, not how it does on
new texts: ``learnsim evaluate`` on a fit's own notes gave learned 1.000 (1.19x the strongest
baseline) without a word, the model keeping nothing of what it had seen. A fit now records
:class:`TrainingTexts`: for every text it was given (the supervision's texts: the labelled
documents, both sides of the pairs, the queries and corpus of judgements, the anchors and items
of triplets and links) the first 8 bytes of the blake2b digest of the text read as the same
text whatever its form (NFC, runs of white space as one space, ends stripped, casefolded), as a
sorted array of distinct uint64 keys. Texts cannot be read back from it.

Above :data:`MAX_KEYS` distinct texts the array keeps the :data:`MAX_KEYS` smallest keys (a
bottom-k sample: the digest is the seed-free "seeded" draw, the same on every run and every
machine) and says it was sampled: a text whose key is at most the largest kept one is then
still looked up exactly, and the share of those found estimates the share of all texts seen.

It sits below :mod:`learnsim.fitting` (which records it through :func:`fingerprinted`) and
:mod:`learnsim.pipeline` (which keeps and saves it as the part ``"training"``); it imports
neither.
"""
from __future__ import annotations

import contextvars
import functools
import hashlib
import re
import unicodedata

import numpy as np

#: the most keys a model file holds (8 bytes each: 800,000 bytes at most)
MAX_KEYS = 100_000
#: how a text is read before it is hashed; a model file of another scheme is refused, not misread
SCHEME = "blake2b-64 of NFC, white space collapsed, casefolded UTF-8"

_SPACE = re.compile(r"\s+")
_recording = contextvars.ContextVar("learnsim_recording_training_texts", default=False)


def text_key(text):
    """The uint64 key of ``text`` (an int)."""
    read = _SPACE.sub(" ", unicodedata.normalize("NFC", str(text))).strip().casefold()
    # surrogatepass: a text decoded with errors="surrogateescape" has a key too
    digest = hashlib.blake2b(read.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def text_keys(texts):
    """The keys of ``texts``, one per text, in order (uint64 array)."""
    return np.fromiter((text_key(t) for t in texts), dtype=np.uint64, count=len(texts))


class TrainingTexts:
    """The fingerprint of the texts a model was fitted on (a Pipeline's part ``"training"``).

    Attributes
    ----------
    keys : numpy.ndarray of uint64
        Sorted distinct keys (:func:`text_key`), at most :data:`MAX_KEYS`.
    n_texts : int
        Distinct texts the fit was given (by key).
    sampled : bool
        True when ``n_texts`` exceeds the keys kept (the smallest :data:`MAX_KEYS` kept).
    """

    def __init__(self, keys, n_texts):
        keys = np.asarray(keys)
        if keys.ndim != 1 or keys.dtype != np.uint64:
            raise ValueError(f"training keys must be a 1-D uint64 array; got {keys.ndim}-D {keys.dtype}")
        if keys.size > MAX_KEYS:
            raise ValueError(f"training keys hold {keys.size} keys; a model keeps at most {MAX_KEYS}")
        if keys.size > 1 and not np.all(keys[1:] > keys[:-1]):
            raise ValueError("training keys must be sorted and distinct")
        if isinstance(n_texts, bool) or not isinstance(n_texts, (int, np.integer)) or n_texts < keys.size:
            raise ValueError(f"n_texts must be an int of at least the {keys.size} keys; got {n_texts!r}")
        if n_texts > keys.size and keys.size < MAX_KEYS:
            raise ValueError(f"{n_texts} texts with {keys.size} keys: a sample keeps {MAX_KEYS} keys")
        self.keys, self.n_texts = keys, int(n_texts)

    @property
    def sampled(self):
        return self.n_texts > self.keys.size

    @classmethod
    def of(cls, texts):
        """The fingerprint of ``texts`` (a sequence of str)."""
        keys = np.unique(text_keys(texts))          # sorted: the bottom-k sample is its head
        return cls(keys[:MAX_KEYS].copy(), keys.size)

    def seen(self, texts):
        """(found, covered): boolean arrays over ``texts``: its key is held; it could be (all
        True unless sampled: the key is at most the largest kept)."""
        keys = text_keys(texts)
        if not self.keys.size:
            return np.zeros(keys.size, bool), np.zeros(keys.size, bool)
        at = np.minimum(np.searchsorted(self.keys, keys), self.keys.size - 1)
        found = self.keys[at] == keys
        covered = keys <= self.keys[-1] if self.sampled else np.ones(keys.size, bool)
        return found, covered

    def count(self, texts):
        """How many of ``texts`` the model was fitted on: ``{"seen": n, "of": len(texts)}``, with
        ``"estimated": True`` where the fingerprint was sampled (``seen`` is then the share found
        among the texts it covers, scaled to all of them)."""
        found, covered = self.seen(texts)
        n = int(found.sum())
        if not self.sampled:
            return {"seen": n, "of": len(found)}
        n_covered = int(covered.sum())
        seen = round(n * len(found) / n_covered) if n_covered else 0
        # a text found is seen for certain: the estimate is never below them
        return {"seen": max(n, min(seen, len(found))), "of": len(found), "estimated": True}

    def __repr__(self):
        return f"TrainingTexts({self.n_texts} texts{', sampled' if self.sampled else ''})"

    # ------------------------------------------------------------------ persistence
    def _get_state(self):
        return {"scheme": SCHEME, "n_texts": self.n_texts}, {"keys": self.keys}

    @classmethod
    def _from_state(cls, meta, arrays):
        if meta.get("scheme") != SCHEME:
            raise ValueError(f"training texts keyed by {meta.get('scheme')!r}; this learnsim reads {SCHEME!r}")
        if set(arrays) != {"keys"}:
            raise ValueError(f"training texts hold arrays {sorted(arrays)}; expected 'keys'")
        return cls(arrays["keys"], meta.get("n_texts"))


def fingerprinted(*fits):
    """``fits`` (the fit_* functions of :mod:`learnsim.fitting`, each ``(o, texts, ...)`` returning a
    FitResult), each wrapped to record :class:`TrainingTexts` of its ``texts`` in the pipeline it
    returns: one place for every method, whichever entry (``learnsim.fit``, the CLI's fit_*)
    is called. A fit called inside another (a check refitting on part of the texts) records
    nothing: the outermost one's texts are what the model saw."""
    def wrap(fit):
        @functools.wraps(fit)
        def recorded(*args, **kwargs):
            if _recording.get():
                return fit(*args, **kwargs)
            token = _recording.set(True)
            try:
                result = fit(*args, **kwargs)
            finally:
                _recording.reset(token)
            texts = kwargs["texts"] if "texts" in kwargs else args[1]
            result.pipeline.training = TrainingTexts.of(texts)
            return result
        return recorded
    return tuple(wrap(fit) for fit in fits)
