# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``broad-except`` (sweep, added lines): a new broad ``except`` that does not re-raise."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Iterator, Sequence

from policytool.config import Config
from policytool.core.globs import match_any
from policytool.engine.findings import Finding, Severity
from policytool.engine.registry import register
from policytool.engine.source import SourceFile
from policytool.rules import _fail_fast as paths
from policytool.rules import _fakes as fakes
from policytool.rules import _kwreads as kwreads
from policytool.rules._pyast import last_name
from policytool.rules._pysource import (
    TRY_NODES,
    Ctx,
    FunctionNode,
    SourceInfo,
    names_match,
    sweep_info,
)
from policytool.rules._sweep import BLOCK, CONFIG_DOC, WARN, finding, short, sweep_rule

DOC = f"""\
## What it checks
A new bare `except:`, `except Exception:` or `except BaseException:` (also inside a
tuple) that does not re-raise (a test's `self.fail(...)` / `pytest.fail(...)` raises
the failure with the error, and `sys.exit(1)` / `os._exit(1)` / `exit(1)` ends the process
with a failing status, as does a status the handler sets, `exit_code = 1`, that
`os._exit(exit_code)` ends the process with right after the `try`, or a failure the
handler records in a local, `failures.append((path, exc))` / `failed += 1`, that its
function turns into a failing end in a statement of its own body past the handler, `if
failures:` raising (not `SystemExit(0)`), exiting non-zero or returning a non-zero int,
or `return 1 if failed else 0`, a returned status only where the module exits with it,
`sys.exit(main())`: no finding; only the handler's own code counts, not a function,
lambda or class it defines): ⚠. A handler
that binds the exception and uses it is ⚠ too (`as e` usually means it is logged: still
a catch-all), unless it hands the exception itself on (`future.set_exception(e)`,
`stream.fail(e)`, `errors.append(e)`) or logs it at a best-effort boundary (below),
where logging is the pattern's own fix.

✗ when the handler only passes, continues, returns None or assigns a default
(`self.x = None`, `{{}}`, `[]`; nothing logged) **and** sits on a fail-fast path: init, config
validation, weight loading (the `fail-fast` globs: `__init__`, `*setup*`,
`*validate_args*`, `*build_config*`, `*load_checkpoint*`,
`*load_state_dict*`, ...; also a function whose docstring begins "Initialize ...";
not an "init" that is a package's `__init__.py`, spelt in the function's body:
`get_init_imports`, `_find_torch_ext_init` read modules; a function nested in one is on
its path only when it calls it: not a route it registers or a callback it hands away),
request handling (`*handle*request*`, `*add_request*`, `*process*request*`..., and an
HTTP route: `@app.post("/tokenize")`, `@register_microservice(endpoint="/v1/asr")`;
not a UI's route, in `ui/`, `dashboard/`,
`ui_server.py`, `*_ui.py`...: a display is best effort) or connector setup (`connect`,
`*connect_to*`, `*create_connector*`, `*handshake*`...; not a function named for an attempt,
`maybe_init_submodules`, whatever its name or docstring says: best effort by its name);
also
when it only logs the error (a warning, `e` in the message) and carries on there, as in
`except Exception as e: logger.warning("Device setup failed: %s", e)` in
`init_device`: the run goes on half set up (a cleanup `try` in the handler, `await
client.disconnect()` logged on failure, is still going on). Not a catch nested in another
handler, cleanup after the failure it handles (best effort). Not when what failed is an
optimisation the
code runs fine without (`torch.compile`, a CUDA graph, a compile warm-up, VAE
slicing/tiling: the model runs eagerly; a log naming a warm-up, "Failed to warmup
DynamoDB connection pool") or the log or a comment calls the failure
"non-fatal"/"best-effort": a complete fallback, logged as the pattern asks, is ⚠, and so
is a silent one the comment introducing the `try` calls best-effort, or a `try` that
only upgrades working defaults set before it (`self.head = "#"`, then `try:` a probe and
`self.head = "≡"`: the object is set up either way; a default of None, False, 0 or empty
is no working one, and a `try` with an `else:` or binding anything else is no upgrade).
Nor a
`-> bool` predicate that logs and returns `False` (`verify_math_answer`: the answer),
nor a function returning `True` when it succeeds whose handler logs and returns `False`
when every call of it in the module acts on that answer (`if not load_model():` ending
in `sys.exit(1)`, a `raise` or a `return`; `assert load_model()`): the callers fail loudly;
a call that drops the answer (on any object), the function handed on as a callback, or
no call in the module keeps the ✗.
In a function a retry decorator wraps (`@retry(...)` of tenacity, retrying, retry or
stamina, `@backoff.on_exception(...)`, by the file's imports), a handler that returns
is ✗: the decorator retries only what the function raises, so no error is ever retried.
In an HTTP route itself, a handler that logs and goes on with a fallback the client never
hears of (formatting the prompt by hand) is ✗; an error returned in the response is ⚠,
and so is a `try` built to end on its exception with nothing after it (a websocket's
endless receive loop that a disconnect ends, a `finally:` that cleans up). A private
helper that only routes call, whose catch passes (or logs) on to the fallback after the
`try` (`_apply_chat_template`), or that silently gives up (`return None`, a default, an
empty display: feast's `except Exception: return {{}}` for a route's data-source map), is ✗
as in the route (not a UI's). A check that fails open is ✗ wherever it is: the `try`
raises its own verdict (`raise ValueError("protected project")`), an earlier handler lets
exactly that through (`except ValueError: raise`) and the broad one swallows the rest, so
a failure to run the check lets what it guards go on (feast's `teardown()`); not a
cancellation or an exit let through, a `try` that returns its answer (the catch falls back
to another way), or a catch a comment explains. In a request-path function (the
`request-path` globs), a handler that only logs and then ends the function
(`_pd_process_generate`: the stream's consumer never gets a finish) is ✗; not when the
`try` is built to end that way, nor a catch guarding cleanup in a `finally:`, nor a
handler whose comment says why it goes on (`# Log as warning, but continue to run the
benchmark` in `_generate_inputs_json_file`, writing an optional file), nor in a
function named for an attempt (`_complete_request_and_maybe_persist`) or a `try` that
only removes files and logs (`clean_infer_cache`: the request's answer does not wait on
it).
A private helper (`_name`) whose every use in the file is a call made directly in
fail-fast code (or in another such helper) is on that path too, when its catch assigns a
default or returns None (`disk_config = None` in `_get_hf_config_overrides`, reached
only from `__init__`); a `pass` falling through to a fallback value or a probe's `return
False` is not, nor a helper called to word the error a `raise` raises
(`_checkpoint_unsafe_globals` in a failed load's message). So is a helper, public too,
whose every caller in the work tree is fail-fast code within three calls, across modules
(`get_gpu_compute_mode` <- `set_sm_limit` <- `_init_env` in another module), when its
catch returns None or an empty value (`[]`, `{{}}`; not `False`, a probe's answer),
logged or not: `install_packages`, called only from the executor's `__init__`, that logs
through its own logger (`self.logger.log_error`) and returns `[]` starts the sandbox
without the packages it was asked for. The tree is read only when it holds at most 1,500
modules and 24 MB outside tests, docs and examples (whole or not at all: never judged on
part of the callers); a name called from more than 12 modules or passed on as a value
has no one path, and a helper named for an optimisation (`_warmup`) is not on it. A call
the package runs as it is imported (a module's top-level statements, a class body; not a
`lambda`, a function or a `raise`) is its set-up too, for the function it calls itself
(not what that calls in turn) in a module of a package (not a script: a file outside any
package, or one with an `if __name__ == "__main__":` block): kernels' `__init__.py`
running `_add_additional_dll_paths()`, flash-attention setting a config default from
`_is_cuda_12()` ("reached only at import", "called at import"). A function the module's
own fail-fast code calls (`self.install_packages(...)` in `__init__`, or through up to
three calls made in the module, or directly by its import) is on that path whoever else
calls it, with the same handler shapes: what fails there while `__init__` runs leaves
the object half set up. Not a function named for an attempt or an optimisation, nor one
set-up only hands on as a callback, nor a `return None` the function declares (`-> str |
None`: its callers handle the None) or one whose docstring calls it best-effort
("Best-effort local IP detection"). A probe that fail-fast code calls itself (`self.chat
= self._check_chat_template()` in `__init__`) whose catch is only `pass` on to its
fallback or only `return False`, with no comment on the `except` line or in the handler,
is ✗ too: its negative answer decides how the object is built, and a bug in the probe
silently builds it the other way. Not one reached only through another helper (its
answer is one input among others), nor one that logs or says why. A comment in the
handler saying what the failure means ("LoRA is enabled but its list is not provided or
malformed?") puts the choice on the record: ⚠.
A function the module installs over another object's attribute (a monkeypatch:
`_sdpa_mod.sdpa_attention_forward = _hpu_sdpa_attention_forward`, `setattr(...)`, or a
lambda or `partial` calling it; the function named for the attribute it replaces, or
installed by code named for patching; not an attribute of `self`/`cls`) runs wherever
the replaced code ran, a model's forward for every request: a handler there that only
passes, continues or returns None is ✗ (nothing logged; a logged one is ⚠).
A broad catch after a handler that names the expected failure (`except
openai.NotFoundError:`, `except httpx.NetworkError:`) and gives every other error the
same answer, logged as a warning (both `return False`, or both on to the code after the
`try`), is ✗: a bad key or a bug reads as "not there". Not after an interrupt or a
cancellation, nor after `except ImportError:` (the code is built to run without the
package, so what the `try` does is optional: NUMA pinning skipped, logged, is its
best-effort boundary), nor after a handler of only the errors a bug raises too
(`TypeError`, `ValueError`, `RuntimeError`, `AttributeError`, `AssertionError`: it names
no expected failure) or after one giving the same answer (open-r1's reward: 0.0 for a
bad conversion, a timeout and every other error means "no score"), not in a CLI's
`main()` (its answer goes to no caller: the printed line is the report), not at DEBUG
level, and not when that answer is the function's own reported failure (an `if` that
prints or logs and returns the same `False`: its caller already reads it as failed). A
handler that silently returns a made-up literal (`return 1`, `"c++17"`, no log, no
comment) in a function set-up reaches is ✗ like a `return None` there.
What the `try` loads puts it on the weight-loading path too, whatever the function is
called: a catch around `from_pretrained`, `load_state_dict`, `torch.load`, `safe_open`,
`hf_hub_download`/`snapshot_download` (or a method of a class whose own methods load the
checkpoint, calling that class's code: `Weights._has_tensor`) is ✗ when it gives up
quietly: it passes, returns None/`False`/an empty value or assigns a default, with at most
a DEBUG-level log (`logger.debug` is no report: `neuron_config = None` after a failed
`NeuronConfig.from_pretrained`). Not a chain of candidates (`continue`, or a `pass` to
the next attempt that raises), a `return None` the function declares (`-> int | None`),
a function named for an attempt (`maybe_*`, `try_*`), nor a handler whose body carries a
comment saying why. A `*load*` call of a hub repository id (`evaluate.load("org/metric")`)
is a load too. Where the load is set-up, a handler that logs and goes on with a guess is
✗ as well: at module level (import time) logging and assigning a constant
(`judge = None`), or in a helper reached only from fail-fast code (above) logging and
returning `True`/`False` (`uses_chat_template`: "assuming a chat template").
A load named for the model, its config or its weights (`from_pretrained`,
`from_single_file`, `load_state_dict`, `load_checkpoint`, `load_weights`, `load_model`,
`load_config`, `load_pretrained`) whose handler logs and then returns None or an empty
value is ✗ whatever the function declares: a log line does not make the load optional,
and the set-up goes on without the model or config it asked for ("fallback to no model").
Not when the `try` returns what another function makes of the load
(`self._get_onnx_export_info(model.load_model())`: metadata for a report; a constructor
given the loaded config, `AutoModel.from_config(config)`, is the model),
nor in a warm-up (`_warmup`) or a function named for an attempt, nor around a read of a
file that may hold anything (`safe_open` of an uploaded voice, `hf_hub_download`): there
only a silent give-up counts.
A telemetry, tracing or profiling module (`telemetry/`, `*telemetry*.py`,
`instrumentation/`, `tracing/`, `profiler/`, `profiling/`, `*profiler*.py`) is on no
init or request path: a tracer must never take down what it traces, so its `__init__`,
worker init hook or request hook carrying on is best effort (⚠).
A `try` that only stops or closes something (`await sandbox.stop()`, `proc.kill()`), or
only joins a task that is ending (`await task` right after `task.cancel()` or a stop
event's `set()`, or right before the function returns or raises), is a teardown: never
✗, and its ⚠ stays, logged or not.
Best-effort code is never ✗: `__del__`, `close`/`cleanup`/`shutdown`, metrics, signal
handlers, `abort`/`cancel`/`disconnect`, removing a temp file, an optional import
(`try: import x` / `importlib.import_module`), a default assigned under a comment saying
why, a fallback that re-raises, and a `try` inside `except ... as e:` whose body reports
`e` (a route's last-ditch `send_json({{"content": f"Unexpected error: {{e}}"}})` after the
error was logged: the failure is already being handled; its ⚠ stays, logged or not; a
second attempt in a handler, reading no `e`, is a fallback and keeps its ✗). A bare `except:`
at import time (module level) around more than a third-party import is ✗ though: a `try`
that imports and then runs code (a backend probe, `import torch_npu; use_npu =
torch_npu.npu.is_available()`) or imports a module of the package itself, whose handler
only passes or sets flags (`use_npu = False`) with no comment saying why: every error,
KeyboardInterrupt and the project's own import bugs included, silently selects the other
code path ("catch ImportError"). A third-party import alone (`from sgl_kernel import
quant`, `HAS_KERNEL = False`) stays ⚠. On a fail-fast path by name (the `fail-fast`
globs), a bare `except:` that carries on with a fallback (a second
`AutoTokenizer.from_pretrained(...)` in `__init__`, `self.max_seq_length = 128`) is ✗
whatever its body: the pattern names the bare form on such a path, and it catches
KeyboardInterrupt and SystemExit too. `except Exception:` with the same fallback stays
⚠, as does a fallback the code calls "best-effort"/"non-fatal".
A `raise` further down the function counts only when
it ends the catch's chain of attempts: met on every path past the `try` (after the loop
of candidates, in the next attempt's handler) or under a test of what the `try` binds
(`if self.rate is None: raise`); not one testing something else (`if not adapter_id:
raise` in the `__init__` whose catch passes). An optional import is not best effort in a function
that patches what it imports (`*patch*`; not `*unpatch*`, which only restores what a
patch replaced): a broad catch that then returns (or leaves the
patch to the `try`'s `else:`) skips the patch silently on any error, not only a missing
module, and is ✗ ("catch ImportError"); so is one that logs the failure (at any level)
and then returns or continues: the patch is skipped all the same, unless the function
answers every other failure the same way, logged (`if OLD not in source: logger.info(...);
return False` in a `-> bool` patch): its caller reads `False` as "not patched". A handler that keeps
the error to raise when the patch is needed (`_IMPORT_ERROR = e`) hands it on.

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
{CONFIG_DOC}"""


