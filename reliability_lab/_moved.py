"""Old import paths of the 0.1 layout, kept importable for one release with a DeprecationWarning.

The package was re-planned (docs/architecture.md): the results directory moved to
:mod:`reliability_lab.results`, the engine to :mod:`reliability_lab.runner`, the metric registry
and profiles to :mod:`reliability_lab.metrics`, and ``stats`` into :mod:`reliability_lab.report`.
Code written against the old paths keeps working until the next release:

- ``import reliability_lab.experiment.store`` (any module in :data:`MOVED`) is answered by a
  finder that imports the new module, warns once per import, and registers the *same* module
  object under the old name (so ``monkeypatch`` on either path patches one module);
- a package's old public names (``reliability_lab.experiment.run_experiment``,
  ``reliability_lab.stats.compare_agents``, …) come from :func:`deprecated_exports`.

The finder answers only the names in :data:`MOVED`; nothing here runs until such a name is
imported. The architecture test (tests/test_architecture.py) reads no import of this module:
these paths are strings, by design, so a shim can never hide a cycle.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from types import ModuleType
from typing import Any

__all__ = ["MOVED", "deprecated_exports", "install"]

#: Old module path -> new module path (removed in the release after 0.2).
MOVED: dict[str, str] = {
    "reliability_lab.experiment._jsonio": "reliability_lab.results._jsonio",
    "reliability_lab.experiment.audit": "reliability_lab.results.audit",
    "reliability_lab.experiment.compare": "reliability_lab.results.compare_dirs",
    "reliability_lab.experiment.console": "reliability_lab.results.console",
    "reliability_lab.experiment.coverage": "reliability_lab.results.coverage",
    "reliability_lab.experiment.diagnostics": "reliability_lab.results.diagnostics",
    "reliability_lab.experiment.imported": "reliability_lab.results.imported",
    "reliability_lab.experiment.lock": "reliability_lab.results.lock",
    "reliability_lab.experiment.repair": "reliability_lab.results.repair",
    "reliability_lab.experiment.results": "reliability_lab.results.read",
    "reliability_lab.experiment.robustness": "reliability_lab.results.robustness_block",
    "reliability_lab.experiment.safety_summary": "reliability_lab.results.safety_block",
    "reliability_lab.experiment.store": "reliability_lab.results.store",
    "reliability_lab.experiment.summary": "reliability_lab.results.summary",
    "reliability_lab.experiment.traces": "reliability_lab.results.traces",
    "reliability_lab.experiment.adaptive": "reliability_lab.runner.adaptive",
    "reliability_lab.experiment.execution": "reliability_lab.runner.execution",
    "reliability_lab.experiment.preflight": "reliability_lab.runner.preflight",
    "reliability_lab.experiment.prepare": "reliability_lab.runner.prepare",
    "reliability_lab.experiment.progress": "reliability_lab.runner.progress",
    "reliability_lab.experiment.ray_executor": "reliability_lab.runner.ray_executor",
    "reliability_lab.experiment.runner": "reliability_lab.runner.runner",
    "reliability_lab.report.profiles": "reliability_lab.metrics.profiles",
    "reliability_lab.report.registry": "reliability_lab.metrics.registry",
    "reliability_lab.sessions.metrics": "reliability_lab.metrics.session",
    "reliability_lab.sessions.signals": "reliability_lab.metrics.signals",
    "reliability_lab.stats.adaptive": "reliability_lab.report.allocation",
    "reliability_lab.stats.compare": "reliability_lab.report.compare",
    "reliability_lab.stats.planning": "reliability_lab.report.planning",
    "reliability_lab.stats.simulate": "reliability_lab.simulate",
}


def _warn(old: str, new: str, stacklevel: int = 3) -> None:
    warnings.warn(
        f"{old} moved to {new}; the old path is removed in the next release "
        "(see docs/architecture.md)",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


class _Alias(importlib.abc.Loader):
    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return ModuleType(spec.name)  # replaced in exec_module by the new module itself

    def exec_module(self, module: ModuleType) -> None:
        _warn(module.__name__, self.new)
        sys.modules[module.__name__] = import_module(self.new)


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(new))


def install() -> None:
    """Let the old module paths of :data:`MOVED` import (idempotent)."""
    if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
        sys.meta_path.append(_MovedFinder())


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
