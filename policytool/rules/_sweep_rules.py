# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The five ``policytool sweep`` patterns, registered as rules scoped to added lines.

Each rule is a :class:`FileRule` with ``scope="added-lines"``: ``policytool sweep``
runs it on the Python files a change touches and reports only what lies on the lines
the change adds; ``policytool check`` does not run it (``--only kwargs-lookup`` is
refused with one sentence: on whole files these patterns report the backlog, which the
patterns' own definition calls useless). The AST work lives in
:mod:`policytool.sweep.patterns`, imported on first use so a ``check`` that loads this
module pays nothing for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from policytool.config import Config
from policytool.engine.findings import Finding
from policytool.engine.registry import SCOPE_ADDED_LINES, FileRule, register
from policytool.engine.source import SourceFile

PYTHON = frozenset({"python"})

_CONFIG_DOC = """\
`[tool.policytool.sweep]`, shared by the five sweep rules (defaults shown):

```toml
[tool.policytool.sweep]
fail-fast = ["__init__", "__post_init__", "load_weights", "*load_weight*",
             "*validate_config*", "*verify*", "*check_config*", "*setup*"]
request-path = ["*request*", "*forward*", "*step*", "*generate*", "*handle*", "*infer*"]
hot-path = ["execute_model", "_preprocess", "*_process", "*denoise*", "*sample*", "*decode*"]
serving-paths = ["**/engine/**", "**/entrypoints/**", "**/connectors/**"]
test-paths = ["**/tests/**", "**/test_*.py", "**/*_test.py", "**/conftest.py"]
exclude = ["examples/**", "benchmarks/**", "tools/**", "**/examples/**", "**/benchmarks/**",
           "**/_generated/**", "**/generated/**", "**/*_pb2.py", "**/*_pb2_grpc.py"]
target-version = "3.10"   # default: the lower bound of [project] requires-python
```

The top-level `exclude` applies too. `# policytool: ignore[RULE]` on a line silences it.
"""

KWARGS_DOC = f"""\
## What it checks
A function with a `**kwargs` parameter that reads string keys from it
(`kwargs["k"]`, `kwargs.get("k")`, `kwargs.pop("k")`, `"k" in kwargs`), on lines a change
adds, or anywhere in its body when the change adds the `**kwargs` parameter itself. A
dict passed on whole from `**kwargs` to a plain parameter (`self._setup(kwargs)`, then
`def _setup(self, kwargs: dict)`) is followed within the file. Setting a default is not
a read: `if "k" not in kwargs: kwargs["k"] = v`, also when the test is one term of an
`and` or the key is set in a block nested in the `if`.

⚠ for every such read. ✗ when the same key is read from a `**kwargs` parameter in
another non-test file with no shared module constant (writes such as
`gen_kwargs["k"] = v` and test files do not count), or when the function is on a
fail-fast path (`__init__`, config validation, weight loading) and never passes the
dict on, so unknown keys are silently dropped. A key popped before the dict is forwarded
to `super().__init__(**kwargs)` or `X.from_pretrained(**kwargs)` is that API's parameter:
⚠ only. So is a key that a read leaves in the dict (`[]`, `.get`, `in`; not `.pop`) when
it goes on to a callee's named parameter: the value passed on under the same name
(`fetch(token=kwargs.get("token"))`, unless `fetch` is a function of the file without a
`token` parameter), or the dict forwarded with `WorkerProc(**kwargs)` to a function or
class of the same file that declares that parameter. A key read in more than four other
files is an established convention: ⚠ with the count.

## Why
A raw dict with string keys is fragile by construction: a misspelled key silently
no-ops, no type checker or IDE sees it, and each copy of the string is one more place
for it to drift.

## Example
```python
class Talker:
    def forward(self, **kwargs):
        if "runtime_additional_information" in kwargs:  # ✗ when another file reads it too
            ...
```

## Fix
Prefer explicit typed parameters: a `msgspec.Struct` with `forbid_unknown_fields=True`,
a `@dataclass` or a `TypedDict`. If `**kwargs` is unavoidable, keep the key strings as
module-level constants behind one typed accessor instead of repeating the literal.
Not fixable by `policytool fix`.

## Configuration
{_CONFIG_DOC}"""

BROAD_EXCEPT_DOC = f"""\
## What it checks
A new bare `except:`, `except Exception:` or `except BaseException:` (also inside a
tuple) that does not re-raise. A handler that binds the exception and uses it (logs it,
wraps it) is not reported, unless it then only `continue`s, returns `None`/`{{}}`/`[]`,
or carries on inside a request path (`forward`, `handle_*`...): that is ⚠.

✗ when the handler only passes, continues or returns None **and** sits on a fail-fast
path (init, config validation, weight loading, request handling, connector setup).
Best-effort code is never ✗: `__del__`, `close`/`cleanup`/`shutdown`, removing a temp
file, and a fallback that re-raises.

## Why
A broad catch turns a fixable bug into silent wrong behaviour: the exception type
nobody expected is exactly the edge case that needs a fix, not a `None`.

## Example
```python
def load_weights(self, path):
    try:
        self.state = torch.load(path)
    except Exception:  # ✗: a fail-fast path swallows every error
        return None
```

## Fix
Catch the specific types you expect (`ValueError`, `KeyError`, `OSError`, ...). At a
genuine best-effort boundary (metrics, signal handlers), at least log the exception.
Not fixable by `policytool fix`.

## Configuration
{_CONFIG_DOC}"""

ANY_DOC = f"""\
## What it checks
In production code (not `test-paths`), on added lines: a `: Any` parameter or
variable, a `-> Any` return, or a public module-level function with no annotation at
all (⚠). `**kwargs: dict[...]` is ✗: it says every *value* is a dict, which is almost
never meant (`**kwargs: Any` or a `TypedDict` with `Unpack` is). A provably wrong return
annotation is ✗: `-> bool` (any builtin that cannot hold None) that returns None or
falls off its end, `-> None` that returns a value.

In tests: a new `SimpleNamespace(...)` whose attributes mimic a class the repository
defines (a class with all those attribute names exists in the change's files or is
imported by the test) is ✗; any other new `SimpleNamespace` is ⚠.

## Why
`Any` turns the type checker off for that position; a wrong annotation is worse, it
misleads. Test fakes built from `SimpleNamespace` force `Any` into the code under test.

## Example
```python
def _extract_mm_output(engine_outputs: Any) -> dict[str, Any]:  # ⚠
    ...

def is_ready(flag: int) -> bool:  # ✗ when a path returns None
    if flag:
        return True
```

## Fix
Replace `Any` with the concrete type, a `Protocol` or a `Union`; for truly dynamic
values use `object` and `isinstance` narrowing. In tests use the real class, a small
`@dataclass`/`TypedDict` or a `Protocol` and a fake. Not fixable by `policytool fix`.

## Configuration
{_CONFIG_DOC}"""

HOT_COPY_DOC = f"""\
## What it checks
A new `.clone()` or `copy.deepcopy(...)` inside a loop, or inside a per-step or
per-request function (`request-path` and `hot-path` names; vLLM's `execute_model`,
`_preprocess` by default), in production code. `dst.copy_(src)` into a pre-allocated
buffer is the recommended fix, not a finding; functions that run once (`__init__`,
weight loading, `profile_run`, benchmarks) are not hot paths. ⚠ for each such copy.

✗ for a `.clone()` inside a loop of a per-step function with no comment on the line or
the two lines above saying why, or a `copy.deepcopy` of a scheduler or sampling config
on a request path.

## Why
A clone of a GPU tensor is an allocation and a memcpy on every step; a deepcopy of a
config walks its whole object graph on every request. Across 50 diffusion steps it
dominates latency and memory bandwidth.

## Example
```python
def denoise(self, x_t, timesteps):
    for t in timesteps:
        trajectory.append(x_t.clone())  # ✗: copies the full latent every step
```

## Fix
Use a view (`x[..., :k]`, `torch.narrow`) or write into a pre-allocated buffer with
`dst.copy_(src)`; build a fresh lightweight config per request instead of a deepcopy.
If the copy is needed, keep it and add a one-line comment saying why. Not fixable by
`policytool fix`.

## Configuration
{_CONFIG_DOC}"""

ASYNC_DOC = f"""\
## What it checks
Inside `async def` code, on added lines: a blocking call (`time.sleep`, `requests.*`,
`urllib.request.urlopen`, `subprocess.run`/`check_output`/`call`, a blocking
`queue.get()` (not awaited, not `block=False`), `future.result()` of a thread or
process future, `open(...).read()`, `path.read_text()`/`read_bytes()`), or an `await`
while a lock is held (`with self._lock:`, `async with lock:`, `lock.acquire()` ...
`release()`). Tests report only `time.sleep` and blocking HTTP.

✗ for a blocking call on a serving path (`serving-paths`), or a lock held across an
`await` in a request-path function on a serving path. Admin paths (profiling,
`start_profile`, `stop_profile`, health and metrics endpoints) are ⚠.

## Why
The server runs one asyncio event loop: any blocking work on it stalls every
concurrent request, and a lock held across an `await` serializes the whole pipeline.

## Example
```python
async def handle(self, req):
    async with self._lock:
        resp = await self._client.call(req)  # ✗ on a serving path
    time.sleep(0.1)  # ✗ on a serving path
```

## Fix
Move blocking work off the loop with `asyncio.to_thread(...)` or `run_in_executor`, or
use an async client (`httpx.AsyncClient`, `aiohttp`). Release the lock before the
`await`, or restructure so the critical section holds no `await`. Not fixable by
`policytool fix`.

## Configuration
{_CONFIG_DOC}"""


def python_kinds(config: Config) -> frozenset[str]:
    """The sweep rules read Python source files."""
    return PYTHON


def _checker(name: str) -> Callable[[SourceFile, Config], Iterable[Finding]]:
    """The check of pattern ``name`` from :mod:`policytool.sweep.patterns`, imported late."""

    def check(source: SourceFile, config: Config) -> Iterable[Finding]:
        """Run the pattern over the part of ``source`` the sweep looks at."""
        from policytool.sweep import patterns

        return patterns.CHECKS[name](source, config)

    check.__name__ = f"check_{name.replace('-', '_')}"
    return check


RULES = (
    FileRule(
        "kwargs-lookup",
        "`**kwargs` string-key reads on added lines; ✗ when the key is repeated in another "
        "file or unknown keys are dropped on a fail-fast path",
        _checker("kwargs-lookup"),
        kinds=python_kinds,
        prefilter=lambda data, config: b"**" in data or b"kwargs" in data,
        doc=KWARGS_DOC,
        scope=SCOPE_ADDED_LINES,
        group="sweep",
        config=("sweep",),
    ),
    FileRule(
        "broad-except",
        "a new bare/`Exception`/`BaseException` catch; ✗ when it swallows on a fail-fast path",
        _checker("broad-except"),
        kinds=python_kinds,
        prefilter=lambda data, config: b"except" in data,
        doc=BROAD_EXCEPT_DOC,
        scope=SCOPE_ADDED_LINES,
        group="sweep",
        config=("sweep",),
    ),
    FileRule(
        "any-annotation",
        "a new `Any` / untyped public signature; ✗ for a wrong annotation or a "
        "`SimpleNamespace` test fake of a real class",
        _checker("any-annotation"),
        kinds=python_kinds,
        doc=ANY_DOC,
        scope=SCOPE_ADDED_LINES,
        group="sweep",
        config=("sweep",),
    ),
    FileRule(
        "hot-copy",
        "a new `.clone()` / `deepcopy` in a loop or per-step/per-request function; ✗ for an "
        "uncommented clone in a step loop or a config deepcopy on a request path",
        _checker("hot-copy"),
        kinds=python_kinds,
        prefilter=lambda data, config: b"clone" in data or b"deepcopy" in data,
        doc=HOT_COPY_DOC,
        scope=SCOPE_ADDED_LINES,
        group="sweep",
        config=("sweep",),
    ),
    FileRule(
        "async-blocking",
        "in `async def`: a blocking call or an `await` under a lock; ✗ on serving paths",
        _checker("async-blocking"),
        kinds=python_kinds,
        prefilter=lambda data, config: b"async" in data,
        doc=ASYNC_DOC,
        scope=SCOPE_ADDED_LINES,
        group="sweep",
        config=("sweep",),
    ),
)

for _rule in RULES:
    register(_rule)


def fix_hint(doc: str) -> str:
    """The first paragraph of a rule doc's ``## Fix`` section, on one line."""
    _before, _found, rest = doc.partition("## Fix\n")
    paragraph = rest.split("\n\n", 1)[0]
    return " ".join(paragraph.split()).removesuffix(" Not fixable by `policytool fix`.")
