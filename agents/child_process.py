"""Child processes that never outlive their parent: the service's search processes and the
inference servers (:mod:`agents.inference_server`) both call :func:`die_with_parent` first.

Why here: the inference servers belong to the agent layer, the search processes to the
service; both need the same guarantee, and imports go one way (serving may use agents).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

PARENT_POLL_SECONDS = 0.5  # how often a child checks that its parent still runs
PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def die_with_parent(parent_pid: int) -> None:
    """Make this process end when its parent does, however the parent ends.

    Linux: ``prctl(PR_SET_PDEATHSIG, SIGKILL)``, the kernel's own guarantee (it fires when the
    *thread* that started the child ends, so a parent starts a child from a thread that lives
    as long as the child should). Everywhere (and in case the parent died before the call): a
    daemon thread that exits once the parent process is no longer ``parent_pid`` (an orphan is
    re-parented to init or a subreaper)."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no libc to call: the thread below still watches
            pass

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(0)

    if os.getppid() != parent_pid:
        os._exit(0)
    threading.Thread(target=watch, name="qizero-parent-watch", daemon=True).start()
