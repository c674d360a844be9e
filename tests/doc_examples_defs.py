# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The examples the docs show, each once: its repository and its commands.

Block names are ``PAGE-WHAT``; tests/doc_examples.py runs them and fills the pages.
"""

from __future__ import annotations

from pathlib import Path

from tests.doc_examples import Block, Example, Run, Shell, Show, Write
from tests.wheelhouse import INDEX, build_wheelhouse

_SPDX_PYPROJECT = """\
[tool.policytool.spdx]
license = "Apache-2.0"
copyright = "Copyright contributors to the demo project"
"""

# -- docs/check.md ------------------------------------------------------------------------

CHECK_CONFIG_ERROR = Example(
    files={
        "pyproject.toml": '[tool.policytool.spdx]\nlicence = "Apache-2.0"\n',
        "a.py": "print('a')\n",
    },
    steps=[Block("check-config-error"), Run("policytool check")],
)

CHECK_DEMO = Example(
    files={
        "pyproject.toml": _SPDX_PYPROJECT,
        "ok.py": (
            "# SPDX-License-Identifier: MIT\n"
            "# SPDX-FileCopyrightText: Copyright contributors to the demo project\n"
            'print("ok")\n'
        ),
        "tool.py": '#!/usr/bin/env python3\nprint("tool")\n',
    },
    steps=[
        Block("check-demo"),
        Run("policytool check"),
        Run("policytool check --format github", head=1),
        Block("check-markdown"),
        Run("policytool check --format markdown"),
        Block("check-demo"),
        Run("policytool fix"),
        Run("head -3 tool.py"),
    ],
)

# -- docs/sweep.md ------------------------------------------------------------------------
# A change shaped like vllm-omni code: qwen3_tts_talker.py copies the guard cosyvoice3.py
# already has on main; metrics/stats.py swallows in a helper and in validate_config.

_SWEEP_BASE: dict[str, str] = {
    "pyproject.toml": '[project]\nname = "vllm-omni"\nrequires-python = ">=3.10"\n',
    "vllm_omni/__init__.py": "",
    "vllm_omni/model_executor/models/cosyvoice3.py": """\
class CosyVoice3:
    def forward(self, **kwargs: object) -> object:
        if "runtime_additional_information" in kwargs:
            return kwargs["runtime_additional_information"]
        return None
""",
}
_SWEEP_CHANGE: dict[str, str] = {
    "vllm_omni/model_executor/models/qwen3_tts_talker.py": """\
class Qwen3TTSTalker:
    def forward(self, input_ids, **kwargs):
        if "runtime_additional_information" in kwargs:
            speaker = kwargs.get("speaker")
            return input_ids, speaker
        return input_ids, None
""",
    "vllm_omni/diffusion/sampler.py": """\
def denoise(model, x_t, timesteps):
    for t in timesteps:
        noise = model(x_t, t)
        prev = x_t
        x_t = model.step(noise, t, prev.clone())
    return x_t
""",
    "vllm_omni/entrypoints/outputs.py": """\
from typing import Any


def _extract_mm_output(engine_outputs: Any) -> list[str]:
    return [out.text for out in engine_outputs]
""",
    "vllm_omni/entrypoints/server.py": """\
import asyncio
import time


class Server:
    def __init__(self) -> None:
        self._lock = asyncio.Lock()

    async def handle_request(self, request: dict[str, str]) -> str:
        async with self._lock:
            result = await self._generate(request)
        time.sleep(0.01)
        return result

    async def _generate(self, request: dict[str, str]) -> str:
        return request["prompt"]
""",
    "vllm_omni/metrics/stats.py": """\
import logging

logger = logging.getLogger(__name__)


def record(stats: dict[str, float], key: str, value: float) -> None:
    try:
        stats[key] = stats.get(key, 0.0) + value
    except Exception:
        pass


def validate_config(config: dict[str, int]) -> None:
    try:
        assert config["max_batch"] > 0
    except Exception:
        pass
""",
}

SWEEP_DEMO = Example(
    files=_SWEEP_BASE,
    steps=[
        *(Write(path, text) for path, text in _SWEEP_CHANGE.items()),
        Shell("git add -A"),
        Block("sweep-example"),
        Run("policytool sweep -q"),
        Block("sweep-markdown"),
        Run("policytool sweep --format markdown", prompt=False),
    ],
)

# -- docs/repo-rules.md -------------------------------------------------------------------

_MERGIFY_PRECOMMIT = """\
default_stages: [pre-commit, manual]
repos:
  - repo: local
    hooks:
      - id: check-pickle-imports
        name: Check for pickle imports
        entry: python tools/check_pickle_imports.py
        language: python
        types: [python]
      - id: mypy-3.10
        name: Run mypy for Python 3.10
        entry: python tools/mypy.py
        language: python
        language_version: python3.10
        additional_dependencies: [mypy==1.11.1]
        stages: [manual]
