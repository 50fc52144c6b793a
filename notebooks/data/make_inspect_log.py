"""Write ``inspect_calculator.eval``, the inspect_ai log that notebook 04 imports.

A real inspect_ai evaluation, run offline with inspect's scripted ``mockllm`` model: 8
arithmetic questions × 4 epochs, a ``calculator`` tool the model calls before answering, scored
by ``match()``. The script decides, per question and epoch, whether the answer is right — two
questions always right, two always wrong, four mixed — so the log has the spread of outcomes a
repeated-run report is about. The numbers are a demonstration, not any model's.

    .venv/bin/python notebooks/data/make_inspect_log.py

Needs the ``inspect`` extra (``pip install -e '.[inspect]'``; ``make test`` installs it).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import Tool, tool

MODEL = "mockllm/model"
EPOCHS = 4
TARGET = Path(__file__).with_name("inspect_calculator.eval")
# question id → (a, b, whether each epoch's answer is right)
QUESTIONS = {
    "q1": (12, 30, [True, True, True, True]),
    "q2": (7, 8, [True, True, True, True]),
    "q3": (120, 45, [True, False, True, True]),
    "q4": (99, 1, [True, True, False, True]),
    "q5": (36, 64, [False, True, False, True]),
    "q6": (250, 250, [False, False, True, False]),
    "q7": (17, 26, [False, False, False, False]),
    "q8": (301, 11, [False, False, False, False]),
}


@tool
def calculator() -> Tool:
    async def execute(a: int, b: int) -> str:
        """Add two integers.

        Args:
            a: First addend.
            b: Second addend.
        """
        return str(a + b)

    return execute


def _outputs() -> list[ModelOutput]:
    """Two model calls per question and epoch, in the order inspect makes them (one sample at
    a time, epoch by epoch): a calculator call, then the answer (off by one when wrong)."""
    outputs = []
    for epoch in range(EPOCHS):
        for a, b, right in QUESTIONS.values():
            call = ModelOutput.for_tool_call(MODEL, "calculator", {"a": a, "b": b})
            answer = ModelOutput.from_content(MODEL, str(a + b if right[epoch] else a + b + 1))
            for output, tokens in ((call, 40), (answer, 12)):
                output.usage = ModelUsage(
                    input_tokens=tokens * 5, output_tokens=tokens, total_tokens=tokens * 6
                )
                outputs.append(output)
    return outputs


def main() -> Path:
    task = Task(
        name="calculator",
        dataset=[
            Sample(input=f"What is {a} + {b}?", target=str(a + b), id=qid)
            for qid, (a, b, _) in QUESTIONS.items()
        ],
        solver=[use_tools(calculator()), generate()],
        scorer=match(),
        epochs=EPOCHS,
    )
    with tempfile.TemporaryDirectory() as tmp:
        model = get_model(MODEL, custom_outputs=_outputs())
        (log,) = eval(
            task, model=model, log_dir=tmp, log_format="eval", display="none", max_samples=1
        )
        if log.status != "success":
            raise SystemExit(f"inspect eval failed: {log.error}")
        shutil.copyfile(log.location, TARGET)
    return TARGET


if __name__ == "__main__":
    print("wrote", main())
