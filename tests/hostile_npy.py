"""Forged .npy files for the tests of every reader of one (index segments, ANN ids, distributed
partitions, version snapshots): a header that says what the test wants over whatever body."""
import io

import numpy as np


def npy(shape, body=b"", descr="<i8"):
    """A .npy file's bytes with this header and ``body`` as its data (a forged file)."""
    header = repr({"descr": descr, "fortran_order": False, "shape": shape}).encode("latin1")
    header += b" " * ((64 - (len(header) + 11) % 64) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + body


def object_npy():
    """A .npy file of an object array (its items pickled)."""
    buf = io.BytesIO()
    np.save(buf, np.array([1, "x", None], dtype=object), allow_pickle=True)
    return buf.getvalue()
