"""Registry of experiment conditions: the hook perturbations plug into.

A condition is a named way of running the tasks (``baseline`` = unperturbed). Each registered
condition declares its variants (perturbation instances; ``""`` for baseline). The runner
expands every (agent, task, condition, variant, run) and hands ``condition``/``variant`` to the
agent on its :class:`~reliability_lab.agents.RunSpec`; the agent and environment apply the
perturbation. Perturbation modules register their conditions with :func:`register_condition`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ConditionInfo", "get_condition", "list_conditions", "register_condition"]


@dataclass(frozen=True)
class ConditionInfo:
    """A registered condition."""

    name: str
    """Condition name as written in configs and the run table's ``condition`` column."""
    default_variants: tuple[str, ...]
    """Variants run when the config does not list any."""
    allows_custom_variants: bool
    """Whether a config may list its own variant names."""
    description: str
    """One line shown in error messages and docs."""


_REGISTRY: dict[str, ConditionInfo] = {}


def register_condition(
    name: str,
    *,
    default_variants: tuple[str, ...],
    allows_custom_variants: bool = True,
    description: str = "",
    overwrite: bool = False,
) -> ConditionInfo:
    """Register a condition so configs may name it.

    Raises
    ------
    ValueError
        Empty name, no default variants, or an existing name without ``overwrite=True``.
    """
    if not name:
        raise ValueError("condition name must be a non-empty string")
    if not default_variants:
        raise ValueError(f"condition {name!r}: default_variants must not be empty")
    if name in _REGISTRY and not overwrite:
        raise ValueError(f"condition {name!r} is already registered")
    info = ConditionInfo(name, tuple(default_variants), allows_custom_variants, description)
    _REGISTRY[name] = info
    return info


def get_condition(name: str) -> ConditionInfo:
    """Look up a registered condition; ``KeyError`` lists the known ones."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(
            f"unknown condition {name!r}; registered: {', '.join(sorted(_REGISTRY))}"
        ) from None


def list_conditions() -> list[str]:
    """Names of the registered conditions, sorted."""
    return sorted(_REGISTRY)


register_condition(
    "baseline",
    default_variants=("",),
    allows_custom_variants=False,
    description="the tasks as written, no perturbation",
)
