"""Loaded by Python at start-up when this folder is on PYTHONPATH (tests/system/test_privacy.py runs `studio launch`
so): every connection or name look-up for a host off this computer is refused and written to the file named by
STUDIO_NET_LOG, with the code that asked for it."""

import ipaddress
import os
import socket
import traceback

LOG = os.environ.get("STUDIO_NET_LOG")
LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", ""}


def _local(host) -> bool:
    if host is None:
        return True
    host = host.decode() if isinstance(host, bytes) else str(host)
    if host.lower() in LOCAL_NAMES:
        return True
    try:
        address = ipaddress.ip_address(host.split("%")[0].strip("[]"))
    except ValueError:
        return False  # a name: looking it up would ask a DNS server
    return address.is_loopback or address.is_unspecified


def _refuse(what: str):
    with open(LOG, "a", encoding="utf-8") as log:
        log.write(f"{what}\n{''.join(traceback.format_stack()[-30:])}\n")
    raise OSError(f"refused by the test's network guard: {what}")


if LOG:
    _connect, _connect_ex, _getaddrinfo = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo

    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _local(address[0]):
            _refuse(f"connect {address[0]}:{address[1]}")
        return _connect(self, address)

    def connect_ex(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _local(address[0]):
            _refuse(f"connect {address[0]}:{address[1]}")
        return _connect_ex(self, address)

    def getaddrinfo(host, *args, **kwargs):
        if not _local(host):
            _refuse(f"look up {host}")
        return _getaddrinfo(host, *args, **kwargs)

    socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo = connect, connect_ex, getaddrinfo
