# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""A real git repo for ``policytool sweep``: old violations on ``main``, new ones on ``feature``,
and the helpers every sweep test reads findings with.

Used by tests/test_sweep*.py and bench/sweep_vs_grep.py. ``EXPECTED`` lists every
finding the change must produce as (path, unique text on the line, rule, severity);
every other added line is a look-alike that must not count. The ``feature`` fixture
(one base commit, the ``feature`` branch checked out) is in tests/conftest.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from policytool.engine.findings import Finding as EngineFinding
    from policytool.engine.registry import FileRule
    from tests.conftest import Repo, Result

# The ``run`` fixture of tests/conftest.py: ``policytool ARGS...`` in-process.
Run = Callable[..., "Result"]

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}

# -- main: the backlog of old violations (none may be reported) -------------------------

BASE_FILES: dict[str, str] = {
    "pkg/__init__.py": "",
    "pkg/keys.py": 'SHARED_KEY = "shared_key"\n',
    "pkg/old.py": """\
import copy
import time
from typing import Any


def old_forward(x: Any, **kwargs: object) -> Any:
    if "old_key" in kwargs:
        pass
    try:
        return x.clone()
    except Exception:
        return None


async def old_async() -> None:
    time.sleep(1)


def old_loop(xs: list[Any]) -> list[Any]:
    return [copy.deepcopy(x) for x in xs]
""",
    "pkg/other_model.py": """\
class OtherModel:
    def forward(self, **kwargs: object) -> object:
        if "runtime_info" in kwargs:
            return kwargs["runtime_info"]
        return None
""",
    "pkg/consumer.py": """\
from pkg.keys import SHARED_KEY


def consume(**kwargs: object) -> object:
    return kwargs.get(SHARED_KEY)
""",
    "pkg/rename_me.py": """\
from typing import Any


def kept(x: Any) -> Any:
    try:
        return x
    except Exception:
        return None


def second() -> int:
    return 2
""",
    "pkg/delete_me.py": """\
def gone(**kwargs):
    try:
        return kwargs["gone_key"]
    except:
        pass
""",
    "tests/__init__.py": "",
    "tests/test_old.py": """\
from types import SimpleNamespace

OLD = SimpleNamespace(device="cpu")
""",
}

# -- feature: the change --------------------------------------------------------------

