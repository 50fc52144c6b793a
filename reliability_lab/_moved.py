"""Old import paths of the 0.1 layout, kept importable for one release with a DeprecationWarning.

The package was re-planned (docs/architecture.md): the results directory moved to
:mod:`reliability_lab.results`, the engine to :mod:`reliability_lab.runner`, the metric registry
and profiles to :mod:`reliability_lab.metrics`, and ``stats`` into :mod:`reliability_lab.report`.
Code written against the old paths that were used outside the package keeps working until the
next release:

- each old module path of :data:`MOVED` is a small file at that path (for example
  ``reliability_lab/experiment/store.py``) whose only statement is ``alias(__name__)``:
  importing it warns once and makes the old name *the same module object* as the new one
  (:func:`alias`), so ``monkeypatch`` on either path patches one module;
- a package's old public names (``reliability_lab.experiment.run_experiment``,
  ``reliability_lab.stats.compare_agents``, …) come from :func:`deprecated_exports`.

Nothing here runs at import of the package, and nothing is added to ``sys.meta_path``: only
importing an old path does anything. The architecture test (tests/test_architecture.py) sees a
stub import only this module: the new paths are strings, by design, so a shim can never hide a
cycle. The old modules that nothing outside the package imported were removed instead
(docs/architecture.md, "Old import paths").
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["MOVED", "alias", "deprecated_exports"]

#: Old module path -> new module path (removed in the release after 0.2). Each old path is a
#: stub file that calls :func:`alias`; tests/test_moved_paths.py keeps the two in step.
MOVED: dict[str, str] = {
    "reliability_lab.experiment.store": "reliability_lab.results.store",
    "reliability_lab.report.profiles": "reliability_lab.metrics.profiles",
    "reliability_lab.sessions.metrics": "reliability_lab.metrics.session",
    "reliability_lab.sessions.signals": "reliability_lab.metrics.signals",
    "reliability_lab.stats.adaptive": "reliability_lab.report.allocation",
}


def _warn(old: str, new: str, stacklevel: int = 3) -> None:
    warnings.warn(
        f"{old} moved to {new}; the old path is removed in the next release "
        "(see docs/architecture.md)",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def alias(old: str) -> None:
    """Make the module being imported as ``old`` the module it moved to (:data:`MOVED`).

    Called by the stub file at the old path, as its module body runs: warns (once — the
    import system runs a module body once per process), imports the new module and puts it
    in ``sys.modules`` under the old name. The import system then hands out whatever
    ``sys.modules`` holds under the name once the body has run (a module may replace itself
    there), and binds that same object as the attribute of the parent package: ``import``,
    ``from … import`` and ``importlib.import_module`` of the old path all give the new module.

    Raises
    ------
    KeyError
        ``old`` is not a moved path.
    """
    new = MOVED[old]
    # 1 = _warn, 2 = here, 3 = the stub's body; the warnings module skips the import
    # system's frames, so 4 is the line that imported the old path
    _warn(old, new, stacklevel=4)
    sys.modules[old] = import_module(new)


def deprecated_exports(
    package: str, where: Mapping[str, str], *, depth: int = 0
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for a package whose old names moved: ``name -> new module``
    (``"module:new_name"`` when the name changed too).

    Like :func:`reliability_lab._lazy.lazy_exports`, but each use warns that the name moved,
    and ``__dir__`` lists none of them (old names are not advertised, and tools that walk a
    module's names, such as doctest collection, do not trip the warning);
    ``depth`` is the number of wrapper frames between the user's code and this ``__getattr__``
    (so the warning points at the user's line).

    Examples
    --------
    >>> import warnings
    >>> getattr_, dir_ = deprecated_exports("pkg", {"dumps": "json"})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     name = getattr_("dumps").__name__
    >>> name, caught[0].category.__name__, dir_()
    ('dumps', 'DeprecationWarning', [])
    """

    def __getattr__(name: str) -> Any:
        target = where.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, new = target.partition(":")  # "module:new_name" for a renamed name
        _warn(f"{package}.{name}", f"{module}.{new or name}", stacklevel=3 + depth)
        return getattr(import_module(module), new or name)

    def __dir__() -> list[str]:
        return []

    return __getattr__, __dir__