def _broad_name(src: SourceInfo, handler: ast.ExceptHandler) -> str | None:
    """``Exception`` / ``BaseException`` / ``""`` (bare) when the handler catches broadly."""
    if handler.type is None:
        return ""
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    for item in types:
        name = src.qualname(item)
        if name in ("Exception", "BaseException", "builtins.Exception", "builtins.BaseException"):
            return name.rsplit(".", 1)[-1]
    return None


def _is_empty_value(value: ast.expr | None) -> bool:
    """``None``, ``{}``, ``[]``, ``()``, ``""``, ``False``: a return that says nothing."""
    if value is None:
        return True
    if isinstance(value, ast.Constant):
        return value.value in (None, False, "", b"") or value.value is ...
    if isinstance(value, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
        return not (value.keys if isinstance(value, ast.Dict) else value.elts)
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in ("dict", "list", "tuple", "set")
        and not value.args
        and not value.keywords
    )


def _is_log_call(stmt: ast.stmt) -> bool:
    """``logger.warning(...)``, ``print(...)``, ``warnings.warn(...)``: a logging call."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    func = stmt.value.func
    name = last_name(func)
    return name in _LOG_METHODS or _LEVELLED_LOG.fullmatch(name) is not None


# A logger's helpers named by their level for one rank or one time (``warning_rank0``,
# ``info_rank0_once``, ``error_once``), or with the verb before it (``log_error``,
# ``log_warning``: smolagents' ``AgentLogger``): log calls like ``warning``.
_LEVELLED_LOG = re.compile(
    r"(?:log_)?(?:debug|info|warning|warn|error|critical)(?:_rank\d+)?(?:_once)?"
)


_LOG_METHODS = frozenset(
    {
        "debug",
        "info",
        "warning",
        "warn",
        "error",
        "exception",
        "critical",
        "log",
        "print",
        "print_exc",
        "warning_once",
        "info_once",
        "debug_once",
    }
)


def _swallows(body: list[ast.stmt]) -> bool:
    """Whether a handler body only passes, continues or returns nothing (None, {}, [])."""
    for stmt in body:
        if isinstance(stmt, (ast.Pass, ast.Continue)):
            continue
        if isinstance(stmt, ast.Return) and _is_empty_value(stmt.value):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a docstring-like string or ``...``
        return False
    return True


def _logs_then_gives_up(body: list[ast.stmt]) -> bool:
    """Logging calls, then ``continue`` / ``return`` of nothing (or the end of the body)."""
    rest = list(body)
    if not rest or not _is_log_call(rest[0]):
        return False
    while rest and _is_log_call(rest[0]):
        rest.pop(0)
    return bool(rest) and _swallows(rest)


def _logs_and_carries_on(body: list[ast.stmt]) -> bool:
    """Only logging calls, ``pass``/``continue``/an empty return, fallback values
    assigned from constants (``self.device = None``) and best-effort cleanup (a ``try``
    of calls whose handlers log or pass: ``await client.disconnect()``): the error is
    reported to a log and the code goes on as if nothing failed."""
    logged = False
    for stmt in body:
        if _is_log_call(stmt):
            logged = True
            continue
        if _swallows([stmt]) or _cleanup_try(stmt):
            continue
        if (
            isinstance(stmt, (ast.Assign, ast.AnnAssign))
            and stmt.value is not None
            and (_is_empty_value(stmt.value) or isinstance(stmt.value, ast.Constant))
        ):
            continue
        return False
    return logged


def _tries_in_handlers(function: ast.AST) -> frozenset[int]:
    """The ids of the ``try`` statements inside some ``except`` handler's body of
    ``function``, in one walk (each handler asks; a walk per handler was quadratic in a
    function a pull request writes)."""
    found: set[int] = set()
    stack: list[tuple[ast.AST, bool]] = [(function, False)]
    while stack:
        node, inside = stack.pop()
        if inside and isinstance(node, TRY_NODES):
            found.add(id(node))
        inner = inside or isinstance(node, ast.ExceptHandler)
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))
    return frozenset(found)


def _cleanup_try(stmt: ast.stmt) -> bool:
    """A ``try`` of bare calls (``await client.disconnect()``) whose handlers only log or
    pass: cleanup after the failure being handled, best effort."""
    return (
        isinstance(stmt, ast.Try)
        and not stmt.orelse
        and not stmt.finalbody
        and all(
            isinstance(s, ast.Expr) and isinstance(s.value, (ast.Call, ast.Await))
            for s in stmt.body
        )
        and all(
            all(_is_log_call(s) or _swallows([s]) for s in handler.body)
            for handler in stmt.handlers
        )
    )


# Code a nested ``def``, ``class`` or ``lambda`` holds runs only when called, if ever.
_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _handler_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node the handler's own code runs, without entering a nested function, class
    or lambda: a ``raise`` or ``sys.exit(1)`` in a helper the handler defines and never
    calls must not read as the handler failing loudly (nor hide its finding)."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _NESTED_SCOPES):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _falls_through_logged(body: list[ast.stmt]) -> bool:
    """A handler that logs first and then computes a fallback, never returning, raising
    or leaving the loop: the code after the ``try`` carries on as if nothing failed."""
    if not body or not _is_log_call(body[0]):
        return False
    return not any(
        isinstance(node, (ast.Return, ast.Raise, ast.Break, ast.Continue))
        for node in _handler_nodes(body)
    )


def _forwards(body: list[ast.stmt], name: str) -> bool:
    """Whether the handler hands the exception object itself on (``future.set_exception(e)``,
    ``stream.fail(e)``, ``errors.append(e)``, ``self._error = e``): the caller sees it."""
    for node in _handler_nodes(body):
        if (
            isinstance(node, ast.Call)
            and not _is_log_call(ast.Expr(value=node))
            and not (isinstance(node.func, ast.Name) and node.func.id in _DESCRIBES)
            # ``"failed: {}".format(e)`` in a message describes it too
            and not (isinstance(node.func, ast.Attribute) and node.func.attr == "format")
        ):
            values = [*node.args, *(k.value for k in node.keywords)]
            if any(isinstance(v, ast.Name) and v.id == name for v in values):
                return True
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Name)
            and node.value.id == name
        ):
            return True
    return False


# Builtins that only describe the exception (``str(e)`` in a message): not handing it on.
_DESCRIBES = frozenset({"str", "repr", "type", "format", "isinstance", "getattr", "len"})


def _says_harmless(src: SourceInfo, handler: ast.ExceptHandler) -> bool:
    """Whether the handler's log message or a comment on its lines declares the failure
    harmless ("non-fatal", "best-effort"), or the log names what failed as an
    optimisation ("Failed to warmup DynamoDB connection pool": feast's opt-in warm-up in
    ``initialize``, a complete fallback)."""
    for stmt in handler.body:
        if not _is_log_call(stmt):
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if paths.HARMLESS.search(node.value) or paths.OPTIMISATION_LOGGED.search(
                    node.value
                ):
                    return True
    end = handler.end_lineno or handler.lineno
    for line in range(handler.lineno, end + 1):
        if src.has_comment(line):
            text = src.byte_lines[line - 1].decode("utf-8", "replace")
            if paths.HARMLESS.search(text.split("#", 1)[1]):
                return True
    return _introduced_harmless(src, src.try_of.get(id(handler)))


def _introduced_harmless(src: SourceInfo, tried: ast.stmt | None) -> bool:
    """Whether the comment block introducing the ``try`` (the comment lines right above
    it, or above the one or two block headers it opens: ``if online:`` then ``try:``)
    calls the attempt best effort ("Best-effort: a failure must never take down
    training"): the author declared the failure harmless before writing the catch."""
    if tried is None:
        return False
    line = tried.lineno - 1
    for _ in range(2):  # the headers of the blocks the ``try`` opens
        text = src.byte_lines[line - 1].decode("utf-8", "replace") if line >= 1 else ""
        if not text.rstrip().endswith(":") or text.lstrip().startswith("#"):
            break
        line -= 1
    while line >= 1:
        text = src.byte_lines[line - 1].decode("utf-8", "replace").strip()
        if not text.startswith("#"):
            return False
        if paths.HARMLESS.search(text):
            return True
        line -= 1
    return False


def _working_literal(node: ast.expr) -> type | None:
    """The type of a literal that works as a value (``"#"``, ``8``, ``True``), or None
    for anything else, and for a literal that stands for nothing (None, False, 0, "")."""
    if not isinstance(node, ast.Constant) or node.value is None:
        return None
    value = node.value
    if isinstance(value, (str, bytes, int, float)) and not value:
        return None  # "", 0, False (a bool is an int)
    return type(value)


def _upgrades_defaults(src: SourceInfo, func: ast.AST | None, tried: ast.stmt | None) -> bool:
    """Whether the ``try`` only upgrades working defaults its function set before it
    (aider's Spinner: ASCII glyphs first, then the Unicode ones when the terminal takes
    them): every assignment in its body rebinds a name or attribute that a statement
    before the ``try`` (in its block or one enclosing it) bound to a literal that works
    as a value (not None, False, 0 or empty), to a literal of the same type; its other
    statements are calls (the probe), and it has no ``else:``. A failure leaves the
    defaults: the object is set up either way."""
    if (
        not isinstance(tried, ast.Try)
        or tried.orelse
        or not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef))
    ):
        return False
    blocks = _blocks(src, func)
    preset: dict[str, type] = {}
    for stmt in blocks.ancestors(tried):
        place = blocks.at.get(id(stmt))
        if place is None:
            break
        block, position, _owner = place
        for earlier in block[:position]:
            if isinstance(earlier, ast.Assign) and len(earlier.targets) == 1:
                kind = _working_literal(earlier.value)
                if kind is not None:
                    preset.setdefault(ast.unparse(earlier.targets[0]), kind)
    upgraded = False
    for stmt in tried.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            continue
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            kind = preset.get(ast.unparse(stmt.targets[0]))
            if kind is not None and _working_literal(stmt.value) is kind:
                upgraded = True
                continue
        return False
    return upgraded


def _answers_false(func: ast.AST | None, body: list[ast.stmt]) -> bool:
    """Whether the handler returns ``False`` from a function declared ``-> bool``: the
    predicate's answer (``verify_math_answer``), told to the caller, not a swallow."""
    returns = getattr(func, "returns", None)
    if not (isinstance(returns, ast.Name) and returns.id == "bool"):
        return False
    return any(
        isinstance(stmt, ast.Return)
        and isinstance(stmt.value, ast.Constant)
        and stmt.value.value is False
        for stmt in body
    )