CHANGE_FILES: dict[str, str] = {
    "pkg/models/new_model.py": """\
from pkg.keys import SHARED_KEY


def target(*args: object, **kwargs: object) -> object:
    return args, kwargs


class NewModel:
    def forward(self, **kwargs: object) -> object:
        value = kwargs.get("local_only_key")
        if "runtime_info" in kwargs and "buffer_key" not in kwargs:
            value = None
        shared = kwargs.get(SHARED_KEY)
        twin = kwargs.pop("twin_key", None)
        return target(value, shared, twin, **kwargs)


class Sized:
    def __init__(self, **kwargs: object) -> None:
        self.size = kwargs.get("size_key", 1)


class Forwarding(Sized):
    def __init__(self, **kwargs: object) -> None:
        self.mode = kwargs["mode_key"]
        super().__init__(**kwargs)


def passthrough(**kwargs: object) -> object:
    return target(**kwargs)
""",
    "pkg/models/twin.py": """\
def twin_reader(**kwargs: object) -> object:
    return kwargs["twin_key"]
""",
    "pkg/handlers.py": """\
import logging

log = logging.getLogger(__name__)


class Handler:
    count = 0
    ok = True

    def compute(self) -> None:
        try:
            self.count += 1
        except Exception:
            log.warning("compute failed")

    def validate_config(self) -> None:
        try:
            self.count += 2
        except Exception:
            return None

    def setup_connector(self) -> None:
        try:
            self.count += 3
        except:
            pass

    def close(self) -> None:
        try:
            self.count += 30
        except Exception:
            pass

    def load_weights(self) -> None:
        try:
            self.count += 4
        except BaseException:
            self.ok = False

    def tally(self) -> None:
        try:
            self.count += 5
        except Exception as unused_error:
            self.count -= 1

    def scan(self, items: list[int]) -> None:
        for item in items:
            try:
                self.count += item
            except Exception:
                continue

    def specific(self) -> None:
        try:
            self.count += 6
        except ValueError:
            return None

    def push_metrics(self) -> None:
        try:
            self.count += 7
        except Exception as logged_error:
            log.error("failed: %s", logged_error)

    def cleanup_then_raise(self) -> None:
        try:
            self.count += 8
        except Exception:
            self.count = 0
            raise

    def catch_all(self) -> None:
        try:
            self.count += 9
        except:
            self.count -= 9

    def mixed(self) -> None:
        try:
            self.count += 10
        except (ValueError, Exception):
            self.count -= 10
""",
    "pkg/types_new.py": """\
from typing import Any, Optional

# note: Any input is accepted by the helpers below
fallback: Any = None


def extract(outputs: Any) -> dict[str, Any]:
    return {"outputs": outputs}


def loader(path: str) -> Any:
    return path


def maybe(value: Optional[Any]) -> None:
    del value


def helper(a, b):
    return a + b


def _private_helper(a, b):
    return a - b


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y


def is_ready(flag: int) -> bool:
    if flag:
        return True
    return None


def first_positive(items: list[int]) -> int:
    for item in items:
        if item > 0:
            return item


def reset(state: list[int]) -> None:
    state.clear()
    return [0]


def maybe_ready(flag: int) -> Optional[bool]:
    if flag:
        return True
    return None
""",
    "pkg/diffusion/sampler.py": """\
import copy
from copy import deepcopy


class Sampler:
    def __init__(self) -> None:
        self.scheduler = object()

    def run(self, x_t: object, timesteps: list[int], buf: object, cfg: object) -> list[object]:
        trajectory = []
        for _t in timesteps:
            trajectory.append(x_t.clone())
            # keep a copy: x_t is mutated in place by the next step
            saved = x_t.clone()
            buf.copy_(saved)
            cfg_copy = copy.deepcopy(cfg)
            trajectory.append(cfg_copy)
        snapshots = [t.clone() for t in trajectory]
        for snap in x_t.clone():
            snapshots.append(snap)
        return snapshots

    def forward(self, x: object) -> object:
        return x.clone()

    def handle_request(self, req: object) -> object:
        return copy.deepcopy(req.sampling_params)

    def generate(self, prompt: str) -> object:
        scheduler = deepcopy(self.scheduler)
        return scheduler, prompt

    def prepare(self, x: object) -> object:
        return x.clone()
""",
    "pkg/engine/server.py": """\
import asyncio
import time

import requests


class Server:
    def __init__(self) -> None:
        self._lock = asyncio.Lock()

    async def handle(self, url: str) -> object:
        time.sleep(0.1)
        body = requests.get(url)
        with self._lock:
            result = await self.call(body)
        return result

    async def call(self, body: object) -> object:
        await asyncio.sleep(0)
        return body
""",
    "pkg/client.py": """\
import asyncio
import time
import urllib.request
from urllib.request import urlopen

import aiohttp
import requests


class Client:
    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self.lock = asyncio.Lock()
        self._semaphore = asyncio.Semaphore(4)

    async def poll(self, url: str) -> object:
        time.sleep(1)
        return urlopen(url)

    async def refresh(self) -> None:
        async with self._lock:
            await self.fetch()

    async def handle_request(self) -> None:
        async with self.lock:
            await self.fetch()

    async def sync_state(self) -> None:
        await self._lock.acquire()
        await self.fetch()
        self._lock.release()
        await self.fetch_after_release()

    async def fetch(self) -> None:
        await asyncio.sleep(0.01)
        await asyncio.to_thread(time.sleep, 1)

    async def fetch_after_release(self) -> None:
        async with aiohttp.ClientSession() as session:
            await session.get("http://example.invalid")
        async with self._semaphore:
            await self.fetch()

    def worker(self, url: str) -> object:
        time.sleep(1)
        return requests.get(url)


def raw_fetch(url: str) -> bytes:
    with urllib.request.urlopen(url) as response:
        return bytes(response.read())
""",
    "tests/test_new.py": """\
from types import SimpleNamespace
from typing import Any

from pkg.config import DeviceConfig


def fake(x: Any) -> None:
    del x


def test_fake() -> None:
    fake(SimpleNamespace(device="cpu"))
    fake(SimpleNamespace(device="cuda", index=0))
    assert DeviceConfig
""",
    "pkg/config.py": """\
from dataclasses import dataclass


@dataclass
class DeviceConfig:
    device: str
    index: int
""",
}

