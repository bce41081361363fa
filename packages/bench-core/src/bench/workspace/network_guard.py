"""The offline guard: while it is on, this process connects to nothing but loopback and Unix sockets.

It is an audit hook (``sys.addaudithook``) on the events CPython raises before it touches the
network: ``socket.getaddrinfo`` (a name looked up), ``socket.connect`` (also ``connect_ex``,
``create_connection`` and asyncio's connections, C-level connects made through the socket
module included) and ``socket.sendto``/``socket.sendmsg`` (datagrams). A refused one raises
``OfflineRefused`` naming the host and port, before any byte is sent. An audit hook cannot be
removed, so it is installed once and does nothing while the guard is off.

What it cannot cover: other programs (Node.js), and native libraries that open their own
sockets without Python's socket module. A program started on the host (a ``command`` target)
goes into a network namespace of its own through :func:`child_prefix` (H14). A worker process bench
starts inherits ``BENCH_OFFLINE=1`` in its environment; a Python one calls ``install_from_env``.
A name given straight to ``socket.connect`` (not looked up first, as every HTTP client does) is
resolved by the C library before the audit event: its connection is refused, its lookup was made.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import ipaddress
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

#: The environment variable that turns the guard on in a worker process bench starts.
ENV = "BENCH_OFFLINE"
#: Host names that are loopback by definition (RFC 6761): never looked up elsewhere.
LOCAL_NAMES = ("localhost", "localhost.localdomain")

_lock = threading.Lock()
_installed = False
_depth = 0  # nested ``offline()`` blocks: the guard is on while any is open
#: The last connections the guard refused in this process (``refused``).
_refused: collections.deque[str] = collections.deque(maxlen=100)


class OfflineRefused(PermissionError):
    """A connection the offline guard refused. An ``OSError``, so that the library that tried
    reports it as the failed connection it is."""


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (a name or an address) is this machine's loopback."""
    name = host.strip("[]").split("%", 1)[0].rstrip(".").lower()
    if name in LOCAL_NAMES or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False  # another name: where it leads is only known once it has been looked up
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def active() -> bool:
    """Whether the guard is on in this process."""
    return _depth > 0


def refused() -> list[str]:
    """The last connections (up to 100) the guard refused in this process, as ``host:port``."""
    return list(_refused)


def refusal(host: Any, port: Any) -> str:
    """The message of a refused connection to ``host``:``port`` (and the refusal recorded)."""
    where = f"{host}:{port}" if port not in (None, 0, "") else str(host)
    _refused.append(where)
    return (
        f"offline: refused a connection to {where}; an offline run connects only to loopback "
        "(127.0.0.1, ::1, localhost) and Unix sockets"
    )


def _check_address(address: Any) -> None:
    """Refuse ``address`` (a socket address as ``connect`` takes it) unless it is local."""
    if isinstance(address, (str, bytes, bytearray)):  # a Unix socket's path (or abstract name)
        return
    if isinstance(address, tuple) and address and isinstance(address[0], (str, bytes)):
        host = address[0].decode() if isinstance(address[0], bytes) else address[0]
        if not is_loopback_host(host):
            raise OfflineRefused(refusal(host, address[1] if len(address) > 1 else None))
        return
    raise OfflineRefused(refusal(address, None))  # another family (AF_PACKET, ...): not loopback


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if not _depth:
        return
    if event == "socket.connect" or event in ("socket.sendto", "socket.sendmsg"):
        sock, address = args[0], args[1]
        if event == "socket.sendmsg" and address is None:
            return  # a connected socket: its connect was checked
        if getattr(sock, "family", None) == socket.AF_UNIX:
            return
        _check_address(address)
    elif event == "socket.getaddrinfo":
        host, port = args[0], args[1]
        if host is None or host in ("", b""):
            return  # a local address to bind to
        name = host.decode() if isinstance(host, (bytes, bytearray)) else str(host)
        if not is_loopback_host(name):
            raise OfflineRefused(refusal(name, port))


def install() -> None:
    """Add the audit hook to this process (once; it stays, doing nothing while the guard is off)."""
    global _installed
    with _lock:
        if not _installed:
            sys.addaudithook(_hook)
            _installed = True


def turn_on() -> None:
    """Turn the guard on for the rest of this process (a worker's: ``install_from_env``)."""
    global _depth
    install()
    with _lock:
        _depth += 1


def install_from_env() -> bool:
    """In a worker process bench started: turn the guard on when ``BENCH_OFFLINE`` says so."""
    if os.environ.get(ENV) != "1":
        return False
    turn_on()
    return True


@contextlib.contextmanager
def offline() -> Iterator[None]:
    """The guard on for this block, in this process (every thread) and, through ``BENCH_OFFLINE``
    in the environment, in the worker processes started meanwhile."""
    global _depth
    turn_on()
    previous = os.environ.get(ENV)
    os.environ[ENV] = "1"
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if not _depth:
                if previous is None:
                    os.environ.pop(ENV, None)
                else:
                    os.environ[ENV] = previous


#: The words that start a program in a user and network namespace of its own (util-linux).
UNSHARE = ("unshare", "--map-current-user", "--net", "--")


@functools.cache
def _namespace_refusal() -> str | None:
    """Why this host cannot start a program in a network namespace of its own; None when it can."""
    if shutil.which(UNSHARE[0]) is None:
        return "unshare (util-linux) is not installed"
    try:
        done = subprocess.run([*UNSHARE, "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"unshare failed: {exc}"
    if done.returncode != 0:
        # Its own words, whatever the locale's encoding (a translated message may not be UTF-8).
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        first = said[0].strip() if said else f"exit status {done.returncode}"
        return f"{' '.join(UNSHARE[:-1])} failed: {first}{_namespace_hint(first)}"
    return None


def _namespace_hint(said: str) -> str:
    """What an ``unshare`` failure usually means, for the user who reads it."""
    if "--map-current-user" in said:  # util-linux before 2.38 does not know the option
        return "; it needs util-linux 2.38 or later"
    if "Operation not permitted" in said or "Permission denied" in said:
        return (
            "; user namespaces are turned off for this user here (sysctl "
            "user.max_user_namespaces, kernel.unprivileged_userns_clone, or an AppArmor restriction)"
        )
    return ""


def child_prefix() -> list[str]:
    """The words to put before a program the guard cannot reach (not Python: a ``command``
    target) while the guard is on: it runs in a network namespace of its own, where nothing, the
    host's loopback included, can be reached. None while the guard is off.

    Raises OfflineRefused when this host cannot make the namespace: the program is never run
    unguarded.
    """
    if not active():
        return []
    reason = _namespace_refusal()
    if reason is not None:
        raise OfflineRefused(f"offline: cannot cut this program off the network ({reason})")
    return list(UNSHARE)
