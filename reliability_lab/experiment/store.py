"""Deprecated: moved to :mod:`reliability_lab.results.store`.

This old path is removed in the next release (docs/architecture.md, "Old import paths").
"""

from reliability_lab._moved import alias

alias(__name__)
