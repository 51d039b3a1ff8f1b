"""bgparse's version (pyproject.toml's), in a module of its own that any layer may import."""

__version__ = "0.1.0"