"""

_MERGIFY_WORKFLOW = """\
name: pre-commit
on: [pull_request]
jobs:
  pre-commit:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2
      - run: pip install pre-commit==4.0.1
      - run: pre-commit run --all-files --hook-stage manual
        env:
          SKIP: check-pickle-imports
"""

_MERGIFY_FILE = """\
pull_request_rules:
  - name: label-documentation
    conditions:
      - files~=^docs/
    actions:
      label:
        add: [documentation]
  # Tell contributors how to reproduce a pre-commit failure.
  - name: comment-pre-commit-failure
    description: Comment on PRs whose pre-commit check failed
    conditions:
      - check-failure=pre-commit
      - -closed
      - -draft
    actions:
      comment:
        message: |
          ## Pre-commit checks failed

          Hi @{{author}}, the pre-commit checks have failed.
"""

REPO_RULES_SYNC = Example(
    files={
        ".pre-commit-config.yaml": _MERGIFY_PRECOMMIT,
        ".github/workflows/pre-commit.yml": _MERGIFY_WORKFLOW,
        ".github/mergify.yml": _MERGIFY_FILE,
        "pyproject.toml": (
            "[tool.policytool.ci]\n"
            'skip-reasons = { "check-pickle-imports" = "runs on commit only; the backlog is allowlisted" }\n'
        ),
    },
    steps=[
        Block("repo-rules-sync"),
        Run("policytool sync --check"),
        Run("policytool sync"),
        Run("git diff .github/mergify.yml"),
        Run("policytool sync --check"),
        Shell("sed -i 's/^  pre-commit:/  lint:/' .github/workflows/pre-commit.yml"),
        Block("repo-rules-renamed-job"),
        Run("policytool check --only mergify-drift"),
    ],
)

# -- docs/source-rules.md -----------------------------------------------------------------

_IMPORT_POLICY = """\
[[tool.policytool.forbidden-import]]          # one table per ban; any number
modules = ["pickle", "cloudpickle"]           # required; each bans its submodules too
reason = "unsafe deserialization; use msgspec"
allow = ["vllm/distributed/**"]               # globs where the import is fine

[[tool.policytool.forbidden-import]]
modules = ["re"]
reason = "use `import regex as re`"
allowlist-file = "tools/re_allowlist.txt"     # globs kept in a file (with or without allow)

[tool.policytool.torch-cuda]
allow = ["vllm/platforms/**"]
# allowlist-file = "tools/cuda_allowlist.txt"
# banned = { synchronize = "torch.accelerator.synchronize()" }  # replaces the default set
"""

_RUNNER = '''\
"""Worker. (`import pickle` in a docstring is not an import.)"""
import os, pickle

import torch as t
from torch.cuda import synchronize


def step() -> None:
    if os.environ.get("DEBUG"):
        import re  # noqa: F401
    t.cuda.empty_cache()
    synchronize()
    with t.cuda.device(0):
        t.cuda.is_available()  # not banned
'''

SOURCE_RULES_IMPORTS = Example(
    files={
        "pyproject.toml": _IMPORT_POLICY,
        "tools/re_allowlist.txt": "# files that may still import re (one glob a line)\nvllm/legacy/**\n",
        "vllm/distributed/transport.py": "import pickle\n",
        "vllm/platforms/cuda.py": "import torch\n\ntorch.cuda.synchronize()\n",
        "vllm/worker/runner.py": _RUNNER,
    },
    steps=[
        Block("source-rules-config"),
        Show("pyproject.toml"),
        Block("source-rules-runner"),
        Show("vllm/worker/runner.py"),
        Block("source-rules-check"),
        Run("policytool check --only forbidden-import,torch-cuda,stale-allow"),
        Block("source-rules-baseline"),
        Run("policytool baseline"),
        # paste the two lists, drop the stale entry
        Shell(
            'sed -i -e \'s|^allow = \\["vllm/distributed/\\*\\*"\\]|allow = ["vllm/distributed/**", "vllm/worker/runner.py"]|\''
            ' -e \'s|^allow = \\["vllm/platforms/\\*\\*"\\]|allow = ["vllm/platforms/**", "vllm/worker/runner.py"]|\''
            " pyproject.toml && sed -i '/^vllm\\/legacy/d' tools/re_allowlist.txt"
            " && grep -c runner.py pyproject.toml | grep -qx 2"
        ),
        Block("source-rules-after"),
        Run("policytool check --only forbidden-import,torch-cuda,stale-allow"),
        Write("vllm/worker/new.py", "import torch.cuda as tc\n\nfree, total = tc.mem_get_info()\n"),
        Shell("git add vllm/worker/new.py"),
        Run("cat vllm/worker/new.py"),
        Run("policytool check --only forbidden-import,torch-cuda,stale-allow"),
    ],
)

# -- docs/lock.md -------------------------------------------------------------------------
# Two layered locks resolved from tests/wheelhouse.py's tiny wheels in the repository
# (`find-links = ["wheels"]`, no index, UV_OFFLINE): no network. The cut-off is the day
# of the run; it is shown as the day the page was written.

_LOCK_PYPROJECT = """\
[[tool.policytool.lock]]
name = "test"
inputs = ["requirements/test.in"]
output = "requirements/test.txt"
constraints = ["common"]
python-version = "3.12"
hashes = true
no-index = true
find-links = ["wheels"]
jobs = ["unit-tests"]