# Appended to pkg/old.py: old violations above stay unreported, only this counts.
OLD_APPEND = """

def added_later(values: list[int]) -> int:
    try:
        return sum(values)
    except Exception:
        return 0
"""

# pkg/rename_me.py -> pkg/renamed.py with one changed line.
RENAMED_FROM = "pkg/rename_me.py"
RENAMED_TO = "pkg/renamed.py"
RENAMED_OLD_LINE = "    return 2\n"
RENAMED_NEW_LINE = "    return None  # second is gone\n"

E = "error"
W = "warning"

# (path, unique text on the line, rule, severity): everything the change must report.
EXPECTED: list[tuple[str, str, str, str]] = [
    # kwargs-lookup
    ("pkg/models/new_model.py", 'kwargs.get("local_only_key")', "kwargs-lookup", W),
    # also read in other_model.py at the base: an existing key, one more copy (⚠)
    ("pkg/models/new_model.py", '"runtime_info" in kwargs and', "kwargs-lookup", W),
    ("pkg/models/new_model.py", '"runtime_info" in kwargs and', "kwargs-lookup", W),  # "buffer_key"
    ("pkg/models/new_model.py", 'kwargs.pop("twin_key"', "kwargs-lookup", E),  # also in twin.py
    ("pkg/models/twin.py", 'kwargs["twin_key"]', "kwargs-lookup", E),
    ("pkg/models/new_model.py", 'kwargs.get("size_key", 1)', "kwargs-lookup", W),
    (
        "pkg/models/new_model.py",
        "def __init__(self, **kwargs: object) -> None:\n        self.size",
        "kwargs-lookup",
        E,
    ),  # dropped in __init__: one ✗ on the def line
    # handed only to super().__init__, whose new Sized.__init__ drops unknown keys: ✗
    ("pkg/models/new_model.py", 'kwargs["mode_key"]', "kwargs-lookup", E),
    # broad-except
    ("pkg/handlers.py", "except Exception:\n            log.warning", "broad-except", W),
    ("pkg/handlers.py", "except Exception:\n            return None", "broad-except", E),
    ("pkg/handlers.py", "except:\n            pass", "broad-except", E),
    # fail-fast load_weights, but it does not only swallow: ⚠ (the seed's ✗ needs both)
    ("pkg/handlers.py", "except BaseException:", "broad-except", W),
    # best effort: close() may swallow
    ("pkg/handlers.py", "except Exception:\n            pass", "broad-except", W),
    ("pkg/handlers.py", "except Exception as unused_error:", "broad-except", W),
    ("pkg/handlers.py", "except Exception:\n                continue", "broad-except", W),
    ("pkg/handlers.py", "except:\n            self.count -= 9", "broad-except", W),
    ("pkg/handlers.py", "except (ValueError, Exception):", "broad-except", W),
    ("pkg/old.py", "except Exception:\n        return 0", "broad-except", W),
    # any-annotation
    ("pkg/types_new.py", "fallback: Any = None", "any-annotation", W),
    ("pkg/types_new.py", "def extract(outputs: Any)", "any-annotation", W),
    ("pkg/types_new.py", "def loader(path: str) -> Any:", "any-annotation", W),
    ("pkg/types_new.py", "def maybe(value: Optional[Any])", "any-annotation", W),
    ("pkg/types_new.py", "def helper(a, b):", "any-annotation", W),
    # private functions too: the seed says "fully-untyped signature in production code"
    ("pkg/types_new.py", "def _private_helper(a, b):", "any-annotation", W),
    ("pkg/types_new.py", "def __init__(self, x, y):", "any-annotation", W),
    # a wrong return annotation is reported at the new ``def`` line (one site per function)
    ("pkg/types_new.py", "def is_ready(flag: int) -> bool:", "any-annotation", E),
    ("pkg/types_new.py", "def first_positive(items: list[int]) -> int:", "any-annotation", E),
    ("pkg/types_new.py", "def reset(state: list[int]) -> None:", "any-annotation", E),
    ("pkg/renamed.py", "return None  # second is gone", "any-annotation", E),
    ("tests/test_new.py", 'fake(SimpleNamespace(device="cpu"))', "any-annotation", W),
    # mimics pkg/config.py's DeviceConfig, which the test imports
    ("tests/test_new.py", 'SimpleNamespace(device="cuda", index=0)', "any-annotation", E),
    # hot-copy
    ("pkg/diffusion/sampler.py", "trajectory.append(x_t.clone())", "hot-copy", E),
    ("pkg/diffusion/sampler.py", "saved = x_t.clone()", "hot-copy", W),
    ("pkg/diffusion/sampler.py", "cfg_copy = copy.deepcopy(cfg)", "hot-copy", W),
    # the input of a per-step ``forward`` cloned without a comment: the seed's cache hooks
    # that clone ``hidden_states`` per step
    (
        "pkg/diffusion/sampler.py",
        "        return x.clone()\n\n    def handle_request",
        "hot-copy",
        E,
    ),
    ("pkg/diffusion/sampler.py", "copy.deepcopy(req.sampling_params)", "hot-copy", E),
    ("pkg/diffusion/sampler.py", "deepcopy(self.scheduler)", "hot-copy", E),
    # async-blocking
    ("pkg/engine/server.py", "time.sleep(0.1)", "async-blocking", E),
    ("pkg/engine/server.py", "body = requests.get(url)", "async-blocking", E),
    ("pkg/engine/server.py", "with self._lock:", "async-blocking", E),
    # off the serving paths, but a `time.sleep` on the loop outside tests is ✗ anywhere
    ("pkg/client.py", "        time.sleep(1)\n        return urlopen", "async-blocking", E),
    ("pkg/client.py", "return urlopen(url)", "async-blocking", W),
    (
        "pkg/client.py",
        "async with self._lock:\n            await self.fetch()",
        "async-blocking",
        W,
    ),
    ("pkg/client.py", "async with self.lock:\n            await self.fetch()", "async-blocking", E),
    (
        "pkg/client.py",
        "await self._lock.acquire()\n        await self.fetch()",
        "async-blocking",
        W,
    ),
    # not swept
    ("pkg/broken.py", "def broken(:", "syntax-error", E),
]

