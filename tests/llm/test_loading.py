"""When the library sets litellm's cost-map variable around litellm's import (and when not)."""

from __future__ import annotations

import pytest

from reliability_lab.llm._litellm import COST_MAP_ENV, REMOTE_COST_MAP_ENV, wants_local_cost_map


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, True),  # default: litellm's bundled price map, no download
        ({REMOTE_COST_MAP_ENV: "1"}, False),  # the user's opt-out
        ({REMOTE_COST_MAP_ENV: "true"}, False),
        ({REMOTE_COST_MAP_ENV: "True"}, False),
        ({REMOTE_COST_MAP_ENV: "0"}, True),
        ({REMOTE_COST_MAP_ENV: ""}, True),
        ({COST_MAP_ENV: "True"}, False),  # already set by the user: left as it is
        ({COST_MAP_ENV: "False"}, False),
        ({COST_MAP_ENV: ""}, False),
    ],
)
def test_llm_cost_map_variable_is_set_only_when_the_user_did_not_choose(
    environ: dict[str, str], expected: bool
) -> None:
    assert wants_local_cost_map(environ) is expected
