# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``hot-copy`` (sweep, added lines): a tensor ``.clone()`` or ``deepcopy`` in per-step or
per-request code.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from policytool.config import Config
from policytool.core.globs import match_any
from policytool.engine.findings import Finding
from policytool.engine.registry import register
from policytool.engine.source import SourceFile
from policytool.rules import _fail_fast as paths
from policytool.rules import _fakes as fakes
from policytool.rules._pyast import last_name, parameter_defaults
from policytool.rules._pysource import (
    COMPREHENSIONS,
    SourceInfo,
    names_match,
    never_true,
    step_loop_head,
    sweep_info,
    training_name,
    unparse,
    unquoted,
)
from policytool.rules._sweep import BLOCK, CONFIG_DOC, WARN, finding, short, sweep_rule

DOC = f"""\
## What it checks
A new `.clone()` inside any `for`/`while` loop (a comprehension only when it runs over
steps), a new `copy.deepcopy(...)` inside a step loop (over steps, timesteps, sigmas; a
deepcopy per item of a plain loop, the jobs a launcher submits or the task configs a
registry builds, is set-up work, unless it copies a scheduler or sampling config), or
either inside a per-step or per-request function
(`request-path` and `hot-path` names; vLLM's `execute_model`, `_preprocess` by
default; a name that says it generates a file artifact, `generate_patch_file`,
`_generate_run_script_serve`, `gen_launch_cmd`, is no model's `generate`), in production
code. `dst.copy_(src)` into a pre-allocated
buffer is the recommended fix, not a finding; functions that run once (`__init__`,
weight loading and post-load hooks such as `process_weights_after_loading`,
`profile_run`, benchmarks, a kernel's `correctness_check` against its reference, a
finite-difference gradient check (`jacobian_fd`, `gradcheck`), an environment checker
(`check_env`, `check_step_determinism`), saving
a model or checkpoint: `save_pretrained`, `save_checkpoint`, `save_hf_adapter`) are not
hot paths, nor is module-level code (it runs once, at import, unless it loops over
steps), nor are loops that run once: over the model's structure (`model.modules()`),
over a checkpoint (`state_dict`, `checkpoint`), or in a function that takes one (a
`state_dict` / `weights` parameter, or one named `*_state_dict`, `*_checkpoint`,
`*_ckpt`: a conversion script's `convert_model(hf_state_dict, ...)`), or over a name the
function loads a checkpoint into (`tensors = load_state_dict_in_safetensors(path)`, then
`for k, v in tensors.items()`). Nor is the branch of a lazy set-up, which runs on the
first call only (`if self.compiled_fn is None:` ... `self.compiled_fn = compile(...)`).
Nor is a function whose every caller in the work tree is such set-up code within three
calls (`model_setup` -> `self.get_dtensor(...)` -> its nested `update_sharded_sd`, a
clone per parameter while the checkpoint loads), read as broad-except reads set-up
helpers; not one named for the request or hot path or called through one (a framework
calls `forward` and `generate` where no grep of the tree sees it). Nor is a
`.clone(...)` given a positional argument or a keyword that torch's
`Tensor.clone` (`memory_format`) and tensordict's (`recurse`) do not take: another
object's method (graphiti's `driver.clone(database=gid)`, a driver handle sharing its
connection). Files under `benchmarks/` and `exporters/` (an export runs once per model) are not
swept by this rule. ⚠ for each such copy. A `.clone()` whose
receiver spans lines (`model(\n...\n)[0].clone()`) is reported at its `clone` line and
is new only when that line is added (rewriting the receiver's first line is no new copy).

✗ for a `.clone()` inside a step loop (a `for`/`while`/comprehension over steps,
timesteps or sigmas, or any loop of a per-step function but one over a mapping's
fields, `for key, value in sample.items()`, which copies each field of one item once;
not a training loop, `for
global_step in range(max_steps)`, over epochs, or a gradient-accumulation loop over
micro-batches, `for _ in range(args.gradient_accumulation_steps)`: one copy per
optimisation step is no AR or diffusion step, ⚠ as any loop's; so are the copies of a
function such a loop calls, a loop of a function named for training, `train_step`, and
the loops of an optimizer's `step` over `self.param_groups`: per parameter, not per step,
and the loops of an encoder's methods, `CLIPEncoder.forward`, not an `EncoderDecoder`'s:
an encoder runs once per prompt or image, its loop goes over the layers of one pass)
with no comment on its line or on a comment-only line just above saying why (a trailing
comment of the statement above speaks of that statement, unless that statement is a copy
too: `h = h.contiguous().clone()  # break aliasing` explains the `r = r.contiguous().clone()`
under it), unless it copies a loss or a
metric (a scalar, ⚠), or what its name says is no latent or activations (a mask, ids,
positions, frequencies, weights: `attn_mask.clone()` edited per step; a name ending in a
token, `next_token`, the sampled token ids; an item's name is its collection's,
`new_tokens[-i]`: ⚠), or the loop ends right after it (a `return` or `raise` follows it
in its block, or a `break` of the function's outermost loop: the EOS branch's `yield
cur_token.clone(); break` copies once, ⚠); or an
uncommented `.clone()` of the tensor a `forward` was given (`residual = x.clone()`: its
activations, copied on every pass; not an input annotated as another type, nor one named
`batch` or `data`: pytorch_geometric's `GPSE.forward(self, batch)` copies a graph
`Batch`, ⚠); or an uncommented `.clone()` of a whole tensor a name holds
(not a slice, an item of a collection, a mask, ids, frequencies, weights or a config) in
a function of the same module that a step loop (over steps, timesteps, sigmas or the
tokens of a decoding loop) calls: `generate`'s `for _ in range(max_new_tokens)` calling
`generate_next_token` runs it once per step (a function called only outside such a loop
is not per step); or a `copy.deepcopy` of a scheduler or sampling config per
request: in a request-path function, handed to a request call
(`llm.generate(ids, deepcopy(params))`), of a request's own config
(`deepcopy(req.sampling_params)`), or of the config an `async def` was given (or its
sync twin: `model_call` beside `async def amodel_call` in one class serves the same
requests; or of a function given the request's content with it, `messages`, a
`prompt`, a `query` or `input_ids`: qwen-agent's `_chat_no_stream(self, messages,
generate_cfg)` copies `generate_cfg` on every chat call), or in a function the
module's request-path code calls within three calls
(`generate` -> `self.preprocess_data(query)`, whose loop copies the sampling config per
query; `_generate` -> `_get_generation_kwargs`): it copies per request whoever else
calls it, as broad-except reads a function set-up code calls. A
generation config (`GenerationConfig`, `generation_config`, `gen_cfg`) and generation
kwargs (`gen_kwargs`) are a sampling config; what the copied object is comes from the
type the file gives it where it does (a parameter's annotation,
`self.defaults = GenerationConfig(...)`), else from its name. A deepcopy with a comment
on its own line saying why (`kwargs = copy.deepcopy(gen_kwargs)  # keys are popped
below`) is ⚠.

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
{CONFIG_DOC}"""


