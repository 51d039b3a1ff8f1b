"""Analysis: what each decision of a match cost, its luck and its cube errors, by an engine."""