def _answers_status(src: SourceInfo, func: ast.AST | None, body: list[ast.stmt]) -> bool:
    """Whether the handler returns ``False`` from a function that returns ``True`` when it
    succeeds, and every call of it in the module tests the answer (``if not
    load_model(): sys.exit(1)``, FlagScale's servers): a status told to callers that act
    on it, as a ``-> bool`` predicate's answer is; not a swallow. A call that drops the
    answer (``load_model()`` alone, ``if not load_model(): pass``), or no call in the
    module, leaves the catch as it is."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or not body:
        return False
    last = body[-1]
    if not (
        isinstance(last, ast.Return)
        and isinstance(last.value, ast.Constant)
        and last.value.value is False
    ):
        return False
    if not any(
        isinstance(stmt, ast.Return)
        and isinstance(stmt.value, ast.Constant)
        and stmt.value.value is True
        for stmt in kwreads.statements(func.body, scopes=False)
    ):
        return False
    uses, tested = _status_calls(src)
    return uses.get(func.name, 0) > 0 and tested.get(func.name, 0) == uses[func.name]


def _status_calls(src: SourceInfo) -> tuple[dict[str, int], dict[str, int]]:
    """(uses, calls whose answer an ``assert`` or an ``if`` that acts on a failure tests,
    ``not`` aside) of each name of the module, read once a file. A use is any read of the
    name (``f(...)``, ``x.f(...)``, or ``f`` handed on as a callback, whose answer
    someone else gets)."""
    cached = src.cache.get("broad_status_calls")
    if isinstance(cached, tuple):
        return cached
    uses: dict[str, int] = {}
    tested: dict[str, int] = {}
    for node in ast.walk(src.tree):
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load):
            name = last_name(node)
            if name:
                uses[name] = uses.get(name, 0) + 1
        elif (isinstance(node, ast.If) and _acts_on_failure(node.body)) or isinstance(
            node, ast.Assert
        ):
            test = node.test
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test = test.operand
            if isinstance(test, ast.Await):
                test = test.value
            name = last_name(test.func) if isinstance(test, ast.Call) else ""
            if name:
                tested[name] = tested.get(name, 0) + 1
    src.cache["broad_status_calls"] = (uses, tested)
    return uses, tested


def _acts_on_failure(body: list[ast.stmt]) -> bool:
    """Whether an ``if`` body ends by raising, exiting non-zero or returning: it hands the
    failure on (``if not load_model(): pass`` would hide it)."""
    end = body[-1]
    return isinstance(end, (ast.Raise, ast.Return)) or (
        isinstance(end, ast.Expr) and _exits(end.value)
    )


def _fail_fast_name(src: SourceInfo, funcs: Sequence[FunctionNode]) -> str | None:
    """The first enclosing function whose name matches a shared fail-fast glob, outermost
    first, except one whose "init" is a package's ``__init__.py`` (``get_init_imports``,
    ``_find_torch_ext_init``: its body spells the file's name): that reads modules, it
    sets nothing up. Not past a nested function that runs after its parent returned
    (:func:`_runs_later`): feast's ``_setup_rest_mode`` sets routes up; the routes'
    catches run on requests."""
    later = [i for i in range(1, len(funcs)) if _runs_later(src, funcs[i - 1], funcs[i])]
    for func in funcs[later[-1] if later else 0 :]:
        if isinstance(func, ast.Lambda):
            continue
        if names_match([func.name], src.config.fail_fast) is None:
            continue
        if names_match([func.name], paths.ATTEMPTS) is not None:
            continue  # ``maybe_init_submodules``: an attempt by its own name, best effort
        if func.name.startswith("__") or "init" not in func.name.lower():
            return func.name  # ``__init__`` itself, or fail-fast by another word
        spells = functools.partial(_spells_init_file, func)
        if not src.per_node("names_init_file", func, spells):
            return func.name
    return None


def _runs_later(src: SourceInfo, parent: FunctionNode, nested: FunctionNode) -> bool:
    """Whether ``nested``, a function defined in ``parent``, runs after ``parent`` has
    returned: an HTTP route it registers (``@app.get("/runs")``), or a ``def`` it never
    calls by name (a callback handed away). A lambda is not told apart."""
    if isinstance(nested, ast.Lambda) or isinstance(parent, ast.Lambda):
        return False
    if paths.route_handler(nested) is not None:
        return True
    return nested.name not in src.per_node("called-names", parent, lambda: _called_names(parent))


def _called_names(func: FunctionNode) -> frozenset[str]:
    """The bare names ``func`` calls (``_load_views()``), nested scopes included."""
    return frozenset(
        node.func.id
        for node in ast.walk(func)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    )


def _spells_init_file(func: FunctionNode) -> bool:
    """Whether a string in the function's body names a package's ``__init__.py``."""
    return any(
        isinstance(node, ast.Constant) and isinstance(node.value, str) and "__init__" in node.value
        for node in ast.walk(func)
    )


def _doc_says_init(func: ast.AST | None) -> str | None:
    """The function's name when its docstring begins by saying it initialises ("Eagerly
    initialize the FusedSDPA operator cache."): init by its own words."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    doc = ast.get_docstring(func, clean=True)
    first = doc.strip().splitlines()[0] if doc and doc.strip() else ""
    return func.name if _INIT_DOC.search(first) else None


# The docstring's first words: an imperative "Initialize" (after an adverb: "Eagerly
# initialize ..."), not "... when tensor parallelism is initialized".
_INIT_DOC = re.compile(r"^(?:\w+ly\s+)?(?:initiali[sz]e|set\s+up)\b", re.IGNORECASE)


def _raises(body: list[ast.stmt]) -> bool:
    """Whether the handler raises somewhere (a fallback that re-raises is not a swallow),
    also through a test's ``self.fail(...)`` / ``pytest.fail(...)``, which raise the
    failure with the error in it (twenty such test catches labelled '-' in five sets), or
    ends the process (``sys.exit(1)`` and the builtin ``exit(1)`` raise ``SystemExit``;
    ``os._exit(1)``): a script's catch that reports and exits non-zero fails loudly."""
    return any(
        isinstance(node, ast.Raise) or _fails_test(node) or _exits(node)
        for node in _handler_nodes(body)
    )


def _exits(node: ast.AST) -> bool:
    """``sys.exit(...)``, ``os._exit(...)`` or the builtin ``exit(...)`` / ``quit(...)``
    (also ``from sys import exit``) with a failing status: a call that ends the process
    loudly. ``sys.exit()``, ``sys.exit(0)`` and ``sys.exit(None)`` report success, which
    hides the error like a ``return``."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute):
        if not (
            isinstance(func.value, ast.Name)
            and (func.value.id, func.attr) in (("sys", "exit"), ("os", "_exit"))
        ):
            return False
    elif not (isinstance(func, ast.Name) and func.id in ("exit", "quit")):
        return False
    return _failing_status(node.args[0] if node.args else None)


def _failing_status(status: ast.expr | None) -> bool:
    """Whether an exit status (``sys.exit``'s or ``SystemExit``'s argument) reports a
    failure: not absent, ``0`` or ``None``."""
    return not (status is None or (isinstance(status, ast.Constant) and status.value in (0, None)))


_EXIT_WITHIN = 8


def _exits_after(src: SourceInfo, func: ast.AST | None, handler: ast.ExceptHandler) -> bool:
    """Whether the handler sets a failing exit status that ends the process right after
    its ``try``: ``exit_code = 1`` in the handler, then ``os._exit(exit_code)`` among
    the statements that follow the ``try`` in its block, with the name not bound again
    between (logfire's forked test child reports the error through a pipe, then exits).
    Like ``sys.exit(1)`` in the handler itself, the failure ends the process loudly."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    failing = {
        target.id
        for stmt in handler.body
        if isinstance(stmt, ast.Assign)
        and isinstance(stmt.value, ast.Constant)
        and type(stmt.value.value) is int
        and stmt.value.value != 0
        for target in stmt.targets
        if isinstance(target, ast.Name)
    }
    if not failing:
        return False
    index = _blocks(src, func)
    tried = index.try_of.get(id(handler))
    placed = index.at.get(id(tried)) if tried is not None else None
    if placed is None:
        return False
    block, position, _owner = placed
    # The exit ends the reporting right after the ``try`` (logfire's is 4 statements
    # on); a bounded look keeps a block of thousands of such handlers linear.
    for stmt in block[position + 1 : position + 1 + _EXIT_WITHIN]:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and len(call.args) == 1
            and isinstance(call.args[0], ast.Name)
            and call.args[0].id in failing
            and _exits(call)
        ):
            return True
        if any(
            isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id in failing
            for node in ast.walk(stmt)
        ):
            return False
    return False


def _collected_failure(src: SourceInfo, func: ast.AST | None, handler: ast.ExceptHandler) -> bool:
    """Whether the handler records the failure in a local of its function
    (``failures.append((path, exc))``, ``failed += 1``, ``failed = True``) that the
    function, past the handler, turns into a failing end in a statement of its own body:
    ``if failures:`` (``len(failures)``, ``failed > 0``, an ``or`` of such) whose block
    raises, exits with a failing status or returns a non-zero int, or ``return 1 if
    failed else 0``; a returned status counts only when the module ends the process with
    the function's answer (``sys.exit(main())``). A CI script collecting every failure and
    exiting 1 reports them all: nothing is swallowed."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    marks: set[str] = set()
    for stmt in handler.body:
        value = stmt.value if isinstance(stmt, ast.Expr) else None
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr in ("append", "add", "extend")
            and isinstance(value.func.value, ast.Name)
        ):
            marks.add(value.func.value.id)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            marks.add(stmt.target.id)
        elif (
            isinstance(stmt, ast.Assign)
            and isinstance(stmt.value, ast.Constant)
            and stmt.value.value is True
        ):
            marks.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
    if not marks:
        return False
    ends = src.per_node("failing_ends", func, lambda: _failing_ends(src, func))
    last = handler.end_lineno or handler.lineno
    return any(ends.get(mark, 0) > last for mark in marks)


def _failing_ends(src: SourceInfo, func: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, int]:
    """For each name a statement of ``func``'s own body turns into a failing end (see
    :func:`_collected_failure`), the last line of such a statement: read once per
    function, so a function of thousands of handlers stays linear."""
    status = re.search(rb"exit\(\s*" + re.escape(func.name.encode()) + rb"\(", src.data)
    out: dict[str, int] = {}
    for stmt in func.body:
        names: set[str] = set()
        if isinstance(stmt, ast.If) and any(
            _raises_failure(node)
            or _exits(node)
            or (status is not None and isinstance(node, ast.Return) and _failing(node.value))
            for node in _handler_nodes(stmt.body)
        ):
            names = _tested_names(stmt.test)
        elif (
            status is not None
            and isinstance(stmt, ast.Return)
            and isinstance(stmt.value, ast.IfExp)
            and _failing(stmt.value.body)
        ):
            names = _tested_names(stmt.value.test)
        for name in names:
            out[name] = stmt.lineno
    return out


def _raises_failure(node: ast.AST) -> bool:
    """A ``raise`` that fails: not ``raise SystemExit`` / ``SystemExit(0)`` /
    ``SystemExit(None)``, which end the process reporting success (a pull request could
    otherwise collect its failures and exit 0 to hide the catch)."""
    if not isinstance(node, ast.Raise):
        return False
    exc = node.exc
    if exc is None:
        return True
    call = exc if isinstance(exc, ast.Call) else None
    if last_name(call.func if call is not None else exc) != "SystemExit":
        return True
    return _failing_status(call.args[0] if call is not None and call.args else None)


def _tested_names(test: ast.expr) -> set[str]:
    """The names whose holding a failure makes ``test`` true: the name itself,
    ``len(name)``, ``name > 0`` / ``name != 0``, or an ``or`` of such (not an ``and``,
    which another operand can keep false)."""
    if isinstance(test, ast.BoolOp):
        if not isinstance(test.op, ast.Or):
            return set()
        return {name for value in test.values for name in _tested_names(value)}
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        zero = test.comparators[0]
        if not (isinstance(zero, ast.Constant) and zero.value == 0):
            return set()
        if not isinstance(test.ops[0], (ast.Gt, ast.NotEq)):
            return set()
        test = test.left
    if (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "len"
        and len(test.args) == 1
    ):
        test = test.args[0]
    return {test.id} if isinstance(test, ast.Name) else set()


def _failing(value: ast.expr | None) -> bool:
    """A non-zero int constant: a failing exit status returned."""
    return isinstance(value, ast.Constant) and type(value.value) is int and value.value != 0


def _fails_test(node: ast.AST) -> bool:
    """``self.fail(...)`` or ``pytest.fail(...)``: a call that raises the test's failure."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "fail"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in ("self", "pytest")
    )


def _raises_later(src: SourceInfo, func: ast.AST | None, handler: ast.ExceptHandler) -> bool:
    """Whether a ``raise`` after the handler ends the chain of attempts the catch belongs
    to, so the error is not swallowed for good: a raise every path past the ``try`` meets
    (after the loop of candidates, in its ``else:``, in the next attempt's handler), or one
    under a test of what the attempt binds (``if self.rate is None: raise``). A raise under
    a test of anything else (``if not adapter_id: raise``) fires whether or not the
    attempt failed: no excuse."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    end = handler.end_lineno or handler.lineno
    index = _blocks(src, func)
    tried = index.try_of.get(id(handler))
    if tried is None:
        return False
    # The ``try`` and the statements holding it: a raise's ancestor among them holds
    # the attempt (found by identity, not by walking each ancestor again).
    holding = {id(stmt) for stmt in index.ancestors(tried)}
    bound = index.bound_by(tried)
    for raise_node, ancestors in index.raises:
        if raise_node.lineno <= end:
            continue
        if all(
            id(stmt) in holding
            or isinstance(stmt, (ast.With, ast.AsyncWith, ast.Try))
            or (isinstance(stmt, (ast.If, ast.While)) and index.reads_any(stmt.test, bound))
            for stmt in ancestors
        ):
            return True
    return False


class _Blocks:
    """One function's statements indexed once (not a walk of the function per handler):
    where each statement sits, its ``raise`` statements with their ancestors, the ``try``
    of each handler; what a ``try`` binds and the names a test reads, kept when asked.

    Nested ``def``/``class`` bodies are not entered: a ``try`` there is another scope's.
    """

    def __init__(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """Index ``func``'s own statements."""
        # id(statement) -> (the list holding it, its index there, the statement owning
        # that list: None for the function body; the ``try``/``match`` for a handler's
        # or a case's body).
        self.at: dict[int, tuple[list[ast.stmt], int, ast.stmt | None]] = {}
        # Each ``raise`` with the statements enclosing it, outermost first.
        self.raises: list[tuple[ast.Raise, tuple[ast.stmt, ...]]] = []
        # id(handler) -> its ``try`` (``try``/``except*`` is not one).
        self.try_of: dict[int, ast.Try] = {}
        self._bound: dict[int, set[str]] = {}
        self._reads: dict[int, set[str]] = {}
        stack: list[tuple[list[ast.stmt], ast.stmt | None, tuple[ast.stmt, ...]]] = [
            (func.body, None, ())
        ]
        while stack:
            block, owner, ancestors = stack.pop()
            for position, stmt in enumerate(block):
                self.at[id(stmt)] = (block, position, owner)
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    continue
                if isinstance(stmt, ast.Raise):
                    self.raises.append((stmt, ancestors))
                    continue
                inner = (*ancestors, stmt)
                for name in ("body", "orelse", "finalbody"):
                    held = getattr(stmt, name, None)
                    if held:
                        stack.append((held, stmt, inner))
                for part in getattr(stmt, "handlers", None) or getattr(stmt, "cases", None) or ():
                    if isinstance(stmt, ast.Try):
                        self.try_of[id(part)] = stmt
                    stack.append((part.body, stmt, inner))

    def ancestors(self, stmt: ast.stmt) -> Iterator[ast.stmt]:
        """``stmt`` and the statements of the function holding it, innermost first."""
        node: ast.stmt | None = stmt
        while node is not None:
            yield node
            node = self.at[id(node)][2] if id(node) in self.at else None

    def bound_by(self, tried: ast.Try) -> set[str]:
        """:func:`_bound_by`, once a ``try``."""
        found = self._bound.get(id(tried))
        if found is None:
            found = self._bound[id(tried)] = _bound_by(tried)
        return found

    def reads_any(self, test: ast.expr, bound: set[str]) -> bool:
        """Whether ``test`` reads one of the ``bound`` names or attributes (its names and
        attributes unparsed once a test)."""
        texts = self._reads.get(id(test))
        if texts is None:
            texts = self._reads[id(test)] = {
                ast.unparse(node)
                for node in ast.walk(test)
                if isinstance(node, (ast.Name, ast.Attribute))
            }
        return not texts.isdisjoint(bound)


