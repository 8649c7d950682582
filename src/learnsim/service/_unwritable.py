"""What the service says of an OSError met by a write: the machine's refusal (a read-only file or
mount, a full disk or quota, a file-size limit, the disk's own failure), answered 503 with
Retry-After, or None for anything else (a bug: 500). Only the standard library is imported here."""
from __future__ import annotations

import errno
import re

# an OSError's numbers that say a write cannot be made here (besides PermissionError)
_UNWRITABLE_ERRNOS = (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG)
# numpy's short write of an array (np.save: "6288 requested and 5104 written"), an OSError with
# no number: what a full disk or a file-size limit makes of np.save, which was a 500
_SHORT_WRITE = re.compile(r"\d+ requested and \d+ written")


def unwritable_reason(exc):
    """Why a write met the OSError ``exc`` (a few words for the answer), or None when ``exc`` is
    not the machine refusing a write."""
    number = exc.errno
    if isinstance(exc, PermissionError) or number in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "its files are read-only here"
    if number in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full"
    if number == errno.EFBIG:
        return "a file would pass the size limit of files here"
    if number == errno.EIO:
        return "an input/output error"
    if number is None and _SHORT_WRITE.fullmatch(str(exc)):
        return "the disk took part of a write: it is full, or a file would pass the size limit of files here"
    return None
