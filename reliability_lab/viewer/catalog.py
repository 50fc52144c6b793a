"""``reliability-lab list``: what a config can name — environments (with their task counts),
simulated model profiles, metrics, metric profiles, and conditions with their variants."""

from __future__ import annotations

__all__ = ["SECTIONS", "format_catalog"]

#: What ``list`` can show, in its order.
SECTIONS = ("environments", "simulated", "metrics", "profiles", "conditions")


def _environments() -> list[str]:
    from reliability_lab.envs import get_environment, list_environments

    return [f"{name}  ({len(get_environment(name).tasks())} tasks)" for name in list_environments()]


def _simulated() -> list[str]:
    from reliability_lab.sim import PERSONAS

    return [f"sim/{name}  {profile.description}" for name, profile in PERSONAS.items()]


def _metrics() -> list[str]:
    from reliability_lab.report import METRIC_REGISTRY

    width = max(len(s) for s in METRIC_REGISTRY)
    return [f"{s:<{width}}  [{m.dimension}] {m.name}" for s, m in METRIC_REGISTRY.items()]


def _profiles() -> list[str]:
    from reliability_lab.metrics.profiles import PROFILES

    return list(PROFILES)


def _conditions() -> list[str]:
    from reliability_lab.perturbations import get_condition, list_conditions

    out = []
    for name in list_conditions():
        info = get_condition(name)
        variants = ", ".join(info.default_variants) or "(none)"
        custom = "; other variants allowed" if info.allows_custom_variants else ""
        out.append(f"{name}  variants: {variants}{custom}  {info.description}".rstrip())
    return out


_BUILDERS = {
    "environments": _environments,
    "simulated": _simulated,
    "metrics": _metrics,
    "profiles": _profiles,
    "conditions": _conditions,
}


def format_catalog(sections: tuple[str, ...] = SECTIONS) -> str:
    """The text of ``reliability-lab list`` for ``sections``."""
    lines: list[str] = []
    for section in sections:
        lines += [f"{section}:", *(f"  {item}" for item in _BUILDERS[section]()), ""]
    return "\n".join(lines).rstrip()
