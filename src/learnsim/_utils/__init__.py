"""Private helpers shared by every package of learnsim: input checks (``validation``), progress
bars (``progress``), linear algebra (``linalg``), file digests (``files``) and the behaviour of
every learned Mahalanobis-type metric (``metric``)."""