def _blocks(src: SourceInfo, func: ast.FunctionDef | ast.AsyncFunctionDef) -> _Blocks:
    """``func``'s :class:`_Blocks`, built once a function."""
    return src.per_node("broad_blocks", func, lambda: _Blocks(func))


def _bound_by(tried: ast.Try) -> set[str]:
    """What the ``try`` and its handlers assign (``x``, ``self.rate``: the source text of
    each target), the values a later test of the attempt's outcome reads."""
    bound: set[str] = set()
    for part in (tried.body, *(h.body for h in tried.handlers), tried.orelse):
        for stmt in part:
            for node in ast.walk(stmt):
                targets: list[ast.expr] = []
                if isinstance(node, ast.Assign):
                    targets = node.targets
                elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                    targets = [node.target]
                for target in targets:
                    for leaf in ast.walk(target):
                        if isinstance(leaf, (ast.Name, ast.Attribute)):
                            bound.add(ast.unparse(leaf))
    return bound


def _is_trivial_end(stmt: ast.stmt) -> bool:
    """``return`` / ``return None`` / ``pass`` / a string: a statement that adds nothing."""
    if isinstance(stmt, ast.Pass):
        return True
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return True
    return isinstance(stmt, ast.Return) and (
        stmt.value is None or (isinstance(stmt.value, ast.Constant) and stmt.value.value is None)
    )


def _ends_function(src: SourceInfo, func: ast.AST | None, try_stmt: ast.stmt | None) -> bool:
    """Whether nothing runs after ``try_stmt`` in ``func``: it is the function body's last
    statement (but for ``return``/``pass``), or the last of a ``with``/``if``/``try``
    block that is itself last; never inside a loop (falling off a loop body goes round
    again) nor a ``finally:`` (a catch there guards the cleanup). A handler that falls
    off such a ``try`` ends the function."""
    if try_stmt is None or not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    index = _blocks(src, func)
    if id(try_stmt) not in index.at:
        return False  # in a nested class body: not this function's own block
    # The chain of blocks from the ``try`` up to the function body.
    chain: list[tuple[list[ast.stmt], int]] = []
    for holder in index.ancestors(try_stmt):
        block, position, owner = index.at[id(holder)]
        chain.append((block, position))
        if owner is None:
            break
        if isinstance(owner, ast.Try):
            # Not its ``finally:``: a catch there guards the cleanup, not the work.
            if block is owner.finalbody:
                return False
        elif not isinstance(owner, (ast.With, ast.AsyncWith, ast.If)):
            return False  # a loop, a match
    for block, position in chain:
        if not all(_is_trivial_end(stmt) for stmt in block[position + 1 :]):
            return False
    return True


def _ends_by_design(try_stmt: ast.stmt | None) -> bool:
    """Whether the ``try`` is built to end on an exception: its body runs an endless loop
    (``while True: await ws.receive_text()``: a disconnect is the loop's only way out) or
    a ``finally:`` cleans up whatever the failure ends."""
    if not isinstance(try_stmt, ast.Try):
        return False
    if try_stmt.finalbody:
        return True
    return any(
        isinstance(stmt, ast.While)
        and isinstance(stmt.test, ast.Constant)
        and bool(stmt.test.value)
        and not any(isinstance(n, ast.Break) for n in ast.walk(stmt))
        for stmt in try_stmt.body
    )


def _only_logs(body: list[ast.stmt]) -> bool:
    """Logging calls and nothing that acts (``pass``, an empty ``return``): the handler
    reports the error to a log and no one else."""
    return any(_is_log_call(stmt) for stmt in body) and all(
        _is_log_call(stmt) or _is_trivial_end(stmt) for stmt in body
    )


def _only_calls(try_stmt: ast.stmt | None, names: frozenset[str], *, logged: bool) -> bool:
    """Whether the ``try`` body only calls (or awaits) functions named in ``names``;
    ``logged``: log calls around them count too (``rmtree(d)`` then ``logger.info``)."""
    body: list[ast.stmt] = getattr(try_stmt, "body", [])
    if logged:
        body = [stmt for stmt in body if not _is_log_call(stmt)]
    if not body:
        return False
    for stmt in body:
        value = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(value, ast.Await):
            value = value.value
        if not isinstance(value, ast.Call):
            return False
        func = value.func
        name = last_name(func)
        if name not in names:
            return False
    return True


_REMOVALS = frozenset({"remove", "unlink", "rmtree", "rmdir", "removedirs", "cleanup"})
# Stopping or closing a resource (``await sandbox.stop()``, ``proc.kill()``): a teardown,
# never on the path its function is on (:func:`_teardown`).
_TEARDOWNS = frozenset({"stop", "close", "aclose", "kill", "terminate", "shutdown"})


def _removes_files(try_stmt: ast.stmt | None, *, logged: bool = False) -> bool:
    """Whether the ``try`` body only removes files (temp-file cleanup is best effort);
    ``logged``: log calls around the removal count too (``rmtree(d)`` then ``logger.info``)."""
    return _only_calls(try_stmt, _REMOVALS, logged=logged)


def _tears_down(src: SourceInfo, try_stmt: ast.stmt | None, function: ast.AST | None) -> bool:
    """Whether the ``try`` body only stops or closes something (Gym's ``await
    original_sandbox.stop()`` after the patch is read), or only joins a task that is
    ending (:func:`_joins_ending_task`)."""
    return _only_calls(try_stmt, _TEARDOWNS, logged=False) or _joins_ending_task(
        src, try_stmt, function
    )


def _joins_ending_task(
    src: SourceInfo, try_stmt: ast.stmt | None, function: ast.AST | None
) -> bool:
    """Whether the ``try`` body only awaits a task already running (``await task``,
    ``await self.task``) that is ending: the statement before the ``try`` cancels it or
    sets a stop event (``task.cancel()``, ``stop_event.set()``: langgraph's pump, chainlit's
    MCP session), or the statement after it ends the function (chainlit's ``connect_mcp``
    joins its runner once its error is in hand, then answers 400). A join, not the work
    that failed; an ``await task`` the function goes on from is not (the task's error may
    be the work's own)."""
    body: list[ast.stmt] = getattr(try_stmt, "body", [])
    if not (
        len(body) == 1
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Await)
        and isinstance(body[0].value.value, (ast.Name, ast.Attribute))
        and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
    ):
        return False
    found = _blocks(src, function).at.get(id(try_stmt))  # the block holding it, indexed once
    return found is not None and _ending(found[0], found[1])


def _ending(block: list[ast.stmt], index: int) -> bool:
    """Whether the statement before ``block[index]`` cancels a task or sets an event, or
    the one after it returns or raises (see :func:`_joins_ending_task`)."""
    if index + 1 < len(block) and isinstance(block[index + 1], (ast.Return, ast.Raise)):
        return True
    before = block[index - 1] if index > 0 else None
    call = before.value if isinstance(before, ast.Expr) else None
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in ("cancel", "set")
    )


# Functions whose broad catch is best effort by nature: never ✗.
BEST_EFFORT = (
    "__del__",
    "__exit__",
    "__aexit__",
    "close",
    "aclose",
    "*cleanup*",
    "*shutdown*",
    "*teardown*",
    "*_exit*",
    "atexit*",
    "*finalize*",
    "*release*",
    "stop",
    "*terminate*",
    "*kill*",
)


def _helper_of(src: SourceInfo, names: list[str]) -> tuple[str, str] | None:
    """(helper, fail-fast caller) when the function the catch is in is a private helper
    only fail-fast code calls (:func:`_fail_fast.called_from`, computed once per file)."""
    helpers = src.cache.get("fail_fast_helpers")
    if not isinstance(helpers, dict):
        loaders = _model_loaders(src) if b"load" in src.data or b"pretrained" in src.data else ()
        helpers = paths.called_from(src.tree, (*src.config.fail_fast, *loaders))
        src.cache["fail_fast_helpers"] = helpers
    origin = helpers.get(names[-1]) if names else None
    return (names[-1], origin) if isinstance(origin, str) else None


def _model_loaders(src: SourceInfo) -> tuple[str, ...]:
    """The names of the module's functions whose own body loads a model, its config or
    its weights (a :data:`_fail_fast.MODEL_LOADS` call: ``AutoConfig.from_pretrained``,
    ``load_checkpoint``): the model-loading entry points, on the weight-loading path
    whatever they are called (``from_quantized``). A private helper only they call sets
    the loaded model up."""
    found: set[str] = set()
    for node, function in paths.nodes_by_function(src.tree):
        if (
            function is not None
            and function not in found
            and isinstance(node, ast.Call)
            and paths.load_call(node, src.qualname) in paths.MODEL_LOADS
        ):
            found.add(function)
    return tuple(sorted(found))


def _returns_empty(body: list[ast.stmt]) -> bool:
    """A handler that only returns an empty container (``return {}``, ``return []``,
    ``return dict()``): :func:`_is_empty_value` but a constant (``return False`` is a
    probe's answer, ``return None`` :func:`_fail_fast.gives_up`'s)."""
    return (
        len(body) == 1
        and isinstance(body[0], ast.Return)
        and body[0].value is not None
        and not isinstance(body[0].value, ast.Constant)
        and _is_empty_value(body[0].value)
    )


def _route_helper_of(src: SourceInfo, names: list[str]) -> tuple[str, str] | None:
    """(helper, route) when the function the catch is in is a private helper only HTTP
    routes call (directly or through such helpers; computed once per file)."""
    helpers = src.cache.get("route_helpers")
    if not isinstance(helpers, dict):
        routes = paths.route_names(src.tree) if b"/" in src.data else ()
        helpers = paths.called_from(src.tree, routes) if routes else {}
        src.cache["route_helpers"] = helpers
    origin = helpers.get(names[-1]) if names else None
    return (names[-1], origin) if isinstance(origin, str) else None


def _reached_from_fail_fast(src: SourceInfo, func: ast.AST | None) -> tuple[str, ...] | None:
    """(fail-fast function, ..., caller) when every call of ``func`` in the work tree comes,
    within a few calls, from fail-fast code (:meth:`_fail_fast.TreeCalls.reached_from`)."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    if func.name.startswith("__") or names_match([func.name], paths.ATTEMPTS):
        return None
    if paths.optimisation_name(func.name):
        return None  # a warm-up or compile step: the model runs without it
    calls = paths.tree_calls(src.root, fakes.SKIP_DIRS)
    if calls is None:
        return None
    home = paths.module_name(src.path)
    return calls.reached_from(func.name, home, src.tree, src.config.fail_fast)


def _doc_says_best_effort(func: ast.AST | None) -> bool:
    """Whether the function's docstring declares it best effort or its failure non-fatal
    ("Best-effort local IP detection"): its callers were told to expect nothing back."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    doc = ast.get_docstring(func, clean=True)
    return bool(doc) and paths.HARMLESS.search(doc or "") is not None


def _reached_in_module(src: SourceInfo, func: ast.AST | None) -> tuple[str, ...] | None:
    """(fail-fast function, ..., caller) when fail-fast code of the module calls ``func``
    within a few calls (:func:`_fail_fast.reached_in_module`, computed once per file)."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    reached = src.cache.get("reached_in_module")
    if not isinstance(reached, dict):
        calls = paths.tree_calls(src.root, fakes.SKIP_DIRS)
        # A script's top level is its program's run, no package's set-up; unknown in a
        # tree too large to read.
        packaged = calls is not None and calls.packaged(paths.module_name(src.path))
        reached = paths.reached_in_module(src.tree, src.config.fail_fast, packaged)
        src.cache["reached_in_module"] = reached
    chain = reached.get(func.name)
    return chain if isinstance(chain, tuple) else None


def _logs_then_returns_none(body: list[ast.stmt]) -> bool:
    """Logging calls, then ``return`` / ``return None`` or an empty value (``[]``, ``{}``,
    ``()``, ``""``): the caller gets an answer it cannot tell from a real "nothing" (no
    packages installed, no entries), the log a line. Not ``return False``: a probe's
    answer."""
    return (
        bool(body)
        and _is_log_call(body[0])
        and isinstance(body[-1], ast.Return)
        and _returns_nothing(body[-1])
        and all(_is_log_call(stmt) or _is_trivial_end(stmt) for stmt in body[:-1])
    )


def _returned(body: list[ast.stmt]) -> str:
    """What the handler's final ``return`` hands back (``None``, ``[]``), for a message."""
    last = body[-1] if body else None
    if isinstance(last, ast.Return) and last.value is not None:
        return ast.unparse(last.value)
    return "None"