_DEEPCOPY = frozenset({"copy.deepcopy", "deepcopy"})
_SCHEDULER_RE = re.compile(r"sched|sampling", re.IGNORECASE)
# A generation config is a sampling config: ``GenerationConfig``, ``generation_config``,
# ``gen_cfg``, ``generate_params`` (a word of the first set, then one of the second).
_WORD_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_GENERATION_WORDS = frozenset({"gen", "generation", "generate"})
# ``gen_kwargs`` / ``generation_kwargs``: the keyword arguments of a ``generate`` call are
# its sampling settings.
_CONFIG_WORDS = frozenset({"cfg", "config", "conf", "params", "kwargs"})
# Types that say nothing of what a value is for: read the name instead.
_OPAQUE_TYPES = frozenset(
    {
        "dict",
        "Dict",
        "Mapping",
        "MutableMapping",
        "Any",
        "object",
        "Optional",
        "Union",
        "None",
        "typing",
        "t",
        "list",
        "List",
        "tuple",
        "Tuple",
    }
)
# What a request call takes besides its prompt: ``generate(ids, deepcopy(effective_params))``.
_PARAMS_RE = re.compile(r"sched|sampling|(?:^|[._])params$", re.IGNORECASE)
# A request object: ``req.sampling_params``, ``request.params``, ``new_req.sampling``.
_REQUEST_ROOT_RE = re.compile(r"^(?:req|request|[a-z_]*_(?:req|request))$", re.IGNORECASE)
# Benchmarks measure the copies; they are not a per-step or per-request path.
BENCHMARK_PATHS = ("**/benchmarks/**", "**/benchmark_*.py")
# Exporters run once per exported model (optimum's ``exporters/``: the dummy inputs an
# ONNX or OpenVINO export traces with), not per step or per request.
EXPORT_PATHS = ("**/exporters/**",)
# A loop over the model's structure or a checkpoint runs once, at load or conversion:
# ``for m in model.modules()``, ``for k in state_dict``, ``for name, w in weights``.
_STRUCTURE_RE = re.compile(
    r"\.(?:named_)?(?:modules|children)\(|state_dict|checkpoint|ckpt|^weights$",
    re.IGNORECASE,
)
# Parameters of a function that converts or streams a checkpoint (run once): these
# names, or (but ``weights``: ``attn_weights`` is an activation) a name ending in
# ``_<name>`` (``hf_state_dict`` of a conversion script).
_LOAD_PARAMS = frozenset({"state_dict", "checkpoint", "ckpt", "weights"})
_LOAD_SUFFIXES = ("_state_dict", "_checkpoint", "_ckpt")

# Functions that run once (set-up, weight loading, profiling, warm-up): never a hot path.
COLD = (
    "__init__",
    "__post_init__",
    "*load_weight*",
    "*load_model*",
    # post-load hooks: vLLM's ``process_weights_after_loading`` runs once per model
    "*after_load*",
    "*post_load*",
    "profile_run",
    "*profile*",
    "*warmup*",
    "*warm_up*",
    "*dummy*",
    "*capture*",
    "*init_*",
    "*setup*",
    # saving a model or a checkpoint: once per save, not per step (not every ``*save*``:
    # a KV connector's ``save_kv_layer`` runs for every layer of every forward)
    "*save_pretrained*",
    "*save_checkpoint*",
    "*save_model*",
    "*save_hf*",
    "*save_*adapter*",
    "*save_lora*",
    "*benchmark*",
    "*test*",
    # a kernel's check against its reference implementation, run once per shape
    "*correctness*",
    # an environment checker: it steps a copy twice to compare (Gymnasium's
    # ``check_env`` -> ``check_step_determinism`` snapshots the RNG with a deepcopy)
    "*determinism*",
    "check_env*",
    # a finite-difference gradient check against autodiff (warp's ``jacobian_fd``: a
    # few buffers per input/output pair of one verification call)
    "*gradcheck*",
    "*grad_check*",
    "*check_grad*",
    "*finite_diff*",
    "*_fd",
)


# The keywords of torch's ``Tensor.clone`` (and tensordict's ``TensorDict.clone``): a
# ``.clone`` given anything else is another object's method (a database driver's handle,
# ``driver.clone(database=gid)``), no copy of tensors.
_CLONE_KEYWORDS = frozenset({"memory_format", "recurse"})


def _copy_kind(src: SourceInfo, call: ast.Call) -> str | None:
    """``clone`` / ``deepcopy`` for the copy calls the pattern looks at.

    ``dst.copy_(src)`` into a pre-allocated buffer is the recommended fix, not a copy.
    """
    if isinstance(call.func, ast.Attribute) and call.func.attr == "clone":
        if call.args or any(k.arg not in _CLONE_KEYWORDS for k in call.keywords):
            return None  # no tensor's clone: graphiti's ``driver.clone(database=gid)``
        return "clone"
    if src.qualname(call.func) in _DEEPCOPY:
        return "deepcopy"
    return None


def _clone_site(call: ast.Call) -> ast.AST:
    """Where a ``.clone()`` call's copy is: the ``clone`` name, when the receiver spans
    lines before it (``model(\n...\n)[0].clone()``). The finding points there, and the
    copy is new only when that line is added: a change that rewrites the receiver's first
    line leaves an old copy old."""
    func = call.func
    end_line, end_col = getattr(func, "end_lineno", None), getattr(func, "end_col_offset", None)
    if not isinstance(func, ast.Attribute) or end_line is None or end_col is None:
        return call
    if end_line == call.lineno:
        return call
    site = ast.Name(id=func.attr, ctx=ast.Load())
    site.lineno, site.col_offset = end_line, max(end_col - len(func.attr), 0)
    site.end_lineno, site.end_col_offset = call.end_lineno, call.end_col_offset
    return site


def _commented(src: SourceInfo, node: ast.AST) -> bool:
    """Whether a comment sits on the copy's own lines (``kwargs = copy.deepcopy(gen_kwargs)
    # edge case for repeats > 1``): the pattern's "keep it and add a one-line comment saying
    why". A comment-only line above a request call speaks of the call (``# Generate one
    continuation``), so only the copy's lines count for a deepcopy."""
    first = getattr(node, "lineno", 1)
    last = getattr(node, "end_lineno", None) or first
    return any(src.has_comment(line) for line in range(first, last + 1))


def _comment_only(src: SourceInfo, number: int) -> bool:
    """Whether line ``number`` holds nothing but a comment."""
    return (
        1 <= number <= len(src.byte_lines)
        and src.byte_lines[number - 1].lstrip().startswith(b"#")
        and src.has_comment(number)
    )


# A line that makes a copy, and how many such lines in a row one comment may explain.
_COPY_LINE = re.compile(rb"\.clone\(|deepcopy\(")
_COPY_RUN = 8


