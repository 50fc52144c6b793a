"""Prompt perturbations: offline paraphrases, the detail check, the LLM paraphraser, prepare."""

from __future__ import annotations

import asyncio
import random
from statistics import mean
from typing import Any

import Levenshtein
import pytest

from reliability_lab.envs import get_environment
from reliability_lab.llm import Completion, LLMCallError
from reliability_lab.perturbations import (
    STRENGTHS,
    ParaphraseError,
    PerturbationContext,
    PrepareContext,
    PromptOptions,
    PromptPerturbation,
    missing_details,
    offline_paraphrase,
    prepare_paraphrases,
)

ENV = get_environment("customer_service")
TASKS = ENV.tasks()


def test_task_details_are_what_the_task_needs() -> None:
    details = {t.task_id: ENV.task_details(t) for t in TASKS}
    assert details["cs_01"] == ("O2003", "alice.chen@example.com")
    assert details["cs_07"] == (
        "Bob Martinez",
        "bob.martinez@example.com",
        "200 Harbor Blvd",
        "Riverton",
        "82502",
    )
    assert details["cs_16"] == ("Alice Chen", "New York", "10013")
    assert all(details.values())


@pytest.mark.parametrize("strength", STRENGTHS)
def test_offline_paraphrases_keep_details_change_text_and_are_deterministic(strength: str) -> None:
    for task in TASKS:
        details = ENV.task_details(task)
        for seed in range(5):
            text = offline_paraphrase(task.instruction, details, strength, random.Random(seed))
            again = offline_paraphrase(task.instruction, details, strength, random.Random(seed))
            assert text == again
            assert text != task.instruction
            assert missing_details(text, details) == [], (task.task_id, text)


def test_strengths_change_increasingly_much() -> None:
    def change(strength: str) -> float:
        return mean(
            1
            - Levenshtein.ratio(
                t.instruction,
                offline_paraphrase(t.instruction, ENV.task_details(t), strength, random.Random(s)),
            )
            for t in TASKS
            for s in range(5)
        )

    assert change("mild") < change("medium") < change("strong")
    natural = offline_paraphrase(
        TASKS[0].instruction, ENV.task_details(TASKS[0]), "naturalistic", random.Random(2)
    )
    assert natural == natural.lower().replace("o2003", "O2003")


def test_missing_details_rules() -> None:
    details = ["O2003", "alice.chen@example.com", "Alice Chen", "$45.00"]
    assert missing_details("alice chen O2003 alice.chen@example.com $45.00", details) == []
    assert missing_details("Alice Chen o2003 ALICE.CHEN@example.com 45", details) == [
        "O2003",
        "alice.chen@example.com",
        "$45.00",
    ]


class ScriptedLLM:
    """Replies with the scripted texts in order (the last repeats); records the requests."""

    def __init__(self, replies: list[str | Exception]) -> None:
        self.replies, self.requests = replies, []

    async def acompletion(self, **kwargs: Any) -> Completion:
        self.requests.append(kwargs)
        reply = self.replies[min(len(self.requests), len(self.replies)) - 1]
        if isinstance(reply, Exception):
            raise reply
        message = {"role": "assistant", "content": reply}
        return Completion(message, 0.0, 1, 1, 0.0, 1, False)


def _prepare(
    options: PromptOptions,
    llm: Any = None,
    previous: Any = None,
    variants: tuple[str, ...] = ("medium/1",),
) -> Any:
    ctx = PrepareContext("prompt", variants, options, ENV, [TASKS[0]], 3, previous, llm)
    return asyncio.run(prepare_paraphrases(ctx))


def test_llm_paraphrase_dropping_a_detail_is_rejected_and_regenerated() -> None:
    good = "Could you tell me where order O2003 is? I'm alice.chen@example.com."
    llm = ScriptedLLM(["Where is my order? My email is alice.chen@example.com.", good])
    options = PromptOptions(paraphraser="llm", model="openai/x", params={"temperature": 1.0})
    prepared = _prepare(options, llm)
    entry = prepared.artifact["tasks"]["cs_01"]["paraphrases"]["medium/1"]
    assert entry["text"] == good and entry["attempts"] == 2 and entry["source"] == "llm"
    assert entry["rejected"][0]["missing"] == ["O2003"]
    assert prepared.notes == {"paraphrases": 1, "rejected": 1, "fallbacks": 0}
    assert prepared.per_run[("cs_01", "medium/1")]["instruction"] == good
    # the request names the details and carries the instruction as delimited data
    request = llm.requests[0]
    assert request["model"] == "openai/x" and request["temperature"] == 1.0
    assert "O2003; alice.chen@example.com" in request["messages"][1]["content"]
    assert f"<message>\n{TASKS[0].instruction}\n</message>" in request["messages"][1]["content"]


def test_llm_paraphraser_that_keeps_failing_falls_back_offline_and_is_counted() -> None:
    llm = ScriptedLLM(["no details here"])
    prepared = _prepare(PromptOptions(paraphraser="llm", model="m", max_attempts=3), llm)
    entry = prepared.artifact["tasks"]["cs_01"]["paraphrases"]["medium/1"]
    assert entry["source"] == "offline-fallback" and len(entry["rejected"]) == 3
    assert missing_details(entry["text"], ENV.task_details(TASKS[0])) == []
    assert prepared.notes == {"paraphrases": 1, "rejected": 3, "fallbacks": 1}


def test_failed_llm_call_is_an_error_with_its_cause() -> None:
    llm = ScriptedLLM([LLMCallError("rate_limit", "429 Too Many Requests")])
    with pytest.raises(ParaphraseError, match="failed: rate_limit: 429"):
        _prepare(PromptOptions(paraphraser="llm", model="m"), llm)


def test_prepared_paraphrases_are_reused_and_settings_are_checked() -> None:
    options = PromptOptions(n_paraphrases=2)
    first = _prepare(options, variants=("medium/1", "medium/2"))
    entries = first.artifact["tasks"]["cs_01"]["paraphrases"]
    assert entries["medium/1"]["text"] != entries["medium/2"]["text"]
    edited = {**first.artifact}
    edited["tasks"] = {
        "cs_01": {
            **first.artifact["tasks"]["cs_01"],
            "paraphrases": {
                "medium/1": {
                    **entries["medium/1"],
                    "text": "stored text O2003 alice.chen@example.com",
                }
            },
        }
    }
    again = _prepare(options, previous=edited, variants=("medium/1", "medium/2"))
    assert again.per_run[("cs_01", "medium/1")]["instruction"].startswith("stored text")
    assert again.per_run[("cs_01", "medium/2")]["instruction"] == entries["medium/2"]["text"]
    with pytest.raises(ValueError, match="generated with other settings"):
        _prepare(PromptOptions(max_attempts=5), previous=first.artifact)


def test_prompt_perturbation_needs_prepared_data() -> None:
    ctx = PerturbationContext("prompt", "medium/1", None, 1, ENV, TASKS[0])
    with pytest.raises(ValueError, match="paraphrases are prepared by the experiment runner"):
        PromptPerturbation(ctx)
    data = {"instruction": "reworded", "paraphrase_id": "medium/1", "source": "offline"}
    perturbation = PromptPerturbation(
        PerturbationContext("prompt", "medium/1", None, 1, ENV, TASKS[0], data)
    )
    assert perturbation.instruction(TASKS[0].instruction) == "reworded"
    params = perturbation.record()["parameters"]
    assert params["paraphrase_id"] == "medium/1" and params["strength"] == "medium"