def _returns_nothing(stmt: ast.Return) -> bool:
    """``return`` / ``return None`` or the return of an empty value (``[]``, ``{}``,
    ``()``, ``""``, ``dict()``), not ``False`` (an answer) nor ``...``."""
    value = stmt.value
    if isinstance(value, ast.Constant):
        return value.value is None or value.value in ("", b"")
    return _is_empty_value(value)


def _logs_and_guesses(body: list[ast.stmt], in_function: bool) -> bool:
    """Logging calls, then a guess: in a function, ``return True``/``return False`` (an
    answer the caller cannot tell from a real one); at module level,
    :func:`_logs_and_carries_on` (``judge = None``)."""
    if not in_function:
        return _logs_and_carries_on(body)
    last = body[-1] if body else None
    return (
        isinstance(last, ast.Return)
        and isinstance(last.value, ast.Constant)
        and isinstance(last.value.value, bool)
        and _logs_and_carries_on(body[:-1])
    )


def _loader_methods(src: SourceInfo) -> dict[int, tuple[str, frozenset[str]]]:
    """:func:`_fail_fast.loader_methods` of the file, computed once."""
    found = src.cache.get("loader_methods")
    if not isinstance(found, dict):
        found = paths.loader_methods(src.tree, src.qualname)
        src.cache["loader_methods"] = found
    return found


def _continues(body: list[ast.stmt]) -> bool:
    """Whether the handler goes round its loop again (``continue``: the next candidate of a
    chain of attempts), not on with the code after the ``try``."""
    return any(isinstance(stmt, ast.Continue) for stmt in body)


def _declared_none(func: ast.AST | None, body: list[ast.stmt]) -> bool:
    """Whether the handler returns None from a function whose return annotation admits it
    (``-> int | None``, ``Optional[str]``): "not found" is the function's declared answer,
    which its callers must handle."""
    returns_none = any(
        isinstance(stmt, ast.Return)
        and (
            stmt.value is None
            or (isinstance(stmt.value, ast.Constant) and stmt.value.value is None)
        )
        for stmt in body
    )
    returns = getattr(func, "returns", None)
    if not returns_none or not isinstance(returns, ast.expr):
        return False
    for node in ast.walk(returns):
        if isinstance(node, ast.Constant) and node.value is None:
            return True
        if isinstance(node, ast.Name) and node.id == "Optional":
            return True
        if isinstance(node, ast.Attribute) and node.attr == "Optional":
            return True
    return False


def _gives_up_quietly(src: SourceInfo, body: list[ast.stmt]) -> bool:
    """A handler that, but for DEBUG-level log lines, passes, continues, returns nothing
    (None, ``False``, an empty value) or assigns a default (``neuron_config = None``), with
    no comment in its body saying why: the error is reported to no one."""
    end = (body[-1].end_lineno or body[-1].lineno) if body else 0
    if body and any(src.has_comment(line) for line in range(body[0].lineno, end + 1)):
        return False
    quiet = [stmt for stmt in body if not paths.debug_log(stmt)]
    return _swallows(quiet) or paths.assigns_default(quiet, lambda line: False)


def _quiet_probe(src: SourceInfo, handler: ast.ExceptHandler) -> bool:
    """A handler of only ``pass`` or only ``return False``, with no comment on its
    ``except`` line or in it saying why (``# noqa: BLE001 -- unreadable is "unknown"``): a
    probe's negative answer given for every error, a bug included."""
    body = handler.body
    if not body:
        return False
    end = body[-1].end_lineno or body[-1].lineno
    if any(src.has_comment(line) for line in range(handler.lineno, end + 1)):
        return False
    if len(body) != 1:
        return False
    stmt = body[0]
    return isinstance(stmt, ast.Pass) or (
        isinstance(stmt, ast.Return)
        and isinstance(stmt.value, ast.Constant)
        and stmt.value.value is False
    )


def _package_of(path: str) -> str | None:
    """The top-level package a module's repository path puts it in (``ktransformers`` for
    ``ktransformers/util/utils.py``, past a ``src/`` layout), None for a top-level script."""
    parts = path.split("/")
    if len(parts) > 2 and parts[0] in ("src", "python"):
        parts = parts[1:]
    return parts[0] if len(parts) > 1 and parts[0].isidentifier() else None


def _import_time_probe(src: SourceInfo, tried: ast.stmt | None, handler: ast.ExceptHandler) -> str:
    """What a bare ``except:`` at import time hides when its ``try`` is more than an
    optional import: ``"a backend probe"`` when the ``try`` imports and then runs code
    (``use_npu = torch_npu.npu.is_available()``), ``"the project's own imports"`` when it
    imports a module of the package itself; "" otherwise. Only for a handler that
    silently passes or sets flags (``use_npu = False``), with no comment saying why."""
    body = handler.body
    if handler.type is not None or not isinstance(tried, ast.Try) or not body:
        return ""
    end = body[-1].end_lineno or body[-1].lineno
    if any(src.has_comment(line) for line in range(handler.lineno, end + 1)):
        return ""
    for stmt in body:
        flag = (
            isinstance(stmt, ast.Assign)
            and all(isinstance(target, ast.Name) for target in stmt.targets)
            and isinstance(stmt.value, ast.Constant)
        )
        if not (flag or isinstance(stmt, ast.Pass)):
            return ""
    package = _package_of(src.path)
    imported = own = ran = False
    for stmt in tried.body:
        if isinstance(stmt, ast.Import):
            imported = True
            own = own or any(alias.name.split(".")[0] == package for alias in stmt.names)
        elif isinstance(stmt, ast.ImportFrom):
            imported = True
            own = own or bool(stmt.level) or (stmt.module or "").split(".")[0] == package
        elif any(isinstance(node, ast.Call) for node in ast.walk(stmt)):
            ran = True
    if not imported:
        return ""
    return "the project's own imports" if own else "a backend probe" if ran else ""


def _passes_on(body: list[ast.stmt]) -> bool:
    """A handler of only ``pass`` (or a string): the code after the ``try`` runs as the
    fallback."""
    return all(
        isinstance(stmt, ast.Pass)
        or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
        for stmt in body
    )


def _outcome(body: list[ast.stmt]) -> str | None:
    """How a handler gives up, for comparing handlers of one ``try``: ``return X`` (X
    ``False``, None or an empty value) as its source text, ``""`` when it only logs or
    passes and falls through to the code after the ``try``, None for anything else."""
    last = body[-1] if body else None
    if isinstance(last, ast.Return) and (last.value is None or _is_empty_value(last.value)):
        rest = body[:-1]
        text = ast.unparse(last.value) if last.value is not None else "None"
        return text if all(_is_log_call(stmt) or _is_trivial_end(stmt) for stmt in rest) else None
    if body and all(_is_log_call(stmt) or isinstance(stmt, ast.Pass) for stmt in body):
        return ""
    return None


# An ``except`` clause of named types, as the base wrote it: ``except ClientError as e:``.
_SPECIFIC_CLAUSE = re.compile(
    rb"^[ \t]*except[ \t]*\(?[ \t]*([A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*)"
    rb"[ \t]*,?[ \t]*\)?[ \t]*(?:as[ \t]+\w+[ \t]*)?:",
    re.M,
)


# A line that opens an ``except`` clause.
_EXCEPT_LINE = re.compile(rb"^[ \t]*except\b", re.M)


def _widened_from(src: SourceInfo, handler: ast.ExceptHandler) -> str | None:
    """The specific types the base caught where the change writes this broad handler
    (``except ClientError:`` rewritten ``except Exception:``), from :func:`_widened`."""
    return _widened(src).get(handler.lineno)


def _widened(src: SourceInfo) -> dict[int, str]:
    """Head line of each ``except`` clause the change writes in place of one base clause
    -> the types the base clause named: a hunk that replaced exactly one ``except``
    clause, naming no broad type, with exactly one. Built once a file (every hunk read
    once, not once a handler: a hunk of thousands of handlers stays linear); a hunk that
    replaced several clauses, or writes several, is a rewrite, not a widening."""
    cached = src.cache.get("widened_clauses")
    if isinstance(cached, dict):
        return cached
    found: dict[int, str] = {}
    for first, last, old in src.replaced:
        if b"except" not in old or len(_EXCEPT_LINE.findall(old)) != 1:
            continue
        clauses = _SPECIFIC_CLAUSE.findall(old)
        written = [
            line
            for line in range(first, min(last, len(src.byte_lines)) + 1)
            if _EXCEPT_LINE.match(src.byte_lines[line - 1])
        ]
        if len(clauses) != 1 or len(written) != 1:
            continue
        types = clauses[0].decode("utf-8", "replace")
        if {t.strip().rsplit(".", 1)[-1] for t in types.split(",")} & {
            "Exception",
            "BaseException",
        }:
            continue
        found[written[0]] = " ".join(types.split())
    src.cache["widened_clauses"] = found
    return found


def _commented(src: SourceInfo, handler: ast.ExceptHandler) -> bool:
    """Whether a line of the handler's body, or one between its ``except`` line and its
    first statement, carries a comment (one saying why the catch is broad)."""
    end = handler.end_lineno or handler.lineno
    return any(src.has_comment(line) for line in range(handler.lineno + 1, end + 1))


def _same_answer_as_expected(
    src: SourceInfo, func: ast.AST | None, tried: ast.stmt | None, handler: ast.ExceptHandler
) -> str | None:
    """The types of an earlier handler of the same ``try`` that catches the expected
    failure by name and gives up the same way as the broad ``handler`` (both return
    ``False``, or both fall through to the ``return False`` right after the ``try``), when
    the broad one reports at WARNING level or above: every unexpected error gets the
    expected answer. None otherwise (a DEBUG line, another answer, no specific handler
    before it, a handler of only bug classes giving that answer first, or handlers that fall
    through to no answer: a loop's next round, the end of a method of side effects, a CLI's
    ``sys.exit(code)`` or its ``main()`` whose answer no caller reads, where the log line
    they print is what tells the cases apart)."""
    if not isinstance(tried, ast.Try) or handler.type is None:
        return None
    if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) and func.name == "main":
        return None
    expected = _expected_answers(src, tried)
    index = expected.position.get(id(handler), 0)
    outcome = _outcome(handler.body)
    if not index or outcome is None:
        return None
    if outcome == "" and not _answers_next(src, func, tried):
        return None
    if not any(_is_log_call(stmt) and not paths.debug_log(stmt) for stmt in handler.body):
        return None
    # The first earlier handler that decides: one catching a missing dependency (None),
    # or one giving up the same way (its types).
    same = expected.first.get(outcome, index)
    if (
        same >= index
        or expected.missing < same
        or expected.bug_answered.get(outcome, index) < index
    ):
        return None
    same_type = tried.handlers[same].type
    return short(src, same_type) if same_type is not None else None


def _answers_next(src: SourceInfo, func: ast.AST | None, tried: ast.Try) -> bool:
    """Whether the statement right after ``tried`` in its block returns an answer of
    giving up (``return False``, ``return None``, an empty value): what a handler that
    falls through gives its caller."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    place = _blocks(src, func).at.get(id(tried))
    if place is None:
        return False
    block, position, _owner = place
    after = block[position + 1] if position + 1 < len(block) else None
    return isinstance(after, ast.Return) and (after.value is None or _is_empty_value(after.value))


class _Expected:
    """What each handler of one ``try`` answers, read once a ``try`` (not once for each
    of its broad handlers): a ``try`` of thousands of handlers stays linear."""

    def __init__(self, src: SourceInfo, tried: ast.Try) -> None:
        """Index the handlers of ``tried``."""
        # id(handler) -> its position among the handlers.
        self.position = {id(h): i for i, h in enumerate(tried.handlers)}
        # The position of the first handler of a missing dependency (``except
        # ImportError:``), and of the first giving up each way (:func:`_outcome`), among
        # the specific handlers that catch a failure (not a signal).
        self.missing = len(tried.handlers)
        self.first: dict[str, int] = {}
        # The position of the first handler of only bug classes giving up each way.
        self.bug_answered: dict[str, int] = {}
        for i, earlier in enumerate(tried.handlers):
            if earlier.type is None or _broad_name(src, earlier) is not None:
                continue
            types = earlier.type.elts if isinstance(earlier.type, ast.Tuple) else [earlier.type]
            if any(short(src, t).rsplit(".", 1)[-1] in _SIGNALS for t in types):
                continue  # an interrupt or a cancellation: a signal, not the expected failure
            if all(short(src, t).rsplit(".", 1)[-1] in _BUG_CLASSES for t in types):
                # What a bug raises too: it names no expected failure. The code gives its
                # answer to bugs already (open-r1's reward: ``except (TypeError,
                # ValueError): return 0.0``, then a timeout's and every other error's
                # 0.0), so that answer means "no result", not the expected failure's.
                answer = _outcome(earlier.body)
                if answer is not None:
                    self.bug_answered.setdefault(answer, i)
                continue
            if any(short(src, t).rsplit(".", 1)[-1] in _MISSING_DEPENDENCY for t in types):
                # The code is built to run without the package (``except ImportError:``
                # skips it): what the ``try`` does is optional, and a broken install that
                # gets the same logged "skipped" is the pattern's logged best-effort
                # boundary.
                self.missing = min(self.missing, i)
                continue
            outcome = _outcome(earlier.body)
            if outcome is not None:
                self.first.setdefault(outcome, i)


def _expected_answers(src: SourceInfo, tried: ast.Try) -> _Expected:
    """``tried``'s :class:`_Expected`, built once a ``try``."""
    return src.per_node("broad_expected", tried, lambda: _Expected(src, tried))