BROKEN = "def broken(:\n    pass\n"


def line_of(root: Path, path: str, text: str) -> int:
    """The 1-based line where ``text`` (unique in the head file, may span lines) starts."""
    content = (root / path).read_text(encoding="utf-8")
    index = content.find(text)
    if index < 0 or content.find(text, index + 1) >= 0:
        raise AssertionError(f"{text!r} is not unique in {path}")
    return content.count("\n", 0, index) + 1


def git(root: Path, *args: str) -> str:
    """Run git in ``root``; return stdout."""
    env = {**os.environ, **GIT_ENV}
    proc = subprocess.run(
        ["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True
    )
    return proc.stdout


def write(root: Path, files: dict[str, str]) -> None:
    """Write files (creating directories)."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def build(root: Path) -> None:
    """Make ``root`` a repo: ``main`` with the backlog, ``feature`` (checked out) with the change.

    ``origin/main`` points at ``main`` so the seed's greps and the default base agree.
    """
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    write(root, BASE_FILES)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "backlog")
    git(root, "update-ref", "refs/remotes/origin/main", "main")
    git(root, "checkout", "-q", "-b", "feature")
    write(root, CHANGE_FILES)
    with open(root / "pkg/old.py", "a", encoding="utf-8") as handle:
        handle.write(OLD_APPEND)
    git(root, "mv", RENAMED_FROM, RENAMED_TO)
    renamed = (
        (root / RENAMED_TO).read_text(encoding="utf-8").replace(RENAMED_OLD_LINE, RENAMED_NEW_LINE)
    )
    (root / RENAMED_TO).write_text(renamed, encoding="utf-8")
    git(root, "rm", "-q", "pkg/delete_me.py")
    (root / "pkg/broken.py").write_text(BROKEN, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "feature")


# -- reading findings: every sweep test goes through these ------------------------------


class Finding(TypedDict):
    """One finding of ``policytool sweep --format json``."""

    path: str
    line: int
    rule: str
    severity: str
    message: str


def sweep_findings(run: Run, *args: str) -> list[Finding]:
    """The findings of ``policytool sweep ARGS`` as JSON, in output order; the run must not
    fail (``--fail-on never``: exit 0 with findings)."""
    result = run("sweep", "--format", "json", "--fail-on", "never", *args)
    assert result.code == 0, result.err
    findings: list[Finding] = json.loads(result.out)
    return findings


def timed(run: Run, rule: str) -> tuple[list[tuple[int, str]], float]:
    """(line, severity) of ``rule``'s findings with one process (``--jobs 1``: the time
    bound is a single process's), and the seconds the sweep took."""
    start = time.perf_counter()
    findings = sweep_findings(run, "--jobs", "1")
    elapsed = time.perf_counter() - start
    return [(f["line"], f["severity"]) for f in findings if f["rule"] == rule], elapsed


def found(run: Run, rule: str) -> list[tuple[str, int, str, str]]:
    """(path, line, severity, message) of each finding of ``rule``, in output order."""
    return [
        (f["path"], f["line"], f["severity"], f["message"])
        for f in sweep_findings(run)
        if f["rule"] == rule
    ]


def blocking(run: Run, rule: str) -> list[tuple[str, int, str]]:
    """(path, line, message) of each ✗ of ``rule``, in output order."""
    return [
        (path, line, message)
        for path, line, severity, message in found(run, rule)
        if severity == "error"
    ]


# (path, line, rule, severity) of one finding.
Row = tuple[str, int, str, str]


def rows(run: Run, *args: str, rule: str | None = None) -> list[Row]:
    """(path, line, rule, severity) of each finding of ``sweep ARGS`` (of ``rule`` only,
    when given), in output order."""
    return [
        (f["path"], f["line"], f["rule"], f["severity"])
        for f in sweep_findings(run, *args)
        if rule is None or f["rule"] == rule
    ]


def messages(run: Run, *args: str, rule: str | None = None) -> list[str]:
    """The message of each finding of ``sweep ARGS`` (of ``rule`` only, when given)."""
    return [f["message"] for f in sweep_findings(run, *args) if rule is None or f["rule"] == rule]


def lines(run: Run, rule: str) -> list[tuple[int, str, str]]:
    """(line, severity, message) of each finding of ``rule``, sorted."""
    return sorted((line, severity, message) for _, line, severity, message in found(run, rule))


def land_on_main(feature: Repo) -> None:
    """Make what the ``feature`` branch holds the base of the next change: commit it,
    merge it into ``main`` and check out a new branch ``next`` off ``main``."""
    feature.commit("old")
    feature.git("checkout", "-q", "main")
    feature.git("merge", "-q", "feature")
    feature.git("checkout", "-q", "-b", "next")


def errors(run: Run, rule: str) -> dict[int, str]:
    """Line -> message of each ✗ of ``rule``."""
    return {line: message for line, severity, message in lines(run, rule) if severity == "error"}


def severities(run: Run, rule: str) -> dict[int, str]:
    """Line of each finding of ``rule`` -> its severity."""
    return {line: severity for _, line, severity, _ in found(run, rule)}


def by_marker(repo: Repo, path: str, run: Run) -> dict[str, str]:
    """Marker comment (``# m:NAME``) on an ``except`` line -> its finding's severity
    (``-`` when the line has no ``broad-except`` finding)."""
    at_line = {
        f["line"]: f["severity"]
        for f in sweep_findings(run)
        if f["rule"] == "broad-except" and f["path"] == path
    }
    out: dict[str, str] = {}
    text = (repo.root / path).read_text()
    for number, line in enumerate(text.splitlines(), 1):
        if "# m:" in line:
            out[line.split("# m:", 1)[1].strip()] = at_line.get(number, "-")
    return out


# The head of a module that logs, shared by the broad-except cases.
LOG = "import logging\nimport torch\n\nlogger = logging.getLogger(__name__)\n\n\n"


# A ✗ a file holds whatever else it adds: a device set-up that logs and carries on
# (broad-except on line 9).
INIT_CATCH = """\
import logging

log = logging.getLogger(__name__)


def init_device(cfg: object) -> None:
    try:
        cfg.setup()
    except Exception as e:
        log.warning("Device setup failed: %s", e)


"""


def sweep_data(
    data: bytes, rules: list[FileRule], path: str = "pkg/deep.py"
) -> list[EngineFinding]:
    """The findings of ``rules`` on ``data`` swept whole as the file ``path`` (no git)."""
    from policytool.config import Config
    from policytool.sweep import run as sweep_run
    from policytool.sweep.diff import ChangedFile

    changed = ChangedFile(path, frozenset(), whole=True)
    findings, _uses, _reads = sweep_run.sweep_file(Path("."), changed, data, rules, Config(), None)
    return findings
