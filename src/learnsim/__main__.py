"""``python -m learnsim``: the same as the ``learnsim`` command."""
from learnsim._console import run

raise SystemExit(run())