def _answer_is_failure(src: SourceInfo, func: ast.AST | None, handler: ast.ExceptHandler) -> bool:
    """Whether the function gives the handler's answer (``return False``) on a failure it
    reports without an exception too: an ``if`` whose body logs or prints and returns the
    same (``if response.status_code != 200: print(...); return False``). Its callers
    already read that answer as "it failed" (a script exits 1), so the broad catch reports
    the failure; it does not dress a bug up as the expected case."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or not handler.body:
        return False
    last = handler.body[-1]
    if not isinstance(last, ast.Return) or last.value is None:
        return False
    return ast.dump(last.value) in _failure_answers(src, func)


def _failure_answers(src: SourceInfo, func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The answers (``ast.dump`` of the returned value) of ``func``'s ``if`` blocks that log
    or print and then return, read once a function (not once a handler)."""
    cached = src.cache.setdefault("broad_failure_answers", {})
    assert isinstance(cached, dict)
    found = cached.get(id(func))
    if not isinstance(found, set):
        found = cached[id(func)] = set()
        for stmt in kwreads.statements(func.body, scopes=False):
            if not isinstance(stmt, ast.If):
                continue
            end = stmt.body[-1]
            if (
                isinstance(end, ast.Return)
                and end.value is not None
                and any(_is_log_call(s) for s in stmt.body[:-1])
            ):
                found.add(ast.dump(end.value))
    return found


def _silent_guess(src: SourceInfo, body: list[ast.stmt]) -> bool:
    """A handler that only returns a non-empty literal (``{"type": "string"}``, ``"c++17"``,
    ``(0, 0)``), with no log line and no comment saying why: a made-up value standing in
    for what failed, told to no one."""
    stmts = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(stmts) != 1 or not isinstance(stmts[0], ast.Return) or stmts[0].value is None:
        return False
    value = stmts[0].value
    if _is_empty_value(value) or not _literal(value):
        return False
    end = body[-1].end_lineno or body[-1].lineno
    return not any(src.has_comment(line) for line in range(body[0].lineno, end + 1))


def _literal(node: ast.expr) -> bool:
    """Whether ``node`` is a literal built of constants only (``{"type": "string"}``)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_literal(elt) for elt in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _literal(k) for k in node.keys) and all(
            _literal(v) for v in node.values
        )
    return False


# The expected failure of an optional dependency: the package is not installed.
_MISSING_DEPENDENCY = frozenset({"ImportError", "ModuleNotFoundError"})


# Exceptions that stop the code rather than report a failure of what the ``try`` does.
_SIGNALS = frozenset(
    {
        "KeyboardInterrupt",
        "SystemExit",
        "GeneratorExit",
        "CancelledError",
        "StopIteration",
        "StopAsyncIteration",
    }
)


# The classes of error a bug raises as readily as a failure does (open-r1's reward
# ``except (TypeError, ValueError): return 0.0`` around a conversion, a CLI's ``except
# RuntimeError:``): a handler of only these names no expected failure, so a broad catch
# after it giving the same answer mixes up nothing the first one did not.
_BUG_CLASSES = frozenset(
    {"TypeError", "ValueError", "RuntimeError", "AttributeError", "AssertionError"}
)


def _returns_loaded(tried: ast.stmt | None, qualname: Callable[[ast.expr], str | None]) -> bool:
    """Whether the ``try`` hands back what it loads, so the handler's None stands in for
    the model or config: it returns nothing (the load is stored), or a value that is a
    load or reads a name a load assigned (``config = AutoConfig.from_pretrained(...)``,
    ``return AutoModel.from_config(config)``). A ``try`` that returns something else made
    with the load (the text a preview generated) is not a failed load the caller is
    left without: its None is a missing result."""
    body: list[ast.stmt] = getattr(tried, "body", [])
    loaded: set[str] = set()
    returns: list[ast.expr] = []
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and paths.load_call(node.value, qualname) is not None
        ):
            loaded.update(t.id for t in node.targets if isinstance(t, ast.Name))
        if isinstance(node, ast.Return) and node.value is not None:
            returns.append(node.value)
        stack.extend(ast.iter_child_nodes(node))
    if not returns:
        return True
    return any(
        (isinstance(leaf, ast.Name) and leaf.id in loaded)
        or (isinstance(leaf, ast.Call) and paths.load_call(leaf, qualname) is not None)
        for value in returns
        for leaf in _returned_leaves(value, qualname)
    )


def _returned_leaves(
    value: ast.expr, qualname: Callable[[ast.expr], str | None]
) -> Iterator[ast.AST]:
    """The nodes of a returned value, without the arguments of a call that neither
    loads nor builds: ``self._get_export_info(model.load_model())`` returns what another
    function made of the load (its metadata), not the load. A load's own arguments, a
    constructor's (a class, ``AutoModel.from_config(config)``: the model built from the
    loaded config) and a receiver (``from_pretrained(...).to(device)``) count."""
    stack: list[ast.AST] = [value]
    while stack:
        node = stack.pop()
        yield node
        if (
            isinstance(node, ast.Call)
            and paths.load_call(node, qualname) is None
            and not _builds(node)
        ):
            stack.append(node.func)  # the receiver only, not what is handed to the call
            continue
        stack.extend(ast.iter_child_nodes(node))


def _builds(call: ast.Call) -> bool:
    """Whether a call constructs an object: a class (``Model(config)``, a capitalised
    name) or an alternative constructor (``AutoModel.from_config``, ``from_*``)."""
    func = call.func
    name = last_name(func)
    return isinstance(name, str) and (name[:1].isupper() or name.startswith("from_"))


def _installed_over(src: SourceInfo, func: ast.AST | None) -> str | None:
    """The attribute a module-level function is installed over (a monkeypatch), or None:
    the module assigns it, or a lambda or ``partial`` calling it, to an attribute of
    another object (``_sdpa_mod.sdpa_attention_forward = _hpu_sdpa_attention_forward``,
    ``model.embed_input_ids = lambda *a: _patched_embed_input_ids(model, orig, *a)``,
    ``setattr(mod, "forward", f)``), where the function is named for what it replaces
    (the attribute's name is part of its own) or the assignment sits in code named for
    patching (``_patch_*``). Not an attribute of ``self``/``cls`` (the object's own
    callback). Every call of the replaced code runs the function instead."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or func.col_offset:
        return None
    found = src.cache.get("installed_over")
    if not isinstance(found, dict):
        found = _installations(src)
        src.cache["installed_over"] = found
    got = found.get(func.name)
    return got if isinstance(got, str) else None


def _installations(src: SourceInfo) -> dict[str, str]:
    """name of a function -> the attribute it is installed over (:func:`_installed_over`)."""
    out: dict[str, str] = {}

    def installed(value: ast.expr) -> str | None:
        if isinstance(value, ast.Lambda):
            value = value.body
        if isinstance(value, ast.Call):
            called = value.func
            if isinstance(called, ast.Name) and called.id == "partial" and value.args:
                value = value.args[0]
            elif isinstance(called, ast.Attribute) and called.attr == "partial" and value.args:
                value = value.args[0]
            else:
                value = called
        return value.id if isinstance(value, ast.Name) else None

    # Statements only (an assignment or a ``setattr(...)`` call is one; no expression
    # holds one), iteratively: a deep file recurses nothing. ``patching``: inside a
    # function named for patching.
    stack: list[tuple[ast.stmt, bool]] = [(stmt, False) for stmt in reversed(src.tree.body)]
    while stack:
        child, patching = stack.pop()
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            patching = patching or "patch" in child.name.lower()
        pairs: list[tuple[ast.expr, str, ast.expr]] = []
        if isinstance(child, ast.Assign):
            pairs = [
                (t.value, t.attr, child.value)
                for t in child.targets
                if isinstance(t, ast.Attribute)
            ]
        elif (
            isinstance(child, ast.Expr)
            and isinstance(child.value, ast.Call)
            and isinstance(child.value.func, ast.Name)
            and child.value.func.id == "setattr"
            and len(child.value.args) == 3
            and isinstance(child.value.args[1], ast.Constant)
            and isinstance(child.value.args[1].value, str)
        ):
            call = child.value
            pairs = [(call.args[0], str(getattr(call.args[1], "value", "")), call.args[2])]
        for owner, attr, value in pairs:
            name = installed(value)
            if (
                name is None
                or (isinstance(owner, ast.Name) and owner.id in ("self", "cls"))
                or not (patching or attr.lower() in name.lower() or "patch" in name.lower())
            ):
                continue
            out.setdefault(name, f"{_owner_text(owner)}.{attr}")
        inner = [
            s
            for block in (
                # in the fields' order (``try``: body, handlers, else, finally)
                getattr(child, "body", None),
                *(h.body for h in getattr(child, "handlers", None) or ()),
                *(c.body for c in getattr(child, "cases", None) or ()),
                getattr(child, "orelse", None),
                getattr(child, "finalbody", None),
            )
            if isinstance(block, list)
            for s in block
        ]
        stack.extend((s, patching) for s in reversed(inner))
    return out


def _reports_caught(src: SourceInfo, func: FunctionNode | None, tried: ast.stmt | None) -> bool:
    """Whether ``tried`` sits in the body of an ``except ... as e:`` of the same function
    and its own body reads ``e``: it reports a failure already caught (the last-ditch
    ``send_json({"content": f"Unexpected error: {e}"})`` of a route's outer handler), not
    an attempt of its own (a fallback load reads no ``e``)."""
    if func is None or tried is None:
        return False
    caught = src.per_node("caught_around_tries", func, lambda: _caught_around_tries(func))
    names = caught.get(id(tried))
    body: list[ast.stmt] = getattr(tried, "body", [])
    if not names:
        return False
    return any(
        isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load)
        for stmt in body
        for n in ast.walk(stmt)
    )


def _caught_around_tries(func: FunctionNode) -> dict[int, frozenset[str]]:
    """id of each ``try`` of ``func``'s own body that sits in an ``except ... as name:``
    body -> the names those enclosing handlers bind."""
    out: dict[int, frozenset[str]] = {}
    stack: list[tuple[ast.AST, frozenset[str]]] = [
        (stmt, frozenset()) for stmt in getattr(func, "body", []) if isinstance(stmt, ast.AST)
    ]
    while stack:
        node, names = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, TRY_NODES) and names:
            out[id(node)] = names
        if isinstance(node, ast.ExceptHandler) and node.name:
            inner = names | {node.name}
            stack.extend((child, inner) for child in ast.iter_child_nodes(node))
            continue
        stack.extend((child, names) for child in ast.iter_child_nodes(node))
    return out


def _owner_text(node: ast.expr) -> str:
    """A short source text of an owner expression."""
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."


# The readings below share what they know of one handler (its clause, its path, what its
# ``try`` does) through :class:`_Handler`, each fact computed at most once and only when a
# reading asks; each reading is one of the pattern's cases, tried in :data:`READINGS`'s
# order, and the first that answers decides.


