# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The config section of ``policytool sweep`` and the sweep rules: ``[tool.policytool.sweep]``.

Here, not in ``policytool/sweep/``, because the sweep rules (``policytool/rules``, a layer
below the command) read it too.
"""

from __future__ import annotations

from dataclasses import dataclass

from policytool.config import KeyDoc, document, register_section


@dataclass(frozen=True)
class SweepConfig:
    """``[tool.policytool.sweep]``: what counts as fail-fast, request and serving code."""

    fail_fast: tuple[str, ...] = (
        "__init__",
        "__post_init__",
        "load_weights",
        "*load_weight*",
        "*load_checkpoint*",
        "*load_state_dict*",
        "load_model",
        "*_load_model",
        "*load_pretrained*",
        "*validate_config*",
        "*validate_*config*",
        "*validate_args*",
        "*validate_kwargs*",
        "*validate_options*",
        "*validate_param*",
        "*verify*",
        "*check_config*",
        "*build_config*",
        "*create_config*",
        "*parse_config*",
        "*load_config*",
        "*setup*",
        "*init_*",
        "*_init",
        "*initialize*",
    )
    request_path: tuple[str, ...] = (
        "*request*",
        "*forward*",
        "*step*",
        "*generate*",
        "*handle*",
        "*infer*",
    )
    # Per-step functions whose name says nothing of a request (vLLM's model runner).
    hot_path: tuple[str, ...] = (
        "execute_model",
        "_preprocess",
        "*_process",
        "*denoise*",
        "*sample*",
        "*decode*",
    )
    # Path globs (``**`` spans directories): engine/, entrypoints/, connectors/ (vLLM's
    # names) and the directories and modules Python serving projects name for their
    # server (lightllm and TGI ``server/``, lmdeploy and FastChat ``serve/``,
    # ``serving/``, ``api_server.py``) and their request routers (production-stack's
    # ``routers/``, FastAPI ``routes/``), anywhere.
    serving_paths: tuple[str, ...] = (
        "**/engine/**",
        "**/entrypoints/**",
        "**/connectors/**",
        "**/server/**",
        "**/serve/**",
        "**/serving/**",
        "**/router/**",
        "**/routers/**",
        "**/routes/**",
        "**/server.py",
        "**/*_server.py",
    )
    # A ``test/`` or ``testing/`` directory at the top is a test suite (lightllm's harness,
    # pytest's ``testing/``); inside a package it is often shipped code (``django.test``,
    # ``numpy.testing``), so only the top-level ones. ``integration-tests/`` (TGI, LoRAX:
    # the suite's harness and scripts) is never an importable package; a ``*_tests/``
    # directory can be (``load_tests/`` load generators ship as tools): not a test path.
    test_paths: tuple[str, ...] = (
        "**/tests/**",
        "**/test_*.py",
        "**/*_test.py",
        "**/conftest.py",
        "test/**",
        "testing/**",
        "**/integration-tests/**",
        # an end-to-end suite (haystack's top-level ``e2e/``; chainlit's ``cypress/e2e/``
        # apps, which only its Cypress specs run)
        "**/e2e/**",
        "qa/**",  # a top-level QA suite (Triton's and TransformerEngine's L0_* tests)
    )
    # Not swept: generated code (the top-level exclude too). Examples, benchmarks and
    # tools are swept: the patterns exclude nothing, and they hold real instances.
    exclude: tuple[str, ...] = (
        "**/_generated/**",
        "**/generated/**",
        "**/*_pb2.py",
        "**/*_pb2_grpc.py",
    )
    # "3.10": parse for this Python; default the lower bound of [project] requires-python.
    target_version: str | None = None


document(
    SweepConfig,
    "`policytool sweep` ([sweep.md](sweep.md)).",
    {
        "fail-fast": KeyDoc(
            "list of name globs",
            "functions that must fail loudly (init, config validation, weight loading, set-up)",
        ),
        "request-path": KeyDoc("list of name globs", "functions on a per-request or per-step path"),
        "hot-path": KeyDoc("list of name globs", "more per-step functions, for `hot-copy`"),
        "serving-paths": KeyDoc(
            "list of path globs",
            "files on the serving path (an event loop that serves requests)",
        ),
        "test-paths": KeyDoc("list of path globs", "test files (never a hot or serving path)"),
        "exclude": KeyDoc(
            "list of path globs", "files not swept (the top-level `exclude` applies too)"
        ),
        "target-version": KeyDoc(
            "string",
            'the Python the swept code is parsed for, `"3.10"`',
            "the lower bound of `[project] requires-python`",
        ),
    },
)


register_section("sweep", SweepConfig)
