"""The experiment's LLM client, built from the config's ``llm`` and ``cache`` settings: the
runner, its executors and the inspect bridge take the same one."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from reliability_lab.experiment.config import ExperimentConfig

if TYPE_CHECKING:
    from reliability_lab.llm import CallLimiter, LLMClient

__all__ = ["CACHE_DIR", "make_client"]

#: The response cache's folder inside a results directory.
CACHE_DIR = "cache"


def make_client(
    config: ExperimentConfig, out: Path, limiter: CallLimiter | None = None
) -> LLMClient:
    """The experiment's LLM client (response cache in ``<out>/cache`` unless ``cache: false``)."""
    from reliability_lab.llm import LLMClient

    return LLMClient(
        cache_dir=out / CACHE_DIR if config.cache else None,
        max_retries=config.llm.max_retries,
        backoff_base_s=config.llm.backoff_base_s,
        backoff_max_s=config.llm.backoff_max_s,
        timeout_s=config.llm.timeout_s,
        limiter=limiter,
    )
