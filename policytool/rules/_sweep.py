# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What the five sweep rules share: the configuration their pages show, their kind,
a finding at a node, a node's text for a message, and the fix hint of a rule page.

Each sweep rule is a :class:`FileRule` of the group ``sweep`` with
``scope="added-lines"``, in its own module (``kwargs_lookup``, ``broad_except``,
``any_annotation``, ``hot_copy``, ``async_blocking``): ``policytool sweep`` runs the
registry's ``sweep`` group on the Python files a change touches and reports only what
lies on the lines the change adds; ``policytool check`` does not run them (``--only
kwargs-lookup`` is refused with one sentence: on whole files these patterns report the
backlog, which the patterns' own definition calls useless). All five read the one
walk of :mod:`policytool.rules._pysource`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from policytool.config import Config
from policytool.engine.findings import Finding, Severity
from policytool.engine.registry import SCOPE_ADDED_LINES, FileRule
from policytool.engine.source import SourceFile
from policytool.rules._pysource import SourceInfo

WARN = Severity.WARNING
BLOCK = Severity.ERROR
PYTHON = frozenset({"python"})

CONFIG_DOC = """\
`[tool.policytool.sweep]`, shared by the five sweep rules (defaults shown):

```toml
[tool.policytool.sweep]
fail-fast = ["__init__", "__post_init__", "load_weights", "*load_weight*",
             "*load_checkpoint*", "*load_state_dict*", "load_model", "*_load_model",
             "*load_pretrained*", "*validate_config*", "*validate_*config*",
             "*validate_args*", "*validate_kwargs*", "*validate_options*",
             "*validate_param*", "*verify*", "*check_config*",
             "*build_config*", "*create_config*", "*parse_config*", "*load_config*",
             "*setup*", "*init_*", "*_init", "*initialize*"]
request-path = ["*request*", "*forward*", "*step*", "*generate*", "*handle*", "*infer*"]
hot-path = ["execute_model", "_preprocess", "*_process", "*denoise*", "*sample*", "*decode*"]
serving-paths = ["**/engine/**", "**/entrypoints/**", "**/connectors/**", "**/server/**",
                 "**/serve/**", "**/serving/**", "**/router/**", "**/routers/**",
                 "**/routes/**", "**/server.py", "**/*_server.py"]
test-paths = ["**/tests/**", "**/test_*.py", "**/*_test.py", "**/conftest.py",
              "test/**", "testing/**", "**/integration-tests/**", "**/e2e/**", "qa/**"]
exclude = ["**/_generated/**", "**/generated/**", "**/*_pb2.py", "**/*_pb2_grpc.py"]
target-version = "3.10"   # default: the lower bound of [project] requires-python
```

The top-level `exclude` applies too. `# policytool: ignore[RULE]` on a line silences it.
"""


def python_kinds(config: Config) -> frozenset[str]:
    """The sweep rules read Python source files."""
    return PYTHON


def sweep_rule(
    rule_id: str,
    summary: str,
    check: Callable[[SourceFile, Config], Iterable[Finding]],
    doc: str,
    prefilter: Callable[[bytes, Config], bool] | None = None,
) -> FileRule:
    """A sweep rule: a file rule of the group ``sweep`` over Python files, scoped to the
    lines a change adds (its module registers it)."""
    return FileRule(
        rule_id,
        summary,
        check,
        kinds=python_kinds,
        prefilter=prefilter,
        doc=doc,
        scope=SCOPE_ADDED_LINES,
        group="sweep",
        config=("sweep",),
    )


def finding(src: SourceInfo, node: ast.AST, rule: str, severity: Severity, message: str) -> Finding:
    """A finding at ``node`` (1-based column)."""
    return Finding(
        src.path,
        getattr(node, "lineno", 1),
        getattr(node, "col_offset", 0) + 1,
        rule,
        message,
        severity,
    )


def short(src: SourceInfo, node: ast.AST, limit: int = 60) -> str:
    """The node's source text on one line, shortened for a message."""
    text = " ".join(src.segment(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def fix_hint(doc: str) -> str:
    """The first paragraph of a rule doc's ``## Fix`` section, on one line."""
    _before, _found, rest = doc.partition("## Fix\n")
    paragraph = rest.split("\n\n", 1)[0]
    return " ".join(paragraph.split()).removesuffix(" Not fixable by `policytool fix`.")
