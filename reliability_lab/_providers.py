"""The plug-in point for litellm custom providers, read by the model boundary.

:mod:`reliability_lab.llm` imports no simulator: a package that serves models under its own
prefix registers an *installer* here, and the boundary calls every installer with the litellm
module each time it hands litellm out (:func:`reliability_lab.llm._litellm.load_litellm`). The
simulated model ``sim/<name>`` is plugged in this way by the package root
(``reliability_lab/__init__.py``), so every entry point of the library — the runner, the
judges' default client, a bare :class:`~reliability_lab.llm.LLMClient` — reaches it without the
boundary knowing it. Registering runs nothing and imports nothing: an installer runs only once
litellm is loaded (on the first model call).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["installers", "register_provider"]

Installer = Callable[[Any], None]
_INSTALLERS: list[Installer] = []


def register_provider(install: Installer) -> None:
    """Call ``install(litellm)`` whenever the model boundary hands litellm out (idempotent).

    ``install`` must itself be idempotent (it runs on every hand-out, to pick up e.g. profiles
    registered since the last call) and cheap when there is nothing new.

    Examples
    --------
    >>> seen = []
    >>> def install(litellm):
    ...     seen.append(litellm)
    >>> register_provider(install); register_provider(install)
    >>> sum(i is install for i in installers())
    1
    >>> _INSTALLERS.remove(install)
    """
    if install not in _INSTALLERS:
        _INSTALLERS.append(install)


def installers() -> tuple[Installer, ...]:
    """The registered installers, in registration order."""
    return tuple(_INSTALLERS)
