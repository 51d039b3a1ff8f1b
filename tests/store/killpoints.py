"""For the kill tests' child processes: make one step of a dataset write SIGKILL its own
process on its n-th call, so a kill lands at a known point."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import Any

import bgparse.ingest as ingest
import bgparse.store.dataset as dataset

#: Where a write can be killed: while rows are staged, while staged files are moved into the
#: tree, just before and just after the manifest is replaced.
POINTS = ("staging", "publish", "manifest", "after-manifest")


def arm(point: str, n: int) -> None:
    """SIGKILL this process at `point` once that step has been called `n` times."""
    calls = 0

    def kill_on_call(fn: Callable[..., Any], after: bool = False) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            nonlocal calls
            calls += 1
            if calls > n and not after:
                os.kill(os.getpid(), signal.SIGKILL)
            out = fn(*args, **kwargs)
            if calls > n and after:
                os.kill(os.getpid(), signal.SIGKILL)
            return out

        return wrapper

    if point == "staging":
        ingest._Importer.result = kill_on_call(ingest._Importer.result)  # type: ignore[method-assign]
    elif point == "publish":
        dataset._publish = kill_on_call(dataset._publish)
    elif point == "manifest":
        dataset._commit_manifest = kill_on_call(dataset._commit_manifest)
    elif point == "after-manifest":
        dataset._commit_manifest = kill_on_call(dataset._commit_manifest, after=True)
    else:
        raise ValueError(f"no kill point {point!r}; known: {', '.join(POINTS)}")
