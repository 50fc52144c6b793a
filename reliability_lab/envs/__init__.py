"""Tool environments the agents act in, and their registry.

Built-in: ``customer_service`` (:mod:`reliability_lab.envs.customer_service`). Register your own
with :func:`register_environment`; see :class:`Environment` for the pieces an environment needs.
"""

from __future__ import annotations

from reliability_lab.envs._base import (
    Environment,
    Episode,
    Oracle,
    OracleOutcome,
    OracleStep,
    Task,
    Tool,
    ToolError,
    answer_has_fact,
    render_template,
)
from reliability_lab.envs._registry import (
    get_environment,
    list_environments,
    register_environment,
)
from reliability_lab.envs.customer_service import CustomerServiceEnvironment

__all__ = [
    "CustomerServiceEnvironment",
    "Environment",
    "Episode",
    "Oracle",
    "OracleOutcome",
    "OracleStep",
    "Task",
    "Tool",
    "ToolError",
    "answer_has_fact",
    "get_environment",
    "list_environments",
    "register_environment",
    "render_template",
]

register_environment("customer_service", CustomerServiceEnvironment)