class _Handler:
    """One new broad ``except`` clause and the facts its readings share."""

    def __init__(self, src: SourceInfo, node: ast.ExceptHandler, ctx: Ctx, caught: str) -> None:
        self.src = src
        self.node = node
        self.ctx = ctx
        self.caught = caught
        self.names = ctx.names()
        self.function = ctx.innermost
        self.tried = src.try_of.get(id(node))
        clause = f"except {short(src, node.type)}" if node.type is not None else "except"
        self.clause = clause + (f" as {node.name}" if node.name else "")

    def report(self, severity: Severity, message: str) -> Finding:
        """A broad-except finding on this handler."""
        return finding(self.src, self.node, "broad-except", severity, message)

    @functools.cached_property
    def uses_error(self) -> bool:
        """Whether the body reads the bound exception (``as e`` and ``e`` used)."""
        name = self.node.name
        return bool(name) and any(
            isinstance(n, ast.Name) and n.id == name
            for stmt in self.node.body
            for n in ast.walk(stmt)
        )

    @functools.cached_property
    def observes(self) -> bool:
        """Whether the file is a telemetry or tracing module: what its ``__init__`` sets up
        and its request functions handle is the observation, not the work observed, so a
        failure there is best effort (a tracer must never take down what it traces)."""
        return match_any(self.src.path, paths.TELEMETRY_PATHS)

    @functools.cached_property
    def fail_fast(self) -> str | None:
        """The shared fail-fast glob an enclosing function matches, or the ``__init__``-like
        role its docstring gives it; none for a function named for an attempt."""
        if self.src.is_test or self.observes:
            return None
        named = _fail_fast_name(self.src, self.ctx.funcs)
        if named is not None or self.attempt:
            return named  # a function named for an attempt is best effort, whatever it says
        return _doc_says_init(self.function)

    @functools.cached_property
    def handling(self) -> str | None:
        """Request handling or connector setup: by name, or an HTTP route (not of a UI,
        :data:`_fail_fast.UI_PATHS`)."""
        if self.src.is_test or self.observes:
            return None
        route = paths.route_handler(self.function)
        if route is not None and match_any(self.src.path, paths.UI_PATHS):
            route = None  # a UI's display path: best effort
        return names_match(self.names, paths.REQUEST_AND_CONNECTOR) or route

    @functools.cached_property
    def imports(self) -> bool:
        """Whether the ``try`` only imports (an optional import)."""
        return bool(paths.imports_only(self.tried))

    @functools.cached_property
    def patch(self) -> str | None:
        """The ``*patch*`` function whose import the ``try`` is: not best effort about it."""
        if self.src.is_test or not self.imports:
            return None
        patching = names_match(self.names, paths.PATCHES)
        if patching is not None and names_match([patching], paths.UNPATCHES) is not None:
            return None  # restoring what a patch replaced: nothing to skip if it fails
        return patching

    @functools.cached_property
    def optional_import(self) -> bool:
        """An optional import outside a patch function: best effort by nature."""
        return self.imports and self.patch is None

    @functools.cached_property
    def best_effort(self) -> bool:
        """Best effort by name (metrics, cleanup), by what it does (removing temp files,
        reporting an error an enclosing handler caught) or an optional import."""
        return bool(
            names_match(self.names, (*BEST_EFFORT, *paths.BEST_EFFORT_MORE))
            or _removes_files(self.tried)
            or self.optional_import
            or self.reports_caught
        )

    @functools.cached_property
    def reports_caught(self) -> bool:
        """Whether the ``try`` reports an error an enclosing handler caught (never ✗, but
        still the ⚠ of any new broad catch, logged or not)."""
        return _reports_caught(self.src, self.function, self.tried)

    @functools.cached_property
    def complete(self) -> bool:
        """An optimisation that failed (torch.compile, CUDA graph -> eager), a failure the
        code declares harmless ("non-fatal"), or an upgrade of working defaults set before
        the ``try``: a complete fallback."""
        return (
            paths.optimisation_only(self.tried)
            or _says_harmless(self.src, self.node)
            or _upgrades_defaults(self.src, self.function, self.tried)
        )

    @functools.cached_property
    def cleanup(self) -> bool:
        """Whether the ``try`` sits in another handler of the function: cleanup after a
        failure already being handled (a disconnect after a failed connect), best
        effort (the brief's clarification after set zzzu)."""
        tried, function = self.tried, self.function
        if tried is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        return id(tried) in self.src.per_node(
            "tries-in-handlers", function, lambda: _tries_in_handlers(function)
        )

    @functools.cached_property
    def raises_later(self) -> bool:
        """Whether a ``raise`` further down ends the catch's chain of attempts."""
        return _raises_later(self.src, self.function, self.node)

    @functools.cached_property
    def ends(self) -> bool:
        """Whether nothing but a trivial end follows the ``try`` in its function."""
        return _ends_function(self.src, self.function, self.tried)

    @functools.cached_property
    def by_design(self) -> bool:
        """A ``try`` built to end on its exception (an endless receive loop, a ``finally:``
        that cleans up) with nothing after it."""
        return self.ends and _ends_by_design(self.tried)

    @functools.cached_property
    def silent(self) -> bool:
        """Whether the handler gives up with no word (pass, None, a default)."""
        return paths.gives_up(self.node.body, self.src.has_comment)

    @functools.cached_property
    def loaded(self) -> str | None:
        """The load (model, config, weights, a loader's own method) the ``try`` runs, off
        every named path; None for a helper only fail-fast code calls (its ✗ names the
        path)."""
        src = self.src
        if (
            self.fail_fast
            or self.handling
            or self.best_effort
            or self.complete
            or self.imports
            or src.is_test
        ):
            return None
        loaded = paths.loads_in(self.tried, src.qualname)
        if loaded is None and b"self" in src.data:
            # A method of the weight loader (a class whose own methods load the
            # checkpoint) calling the loader's own code: ``Weights._has_tensor``.
            owner = _loader_methods(src).get(id(self.function))
            own = paths.calls_own_method(self.tried, owner[1]) if owner is not None else None
            if owner is not None and own is not None:
                loaded = f"{owner[0]}.{own}"
        if loaded is not None and self.silent and _helper_of(src, self.names) is not None:
            return None
        return loaded

    @functools.cached_property
    def attempt(self) -> bool:
        """A function named for an attempt (``try_*``, ``maybe_*``): best effort by name."""
        return names_match(self.names[-1:], paths.ATTEMPTS) is not None

    @functools.cached_property
    def swallow_path(self) -> tuple[str, str] | None:
        """The fail-fast path a silent swallow is on, with how it is reached: a named path,
        request handling, a helper only fail-fast code calls, or a monkeypatch installed
        over another object's code."""
        src, body = self.src, self.node.body
        path = self.fail_fast or self.handling
        if path:
            return path, ""
        if self.best_effort or src.is_test:
            return None
        if paths.gives_up(body, src.has_comment):
            helper = _helper_of(src, self.names)
            if helper is not None:
                return helper[0], f" (called only from `{helper[1]}`)"
        if paths.gives_up(body, src.has_comment) or _returns_empty(body):
            # A helper only HTTP routes call answers their clients: an empty answer made
            # up there is the route's (feast's ``_build_feature_view_to_datasource_map``
            # ``return {}``); not a UI's display.
            routed = _route_helper_of(src, self.names)
            if routed is not None and not match_any(src.path, paths.UI_PATHS):
                return routed[0], f" (called only from request handling `{routed[1]}`)"
        if _swallows(body) and not self.complete and not self.optional_import:
            # A monkeypatch runs wherever the replaced code ran (a model's ``forward``);
            # its silent give-up changes that code for every caller, none of whom hears.
            over = _installed_over(src, self.function)
            if over is not None:
                return self.names[-1], f" (installed over `{over}`)"
        return None


# A reading's answer: a finding (reported, and no other reading is tried), None (the next
# reading is tried) or STOP (no finding at all: the catch hands its error on).
class _Stop:
    """A reading's answer that no finding is due and no other reading is to be tried."""


STOP = _Stop()
Reading = Callable[[_Handler], Finding | _Stop | None]


def _import_time_bare(h: _Handler) -> Finding | None:
    """A bare ``except:`` at import time around more than an optional import (a backend
    probe, the package's own modules): every error, KeyboardInterrupt included, and the
    project's own import bugs silently select the other code path."""
    if h.src.is_test or h.function is not None:
        return None
    hidden = _import_time_probe(h.src, h.tried, h.node)
    if not hidden:
        return None
    return h.report(
        BLOCK,
        f"bare `except:` at import time around {hidden} silently swallows every "
        "error, KeyboardInterrupt and the project's own bugs included; catch ImportError",
    )


# Retry decorators by the package that defines them: ``@retry(...)`` (tenacity, retrying,
# retry, stamina) and ``@backoff.on_exception(...)`` call the function again when it raises.
_RETRY_PACKAGES = frozenset({"tenacity", "retrying", "retry", "stamina", "backoff"})
_RETRY_DECORATORS = frozenset({"retry", "on_exception"})


