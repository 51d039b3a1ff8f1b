"""The environment bgparse's own processes run with (`bgparse.helpers.environment`): set where the user
set nothing, before numpy and Arrow load in the command."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bgparse.helpers import environment

NAMES = tuple(environment.PROCESS_ENVIRONMENT)


def test_defaults_fill_only_what_is_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "8")
    with environment.defaults_set():
        assert os.environ["OPENBLAS_NUM_THREADS"] == "8"
        assert os.environ["ARROW_DEFAULT_MEMORY_POOL"] == "system"
    assert "ARROW_DEFAULT_MEMORY_POOL" not in os.environ  # the block's only
    assert os.environ["OPENBLAS_NUM_THREADS"] == "8"
    environment.set_defaults()
    assert os.environ["ARROW_DEFAULT_MEMORY_POOL"] == "system"
    assert os.environ["OPENBLAS_NUM_THREADS"] == "8"


_COMMAND = """
import sys
sys.argv = ["bgparse", "--help"]
import bgparse.__main__ as command
try:
    command.main()
except SystemExit:
    pass
import pyarrow
print(pyarrow.default_memory_pool().backend_name, file=sys.stderr)
"""


@pytest.mark.parametrize(("given", "backend"), [(None, "system"), ("mimalloc", "mimalloc")])
def test_the_command_runs_with_them(given: str | None, backend: str) -> None:
    """The command sets them before Arrow loads (Arrow reads its variable once, on first use),
    unless the user chose otherwise."""
    env = {k: v for k, v in os.environ.items() if k not in NAMES}
    if given is not None:
        env["ARROW_DEFAULT_MEMORY_POOL"] = given
    done = subprocess.run(
        [sys.executable, "-c", _COMMAND], capture_output=True, text=True, env=env, check=False
    )
    assert done.stderr.strip().splitlines()[-1] == backend, done.stderr
