"""What the service says of an OSError met by a write: the machine's refusal (a read-only file or
mount, a full disk or quota, a file-size limit, the disk's own failure), answered 503 with
Retry-After, or None for anything else (a bug: 500). numpy's short write of an array, which has no
number, reaches here as ENOSPC (learnsim._utils.files.save_npy, which the index writes its arrays
with). Only the standard library is imported here."""
from __future__ import annotations

import errno


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
    return None
