"""The package version, in one place (read by the package root and the results headers)."""

__all__ = ["__version__"]

__version__ = "0.1.0"
