"""Addresses: which ``--host`` is this machine alone (the command line and the service agree)."""
from __future__ import annotations

import ipaddress

__all__ = ["is_loopback"]


def is_loopback(host):
    """Whether ``host`` (``--host``) is this machine alone: a loopback address, or localhost.

    Examples
    --------
    >>> from learnsim._utils.net import is_loopback
    >>> is_loopback("127.0.0.1"), is_loopback("[::1]"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, True, False)
    """
    host = str(host).strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
