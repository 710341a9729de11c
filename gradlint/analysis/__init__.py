"""Analyses shared by rules; each is computed lazily, at most once per file."""