[[tool.policytool.lock]]
name = "common"
inputs = ["requirements/common.in"]
output = "requirements/common.txt"
python-version = "3.12"
hashes = true
no-index = true
find-links = ["wheels"]
"""

_CUT_OFF = (r"\d{4}-\d{2}-\d{2}T00:00:00Z", "2026-12-02T00:00:00Z")


def _wheels(root: Path) -> dict[str, str]:
    """The local wheels the locks resolve from, inside the repository."""
    build_wheelhouse(root / "wheels")
    return {}


LOCK_DEMO = Example(
    files={
        "pyproject.toml": _LOCK_PYPROJECT,
        "requirements/common.in": "alpha<2\n",
        "requirements/test.in": "delta\nepsilon<2\n",
    },
    setup=_wheels,
    normalise=[_CUT_OFF],
    steps=[
        Block("lock-compile"),
        Run("policytool lock test"),
        Run("policytool lock"),
        Block("lock-header"),
        Run("cat requirements/test.txt", head=16, prompt=False),
        Shell("git add -A && git commit -qm locks"),
        Block("lock-upgrade-package"),
        Run("policytool lock --upgrade-package alpha==1.0"),
        Shell("git checkout -q requirements && printf 'alpha==2.0\\n' > requirements/common.in"),
        Block("lock-unresolvable"),
        Run("policytool lock"),
        Shell("git diff --quiet requirements/common.txt requirements/test.txt"),
        Shell("git checkout -q requirements"),
        # an input tightened without relocking, and a pin edited by hand
        Write("requirements/test.in", "delta\nepsilon\nepsilon>=2\n"),
        Shell("sed -i 's/# via epsilon$/# via epsilon (reviewed)/' requirements/test.txt"),
        Block("lock-check"),
        Run("policytool lock --check"),
        Shell("git checkout -q requirements/test.txt"),
        Block("lock-check-resolve"),
        Run("policytool lock --check --resolve"),
        Shell(
            "git checkout -q requirements && mkdir -p sub && printf 'delta\\n./sub\\n' > requirements/test.in"
        ),
        Block("lock-check-resolve-build"),
        Run("policytool lock --check --resolve"),
    ],
)

# lock.md's floating-pin demo: a lock that holds the versions (written, not resolved).

FLOATING_PIN = Example(
    files={
        "pyproject.toml": """\
[project]
name = "demo"
version = "1.0"

[project.optional-dependencies]
dev = [
    "pytest",        # test runner
    "ruff==0.6.9",
]

[tool.policytool.floating-pin]
files = ["requirements/ci.txt"]
pyproject = ["optional-dependencies.dev"]

[[tool.policytool.lock]]
name = "test"
inputs = ["pyproject.toml[dev]", "requirements/extra.in"]
output = "requirements/test.txt"
""",
        "requirements/ci.txt": """\
