"""The Jinja2 environment of the HTML reports: templates shipped in `render/templates`,
autoescaped, with no loader that could reach the network."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2

__all__ = ["environment"]

TEMPLATES = Path(__file__).parent / "templates"


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    # Counts as the command line writes them: 5,799, not 5799.
    env.filters["count"] = "{:,}".format
    return env
