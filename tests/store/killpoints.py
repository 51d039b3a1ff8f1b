"""For the kill and signal tests' child processes: make one step of a dataset write send a
signal (SIGKILL by default) to its own process, or to its process group as a terminal's Ctrl-C
does, on its n-th call, so the signal lands at a known point."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import Any

import bgparse.ingest.importer as importer
import bgparse.store.dataset as dataset

#: Where a write can be killed: while rows are staged, while staged files are moved into the
#: tree, just before and just after the manifest is replaced.
POINTS = ("staging", "publish", "manifest", "after-manifest")


def arm(
    point: str,
    n: int,
    sig: int = signal.SIGKILL,
    group: bool = False,
    on_send: Callable[[], None] | None = None,
) -> None:
    """Send `sig` to this process (to its process group with `group`) at `point` once that
    step has been called `n` times; a signal this process survives is sent once, after
    `on_send` is called."""
    calls = 0
    sent = False

    def send() -> None:
        nonlocal sent
        if not sent:
            sent = True
            if on_send is not None:
                on_send()
            if group:
                os.killpg(os.getpgid(0), sig)
            else:
                os.kill(os.getpid(), sig)

    def kill_on_call(fn: Callable[..., Any], after: bool = False) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            nonlocal calls
            calls += 1
            if calls > n and not after:
                send()
            out = fn(*args, **kwargs)
            if calls > n and after:
                send()
            return out

        return wrapper

    if point == "staging":
        importer._Importer.result = kill_on_call(importer._Importer.result)  # type: ignore[method-assign]
    elif point == "publish":
        dataset._publish = kill_on_call(dataset._publish)
    elif point == "manifest":
        dataset._commit_manifest = kill_on_call(dataset._commit_manifest)
    elif point == "after-manifest":
        dataset._commit_manifest = kill_on_call(dataset._commit_manifest, after=True)
    else:
        raise ValueError(f"no kill point {point!r}; known: {', '.join(POINTS)}")
