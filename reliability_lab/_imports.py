"""Import user code named ``module:attribute`` (agents, environment factories, tools, scorers).

The module is looked up first in a given folder (a config file's folder), then on ``sys.path``;
objects handed over from Python (not import strings) are kept in a process-local table under a
reference of the same form. Every failure is an :class:`ImportTargetError` naming the module
or the attribute that could not be found.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from pathlib import Path
from typing import Any

__all__ = ["ImportTargetError", "import_target", "object_reference", "register_object"]

_OBJECTS: dict[str, Any] = {}
_LOCK = threading.Lock()


class ImportTargetError(ValueError):
    """A ``module:attribute`` reference that cannot be imported (the message says which part)."""


def _module_file(root: Path, module: str) -> Path | None:
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _load_module(module: str, root: str) -> Any:
    path = _module_file(Path(root), module) if root else None
    if module in sys.modules:
        loaded = sys.modules[module]
        where = getattr(loaded, "__file__", None)
        if path is not None and where is not None and Path(where).resolve() != path.resolve():
            raise ImportTargetError(
                f"module {module!r} in {root} has the name of another module already imported "
                f"({where}); rename {path.name}"
            )
        return loaded
    if path is not None and "." not in module:
        with _LOCK:
            if module in sys.modules:
                return sys.modules[module]
            spec = importlib.util.spec_from_file_location(
                module,
                path,
                submodule_search_locations=[str(path.parent)]
                if path.name == "__init__.py"
                else None,
            )
            if spec is None or spec.loader is None:
                raise ImportTargetError(f"cannot load module {module!r} from {path}")
            loaded = importlib.util.module_from_spec(spec)
            sys.modules[module] = loaded  # dataclasses and pickling look the module up here
            try:
                spec.loader.exec_module(loaded)
            except BaseException:
                sys.modules.pop(module, None)
                raise
            return loaded
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module.startswith(exc.name):
            where = f" or in {root}" if root else ""
            raise ImportTargetError(
                f"cannot import module {module!r}: not found on sys.path{where}"
            ) from None
        raise


def import_target(reference: str, root: str = "") -> Any:
    """The object ``reference`` (``module:attribute``, attribute may be dotted) names.

    Parameters
    ----------
    reference : str
        ``module:attribute``, or a reference made by :func:`register_object`.
    root : str
        A folder searched for ``module.py`` / ``module/__init__.py`` before ``sys.path``.

    Raises
    ------
    ImportTargetError
        Malformed reference, module not found, attribute missing, or the module raised while
        being imported (its exception type and message are given).
    """
    if reference in _OBJECTS:
        return _OBJECTS[reference]
    module, colon, attribute = reference.partition(":")
    if not colon or not module or not attribute:
        raise ImportTargetError(f"expected 'module:attribute', got {reference!r}")
    try:
        loaded = _load_module(module, root)
    except ImportTargetError:
        raise
    except Exception as exc:
        raise ImportTargetError(
            f"importing module {module!r} failed: {type(exc).__name__}: {exc}"
        ) from exc
    value: Any = loaded
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise ImportTargetError(
                f"module {module!r} ({getattr(loaded, '__file__', '?')}) has no attribute "
                f"{attribute!r}"
            )
        value = getattr(value, part)
    return value


def object_reference(obj: Any) -> str:
    """``module:qualname`` of a function, class or other object defined at module level."""
    module = getattr(obj, "__module__", None) or type(obj).__module__
    name = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    return f"{module}:{name}"


def register_object(obj: Any, kind: str) -> str:
    """Keep ``obj`` under a reference :func:`import_target` resolves in this process.

    The reference is ``module:qualname`` when that imports to ``obj`` itself (so other
    processes, e.g. Ray workers, can import it too); otherwise ``<kind>:<name>#<id>``, which
    only this process knows.
    """
    reference = object_reference(obj)
    try:
        if import_target(reference) is obj:
            return reference
    except (ImportTargetError, Exception):
        pass
    reference = f"<{kind}>:{reference.partition(':')[2]}#{id(obj):x}"
    _OBJECTS[reference] = obj
    return reference