def _why_comment(src: SourceInfo, node: ast.AST) -> bool:
    """A comment on the call's lines, or on the comment-only line just above it (above
    the statement's first line when the copy sits on its continuation line): the
    pattern's "aware" case. A trailing comment on the statement above speaks of that
    statement (``x = x - v * dt  # velocity ...``), not of the copy, unless that
    statement is a copy too: one comment explains a run of copies."""
    first = getattr(node, "lineno", 1)
    last = getattr(node, "end_lineno", None) or first
    if any(src.has_comment(line) for line in range(first, last + 1)):
        return True
    if _comment_only(src, first - 1):
        return True
    # the copy on a continuation line of a statement whose comment sits above it
    opened = 2 <= first <= len(src.byte_lines) + 1 and src.byte_lines[first - 2].rstrip().endswith(
        (b"(", b"[", b"{", b",", b"\\")
    )
    if opened and _comment_only(src, first - 2):
        return True
    # The next copy of a run under one comment (``h = h.contiguous().clone()  # break
    # aliasing`` then ``r = r.contiguous().clone()``): the comment speaks of the run.
    line = first - 1
    for _ in range(_COPY_RUN):
        if not 1 <= line <= len(src.byte_lines) or not _COPY_LINE.search(src.byte_lines[line - 1]):
            return False
        if src.has_comment(line) or _comment_only(src, line - 1):
            return True
        line -= 1
    return False


@dataclass(frozen=True)
class _Loop:
    """A ``for`` of a function: its lines, the name it binds, whether it walks the model's
    structure or a checkpoint."""

    first: int
    last: int
    target: str
    structure: bool
    node: ast.For | ast.AsyncFor


def _loops(src: SourceInfo, function: ast.AST) -> list[_Loop]:
    """The ``for`` loops of ``function``, indexed once per function (every copy in a
    function with thousands of copies asks)."""
    return src.per_node("hot-copy:loops", function, lambda: _index_loops(function))


def _index_loops(function: ast.AST) -> list[_Loop]:
    """:func:`_loops`, built."""
    loaded = _loaded_checkpoints(function) if isinstance(function, _FuncDef) else set()
    return [
        _Loop(
            loop.lineno,
            loop.end_lineno or loop.lineno,
            loop.target.id if isinstance(loop.target, ast.Name) else "",
            _STRUCTURE_RE.search(unparse(loop.iter, 300)) is not None
            or _iterated_name(loop.iter) in loaded,
            loop,
        )
        for loop in ast.walk(function)
        if isinstance(loop, (ast.For, ast.AsyncFor))
    ]


def _loaded_checkpoints(function: _FuncDef) -> set[str]:
    """Local names the function binds to a checkpoint it loads: ``tensors =
    load_state_dict_in_safetensors(path)`` (a call whose name says state dict, checkpoint
    or ckpt), whatever else it binds them to (``tensors = input_lora``, the same dict
    passed in)."""
    return {
        name
        for name, bindings in _bindings(function).items()
        if any(
            isinstance(b, ast.Assign | ast.AnnAssign)
            and isinstance(b.value, ast.Call)
            and _STRUCTURE_RE.search(unparse(b.value.func, 200)) is not None
            for b in bindings
        )
    }


def _iterated_name(expr: ast.expr) -> str | None:
    """The local name a loop walks: ``tensors`` of ``tensors``, ``tensors.items()``,
    ``.keys()``, ``.values()``."""
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr in ("items", "keys", "values")
        and not expr.args
    ):
        expr = expr.func.value
    return expr.id if isinstance(expr, ast.Name) else None


