"""Registry of conditions: a condition is registered *with the code that applies it*.

``register_condition(name, factory, ...)`` stores the factory that builds the run's
:class:`~reliability_lab.perturbations.Perturbation`, the condition's options model, how its
variants are named and expanded, and an optional once-per-experiment ``prepare`` step (prompt
paraphrases). A factory whose perturbation overrides no hook is refused at registration and at
run time: a condition is never a relabelled baseline (docs/perturbations.md, "Registry").
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from reliability_lab.perturbations._base import Perturbation, PerturbationContext, applies
from reliability_lab.runs import BASELINE

if TYPE_CHECKING:
    from reliability_lab.envs import Environment, Task

__all__ = [
    "ConditionInfo",
    "PrepareContext",
    "PreparedCondition",
    "build_perturbation",
    "get_condition",
    "list_conditions",
    "register_condition",
]

Factory = Callable[[PerturbationContext], Perturbation]
VariantResolver = Callable[[tuple[str, ...], Any], tuple[str, ...]]
EnvironmentCheck = Callable[[Any, "Environment"], None]


@dataclass(frozen=True)
class PrepareContext:
    """Input of a condition's once-per-experiment ``prepare`` step.

    Attributes
    ----------
    condition : str
        Condition name.
    variants : tuple of str
        The resolved variants that will run.
    options : BaseModel or None
        Validated options.
    environment : Environment
        The experiment's environment.
    tasks : list of Task
        The selected tasks.
    seed : int
        The experiment's master seed.
    previous : Mapping or None
        The condition's artifact from an earlier (interrupted) run of the same experiment,
        to be reused, or None.
    llm : Any
        The experiment's :class:`~reliability_lab.llm.LLMClient` (for LLM-based preparation).
    """

    condition: str
    variants: tuple[str, ...]
    options: Any
    environment: Environment
    tasks: list[Task]
    seed: int
    previous: Mapping[str, Any] | None = None
    llm: Any = None


@dataclass(frozen=True)
class PreparedCondition:
    """Output of ``prepare``: the artifact to store and the data each run receives.

    Attributes
    ----------
    artifact : dict
        JSON-serialisable; written to ``<results>/<ConditionInfo.artifact>``.
    per_run : Mapping
        ``(task_id, variant) -> data`` handed to the run's :class:`PerturbationContext`.
    notes : dict
        Numbers for the experiment summary (e.g. rejected paraphrases).
    """

    artifact: dict[str, Any]
    per_run: Mapping[tuple[str, str], Mapping[str, Any]]
    notes: dict[str, Any] = field(default_factory=dict)


Prepare = Callable[[PrepareContext], Awaitable[PreparedCondition]]


def _format_option_errors(name: str, exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        where = f"options.{loc}" if loc else "options"
        got = "" if err["type"] == "missing" else f" (got {err.get('input')!r:.60})"
        parts.append(f"{where}: {err['msg']}{got}")
    return f"condition {name!r}: " + "; ".join(parts)


@dataclass(frozen=True)
class ConditionInfo:
    """A registered condition (see :func:`register_condition` for the fields)."""

    name: str
    factory: Factory
    default_variants: tuple[str, ...]
    description: str = ""
    options_model: type[BaseModel] | None = None
    variant_resolver: VariantResolver | None = None
    allows_custom_variants: bool = True
    prepare: Prepare | None = None
    artifact: str | None = None
    check_environment: EnvironmentCheck | None = None

    def parse_options(self, raw: Mapping[str, Any] | None) -> BaseModel | None:
        """Validate a config's ``options`` mapping; ``ValueError`` naming the bad field."""
        raw = dict(raw or {})
        if self.options_model is None:
            if raw:
                raise ValueError(f"condition {self.name!r} takes no options, got {sorted(raw)}")
            return None
        try:
            return self.options_model.model_validate(raw)
        except ValidationError as exc:
            raise ValueError(_format_option_errors(self.name, exc)) from None

    def resolve_variants(
        self, listed: Sequence[str] | None, options: BaseModel | None
    ) -> tuple[str, ...]:
        """The variants that run: ``listed`` (or the defaults), validated and expanded."""
        if listed is not None:
            if not listed or len(set(listed)) != len(listed):
                raise ValueError(f"variants must be non-empty and unique, got {list(listed)}")
            if not self.allows_custom_variants and tuple(listed) != self.default_variants:
                raise ValueError(f"condition {self.name!r} takes no variants")
        chosen = tuple(listed) if listed is not None else self.default_variants
        if self.variant_resolver is not None:
            chosen = self.variant_resolver(chosen, options)
        if len(set(chosen)) != len(chosen):
            raise ValueError(f"condition {self.name!r}: variants repeat after expansion: {chosen}")
        return chosen