-r extra.in
numpy==2.1.3
lmms-eval>=0.2   # eval harness
mooncake-transfer-engine @ git+https://github.com/kvcache-ai/Mooncake@main
""",
        "requirements/extra.in": 'pytest ; python_version >= "3.10"\n',
        "requirements/test.txt": "lmms-eval==0.2.4\npytest==8.3.3\nruff==0.6.9\n",
    },
    steps=[
        Block("lock-floating-pin"),
        Run("policytool check --only floating-pin"),
        Block("lock-floating-pin-fix"),
        Run("policytool fix --only floating-pin"),
        Run("git diff -U0"),
    ],
)

# lock.md's PEP 751 lock: the same wheels, one lock written as requirements/pylock.test.toml.

PYLOCK = Example(
    files={
        "pyproject.toml": (
            "[[tool.policytool.lock]]\n"
            'name = "test"\n'
            'inputs = ["requirements/test.in"]\n'
            'output = "requirements/pylock.test.toml"\n'
            'python-version = "3.12"\n'
            "no-index = true\n"
            'find-links = ["wheels"]\n'
        ),
        "requirements/test.in": "delta\nepsilon<2\n",
    },
    setup=_wheels,
    normalise=[_CUT_OFF],
    steps=[
        Shell("policytool lock -q"),
        Block("lock-pylock-header"),
        Run("cat requirements/pylock.test.toml", head=18, prompt=False),
    ],
)

# -- docs/bump.md -------------------------------------------------------------------------
# The locks are written before the 2.0 releases of beta, gamma and epsilon reach the
# wheels directory (../later holds them all); the bump comes after.

_LATER = {("beta", "2.0"), ("gamma", "2.0"), ("epsilon", "2.0")}


def _wheels_before_release(root: Path) -> dict[str, str]:
    """``wheels`` without the 2.0 releases of beta, gamma and epsilon; ``../later``: all."""
    early = {
        name: {v: req for v, req in versions.items() if (name, v) not in _LATER}
        for name, versions in INDEX.items()
    }
    build_wheelhouse(root / "wheels", early)
    build_wheelhouse(root.parent / "later")
    return {}


BUMP_DEMO = Example(
    files={
        "pyproject.toml": _LOCK_PYPROJECT.replace(
            'jobs = ["unit-tests"]', 'jobs = ["unit-tests", "e2e-nightly"]'
        ),
        "requirements/common.in": "alpha<2\n",
        "requirements/test.in": "delta\nepsilon==1.0  # 1.1 broke the nightly\n",
    },
    setup=_wheels_before_release,
    normalise=[_CUT_OFF],
    steps=[
        Shell("policytool lock -q && git add -A && git commit -qm locks"),
        Shell("cp ../later/*.whl wheels/ && git add wheels && git commit -qm releases"),
        Block("bump-demo"),
        Run(
            'policytool bump epsilon --why "epsilon 2.0 fixes the connection leak seen in'
            ' e2e-nightly" --offline --pr-body pr.md'
        ),
        Run("git diff --stat"),
        Block("bump-pr-body"),
        Run("sed -n '/^# Bump/,$p' pr.md", prompt=False),
        Shell("git reset -q --hard && rm pr.md"),
        Block("bump-unresolvable"),
        Run("policytool bump delta==7.0 --offline"),
        Run("git status --short"),
        Block("bump-bound"),
        Run("policytool bump alpha==2.0 --offline"),
    ],
)

# -- docs/lock-config.md ------------------------------------------------------------------
# A bot's PR edits the pin of alpha in the lock after alpha 1.1 is out.


def _wheels_before_alpha(root: Path) -> dict[str, str]:
    """``wheels`` without alpha 1.1 and 2.0; ``../later``: every wheel."""
    early = {n: v for n, v in INDEX.items() if n != "alpha"} | {"alpha": {"1.0": ()}}
    build_wheelhouse(root / "wheels", early)
    build_wheelhouse(root.parent / "later")
    return {}


LOCK_CONFIG_BOT = Example(
    files={
        "pyproject.toml": (
            "[[tool.policytool.lock]]\n"
            'name = "test"\n'
            'inputs = ["requirements/test.in"]\n'
            'output = "requirements/test.txt"\n'
            'python-version = "3.12"\n'
            "hashes = true\n"
            "no-index = true\n"
            'find-links = ["wheels"]\n'
        ),
        "requirements/test.in": "delta\nepsilon\n",
    },
    setup=_wheels_before_alpha,
    normalise=[_CUT_OFF],
    steps=[
        Shell("policytool lock -q && git add -A && git commit -qm locks"),
        Shell("cp ../later/*.whl wheels/ && git add wheels && git commit -qm releases"),
        Shell("sed -i 's/^alpha==1.0/alpha==1.1/' requirements/test.txt"),
        Block("lock-config-bot"),
        Run("git diff --stat"),
        Run("policytool lock --check"),
        Run("git checkout main -- requirements/test.txt"),
        Run("policytool bump alpha==1.1 --offline --pr-body pr.md"),
        Run("policytool lock --check"),
    ],
)

# -- docs/config.md (from docs/config.md.in) ----------------------------------------------

CONFIG_ELSEWHERE = Example(
    files={
        "pyproject.toml": '[project]\nname = "demo"\n',
        "ruff.toml": 'line-length = 100\n\n[tool.policytool]\nexclude = ["build/**"]\n',
    },
    steps=[Block("config-elsewhere"), Run("policytool check")],
)

# -- docs/first-run.md --------------------------------------------------------------------
# A small repository nobody configured: nine of its ten Python files carry an SPDX header,
# and its one workflow installs ruff unpinned from an unpinned action.

_HEADER = (
    "# SPDX-License-Identifier: Apache-2.0\n"
    "# SPDX-FileCopyrightText: Copyright contributors to the demo project\n"
)
_ADOPTION_FILES = {
    "pyproject.toml": '[project]\nname = "demo"\nversion = "1.0"\nlicense = "Apache-2.0"\n',
    ".github/workflows/test.yml": """\
