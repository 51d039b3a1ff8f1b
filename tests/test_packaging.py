"""What an installed (not editable) bgparse holds: every package of the source tree is listed
in pyproject.toml, so a wheel does not lose a folder of modules that an editable install
(which reads the tree itself) would still find."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed_for_the_wheel() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    folders = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "bgparse").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert folders, "no package found under bgparse/"
    assert folders <= listed, f"not listed in pyproject.toml: {sorted(folders - listed)}"
    # The data packages mapped from the top level exist where they are mapped from.
    for package, folder in config["tool"]["setuptools"]["package-dir"].items():
        assert package in listed and (ROOT / folder).is_dir()