def _retry_decorator(src: SourceInfo, func: FunctionNode | None) -> str | None:
    """The retry decorator of ``func`` as written (``retry``), when one of the retry
    packages defines it (by the file's imports): it retries only what the function
    raises."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    for decorator in func.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = src.qualname(target)
        if name is None or "." not in name:
            continue
        package, last = name.split(".", 1)[0], name.rsplit(".", 1)[1]
        if package in _RETRY_PACKAGES and last in _RETRY_DECORATORS:
            return short(src, target)
    return None


def _retry_defeated(h: _Handler) -> Finding | None:
    """A broad catch in a function a retry decorator wraps (SWE-bench's ``@retry(...)``
    ``call_anthropic``) whose handler returns: the decorator retries only what the
    function raises, so every error, a rate limit too, now returns at once and the
    retry never fires."""
    if h.src.is_test or not h.node.body or not isinstance(h.node.body[-1], ast.Return):
        return None
    decorator = _retry_decorator(h.src, h.function)
    if decorator is None or h.raises_later:
        return None
    return h.report(
        BLOCK,
        f"`{h.clause}:` returns from `@{decorator}`-decorated `{h.names[-1]}`: the "
        "decorator retries only what the function raises, so no error is ever retried; "
        "let it raise or catch the specific types",
    )


def _logged_on_fail_fast(h: _Handler) -> Finding | None:
    """Logged, and the run goes on half set up ("Device setup failed") on a fail-fast
    path or in connector setup (the function itself, not a callback defined inside one:
    it runs later, when the connection is made)."""
    connecting = (
        None if h.fail_fast or h.src.is_test else names_match(h.names[-1:], paths.CONNECTOR_SETUP)
    )
    path = h.fail_fast or connecting
    if (
        not path
        or h.best_effort
        or h.complete
        or h.cleanup
        or not _logs_and_carries_on(h.node.body)
        or _answers_false(h.function, h.node.body)
        or _answers_status(h.src, h.function, h.node.body)
        or h.raises_later
    ):
        return None
    return h.report(
        BLOCK,
        f"`{h.clause}:` on fail-fast path `{path}` logs every error "
        "and carries on half set up; let it raise or catch the specific types",
    )


def _expected_failure_answer(h: _Handler) -> Finding | None:
    """The expected failure is already caught by name (``except openai.NotFoundError:``)
    and the broad catch after it gives every other error (a bug, bad credentials, a wrong
    URL) the same answer: the caller cannot tell "not there" from "broken"."""
    if h.src.is_test or h.best_effort or h.complete:
        return None
    same = _same_answer_as_expected(h.src, h.function, h.tried, h.node)
    if same is None or h.raises_later or _answer_is_failure(h.src, h.function, h.node):
        return None
    return h.report(
        BLOCK,
        f"`{h.clause}:` after `except {same}:` gives every other error the expected "
        "failure's answer: a bug or a broken set-up reads as the expected case; "
        "let it raise or catch the specific types",
    )


def _route_fallback(h: _Handler) -> Finding | None:
    """In an HTTP route itself, where the response is what the route returns, a handler
    that neither returns nor raises goes on with a fallback the client never hears of. Not
    in a done-callback or generator defined inside one (it runs later), nor in a named
    handler that replies through a queue (the error reaches the peer)."""
    route = paths.route_handler(h.function)
    if (
        not route
        or h.best_effort
        or h.complete
        or h.by_design
        or not _falls_through_logged(h.node.body)
        or h.raises_later
    ):
        return None
    return h.report(
        BLOCK,
        f"`{h.clause}:` in request handling `{route}` logs every error and "
        "carries on with a fallback; let it fail the request or catch the specific types",
    )


def _request_path_only_logs(h: _Handler) -> Finding | None:
    """A request-path function (``_pd_process_generate``) whose handler only logs and then
    ends it: whoever waits on its result (a client, a stream's consumer) never hears."""
    function = h.function
    if (
        not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        or h.src.is_test
        or h.observes
        or not names_match([function.name], h.src.config.request_path)
    ):
        return None
    if (
        h.best_effort
        # An attempt by its own name (aibrix's ``_complete_request_and_maybe_persist``):
        # what it may skip is not the request's answer.
        or names_match([function.name], paths.ATTEMPTS)
        # Removing a cache, logged (fish-speech's ``clean_infer_cache``): the request's
        # answer does not wait on it. The catch keeps its ⚠.
        or _removes_files(h.tried, logged=True)
        or h.complete
        or not h.ends
        or h.by_design
        or not _only_logs(h.node.body)
        or _answers_false(function, h.node.body)
        or _commented(h.src, h.node)
    ):
        return None
    return h.report(
        BLOCK,
        f"`{h.clause}:` in request path `{function.name}` only logs and ends the request: "
        "whoever waits on its result never hears of the failure; let it raise or "
        "catch the specific types",
    )


def _route_helper_fallback(h: _Handler) -> Finding | None:
    """One call below a route: a private helper only HTTP routes call, whose catch passes
    (or logs) on to the fallback after the ``try`` (a prompt formatted by hand)."""
    body = h.node.body
    if (
        h.fail_fast
        or h.handling
        or h.best_effort
        or h.complete
        or h.src.is_test
        or not (_passes_on(body) or _falls_through_logged(body))
        or h.ends
        or h.raises_later
    ):
        return None
    routed = _route_helper_of(h.src, h.names)
    if routed is None:
        return None
    return h.report(
        BLOCK,
        f"`{h.clause}:` in `{routed[0]}` (called only from request handling "
        f"`{routed[1]}`) goes on with a fallback the client never hears of; "
        "let it fail the request or catch the specific types",
    )


def _set_up_gives_up(h: _Handler) -> Finding | None:
    """A give-up (silent, a made-up answer, a probe's quiet negative, or logged then
    None/empty) in a function set-up reaches: every caller in the work tree is fail-fast
    code within a few calls (``get_gpu_compute_mode`` <- ``set_sm_limit`` <- ``_init_env``),
    or the module's own set-up calls it (``self.install_packages(...)`` in ``__init__``).
    A probe's answer counts only where set-up calls it directly: there it decides how the
    object is built."""
    src, body = h.src, h.node.body
    if h.fail_fast or h.handling or h.best_effort or h.complete or h.imports or src.is_test:
        return None
    silent = h.silent
    # A made-up answer returned with no word (``return {"type": "string"}``).
    guess = not silent and _silent_guess(src, body)
    probe = not silent and not guess and _quiet_probe(src, h.node)
    if not (silent or guess or probe or _logs_then_returns_none(body)):
        return None
    if (silent and _helper_of(src, h.names) is not None) or h.raises_later:
        return None
    if _commented(src, h.node):
        # The handler says what the failure means (Triton's "LoRA is enabled but its list
        # is not provided or malformed?"): a choice on the record, as on the request path.
        return None
    what = "silently swallows every error" if silent else ""
    if guess:
        what = f"silently returns the guess {_returned(body)}"
    what = what or f"logs and returns {_returned(body)}"
    chain = None if probe else _reached_from_fail_fast(src, h.function)
    called = "reached only"
    if (
        chain is None
        and not _declared_none(h.function, body)
        and not _doc_says_best_effort(h.function)
    ):
        chain = _reached_in_module(src, h.function)
        called = "called"
    if chain is None or (probe and len(chain) > 1):
        return None
    if probe:
        what = (
            "silently answers False for every error"
            if not _passes_on(body)
            else "silently falls through to its fallback on every error"
        )
    via = "".join(f" via `{step}`" for step in chain[1:])
    origin = "at import" if chain[0] == paths.IMPORT_TIME else f"from fail-fast `{chain[0]}`"
    return h.report(
        BLOCK,
        f"`{h.clause}:` in `{h.names[-1]}` ({called} {origin}{via}) "
        f"{what}: the set-up carries on without it; let it raise or catch the "
        "specific types",
    )


def _load_logged_guess(h: _Handler) -> Finding | None:
    """A load that is set-up, logged, then on with a guess (``judge = None`` at import
    time; ``return True``, "assuming a chat template", in a helper reached only from
    fail-fast code): the run goes on half loaded."""
    if (
        h.loaded is None
        or h.attempt
        or not _logs_and_guesses(h.node.body, h.function is not None)
        or h.raises_later
    ):
        return None
    where = (
        "at import time"
        if h.function is None
        else "".join(
            f"{' via' if i else ' in set-up from'} `{step}`"
            for i, step in enumerate(_reached_from_fail_fast(h.src, h.function) or ())
        )
    )
    if not where:
        return None
    return h.report(
        BLOCK,
        f"`{h.clause}:` around loading (`{h.loaded}`) {where.strip()} logs every error "
        "and carries on with a guessed value; let it raise or catch the specific types",
    )


def _load_given_up(h: _Handler) -> Finding | None:
    """Loading a model, config, weights or checkpoint puts the catch on the weight-loading
    path whatever the function is called; a handler that gives up there (nothing, None,
    False, a default), silently or in a DEBUG line nobody reads, hides the failed load.
    Not a chain of candidates (``continue``), nor a ``return None`` the function
    declares."""
    body = h.node.body
    if (
        h.loaded is None
        or h.attempt
        or not _gives_up_quietly(h.src, body)
        or _continues(body)
        or (_passes_on(body) and h.raises_later)
        or _declared_none(h.function, body)
    ):
        return None
    how = (
        "only logs at DEBUG level and gives up"
        if any(paths.debug_log(stmt) for stmt in body)
        else "silently swallows every error"
    )
    return h.report(
        BLOCK,
        f"`{h.clause}:` around loading (`{h.loaded}`) {how}: a failed load carries on "
        "as if there were nothing to load; let it raise or catch the specific types",
    )


def _model_load_returns_none(h: _Handler) -> Finding | None:
    """A model, config or weights load that fails, logged, and the function hands its
    caller nothing (``return None``, ``[]``): a log line does not make the load optional
    ("fallback to no model")."""
    if h.loaded is None:
        return None
    model_load = paths.loads_in(h.tried, h.src.qualname, paths.MODEL_LOADS)
    if (
        model_load is None
        or h.attempt
        or paths.optimisation_name(h.names[-1] if h.names else "")
        or not _logs_then_returns_none(h.node.body)
        or not _returns_loaded(h.tried, h.src.qualname)
        or h.raises_later
    ):
        return None
    return h.report(
        BLOCK,
        f"`{h.clause}:` around loading (`{model_load}`) logs every error and returns "
        f"{_returned(h.node.body)}: a failed load carries on as if there were "
        "nothing to load; let it raise or catch the specific types",
    )


def _patch_import_logged(h: _Handler) -> Finding | None:
    """A patch function's import that fails for any reason (not only a missing module)
    skips the patch; a log line of it does not make the patch optional. An error kept and
    handed on (``_IMPORT_ERROR = e``) is raised when the patch is needed."""
    body = h.node.body
    if (
        not h.patch
        or not paths.skips_patch(h.tried, body)
        or not _logs_then_gives_up(body)
        or (h.node.name and _forwards(body, h.node.name))
        or h.raises_later
        or _answer_is_failure(h.src, h.function, h.node)
    ):
        return None
    return h.report(
        BLOCK,
        f"`{h.clause}:` around an import in patch function `{h.patch}` logs and skips the "
        "patch on any error, not only a missing module; catch ImportError",
    )


def _error_used(h: _Handler) -> Finding | _Stop | None:
    """``as e`` and e is used: logged or wrapped, not silent, but still a broad catch
    (⚠); none when the exception object itself is handed on to the caller or logged at a
    best-effort boundary (the pattern's own fix there)."""
    if not h.uses_error:
        return None
    if (h.best_effort and not h.reports_caught) or (
        h.node.name and _forwards(h.node.body, h.node.name)
    ):
        return STOP
    return _error_used_warning(h)


def _error_used_warning(h: _Handler) -> Finding:
    """The ⚠ of a handler that uses the exception it binds."""
    request = None if h.src.is_test else names_match(h.names, h.src.config.request_path)
    where = f" in request path `{request}`" if request else ""
    logged = any(_is_log_call(stmt) for stmt in h.node.body)
    what = "logs every error type and carries on" if logged else "catches every error type"
    return h.report(WARN, f"`{h.clause}:` {what}{where}; catch the specific types")


def _teardown(h: _Handler) -> Finding | None:
    """A ``try`` that only stops or closes something (Gym's ``await
    original_sandbox.stop()`` in the ``verify`` route) or joins a task that is ending
    (chainlit's ``await task`` in ``connect_mcp``): a teardown, best effort by
    nature, so never ✗ on the path it sits on; the broad catch keeps its ⚠, logged or
    not (the earlier sets labelled such catches ⚠: open-r1's ``sandbox.kill()`` in a
    ``finally:``, NeMo-RL's policy shutdown in its tests)."""
    if h.best_effort or not _tears_down(h.src, h.tried, h.function):
        return None  # in a ``close``, a ``cleanup``: its own best-effort boundary
    return _error_used_warning(h) if h.uses_error else _broad_catch(h)


def _widened_silently(h: _Handler) -> Finding | None:
    """A specific catch the change widened to a broad one that gives up silently: every
    error, a bug included, now reads as the one it expected. Not a probe's ``return
    False`` (``is_available``), nor a handler whose comment says why."""
    if h.src.is_test or h.best_effort:
        return None
    widened = _widened_from(h.src, h.node)
    if (
        widened is None
        or not _gives_up_quietly(h.src, h.node.body)
        or _commented(h.src, h.node)
        or _outcome(h.node.body) == "False"
        or h.raises_later
    ):
        return None
    return h.report(
        BLOCK,
        f"`{h.clause}:` replaces `except {widened}:` and gives up silently: every "
        f"error, a bug included, now reads as the {widened} it expected; let it "
        "raise or catch the specific types",
    )


def _swallowed(body: list[ast.stmt], src: SourceInfo) -> bool:
    """Whether the handler swallows the error: ``pass``/``continue``/``return None`` or a
    default assigned with nothing said."""
    return _swallows(body) or paths.assigns_default(body, src.has_comment)


def _patch_import_skipped(h: _Handler) -> Finding | None:
    """A patch function's import swallowed silently: the patch is skipped on any error,
    not only a missing module."""
    if (
        not h.patch
        or not _swallowed(h.node.body, h.src)
        or not paths.skips_patch(h.tried, h.node.body)
        or h.raises_later
    ):
        return None
    return h.report(
        BLOCK,
        f"`{h.clause}:` around an import in patch function `{h.patch}` skips the patch "
        "silently on any error, not only a missing module; catch ImportError",
    )


# Exceptions a handler re-raises so as not to swallow a cancellation or an exit: no
# check's verdict.
_CONTROL_FLOW = frozenset(
    {
        "CancelledError",
        "KeyboardInterrupt",
        "SystemExit",
        "GeneratorExit",
        "StopIteration",
        "StopAsyncIteration",
        "TimeoutError",
    }
)


def _fails_open(h: _Handler) -> Finding | None:
    """A check that fails open: the ``try`` raises its verdict itself (``raise
    ValueError("... protected project")``), an earlier handler lets exactly that type
    through (``except ValueError: raise``), and this one swallows everything else, so a
    failure to reach the verdict (the registry down) lets the guarded operation go on
    (feast's ``teardown`` and ``delete_project`` of a protected project). Not a
    cancellation or an exit let through (``except CancelledError: raise``), a ``try`` that
    returns its answer (its catch falls back to another way: deepeval's prompt degrading
    to a numbered one when the terminal fails), or a catch a comment explains."""
    tried = h.tried
    if tried is None or h.src.is_test or not _swallowed(h.node.body, h.src):
        return None
    handlers: list[ast.ExceptHandler] = getattr(tried, "handlers", [])
    tried_body: list[ast.stmt] = getattr(tried, "body", [])
    earlier = handlers[: handlers.index(h.node)] if h.node in handlers else []
    let_through = {
        last_name(t)
        for handler in earlier
        if handler.type is not None
        and len(handler.body) == 1
        and isinstance(handler.body[0], ast.Raise)
        and handler.body[0].exc is None
        for t in (handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type])
    } - _CONTROL_FLOW
    if not let_through:
        return None
    nodes = [node for stmt in tried_body for node in ast.walk(stmt)]
    if any(isinstance(node, ast.Return) for node in nodes):
        return None  # the ``try`` answers (``return list(answer)``): its catch is a fallback
    verdicts = sorted(
        {
            last_name(node.exc.func if isinstance(node.exc, ast.Call) else node.exc)
            for node in nodes
            if isinstance(node, ast.Raise) and node.exc is not None
        }
        & let_through
    )
    if not verdicts or _commented(h.src, h.node):
        return None
    return h.report(
        BLOCK,
        f"`{h.clause}:` lets the check's own `{verdicts[0]}` through and swallows every "
        "other error: a failure to run the check lets what it guards go on; let it raise "
        "or catch the specific types",
    )


def _swallowed_on_fail_fast(h: _Handler) -> Finding | None:
    """The pattern's own ✗: ``pass``/``continue``/``return None`` (or a default assigned
    with no word) on a fail-fast path. Not a complete fallback (an optimisation, a failure
    the code calls best-effort, working defaults set before the ``try``)."""
    if not _swallowed(h.node.body, h.src) or h.best_effort or h.complete or h.cleanup:
        return None
    on = h.swallow_path
    if on is None or h.raises_later:
        return None
    return h.report(
        BLOCK, f"`{h.clause}:` on fail-fast path `{on[0]}`{on[1]} silently swallows every error"
    )


def _bare_on_fail_fast(h: _Handler) -> Finding | None:
    """A bare ``except:`` on a fail-fast path by name that carries on with a fallback
    (another load, a made-up default: ultravox's ``UltravoxPipeline.__init__`` loading a
    second tokenizer, torchchat's server ``__init__`` substituting a sequence length): the
    pattern's ✗ names the bare form on such a path whatever its body, and it catches
    KeyboardInterrupt and SystemExit too. Not a declared-harmless or optimisation
    fallback, nor a best-effort function."""
    if h.caught or not h.fail_fast or h.best_effort or h.complete or h.raises_later:
        return None
    return h.report(
        BLOCK,
        f"bare `except:` on fail-fast path `{h.fail_fast}` catches everything, "
        "KeyboardInterrupt included, and carries on with a fallback; catch the specific types",
    )


def _broad_catch(h: _Handler) -> Finding:
    """Any other new broad catch: the pattern's ⚠."""
    what = (
        "catches everything, even KeyboardInterrupt"
        if not h.caught
        else "silently swallows every error type"
        if _swallows(h.node.body)
        else "catches every error type"
    )
    return h.report(WARN, f"`{h.clause}:` {what}; catch the specific types")


# The pattern's readings of one handler, in order: the first that answers decides.
READINGS: tuple[Reading, ...] = (
    _teardown,
    _import_time_bare,
    _retry_defeated,
    _logged_on_fail_fast,
    _expected_failure_answer,
    _route_fallback,
    _request_path_only_logs,
    _route_helper_fallback,
    _set_up_gives_up,
    _load_logged_guess,
    _load_given_up,
    _model_load_returns_none,
    _patch_import_logged,
    _error_used,
    _widened_silently,
    _patch_import_skipped,
    _fails_open,
    _swallowed_on_fail_fast,
    _bare_on_fail_fast,
    _broad_catch,
)


def broad_except(src: SourceInfo) -> Iterator[Finding]:
    """New broad ``except`` clauses that do not re-raise, with the pattern's severities."""
    for node, ctx in src.of_type(ast.ExceptHandler):
        assert isinstance(node, ast.ExceptHandler)
        last = node.type.end_lineno if node.type is not None else node.lineno
        if not src.overlaps(node.lineno, last or node.lineno):
            continue
        caught = _broad_name(src, node)
        if (
            caught is None
            or _raises(node.body)
            or _exits_after(src, ctx.innermost, node)
            or _collected_failure(src, ctx.innermost, node)
        ):
            continue
        handler = _Handler(src, node, ctx, caught)
        for reading in READINGS:
            answer = reading(handler)
            if isinstance(answer, Finding):
                yield answer
            if answer is not None:
                break


def check(source: SourceFile, config: Config) -> list[Finding]:
    """New broad ``except`` clauses on the lines the sweep looks at."""
    return list(broad_except(sweep_info(source, config)))


RULE = register(
    sweep_rule(
        "broad-except",
        "a new bare/`Exception`/`BaseException` catch; ✗ when it swallows on a fail-fast path",
        check,
        DOC,
        prefilter=lambda data, config: b"except" in data,
    )
)
