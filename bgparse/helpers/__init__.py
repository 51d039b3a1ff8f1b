"""Helpers every layer may use, grouped here so that the tree shows them apart from the domain:
the exception family and exit codes (`errors`), names and text as shown (`printable`, `paths`),
option values checked (`checks`), files written whole or not at all (`outfiles`), the shipped
grammars and SQL (`resources`), the process (`environment`, `interrupts`: its limits and its
stop signals) and the compiled-build switch (`compiled`, with `_slots.pxd`, the C access to the
model's slotted fields for the typed modules).

Nothing is imported here: `bgparse` loads `compiled` before any other module, and a helper
costs only what its own imports cost."""
