"""An offline inspect model that drives tool calls from the schemas it is given.

``rlscripted/<answer>`` is registered with inspect's model registry (so ``eval_retry`` and
``eval_set`` can re-create it by name). Its policy, per sample:

1. no tool message yet and tools offered → call the first tool, with arguments built from the
   schema it *received* (so a renamed or nested parameter is used as shown) and a string value
   taken from the sample's first user message (its first id like ``O2001``, else its last
   word);
2. asked the confidence question → ``"<answer>"`` from the model name (``rlscripted/80`` → 80);
3. otherwise → ``"42"`` if the last tool call succeeded (no error, non-empty result that is
   valid JSON or plain text containing ``value``), else ``"7"``; without tools, ``"42"``.

Every output carries token usage, so inspect never counts tokens itself (it would download a
tokenizer).
"""

from __future__ import annotations

import json
import re
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

CONFIDENCE_MARK = "how confident are you"


def _value_for(schema: dict[str, Any], word: str) -> Any:
    if schema.get("type") == "object":
        return {name: _value_for(sub, word) for name, sub in schema.get("properties", {}).items()}
    if schema.get("enum"):
        return schema["enum"][0]
    if schema.get("type") == "integer":
        return 3
    return word


def arguments_for(tool: ToolInfo, word: str) -> dict[str, Any]:
    """Arguments for ``tool`` built from the schema the model sees."""
    schema = tool.parameters.model_dump(exclude_none=True)
    value = _value_for(schema, word)
    return value if isinstance(value, dict) else {}


def _succeeded(message: ChatMessageTool) -> bool:
    if message.error is not None:
        return False
    text = message.text.strip()
    if not text:
        return False
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return "value" in text
    return True


def policy(input: list[ChatMessage], tools: list[ToolInfo], answer: str, model: str) -> ModelOutput:
    """The next output of the scripted model (module docstring)."""
    last = input[-1]
    if isinstance(last, ChatMessageUser) and CONFIDENCE_MARK in last.text.lower():
        output = ModelOutput.from_content(model, answer)
    elif tools and not any(isinstance(m, ChatMessageTool) for m in input):
        first_user = next(m for m in input if isinstance(m, ChatMessageUser))
        ids = re.findall(r"\b[A-Z]\d{3,}\b", first_user.text)
        word = ids[0] if ids else first_user.text.split()[-1].strip(".?!")
        output = ModelOutput.for_tool_call(model, tools[0].name, arguments_for(tools[0], word))
    else:
        results = [m for m in input if isinstance(m, ChatMessageTool)]
        ok = not results or _succeeded(results[-1])
        output = ModelOutput.from_content(model, "42" if ok else "7")
    output.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
    return output


@modelapi(name="rlscripted")
class ScriptedAPI(ModelAPI):
    """The scripted model (module docstring); the model name is the confidence answer."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        return policy(input, tools, self.model_name, f"rlscripted/{self.model_name}")
