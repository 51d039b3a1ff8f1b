"""Readers: bytes of a match file in, event records out (format sniffed from the content)."""
