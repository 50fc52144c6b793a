"""Registry of environments by name, so experiment configs can name them."""

from __future__ import annotations

from collections.abc import Callable

from reliability_lab.envs._base import Environment

__all__ = ["get_environment", "list_environments", "register_environment"]

_FACTORIES: dict[str, Callable[[], Environment]] = {}
_INSTANCES: dict[str, Environment] = {}


def register_environment(
    name: str, factory: Callable[[], Environment], *, overwrite: bool = False
) -> None:
    """Register an environment factory under ``name``.

    Parameters
    ----------
    name : str
        Name used in configs and results (``environment:`` field).
    factory : Callable[[], Environment]
        Builds the environment; called once, on first :func:`get_environment`.
    overwrite : bool
        Replace an existing registration instead of raising ``ValueError``.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"environment name must be a non-empty str, got {name!r}")
    if not callable(factory):
        raise TypeError(f"factory for environment {name!r} must be callable, got {factory!r}")
    if name in _FACTORIES and not overwrite:
        raise ValueError(f"environment {name!r} is already registered (pass overwrite=True)")
    _FACTORIES[name] = factory
    _INSTANCES.pop(name, None)


def get_environment(name: str) -> Environment:
    """The environment registered as ``name`` (built once, then shared; it is stateless).

    Raises
    ------
    KeyError
        Unknown name; the message lists the registered ones.
    """
    if name not in _INSTANCES:
        if name not in _FACTORIES:
            raise KeyError(
                f"unknown environment {name!r}; registered: {', '.join(sorted(_FACTORIES))}"
            )
        env = _FACTORIES[name]()
        if not isinstance(env, Environment):
            raise TypeError(
                f"factory for environment {name!r} returned {type(env).__name__}, "
                "expected an Environment"
            )
        _INSTANCES[name] = env
    return _INSTANCES[name]


def list_environments() -> list[str]:
    """Registered environment names, sorted."""
    return sorted(_FACTORIES)
