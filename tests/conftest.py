"""Fixtures shared by the whole test suite."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.experiment.helpers import TINY, config_writer
from tests.fake_openai_server import FakeOpenAIServer, chat_body


@pytest.fixture()
def server() -> Iterator[FakeOpenAIServer]:
    """A fresh local OpenAI-compatible server (see :class:`FakeOpenAIServer`)."""
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture()
def chat_server(server: FakeOpenAIServer) -> tuple[FakeOpenAIServer, str]:
    """(server, api_base) of a fresh local OpenAI-compatible server.

    It answers every request with :func:`chat_body` until a test sets ``server.script``.
    """
    server.script = [("ok", chat_body())]
    return server, server.base_url


@pytest.fixture()
def write_config(tmp_path: Path) -> Callable[..., Path]:
    """``write(data, name="exp.yaml") -> path``: a YAML config under the test's ``tmp_path``."""
    return config_writer(tmp_path)


@pytest.fixture(scope="session")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(config, results directory) of the finished offline experiment :data:`TINY`.

    Shared by the whole session: tests that change the directory work on a copy.
    """
    from reliability_lab.cli import main

    tmp = tmp_path_factory.mktemp("finished")
    cfg = config_writer(tmp)(TINY)
    assert main(["run", str(cfg), "--output", str(tmp / "out"), "--quiet"]) == 0
    return cfg, tmp / "out"


@pytest.fixture()
def finished_copy(finished: tuple[Path, Path], tmp_path: Path) -> Path:
    """A copy of :func:`finished`'s results directory that the test may change."""
    return Path(shutil.copytree(finished[1], tmp_path / "out"))
