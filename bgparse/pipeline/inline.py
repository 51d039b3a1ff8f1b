"""The inline executor: each unit runs at once in this process (`--workers 1`, and
deterministic tests)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any, TypeVar

__all__ = ["Inline"]

_T = TypeVar("_T")


class Inline(Executor):
    """Runs submissions at once in this process: `--workers 1`, and deterministic tests."""

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        fut: Future[_T] = Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            fut.set_exception(exc)
        return fut
