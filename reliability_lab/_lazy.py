"""Lazy public names for package ``__init__`` modules (PEP 562, as scipy and scikit-image do).

A package lists its public names and the submodule that defines each; the submodule is imported
the first time the name is used, so importing the package stays cheap and never pulls in
heavy dependencies a caller does not use. Type checkers and readers see the same names through
an ``if TYPE_CHECKING:`` block of ordinary imports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, where: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` exporting ``name -> defining module``.

    Examples
    --------
    >>> getattr_, dir_ = lazy_exports("pkg", {"dumps": "json"})
    >>> getattr_("dumps").__name__, "dumps" in dir_()
    ('dumps', True)
    """

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(module), name)

    def __dir__() -> list[str]:
        return sorted(where)

    return __getattr__, __dir__