name: test
on: [pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pip install ruff
      - run: ruff check .
""",
    "demo/legacy.py": 'print("no header")\n',
} | {f"demo/m{i}.py": f"{_HEADER}print({i})\n" for i in range(9)}

FIRST_RUN_ADOPTION = Example(
    files=_ADOPTION_FILES,
    steps=[
        Block("first-run-adoption"),
        Run("policytool check"),
        Run("policytool init"),
        Run("git diff pyproject.toml"),
        Run("policytool check"),
        Run("policytool baseline"),
        Run("policytool check"),
        Run("git status --short"),
    ],
)

# -- docs/pinned-ci.md --------------------------------------------------------------------

PINNED_CI_FIX = Example(
    files={
        ".github/workflows/lint.yml": """\
name: lint
on: [pull_request]
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2
      - run: |
          pip install uv
          uv pip install pre-commit>=4.5.1
          pre-commit run --all-files
""",
        "requirements/ci.in": "uv\npre-commit\n",
        "requirements/ci.lock": "pre-commit==4.7.0\nuv==0.5.1\n",
        "pyproject.toml": (
            "[[tool.policytool.lock]]\n"
            'name = "ci"\n'
            'inputs = ["requirements/ci.in"]\n'
            'output = "requirements/ci.lock"\n'
            'jobs = ["lint"]\n'
        ),
    },
    steps=[
        Block("pinned-ci-fix"),
        Run("policytool check --only ci-floating-install"),
        Run("policytool fix --only ci-floating-install"),
        Run("git diff -U1"),
        Run("policytool fix --only ci-floating-install"),
    ],
)

PINNED_CI_UV_LOCKED = Example(
    files={
        ".github/workflows/test.yml": """\
name: test
on: [pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2
      - run: |
          uv sync --extra test
          uv run pytest
""",
        "pyproject.toml": '[project]\nname = "demo"\nversion = "0"\ndependencies = []\n',
        "uv.lock": "version = 1\n",
    },
    steps=[
        Block("pinned-ci-uv-locked"),
        Run("policytool check --only ci-floating-install"),
        Run("policytool fix --only ci-floating-install"),
        Run("git diff -U0"),
    ],
)

# -- docs/security.md ---------------------------------------------------------------------

SECURITY_ONE_LINE = Example(
    files={
        "pyproject.toml": (
            '[project]\nname = "demo"\n\n[tool.policytool.spdx]\nlicense = "MIT\\nimport os"\n'
        ),
    },
    steps=[Block("security-one-line"), Run("policytool check")],
)

# Blocks whose page marker is still to be written by whoever owns the page
# (docs/security.md is edited by the maintainers only); empty once it is.
AWAITING_MARKER: set[str] = set()

EXAMPLES: list[Example] = [
    CHECK_CONFIG_ERROR,
    CHECK_DEMO,
    SWEEP_DEMO,
    REPO_RULES_SYNC,
    SOURCE_RULES_IMPORTS,
    LOCK_DEMO,
    FLOATING_PIN,
    PYLOCK,
    BUMP_DEMO,
    LOCK_CONFIG_BOT,
    CONFIG_ELSEWHERE,
    FIRST_RUN_ADOPTION,
    PINNED_CI_FIX,
    PINNED_CI_UV_LOCKED,
    SECURITY_ONE_LINE,
]
