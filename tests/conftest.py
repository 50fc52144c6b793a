"""Fixtures shared by the whole test suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fake_openai_server import FakeOpenAIServer, chat_body


@pytest.fixture()
def chat_server() -> Iterator[tuple[FakeOpenAIServer, str]]:
    """(server, api_base) of a fresh local OpenAI-compatible server.

    It answers every request with :func:`chat_body` until a test sets ``server.script``.
    """
    with FakeOpenAIServer() as server:
        server.script = [("ok", chat_body())]
        yield server, server.base_url
