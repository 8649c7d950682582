"""``python -m learnsim``: the same as the ``learnsim`` command."""
from learnsim.cli import run

raise SystemExit(run())
