"""Private helpers shared by every package of learnsim: input checks (``validation``), progress
bars (``progress``), linear algebra (``linalg``), file digests (``files``), the behaviour of
every learned Mahalanobis-type metric (``metric``) and the checks of untrusted input: JSON depth
and duplicate keys, texts with nothing to search for (``inputs``)."""