_REGISTRY: dict[str, ConditionInfo] = {}


def register_condition(
    name: str,
    factory: Factory,
    *,
    default_variants: Sequence[str],
    description: str = "",
    options: type[BaseModel] | None = None,
    variants: VariantResolver | None = None,
    allows_custom_variants: bool = True,
    prepare: Prepare | None = None,
    artifact: str | None = None,
    check_environment: EnvironmentCheck | None = None,
    overwrite: bool = False,
) -> ConditionInfo:
    """Register a condition together with the code that applies it.

    Parameters
    ----------
    name : str
        Condition name in configs and in the run table's ``condition`` column.
    factory : callable
        ``factory(context: PerturbationContext) -> Perturbation``, called once per run. Its
        perturbation must override at least one hook (only ``baseline`` is the identity).
    default_variants : sequence of str
        Variants run when the config lists none.
    description : str
        One line for error messages and docs.
    options : pydantic model class, optional
        Schema of the condition's ``options`` in a config (validated with the config).
    variants : callable, optional
        ``variants(listed, options) -> tuple`` validates the listed variants and may expand
        them (``medium`` → ``medium/1`` … ``medium/5``); raises ``ValueError`` for bad names.
    allows_custom_variants : bool
        Whether a config may list variants at all.
    prepare : async callable, optional
        Once-per-experiment step run by the experiment runner before any run
        (:class:`PrepareContext` → :class:`PreparedCondition`); requires ``artifact``.
    artifact : str, optional
        File name under the results directory where the prepared artifact is stored.
    check_environment : callable, optional
        ``check(options, environment)`` raising ``ValueError`` when the options do not fit
        the experiment's environment (e.g. an unknown tool name).
    overwrite : bool
        Replace an existing registration.

    Raises
    ------
    TypeError
        ``factory`` is not callable.
    ValueError
        Empty name or defaults, a perturbation class that overrides no hook, ``prepare``
        without ``artifact``, or an existing name without ``overwrite=True``.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"condition name must be a non-empty string, got {name!r}")
    if not callable(factory):
        raise TypeError(
            f"condition {name!r}: factory must be a callable building the Perturbation that "
            f"applies the condition, got {factory!r}"
        )
    if isinstance(factory, type) and name != BASELINE:
        if not issubclass(factory, Perturbation) or not applies(factory):
            raise ValueError(
                f"condition {name!r}: {factory.__name__} overrides none of the perturbation "
                "hooks, so nothing would apply the condition (it would re-run the baseline)"
            )
    if not default_variants:
        raise ValueError(f"condition {name!r}: default_variants must not be empty")
    if (prepare is None) != (artifact is None):
        raise ValueError(f"condition {name!r}: prepare and artifact go together")
    if name in _REGISTRY and not overwrite:
        raise ValueError(f"condition {name!r} is already registered (pass overwrite=True)")
    info = ConditionInfo(
        name=name,
        factory=factory,
        default_variants=tuple(default_variants),
        description=description,
        options_model=options,
        variant_resolver=variants,
        allows_custom_variants=allows_custom_variants,
        prepare=prepare,
        artifact=artifact,
        check_environment=check_environment,
    )
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


def build_perturbation(
    condition: str,
    variant: str,
    *,
    options: Mapping[str, Any] | None,
    seed: int,
    environment: Environment,
    task: Task,
    data: Mapping[str, Any] | None = None,
) -> Perturbation:
    """The perturbation of one run, built by its condition's registered factory.

    Raises
    ------
    KeyError
        The condition is not registered.
    ValueError
        Invalid options, or the factory built a perturbation that applies nothing.
    TypeError
        The factory returned something other than a :class:`Perturbation`.
    """
    info = get_condition(condition)
    context = PerturbationContext(
        condition=condition,
        variant=variant,
        options=info.parse_options(options),
        seed=seed,
        environment=environment,
        task=task,
        data=dict(data or {}),
    )
    perturbation = info.factory(context)
    if not isinstance(perturbation, Perturbation):
        raise TypeError(
            f"condition {condition!r}: factory returned {type(perturbation).__name__}, "
            "expected a Perturbation"
        )
    if condition != BASELINE and not applies(perturbation):
        raise ValueError(
            f"condition {condition!r}: its perturbation overrides no hook; nothing applies it"
        )
    return perturbation
