# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""hot-copy (round AV): a function given the request's content (``messages``, a
``prompt``, a ``query``, ``input_ids``) together with the sampling config it deep-copies
serves that request, so the copy runs per request: ✗ (qwen-agent's
``_chat_no_stream(self, messages, generate_cfg)`` starting with ``generate_cfg =
copy.deepcopy(generate_cfg)``, set zzm). A helper given only the config may run once
and keeps its old reading."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

CHAT = """\
import copy


class TransformersLLM:
    def _chat_no_stream(self, messages: list[str], generate_cfg: dict) -> list[str]:
        generate_cfg = copy.deepcopy(generate_cfg)
        generate_cfg.update(self._inputs(messages))
        return self.model.generate(**generate_cfg)

    def _inputs(self, messages: list[str]) -> dict:
        return {"input_ids": messages}
"""


@pytest.mark.parametrize("content", ["messages", "prompt", "query", "input_ids"])
def test_a_sampling_config_copied_beside_the_request_content_is_per_request(
    feature: Repo, run: Run, content: str
) -> None:
    feature.write(
        "pkg/llm.py",
        CHAT.replace(
            "(self, messages: list[str], generate_cfg", f"(self, {content}: list[str], generate_cfg"
        ).replace("self._inputs(messages)", f"self._inputs({content})"),
    )
    rows = found(run, "hot-copy")
    assert [(r[1], r[2]) for r in rows] == [(6, "error")]
    assert (
        f"of parameter `generate_cfg` in `_chat_no_stream`, given the request's `{content}`"
        in rows[0][3]
    )


@pytest.mark.parametrize(
    "signature",
    [
        # only the config: a defaults helper may run once
        "(self, generate_cfg: dict) -> list[str]",
        # a name that is no request's content
        "(self, history: list[str], generate_cfg: dict) -> list[str]",
    ],
)
def test_a_config_copied_without_the_requests_content_is_not_reported(
    feature: Repo, run: Run, signature: str
) -> None:
    text = CHAT.replace("(self, messages: list[str], generate_cfg: dict) -> list[str]", signature)
    text = text.replace("self._inputs(messages)", "self._inputs([])")
    feature.write("pkg/llm.py", text)
    assert found(run, "hot-copy") == []


def test_a_copy_of_another_parameter_beside_the_content_is_not_a_config(
    feature: Repo, run: Run
) -> None:
    feature.write(
        "pkg/llm.py", CHAT.replace("copy.deepcopy(generate_cfg)", "copy.deepcopy(messages)")
    )
    assert found(run, "hot-copy") == []
