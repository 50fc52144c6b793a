"""Import and configure litellm on first use — the only place that imports it.

Importing litellm takes seconds, so nothing in reliability_lab imports it until a model is
actually called (:class:`~reliability_lab.llm.LLMClient`'s first call) or the simulated provider
is requested (:func:`register_sim_provider`). On that first use this module:

- makes litellm load its bundled model price map instead of downloading one: litellm reads
  ``LITELLM_LOCAL_MODEL_COST_MAP`` only while it is being imported, so the variable is set for
  the duration of that import and removed again — the one place library code touches
  ``os.environ``. It is left alone when the user has set it (either way), when
  ``RELIABILITY_LAB_REMOTE_COST_MAP=1`` asks for the remote map, and when litellm was already
  imported by someone else;
- silences litellm's "Give Feedback / Get Help" banner (``litellm.suppress_debug_info``) and
  sets the ``LiteLLM`` logger to ERROR unless the application configured that logger;
- runs the custom-provider installers plugged in through :mod:`reliability_lab._providers`
  (the simulated model ``sim`` is one; this module imports no simulator).
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Mapping
from typing import Any

from reliability_lab._providers import installers

__all__ = [
    "COST_MAP_ENV",
    "REMOTE_COST_MAP_ENV",
    "load_litellm",
    "register_sim_provider",
    "wants_local_cost_map",
]

COST_MAP_ENV = "LITELLM_LOCAL_MODEL_COST_MAP"
REMOTE_COST_MAP_ENV = "RELIABILITY_LAB_REMOTE_COST_MAP"
_TRUE = frozenset({"1", "true", "yes", "on"})

_lock = threading.RLock()
_loaded: list[Any] = []  # the configured litellm module, once imported


def wants_local_cost_map(environ: Mapping[str, str]) -> bool:
    """Whether to set :data:`COST_MAP_ENV` while litellm is imported.

    Not when the user chose: ``RELIABILITY_LAB_REMOTE_COST_MAP`` true, or
    ``LITELLM_LOCAL_MODEL_COST_MAP`` already present (whatever its value).

    >>> wants_local_cost_map({}), wants_local_cost_map({"RELIABILITY_LAB_REMOTE_COST_MAP": "1"})
    (True, False)
    """
    if environ.get(REMOTE_COST_MAP_ENV, "").strip().lower() in _TRUE:
        return False
    return COST_MAP_ENV not in environ


def _import_litellm() -> Any:
    if "litellm" in sys.modules:  # imported by the application: its settings stand
        import litellm

        return litellm
    set_here = wants_local_cost_map(os.environ)
    if set_here:
        os.environ[COST_MAP_ENV] = "True"  # read by litellm's import only; see module docstring
    try:
        import litellm
    finally:
        if set_here:
            os.environ.pop(COST_MAP_ENV, None)
    return litellm


def _configure(litellm: Any) -> None:
    litellm.suppress_debug_info = True
    logger = logging.getLogger("LiteLLM")
    if logger.level == logging.NOTSET:
        logger.setLevel(logging.ERROR)


def register_sim_provider() -> None:
    """Load litellm and install every plugged-in custom provider (idempotent).

    ``litellm.completion(model="sim/calibrated", ...)`` then reaches the simulated model
    (:mod:`reliability_lab.sim`, plugged in by the package root); its profiles' prices go
    through litellm's cost tracking. Imports (and configures) litellm if it is not loaded yet.
    """
    with _lock:
        if not _loaded:
            litellm = _import_litellm()
            _configure(litellm)
            _loaded.append(litellm)
        for install in installers():
            install(_loaded[0])


def load_litellm() -> Any:
    """The litellm module, imported and configured on the first call (thread-safe).

    Every call also registers the prices of simulated profiles added since the last one
    (:func:`reliability_lab.sim.register_profile`); a few microseconds when there are none.
    """
    register_sim_provider()
    return _loaded[0]
