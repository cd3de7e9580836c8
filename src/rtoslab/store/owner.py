"""Which process owns a running run, and whether that process is still alive.

A run is written by one process. If that process is killed (SIGKILL, power loss) the
run stays ``running`` in the database. A reader on the same host can tell: the owner's
pid no longer exists, is a zombie, or now belongs to a different process (pid reuse,
detected through the process start time where the OS exposes it). On another host
nothing can be told, so such a run is left as it is.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Owner:
    host: str
    pid: int
    start: str | None  # process start time token; None where unknown


def _proc_stat_fields(pid: int) -> list[str] | None:
    """Fields of /proc/<pid>/stat after the command name, or None if unreadable."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may itself contain ') '.
    _, sep, rest = text.rpartition(")")
    if not sep:
        return None
    return rest.split()


def _start_token(pid: int) -> str | None:
    fields = _proc_stat_fields(pid)
    # rest[0] is field 3 (state); field 22 (starttime, clock ticks since boot) is rest[19].
    if fields is None or len(fields) < 20:
        return None
    return fields[19]


def this_host() -> str:
    return socket.gethostname()


def current_owner() -> Owner:
    pid = os.getpid()
    return Owner(host=this_host(), pid=pid, start=_start_token(pid))


def _pid_exists(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    except OSError:
        return False
    return True


def owner_is_gone(owner: Owner) -> bool:
    """True only when it is certain that the owner process no longer runs."""
    if owner.host != this_host():
        return False
    if not _pid_exists(owner.pid):
        return True
    fields = _proc_stat_fields(owner.pid)
    if fields is None:
        return False  # no /proc: the pid exists, assume it is the owner
    if fields and fields[0] in ("Z", "X"):
        return True  # killed, not yet reaped by its parent
    return owner.start is not None and len(fields) >= 20 and fields[19] != owner.start