def _optimizer_step(src: SourceInfo, function: ast.AST | None) -> bool:
    """Whether the function walks an optimizer's ``self.param_groups`` (timm's SGDP
    ``step``): one optimisation step, whose loops go over the parameters, not the steps,
    like a ``train_step``'s."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False

    def walks_param_groups() -> bool:
        return any(
            isinstance(node, ast.Attribute)
            and node.attr == "param_groups"
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
            for node in ast.walk(function)
        )

    return src.per_node("optimizer_step", function, walks_param_groups)


def _encoder_method(src: SourceInfo, function: ast.AST | None) -> bool:
    """Whether the function is a method of an encoder class (ComfyUI's ``CLIPEncoder``, a
    ``T5EncoderModel``, a VAE ``Encoder``; not an ``EncoderDecoder``): an encoder runs once
    per input (a prompt, an image), not once per AR or diffusion step, so the loop of its
    ``forward`` goes over layers of one pass."""
    owner = _owners(src.tree).get(id(function))
    return owner is not None and "Encoder" in owner.name and "Decoder" not in owner.name


def _cold_loops(src: SourceInfo, node: ast.Call, function: ast.AST | None) -> bool:
    """Whether the loops around ``node`` run once: its function takes a checkpoint
    (``state_dict``, vLLM's ``weights`` stream), or an enclosing loop walks the model's
    structure or a checkpoint (``model.modules()``, ``state_dict.items()``)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    if _takes_checkpoint(function):
        return True
    line = node.lineno
    return any(loop.structure and loop.first < line <= loop.last for loop in _loops(src, function))


_FuncDef = ast.FunctionDef | ast.AsyncFunctionDef


def _takes_checkpoint(function: _FuncDef) -> bool:
    """Whether ``function`` takes a checkpoint to convert or stream (:data:`_LOAD_PARAMS`,
    :data:`_LOAD_SUFFIXES`): its loops run once per checkpoint, not per step."""
    arguments = function.args
    return any(
        a.arg in _LOAD_PARAMS or a.arg.endswith(_LOAD_SUFFIXES)
        for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
    )


# An autoregressive decoding loop: ``for _ in range(max_generated_tokens - 1)``,
# ``while n < max_new_tokens``.
_DECODE_RE = re.compile(r"(?:new|generated|gen|max|decode|decoding|output)_tokens", re.IGNORECASE)
# Words of a cloned name that say it holds no latent or activations: masks, ids and
# positions, rotary frequencies, weights, configs and sampling params (which have a
# ``clone()`` of their own).
_NOT_ACTIVATION = frozenset(
    {
        "mask",
        "masks",
        "freq",
        "freqs",
        "ids",
        "id",
        "idx",
        "index",
        "indices",
        "pos",
        "position",
        "positions",
        "weight",
        "weights",
        "bias",
        "param",
        "params",
        "sp",
        "config",
        "cfg",
        "options",
        "args",
        "kwargs",
    }
)
# Words of a cloned name that say it holds a loss or a metric: a scalar, not latents.
_SCALAR_WORDS = frozenset({"loss", "losses", "metric", "metrics"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _own_nodes(nodes: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a statement list, not descending into a nested ``def``/``lambda``/class
    (their bodies run when they are called, not here) nor into the body of an ``if
    False:`` (it never runs)."""
    stack: list[ast.AST] = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and never_true(node.test):
            stack.extend(node.orelse)
        elif not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _step_loops(function: _FuncDef) -> Iterator[list[ast.stmt]]:
    """The bodies (with a ``while``'s test) of ``function``'s outermost step loops: a
    ``for``/``while`` whose head names steps, timesteps, sigmas or the tokens of a decoding
    loop, not the model's structure or a checkpoint."""
    if _takes_checkpoint(function):
        return
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            looped = node.test if isinstance(node, ast.While) else node.iter
            head = unparse(looped, 300)
            target = "" if isinstance(node, ast.While) else unparse(node.target, 80)
            if _STRUCTURE_RE.search(head) is None and (
                step_loop_head(head, target) or _DECODE_RE.search(head)
            ):
                yield [ast.Expr(looped), *node.body] if isinstance(node, ast.While) else node.body
                continue
        if isinstance(node, ast.If) and never_true(node.test):
            stack.extend(node.orelse)  # a loop under ``if False:`` never runs
            continue
        stack.extend(ast.iter_child_nodes(node))


def _aliases(function: _FuncDef, module_functions: set[str]) -> dict[str, str]:
    """Local names bound to a module-level function: ``fn = generate_next_token``,
    ``fn = custom or generate_next_token``, a parameter defaulting to one."""
    aliases: dict[str, str] = {}

    def bind(name: str, value: ast.expr | None) -> None:
        """Bind ``name`` to the module function ``value`` (or an ``or``/``if`` branch of
        it) names."""
        options: list[ast.expr | None] = [value]
        if isinstance(value, ast.BoolOp):
            options = list(value.values)
        elif isinstance(value, ast.IfExp):
            options = [value.body, value.orelse]
        for option in options:
            if isinstance(option, ast.Name) and option.id in module_functions:
                aliases[name] = option.id

    for arg, default in parameter_defaults(function.args):
        bind(arg.arg, default)
    for node in _own_nodes(function.body):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                bind(target.id, node.value)
    return aliases


def step_callees(tree: ast.Module, once: tuple[str, ...]) -> dict[int, tuple[str, int]]:
    """id(function) -> (the caller, the call's line) for each function of the module that
    a step loop (:func:`_step_loops`) of another of its functions calls: it runs once per
    step (``generate``'s decoding loop -> ``generate_next_token``). Calls resolve to
    module-level functions by name (or a local alias of one) and to methods of the
    caller's class through ``self.``/``cls.``. Run-once callers and callees (``once``,
    :data:`COLD`) are left out."""
    defs: dict[tuple[str | None, str], _FuncDef] = {}
    owner: dict[int, str | None] = {}
    for stmt in tree.body:
        items = stmt.body if isinstance(stmt, ast.ClassDef) else [stmt]
        cls = stmt.name if isinstance(stmt, ast.ClassDef) else None
        for item in items:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs[(cls, item.name)] = item
                owner[id(item)] = cls
    module_functions = {name for cls, name in defs if cls is None}
    reached: dict[int, tuple[str, int]] = {}
    for function in defs.values():
        if names_match([function.name], (*COLD, *once)) is not None:
            continue
        cls = owner[id(function)]
        aliases: dict[str, str] | None = None
        for body in _step_loops(function):
            for node in _own_nodes(body):
                if not isinstance(node, ast.Call):
                    continue
                target = node.func
                key: tuple[str | None, str] | None = None
                if isinstance(target, ast.Name):
                    if aliases is None:
                        aliases = _aliases(function, module_functions)
                    key = (None, aliases.get(target.id, target.id))
                elif (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id in ("self", "cls")
                ):
                    key = (cls, target.attr)
                callee = defs.get(key) if key is not None else None
                if (
                    callee is None
                    or callee is function
                    or id(callee) in reached
                    or names_match([callee.name], (*COLD, *once)) is not None
                ):
                    continue
                reached[id(callee)] = (function.name, node.lineno)
    return reached


def _full_tensor(call: ast.Call, function: _FuncDef) -> bool:
    """Whether a ``.clone()`` copies a whole tensor a name holds (``logits.clone()``,
    ``self.hidden.clone()``): not a slice or a call's result (``logits[-1:].clone()``),
    not an item of a collection ``function`` loops over (``for key, val in cond.items()``),
    not a mask, ids, frequencies, weights or a config (:data:`_NOT_ACTIVATION`)."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else call.func
    last = last_name(receiver)
    while isinstance(receiver, ast.Attribute):
        receiver = receiver.value
    if not isinstance(receiver, ast.Name):
        return False
    if not {w.lower() for w in last.split("_")}.isdisjoint(_NOT_ACTIVATION):
        return False
    looped = {
        name.id
        for loop in _own_nodes(function.body)
        if isinstance(loop, (ast.For, ast.AsyncFor, ast.comprehension))
        for name in ast.walk(loop.target)
        if isinstance(name, ast.Name)
    }
    return receiver.id not in looped


def _cloned_name(call: ast.Call) -> str:
    """The name a ``.clone()`` copies, past the method calls and subscripts before it:
    ``val_loss.detach().clone()`` -> ``val_loss``, ``self.hidden.clone()`` -> ``hidden``,
    ``new_tokens[-i].clone()`` -> ``new_tokens`` (an item says what its collection holds)."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else call.func
    while True:
        if isinstance(receiver, ast.Subscript):
            receiver = receiver.value
        elif isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute):
            receiver = receiver.func.value
        else:
            break
    if isinstance(receiver, ast.Attribute):
        return receiver.attr
    return receiver.id if isinstance(receiver, ast.Name) else ""


def _not_activation(call: ast.Call) -> bool:
    """Whether a ``.clone()`` copies a tensor its name says is no latent or activations
    (:data:`_NOT_ACTIVATION`: ``attn_mask.clone().detach()``, ``input_ids.clone()``; a name
    ending in a token, ``next_token``, ``new_tokens``: the sampled token ids): the ✗ is for
    the latents/activations an AR or diffusion step carries."""
    words = [w.lower() for w in _cloned_name(call).split("_")]
    return not _NOT_ACTIVATION.isdisjoint(words) or words[-1] in _TOKEN_WORDS


# The last word of a name holding token ids (``next_token``, ``cur_token``,
# ``new_tokens``); ``per_token_logps`` ends in its values' word, log-probabilities.
_TOKEN_WORDS = frozenset({"token", "tokens"})
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
# Statements that leave the loop (``continue`` starts the next iteration).
_EXITS = (ast.Break, ast.Return, ast.Raise)


@dataclass(frozen=True)
class _Place:
    """Where a statement sits: the node whose statement list holds it (a ``try`` for an
    ``except`` clause's, a ``match`` for a ``case``'s), its index there, and that list's
    first unconditional ``break``/``return``/``raise`` with its index."""

    owner: ast.AST
    index: int
    exit_index: int
    exit: ast.stmt | None


def _places(src: SourceInfo, function: ast.AST) -> tuple[dict[int, _Place], dict[int, ast.stmt]]:
    """Each statement's :class:`_Place`, and the statement each call is in, indexed once
    per function (a function of thousands of copies asks for each)."""
    return src.per_node("hot-copy:places", function, lambda: _index_places(function))


def _index_places(function: ast.AST) -> tuple[dict[int, _Place], dict[int, ast.stmt]]:
    """:func:`_places`, built."""
    places: dict[int, _Place] = {}
    statement_of: dict[int, ast.stmt] = {}
    holders: list[tuple[ast.AST, ast.AST]] = [(function, function)]
    while holders:
        node, owner = holders.pop()
        for _field, value in ast.iter_fields(node):
            if not isinstance(value, list):
                continue
            statements = [v for v in value if isinstance(v, ast.stmt)]
            exit_index, exit_node = next(
                ((i, st) for i, st in enumerate(statements) if isinstance(st, _EXITS)),
                (len(statements), None),
            )
            for index, statement in enumerate(statements):
                places[id(statement)] = _Place(owner, index, exit_index, exit_node)
                holders.append((statement, statement))
            # an ``except`` clause's or a ``case``'s statements belong to the ``try``/``match``
            holders.extend(
                (v, owner) for v in value if isinstance(v, (ast.excepthandler, ast.match_case))
            )
        if isinstance(node, ast.stmt) and node is owner:
            # the calls of this statement's own expressions (not of its nested statements)
            stack: list[ast.AST] = [
                child
                for child in ast.iter_child_nodes(node)
                if not isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case))
            ]
            while stack:
                child = stack.pop()
                if isinstance(child, _SCOPES):
                    continue
                if isinstance(child, ast.Call):
                    statement_of[id(child)] = node
                stack.extend(ast.iter_child_nodes(child))
    return places, statement_of


def _runs_once(src: SourceInfo, call: ast.Call, function: ast.AST | None) -> bool:
    """Whether the loop around ``call`` ends right after it: a ``return``/``raise`` follows
    its statement in its block (or in a block around it, inside the loop), or a ``break``
    of the function's outermost loop does (torchchat's EOS branch, ``yield
    cur_token.clone(), next_prob.clone()`` then ``break``). The copy is made once, as the
    loop ends, not every step."""
    if function is None:
        return False
    places, statement_of = _places(src, function)
    node: ast.AST | None = statement_of.get(id(call))
    exit_kind = ""  # what follows the copy in its block: "break", "return" (or raise)
    left = False  # the loop a ``break`` leaves is found
    while node is not None and node is not function:
        place = places.get(id(node))
        if place is None:
            return False
        in_loop = isinstance(place.owner, _LOOPS)
        if not exit_kind:
            if place.exit is not None and place.index < place.exit_index:
                exit_kind = "break" if isinstance(place.exit, ast.Break) else "return"
            elif in_loop:
                return False  # the loop around the copy goes on after it
        if in_loop:
            if exit_kind == "return":
                return True
            if left:
                return False  # the loop the ``break`` leaves runs inside another loop
            left = True
        node = place.owner
    # no statement loop around the copy (a comprehension's): the exit ends no loop of it
    return left


_MAPPING_VIEWS = frozenset({"items", "keys", "values"})


def _over_fields(iterable: ast.expr) -> bool:
    """Whether a loop walks a mapping's fields (``sample.items()``, ``batch.keys()``)."""
    return (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr in _MAPPING_VIEWS
        and not iterable.args
    )


def _field_loops_only(src: SourceInfo, call: ast.Call, function: ast.AST | None) -> bool:
    """Whether every loop around ``call`` in its function walks a mapping's fields: ``for
    key, value in sample.items(): ... value.clone()`` copies each field of one item once,
    so a function named for a step (``split_sample_by_num_tokens``) does not make it a
    step loop."""
    if function is None:
        return False
    places, statement_of = _places(src, function)
    statement = statement_of.get(id(call))
    if statement is None:
        return False
    iterables = [
        generator.iter
        for node in ast.walk(statement)
        if isinstance(node, COMPREHENSIONS) and _contains(node, call)
        for generator in node.generators
    ]
    node: ast.AST = statement
    while node is not function:
        place = places.get(id(node))
        if place is None:
            return False
        node = place.owner
        if isinstance(node, ast.While):
            return False
        if isinstance(node, (ast.For, ast.AsyncFor)):
            iterables.append(node.iter)
    return bool(iterables) and all(_over_fields(iterable) for iterable in iterables)


def _contains(tree: ast.AST, target: ast.AST) -> bool:
    """Whether ``target`` is ``tree`` or one of its descendants."""
    return any(node is target for node in ast.walk(tree))


def _first_call_only(src: SourceInfo, call: ast.Call, function: ast.AST | None) -> bool:
    """Whether the copy sits in the body of an ``if self.x is None:`` (or ``if not
    self.x:``) that sets ``self.x``: a lazy set-up that runs on the first call only
    (thunder's ``forward``: ``if self.compiled_fn is None:``, a deepcopy of the graph to
    restore, ``self.compiled_fn = compile(...)``)."""
    if not isinstance(function, _FuncDef):
        return False
    places, statement_of = _places(src, function)
    node: ast.AST | None = statement_of.get(id(call))
    while node is not None and node is not function:
        place = places.get(id(node))
        if place is None:
            return False
        owner = place.owner
        if isinstance(owner, ast.If) and any(statement is node for statement in owner.body):
            unset = _unset_attribute(owner.test)
            # the branch assigns what it tests (the function's one index of assignments)
            first, last = owner.body[0].lineno, owner.body[-1].end_lineno or owner.lineno
            if unset is not None and any(
                first <= bound.lineno <= last for bound in _bindings(function).get(unset, ())
            ):
                return True
        node = owner
    return False


def _unset_attribute(test: ast.expr) -> str | None:
    """``self.x`` of a test ``self.x is None`` / ``not self.x``."""
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        subject: ast.expr = test.left
    elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        subject = test.operand
    else:
        return None
    if (
        isinstance(subject, ast.Attribute)
        and isinstance(subject.value, ast.Name)
        and subject.value.id == "self"
    ):
        return f"self.{subject.attr}"
    return None


def _scalar(call: ast.Call) -> bool:
    """Whether a ``.clone()`` copies a loss or a metric (:data:`_SCALAR_WORDS`): a scalar
    reduced from a step, not latents or activations."""
    return not {w.lower() for w in _cloned_name(call).split("_")}.isdisjoint(_SCALAR_WORDS)


def _forward_input(src: SourceInfo, call: ast.Call, function: ast.AST | None) -> bool:
    """Whether an uncommented ``.clone()`` in a module's ``forward`` copies the tensor
    ``forward`` was given whole (``residual = x.clone()``, the parameter not yet rebound):
    the activations, copied on every forward pass, so every step of a decoding or
    training loop."""
    if not isinstance(function, _FuncDef) or function.name != "forward":
        return False
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    positional = [*function.args.posonlyargs, *function.args.args]
    if positional[:1] and positional[0].arg == "self":
        positional = positional[1:]
    first = positional[0] if positional else None
    if not (
        first is not None
        and isinstance(receiver, ast.Name)
        and receiver.id == first.arg
        and not call.args
        and _holds_activations(first)
    ):
        return False
    rebound = any(
        isinstance(node, ast.Name)
        and isinstance(node.ctx, ast.Store)
        and node.id == receiver.id
        and node.lineno < call.lineno
        for node in _own_nodes(function.body)
    )
    return not rebound and not _why_comment(src, call)


# ``forward(self, batch)``: a batch object (pytorch_geometric's ``Batch`` of a graph, a
# dict of tensors), copied to be rewritten, not the latents/activations a step carries.
_CONTAINER_INPUTS = frozenset({"batch", "data"})
# Annotations that say nothing about what the input holds.
_OPEN_ANNOTATIONS = frozenset({"object", "Any", "typing.Any", "t.Any"})


def _holds_activations(param: ast.arg) -> bool:
    """Whether ``forward``'s input may be the activations tensor: annotated as a tensor
    or array (``x: torch.Tensor``), or unannotated (or ``object``, ``Any``) and not named
    as a batch container (pytorch_geometric's ``GPSE.forward(self, batch)`` clones a graph
    ``Batch``)."""
    if param.annotation is not None:
        text = ast.unparse(param.annotation).strip("\"'")
        if text not in _OPEN_ANNOTATIONS:
            return any(word in text for word in ("Tensor", "Array", "ndarray"))
    return param.arg not in _CONTAINER_INPUTS


def _root_name(expr: ast.expr) -> str | None:
    """``req`` of ``req.sampling_params`` / ``req["params"]``; a bare name itself."""
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _request_args(src: SourceInfo, hot_names: tuple[str, ...]) -> set[int]:
    """ids of the arguments of calls that start a request (``llm.generate(ids, p)``,
    ``add_request(...)``): what is copied into one is copied per request."""
    ids: set[int] = set()
    for node, _ctx in src.of_type(ast.Call):
        assert isinstance(node, ast.Call)
        name = last_name(node.func)
        if name and names_match([name], hot_names):
            ids.update(id(arg) for arg in (*node.args, *(k.value for k in node.keywords)))
    return ids


def names_sampling_config(text: str) -> bool:
    """Whether a name or type names a scheduler or a sampling config (sampling params, a
    generation config): ``self.scheduler``, ``req.sampling_params``, ``default_gen_cfg``,
    ``GenerationConfig``."""
    if _SCHEDULER_RE.search(text):
        return True
    words = [w.lower() for w in _WORD_RE.findall(text)]
    return any(
        a in _GENERATION_WORDS and b in _CONFIG_WORDS
        for a, b in zip(words, words[1:], strict=False)
    )


def _type_text(annotation: ast.expr | None) -> str | None:
    """The class names an annotation holds (``Optional[SamplingParams]`` ->
    ``SamplingParams``), or None when it says nothing of the value's use (``dict``,
    ``Any``)."""
    if annotation is None:
        return None
    annotation = unquoted(annotation)
    if annotation is None:
        return None
    names = [
        n.id if isinstance(n, ast.Name) else n.attr
        for n in ast.walk(annotation)
        if isinstance(n, (ast.Name, ast.Attribute))
    ]
    kept = [n for n in names if n not in _OPAQUE_TYPES]
    return " ".join(kept) or None


def _constructed_type(value: ast.expr | None) -> str | None:
    """The class a value is built from (``GenerationConfig(top_k=1)``), or None for a call
    of a function (``dict()``, ``load_config()``) or anything else."""
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    name = last_name(func)
    return name if name[:1].isupper() and name not in _OPAQUE_TYPES else None


def _params(function: _FuncDef) -> dict[str, ast.arg]:
    """A function's named parameters by name."""
    arguments = function.args
    return {a.arg: a for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}


def _binding_type(target: str, node: ast.AST, function: _FuncDef) -> str | None:
    """The type a statement ``node`` of ``function`` gives ``target`` (a name or
    ``self.x``): its annotation, its constructor, or the annotation of the parameter it
    is assigned from; None when the statement does not bind it or does not tell."""
    if isinstance(node, ast.AnnAssign) and unparse(node.target) == target:
        return _type_text(node.annotation) or _constructed_type(node.value)
    if isinstance(node, ast.Assign) and any(unparse(t) == target for t in node.targets):
        value = node.value
        if isinstance(value, ast.Name) and value.id in _params(function):
            return _type_text(_params(function)[value.id].annotation)
        return _constructed_type(value)
    return None


def _declared_type(tree: ast.Module, expr: ast.expr, function: ast.AST | None) -> str | None:
    """The type the file gives a copied name or ``self.`` attribute: a parameter's
    annotation, an annotated or constructed local, or an attribute its class annotates or
    builds in a method (``self.defaults = GenerationConfig(...)``). None when the file
    does not tell."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    if isinstance(expr, ast.Name):
        param = _params(function).get(expr.id)
        if param is not None:
            return _type_text(param.annotation)
        for node in _bindings(function).get(expr.id, ()):
            typed = _binding_type(expr.id, node, function)
            if typed is not None:
                return typed
        return None
    if not (
        isinstance(expr, ast.Attribute)
        and isinstance(expr.value, ast.Name)
        and expr.value.id in ("self", "cls")
    ):
        return None
    owner = _owners(tree).get(id(function))
    if owner is None:
        return None
    text = unparse(expr)
    for item in owner.body:
        if (
            isinstance(item, ast.AnnAssign)
            and isinstance(item.target, ast.Name)
            and item.target.id == expr.attr
        ):
            return _type_text(item.annotation)
    return _attribute_types(owner).get(text)


@functools.lru_cache(maxsize=64)
def _attribute_types(owner: ast.ClassDef) -> dict[str, str]:
    """``self.x`` / ``cls.x`` -> the type the first method of ``owner`` (in its body's
    order) that tells gives it: read once per class, not once per copy (a class of
    thousands of methods each copying ``self.sampling_params`` asked every method for
    every copy)."""
    types: dict[str, str] = {}
    for method in owner.body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for text, nodes in _bindings(method).items():
                if text in types or not text.startswith(("self.", "cls.")):
                    continue
                for node in nodes:
                    typed = _binding_type(text, node, method)
                    if typed is not None:
                        types[text] = typed
                        break
    return types


@functools.lru_cache(maxsize=256)
def _bindings(function: _FuncDef) -> dict[str, list[ast.stmt]]:
    """The assignments of ``function``'s own body by target text (``x``, ``self.x``), in
    the order :func:`_own_nodes` meets them: read once per function, however many copies
    ask for a type."""
    out: dict[str, list[ast.stmt]] = {}
    for node in _own_nodes(function.body):
        if isinstance(node, ast.AnnAssign):
            out.setdefault(unparse(node.target), []).append(node)
        elif isinstance(node, ast.Assign):
            for target in {unparse(t) for t in node.targets}:
                out.setdefault(target, []).append(node)
    return out


@functools.lru_cache(maxsize=8)
def _owners(tree: ast.Module) -> dict[int, ast.ClassDef]:
    """id(method) -> the class whose body defines it, for every class of ``tree``."""
    return {
        id(item): klass
        for klass in ast.walk(tree)
        if isinstance(klass, ast.ClassDef)
        for item in klass.body
    }


def sampling_config(src: SourceInfo, expr: ast.expr, function: ast.AST | None) -> bool:
    """Whether a copied object is a scheduler or a sampling config: by the type the file
    declares for it where it does (annotation, constructor), else by its name."""
    text = unparse(expr, 300)
    # one answer per function and expression: a function may copy the same name thousands
    # of times, and the declared type is read from its whole body
    key = f"hot-copy:sampling:{id(function)}:{text}"
    cached = src.cache.get(key)
    if isinstance(cached, bool):
        return cached
    declared = _declared_type(src.tree, expr, function)
    answer = names_sampling_config(declared if declared is not None else text)
    src.cache[key] = answer
    return answer


def _copies_sampling_config(src: SourceInfo, call: ast.Call, function: ast.AST | None) -> bool:
    """Whether a ``deepcopy`` copies a scheduler or sampling config: its argument, or the
    iterable a loop binds it from (``for params in default_sampling_params_list``)."""
    if not call.args:
        return False
    arg = call.args[0]
    if sampling_config(src, arg, function):
        return True
    if not isinstance(arg, ast.Name) or function is None:
        return False
    return any(
        loop.target == arg.id
        and loop.first <= call.lineno <= loop.last
        and sampling_config(src, loop.node.iter, function)
        for loop in _loops(src, function)
    )


def _per_request_config(
    src: SourceInfo, call: ast.Call, function: ast.AST | None, request_args: set[int]
) -> str | None:
    """Why a ``deepcopy`` of a scheduler / sampling config runs per request, or None.

    It is handed to a request call (``llm_engine.generate(ids, deepcopy(params))``); it
    copies a request's own config (``deepcopy(req.sampling_params)``); or an ``async def``
    copies the config it was given (a coroutine per request).
    """
    if not call.args:
        return None
    arg = call.args[0]
    text = unparse(arg, 300)
    if id(call) in request_args and _PARAMS_RE.search(text):
        return "handed to a request call"
    if not sampling_config(src, arg, function):
        return None
    root = _root_name(arg)
    if root is not None and root != text and _REQUEST_ROOT_RE.match(root):
        return f"of request `{root}`"
    # ``self``'s attributes are the object's own, not a config the call was given.
    # A plain function given a config may run once (a ``defaults(sampling_params)``
    # helper); a coroutine is a request's.
    if isinstance(function, _FuncDef) and root not in (None, "self", "cls"):
        if root in _params(function):
            if isinstance(function, ast.AsyncFunctionDef):
                return f"of parameter `{root}` in `async def {function.name}`"
            twin = _async_twin(src.tree, function)
            if twin is not None:
                return f"of parameter `{root}` in `{function.name}`, the sync twin of `{twin}`"
            content = next((p for p in _params(function) if p in _REQUEST_CONTENT), None)
            if content is not None:
                return (
                    f"of parameter `{root}` in `{function.name}`, given the request's "
                    f"`{content}` with it"
                )
    return None


# What one request asks a model, as a parameter: a function given it with the sampling
# config serves that request (qwen-agent's ``_chat_no_stream(self, messages,
# generate_cfg)`` deep-copying ``generate_cfg`` on every chat call), not a defaults helper.
_REQUEST_CONTENT = frozenset(
    {"messages", "prompt", "prompts", "query", "queries", "conversation", "input_ids"}
)


def _async_twin(tree: ast.Module, function: ast.FunctionDef) -> str | None:
    """``async def amodel_call`` when the class (or module) defining ``model_call`` also
    defines its ``a``-prefixed coroutine: the sync and async halves of one request call
    (``completion`` / ``acompletion``) serve the same requests."""
    wanted = "a" + function.name.lstrip("_")
    for scope in ast.walk(tree):
        if not isinstance(scope, (ast.Module, ast.ClassDef)):
            continue
        body = scope.body
        if not any(item is function for item in body):
            continue
        for item in body:
            if isinstance(item, ast.AsyncFunctionDef) and item.name.lstrip("_") == wanted:
                return f"async def {item.name}"
        return None
    return None


def _called_only_cold(
    src: SourceInfo, function: ast.AST | None, names: list[str], hot: tuple[str, ...]
) -> bool:
    """Whether every call of ``function`` in the work tree comes, within three calls, from
    code that runs once (:data:`COLD` or the ``fail-fast`` globs: ``model_setup`` ->
    ``get_dtensor`` -> its nested ``update_sharded_sd``), as broad-except reads a helper
    of set-up code (:meth:`_fail_fast.TreeCalls.reached_from`). Not a function named for
    the request or hot path, nor one inside or called through such a function (a
    framework calls ``forward`` or ``generate`` where no grep of the tree sees it), nor a
    dunder, nor one a string names (``getattr(self, "name")``: a call no index sees);
    none where the tree is too large to read (``names``: the enclosing functions and
    classes)."""
    if not isinstance(function, _FuncDef) or function.name.startswith("__"):
        return False
    if names_match(names, hot) is not None:
        return False
    key = f"hot-copy:cold:{id(function)}"
    cached = src.cache.get(key)
    if isinstance(cached, bool):
        return cached
    calls = paths.tree_calls(src.root, fakes.SKIP_DIRS)
    home = paths.module_name(src.path)
    chain = None
    if calls is not None:
        globs = (*COLD, *src.config.fail_fast)
        # a string naming a function on the way may be a call no index sees
        # (``getattr(self, "name")()`` on the hot path): a pull request could hide a
        # copy behind one set-up call otherwise
        chain = calls.reached_from(function.name, home, src.tree, globs, strings_call=True)
    cold = chain is not None and names_match(list(chain[1:]), hot) is None
    src.cache[key] = cold
    return cold


def _request_helper_chain(src: SourceInfo, function: ast.AST | None) -> tuple[str, ...] | None:
    """(request-path function, ..., caller) when request-path code of the module (a
    function matching the ``request-path`` globs) calls ``function`` within a few calls
    (``generate`` -> ``self.preprocess_data(...)``): what it copies, it copies per
    request, whoever else calls it. The reading broad-except makes of set-up code
    (:func:`_fail_fast.reached_in_module`), computed once per file."""
    if not isinstance(function, _FuncDef):
        return None
    reached = src.cache.get("hot-copy:request-helpers")
    if not isinstance(reached, dict):
        reached = paths.reached_in_module(src.tree, src.config.request_path, False)
        src.cache["hot-copy:request-helpers"] = reached
    chain = reached.get(function.name)
    return chain if isinstance(chain, tuple) else None


def hot_copy(src: SourceInfo) -> Iterator[Finding]:
    """Copies in per-step / per-request code (tests and run-once functions are not hot)."""
    if src.is_test or match_any(src.path, (*BENCHMARK_PATHS, *EXPORT_PATHS)):
        return
    hot_names = (*src.config.request_path, *src.config.hot_path)
    request_args: set[int] | None = None
    stepped_functions: dict[int, tuple[str, int]] | None = None
    for node, ctx in src.of_type(ast.Call):
        assert isinstance(node, ast.Call)
        kind = _copy_kind(src, node)
        if kind is None:
            continue
        site = _clone_site(node) if kind == "clone" else node
        if not src.node_added(site):
            continue
        names = ctx.names()
        if names_match(names, COLD) or names_match(names, src.config.fail_fast):
            continue
        if _called_only_cold(src, ctx.innermost, names, hot_names):
            continue  # every caller in the work tree is set-up code: it runs once
        if _first_call_only(src, node, ctx.innermost):
            continue  # lazy set-up: the first call makes the copy, no other
        hot = names_match(names, hot_names)
        if hot is not None and paths.artifact_generator(hot):
            hot = None  # ``generate_patch_file``: a file made once, not a request's generation
        per_request = None
        if kind == "deepcopy":
            if request_args is None:
                request_args = _request_args(src, src.config.request_path)
            per_request = _per_request_config(src, node, ctx.innermost, request_args)
        if per_request is not None:
            yield finding(
                src,
                site,
                "hot-copy",
                WARN if _commented(src, node) else BLOCK,
                f"`{short(src, node)}` deep-copies a scheduler/sampling config per request "
                f"({per_request})",
            )
            continue
        text = short(src, node)
        chain = None
        if kind == "deepcopy" and hot is None and node.args:
            chain = _request_helper_chain(src, ctx.innermost)
        if chain is not None and sampling_config(src, node.args[0], ctx.innermost):
            path = " -> ".join(f"`{n}`" for n in (*chain, names[-1]))
            yield finding(
                src,
                site,
                "hot-copy",
                WARN if _commented(src, node) else BLOCK,
                f"`{text}` deep-copies a scheduler/sampling config on the request path ({path})",
            )
            continue
        # a loop of a training step function (``train_step``) is an optimisation step's
        per_step = (
            hot is not None and not training_name(hot) and not _optimizer_step(src, ctx.innermost)
        )
        # the layer loop of an encoder's method: one pass per input, not a step loop
        encoder_loop = (
            ctx.loop and not ctx.step_loop and per_step and _encoder_method(src, ctx.innermost)
        )
        in_loop = ctx.loop and (
            ctx.step_loop
            or (per_step and not encoder_loop and not _field_loops_only(src, node, ctx.innermost))
        )
        function_node = ctx.innermost
        stepped = None
        if not in_loop and kind == "clone" and isinstance(function_node, _FuncDef):
            if stepped_functions is None:
                stepped_functions = step_callees(src.tree, src.config.fail_fast)
            stepped = stepped_functions.get(id(function_node))
        if stepped is not None and isinstance(function_node, _FuncDef):
            caller, line = stepped
            function = names[-1]
            where = f"in `{function}`, which the step loop of `{caller}` runs (line {line}),"
            if _full_tensor(node, function_node) and not _why_comment(src, node):
                yield finding(
                    src,
                    site,
                    "hot-copy",
                    BLOCK,
                    f"`{text}` {where} copies a whole tensor every step, "
                    "with no comment saying why",
                )
            else:
                yield finding(
                    src, site, "hot-copy", WARN, f"`{text}` {where} allocates a copy each step"
                )
            continue
        if not (ctx.stmt_loop or ctx.step_loop) and hot is None:
            continue  # a comprehension over a list copies once per element, not per step
        if not ctx.funcs and not ctx.step_loop:
            continue  # module-level code runs once, at import, unless it loops over steps
        if hot is None and not ctx.step_loop and _cold_loops(src, node, ctx.innermost):
            continue  # a loop over the model's modules or a checkpoint runs once
        if (
            kind == "deepcopy"
            and hot is None
            and not ctx.step_loop
            and not _copies_sampling_config(src, node, ctx.innermost)
        ):
            # A deepcopy per item of a plain loop (the jobs a launcher submits, the task
            # configs a registry builds, the entries a merge copies) is set-up work: a
            # config walked per step or per request is the pattern, not per item. A
            # sampling config found in a loop (the defaults a request starts from) stays.
            continue
        where = (
            f"inside a step loop{f' of `{hot}`' if hot else ''}"
            if in_loop
            else f"inside the layer loop of encoder method `{hot}`"
            if encoder_loop
            else f"in per-step/per-request function `{hot}`"
            if hot
            else "inside a loop"
        )
        once = kind == "clone" and in_loop and _runs_once(src, node, ctx.innermost)
        if (
            kind == "clone"
            and in_loop
            and not once
            and not _why_comment(src, node)
            and not _scalar(node)
            and not _not_activation(node)
        ):
            yield finding(
                src,
                site,
                "hot-copy",
                BLOCK,
                f"`{text}` {where} allocates and copies a tensor every iteration, "
                "with no comment saying why",
            )
            continue
        request = names_match(names, src.config.request_path)
        if (
            kind == "deepcopy"
            and request is not None
            and node.args
            and sampling_config(src, node.args[0], ctx.innermost)
        ):
            yield finding(
                src,
                site,
                "hot-copy",
                WARN if _commented(src, node) else BLOCK,
                f"`{text}` deep-copies a scheduler/sampling config on request path `{request}`",
            )
            continue
        if kind == "clone" and hot is not None and _forward_input(src, node, ctx.innermost):
            yield finding(
                src,
                site,
                "hot-copy",
                BLOCK,
                f"`{text}` {where} copies the whole input activations on every forward pass, "
                "with no comment saying why",
            )
            continue
        if once:
            yield finding(
                src, site, "hot-copy", WARN, f"`{text}` {where} allocates a copy as the loop ends"
            )
            continue
        what = "allocates a copy" if kind == "clone" else "walks the whole object graph"
        yield finding(src, site, "hot-copy", WARN, f"`{text}` {where} {what} each time")


def check(source: SourceFile, config: Config) -> list[Finding]:
    """Copies in hot code on the lines the sweep looks at."""
    return list(hot_copy(sweep_info(source, config)))


RULE = register(
    sweep_rule(
        "hot-copy",
        "a new `.clone()` / `deepcopy` in a loop or per-step/per-request function; ✗ for an "
        "uncommented clone in a step loop or a config deepcopy per request",
        check,
        DOC,
        prefilter=lambda data, config: b"clone" in data or b"deepcopy" in data,
    )
)
