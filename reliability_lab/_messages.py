"""Chat messages (OpenAI format) as text: the one definition every reader of a conversation uses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["message_text"]


def message_text(message: Mapping[str, Any]) -> str:
    """The text of a chat message: its string ``content``, or its text parts joined by spaces.

    Multi-part content (``[{"type": "text", "text": ...}, ...]``) gives the parts' ``text``
    joined with single spaces; no or other content gives "".

    Examples
    --------
    >>> message_text({"role": "user", "content": "hi"})
    'hi'
    >>> message_text({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]})
    'a b'
    >>> message_text({"role": "assistant", "content": None})
    ''
    """
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return ""
