"""The Flickr8k captions: the five captions of an image form a cluster."""
from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from ._base import _corpus_file
from ._decode import check_encoding_errors, decoded_lines

_FLICKR_DIR = "flickr8k-captions"
_FLICKR_TOKENS = ("Flickr8k.token.txt.gz", "Flickr8k.token.txt")
_FLICKR_SPLITS = ("train", "dev", "test")


def _read_flickr_captions(path, encoding_errors):
    image_ids, captions, targets = [], [], []
    image_index = {}
    seen = set()
    expected = "expected '<image>.jpg#<n><TAB><caption>'"
    for number, line in decoded_lines(path, encoding_errors=encoding_errors):
        if not line.strip():
            continue
        caption_id, tab, caption = line.partition("\t")
        if not tab:
            raise ValueError(f"{path}, line {number}: no tab separator; {expected}, got {line[:80]!r}")
        image_id, hash_, caption_number = caption_id.strip().rpartition("#")
        if not hash_ or not image_id or not caption_number.isdigit():
            raise ValueError(f"{path}, line {number}: caption id {caption_id[:80]!r} is not "
                             f"'<image>#<n>'; {expected}")
        caption = caption.strip()
        if not caption:
            raise ValueError(f"{path}, line {number}: empty caption for {caption_id!r}")
        key = (image_id, int(caption_number))
        if key in seen:
            raise ValueError(f"{path}, line {number}: duplicate caption id {caption_id!r}")
        seen.add(key)
        if image_id not in image_index:
            image_index[image_id] = len(image_ids)
            image_ids.append(image_id)
        captions.append(caption)
        targets.append(image_index[image_id])
    if not captions:
        raise ValueError(f"{path} contains no captions")
    return captions, np.array(targets, dtype=np.int64), image_ids


def _read_flickr_split(folder, split, known_images, encoding_errors):
    path = folder / f"Flickr_8k.{split}Images.txt"
    if not path.is_file():
        raise FileNotFoundError(f"split list {path} not found (needed for split={split!r}); "
                                "it comes with Flickr8k.token.txt in the Flickr8k_text package")
    listed = [line.strip() for _number, line in decoded_lines(path, encoding_errors=encoding_errors)
              if line.strip()]
    missing = [image for image in listed if image not in known_images]
    if missing:
        raise ValueError(f"{path} lists {len(missing)} image(s) with no captions, e.g. "
                         f"{missing[0]!r}; the split list and the caption file do not match")
    return set(listed)


def load_flickr8k_captions(data_dir=None, split=None, *, encoding_errors="replace"):
    """Load the Flickr8k captions: the five captions of an image form a cluster.

    Parameters
    ----------
    data_dir : path-like, optional
        Data directory (see :func:`find_data_dir`); files are read from
        ``<data_dir>/flickr8k-captions/``. A plain ``Flickr8k.token.txt`` is used when
        the gzipped copy is absent.
    split : {None, "train", "dev", "test"}, default=None
        Keep only the images of ``Flickr_8k.<split>Images.txt``. ``None`` keeps every
        image in the caption file (8,092, including the 92 that are in no split list).
    encoding_errors : {"replace", "strict"}, default="replace"
        Bytes that are not UTF-8 become U+FFFD, with one
        :class:`~learnsim.datasets.UndecodableBytesWarning` per file counting the lines
        affected; ``"strict"`` raises :class:`~learnsim.datasets.DocumentFormatError` instead.

    Returns
    -------
    Bunch
        ``data`` (captions), ``target`` (cluster id of each caption, an index into
        ``image_ids``), ``image_ids`` (image file names, in caption-file order), ``split``.
        The order follows the caption file, so it is the same on every call.

    Raises
    ------
    ValueError
        On a malformed line (the message names the file and line number) or a split list
        that names images without captions.

    Examples
    --------
    Needs ``flickr8k-captions`` in ../shared/data (or ``$LEARNSIM_DATA``):

    >>> from learnsim.datasets import load_flickr8k_captions
    >>> captions = load_flickr8k_captions()               # doctest: +SKIP
    >>> len(captions.data), len(set(captions.image_ids))  # doctest: +SKIP
    (40460, 8092)
    """
    if split is not None and split not in _FLICKR_SPLITS:
        raise ValueError(f"split must be None, 'train', 'dev' or 'test'; got {split!r}")
    check_encoding_errors(encoding_errors)
    path = _corpus_file(data_dir, [f"{_FLICKR_DIR}/{name}" for name in _FLICKR_TOKENS],
                        "Flickr8k captions",
                        "They are in the Flickr8k_text package of Hodosh et al. (2013).")
    captions, targets, image_ids = _read_flickr_captions(path, encoding_errors)
    if split is not None:
        keep_images = _read_flickr_split(path.parent, split, set(image_ids), encoding_errors)
        kept_ids = [image for image in image_ids if image in keep_images]
        remap = np.full(len(image_ids), -1, dtype=np.int64)
        remap[[i for i, image in enumerate(image_ids) if image in keep_images]] = np.arange(len(kept_ids))
        new_targets = remap[targets]
        mask = new_targets >= 0
        captions = [c for c, keep in zip(captions, mask) if keep]
        targets, image_ids = new_targets[mask], kept_ids
    return Bunch(data=captions, target=targets, image_ids=image_ids, split=split)
