"""Help that reads cleanly: every option's value named as a person would write it (N, PATH,
DATE, a choice as `text|json`), nothing after a flag, an argument as `PATH...` in the usage line
and the options table, never typer's Python types (`<bool>`, `<list[str]>`) or its braces
(`{files}...`). `tidy(command)` rewrites a built click command tree once, before it runs."""

from __future__ import annotations

import re
from typing import Any, get_args

from typer._click import Context
from typer.core import TyperArgument, TyperOption

__all__ = ["tidy"]

_TIDIED = "_bgparse_help_tidied"


def _value_name(param: TyperOption) -> str:
    """What an option's value is called in the help, from its type (an explicit metavar wins)."""
    kind = param.type_descriptor
    if kind.choices is not None:
        return "|".join(str(getattr(c, "value", c)) for c in kind.choices)
    base = get_args(kind.annotation)[0] if kind.is_list else kind.annotation
    if kind.is_datetime:
        return "DATE"
    if kind.is_path:
        return "PATH"
    if isinstance(base, type) and issubclass(base, int):
        return "N"
    if isinstance(base, type) and issubclass(base, float):
        return "NUMBER"
    return "TEXT"


class _Option(TyperOption):
    def display_type_rich(self, ctx: Context) -> str | None:
        if self.is_flag:
            return None  # --strict, --jacoby/--no-jacoby: no value to name
        return self.metavar if self.metavar is not None else _value_name(self)


class _Argument(TyperArgument):
    def _label(self) -> str:
        name = self.metavar or (self.name or "").upper()
        return name + ("..." if self.nargs != 1 else "")

    def display_type_rich(self, ctx: Context) -> str | None:
        return None  # the name says it: PATH..., SQL

    @property
    def display_name_raw(self) -> str:  # the options table's name column
        return self._label()

    def _rich_display_name(self) -> str:
        return self._label()

    def _usage_display_name(self) -> str:
        return self._label() if self.required else f"[{self._label()}]"


def _paragraphs(text: str) -> str:
    """A docstring's lines joined into paragraphs: the help panel wraps them itself (a line
    break inside a paragraph showed as a short line in the middle of it)."""
    parts = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(p.split()) for p in parts)


def _retype(param: Any) -> Any:
    if type(param) is TyperOption:
        param.__class__ = _Option
    elif type(param) is TyperArgument:
        param.__class__ = _Argument
    return param


def tidy(command: Any) -> None:
    """Rewrite `command` (a click command or group, with its subcommands) in place; once."""
    if getattr(command, _TIDIED, False):
        return
    setattr(command, _TIDIED, True)
    if command.help:
        command.help = _paragraphs(command.help)
    for param in command.params:
        _retype(param)
    # --help is made when first asked for: tidied then.
    made = command.get_help_option

    def help_option(ctx: Context) -> Any:
        return _retype(made(ctx))

    command.get_help_option = help_option
    for sub in getattr(command, "commands", {}).values():
        tidy(sub)
