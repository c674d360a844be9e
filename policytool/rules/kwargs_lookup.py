# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``kwargs-lookup`` (sweep, added lines): string-key reads of a ``**kwargs`` dict.

The check yields :class:`KeyUse` records as well as findings: whether a key is
repeated in another file is decided once for the whole change (one index of the
tree's key reads) by ``policytool sweep``, which calls :func:`kwargs_finding` again
with the other files. What counts as a read lives in :mod:`policytool.rules._kwreads`.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import weakref
from collections.abc import Iterator, Sequence

from policytool.config import Config
from policytool.engine.findings import Finding
from policytool.engine.registry import register
from policytool.engine.source import SourceFile
from policytool.rules import _fail_fast as paths
from policytool.rules import _fakes as fakes
from policytool.rules import _kwreads as kwreads
from policytool.rules._pyast import last_name, parameter_defaults
from policytool.rules._pysource import (
    KeyUse,
    SourceInfo,
    SweepSource,
    names_match,
    sweep_info,
    unparse,
)
from policytool.rules._sweep import BLOCK, CONFIG_DOC, WARN, short, sweep_rule

DOC = f"""\
## What it checks
A function with a `**kwargs` parameter that reads string keys from it
(`kwargs["k"]`, `kwargs.get("k")`, `kwargs.pop("k")`, `"k" in kwargs`), on lines a change
adds (a line from the lookup to its key: a rewritten default alone is no new read), or
anywhere in its body when the change adds the `**kwargs` parameter itself. A
dict passed on whole from `**kwargs` to a plain parameter of a private helper
(`self._setup(kwargs)`, then `def _setup(self, kwargs: dict)`, also from a `lambda` of
the body) is followed within the file: the helper's reads are no ⚠ (its own signature
takes a plain dict, not `**kwargs`: sentry's `_set_responses_api_input_data(span,
kwargs, integration)`), but a new key it repeats in another file is the ✗ below; a
public function or method taking it (numba-cuda's `get_identity(cls, kwargs)`
classmethods, given `Vectorize.__new__`'s `**kws`) has a plain dict parameter of its
own API, whose reads are not followed.
Setting a default is not a read: `if "k" not in kwargs: kwargs["k"] = v`, also when the
test is one term of an `and` or the key is set in a block nested in the `if`. A
`**kwargs: Unpack[SomeTypedDict]` (PEP 692) is typed: a type checker checks each
caller's keywords against the TypedDict and flags a read of a key it does not declare,
so a misspelt key is an error, never a silent default. Its reads are still keys spelled
as strings (⚠, the message says the key is typed), never ✗: no drift between files, and
its unused keys are not dropped silently.

A name the body rebinds to a record's dump (`kwargs = resolved.model_dump()`, `kwargs =
Params(**kwargs).model_dump()`, `asdict(...)`, a display merging only dumps), in a
statement of the body itself (not of a branch), holds validated fields from there on:
its later reads and the calls it goes to are not the caller's keywords.

⚠ for every such read. A plain dict parameter that no `**` dict of the file is passed to
(`media_io_kwargs: dict[str, Any]`, a hook's `kwargs: dict`) has no `**kwargs`
signature: its reads are not reported (its keys are fixed by whoever builds the dict),
but they count as another file reading a key (below). ✗ when the same key is read from
a `**kwargs` parameter (or such a plain dict parameter) in another non-test file with
no shared module constant and the key is new to the repository (no non-test file of
the base revision read it from kwargs, nor by key from a dict a `*_kwargs` name holds,
fms-hf-tuning's `fn_kwargs["column_names"]`: the change introduces the key and repeats
it; a rewritten or renamed lookup, or one more copy of a
key the code base already reads, is the backlog's duplication and stays ⚠, naming a file
that read it before) (test files do not count); ✗ too when the change spells such a new
key as a literal of a kwargs dict in another non-test file of the same package or of one
enclosing it (below the repository's root; in a change of at most 25 non-test files,
one piece of work, any file of the same top-level package: optimum-executorch's CLI
writing `kwargs["gguf_file"]` that a task loader reads) whose base version did not hold
the literal:
written or tested on a dict named like one (`step_kwargs["k"] = v`, `"k" in
self.kwargs`), a display bound to such a name or handed on with `**` (`f(**{{"k": v}})`,
`extra = {{}}; extra["k"] = v; f(**extra)`), or the key list filtering one
(`reward_kwargs = {{k: v for k, v in cfg.items() if k in ["k", ...]}}`): the writer's half
of the same string protocol (a comment, a docstring, `__all__` or another dict is not a
spelling); or when the function is on a fail-fast path (`__init__`, config validation,
weight loading, diffusers' `lora_state_dict`, an alternate constructor: a `@classmethod`
returning `cls(...)`; a function building a class from the dict filtered down to that
class's keys, `C(**{{k: v for k, v in kwargs.items() if k in VALID}})` with `VALID`
computed from `C` (`fields(C)`, its signature; through up to eight names between):
torchrec's `create_model_config`, modelscope's `load_dataset_builder`) and never passes
the dict on, so unknown keys are silently dropped. Passing it on is any use but a key
read (also under a computed key: `kwargs.pop(k)`, `k in kwargs`), a log line
(`logger.info(f"... {{kwargs}}")`, `print`), `_ = kwargs`, `bool(kwargs)` /
`len(kwargs)`, an iteration keeping only keys of a named collection (`{{k:
kwargs.pop(k) for k in list(kwargs) if k in RESOURCE_KEYS}}`, `KNOWN & kwargs.keys()`,
a `for` over its items whose one `if`/`elif` chain, with no final `else`, tests `k in
KNOWN`, `k == "name"` or `hasattr(self, k)`: llama-models' `QuantizationArgs.__init__`),
or handing it (or `dict(kwargs)`) to a function of the file that only reads keys it
names (nv-ingest's `_assert_no_remote_endpoints(dict(kwargs), ...)`): forwarding it,
storing it, iterating it or testing it for leftover keys. One ✗ for the
function when the change writes its signature, on the line declaring `**kwargs` (its
reads ⚠; a dict named `_`, `**_`, names the keys as ignored on purpose: ⚠; also when
the body never reads the dict at all, unless it is a stub, a `(*args, **kwargs)`
placeholder that uses neither (`del args, kwargs` is no use in a class whose methods all
do nothing, a null object) and sets nothing on `self`
(diffusers' dummy objects; Lightning's `LightningDataModule.__init__(self, *args,
**kwargs)`, which sets its attributes, drops every key: ✗), an alternate constructor, or
a method overriding one of a base class (followed through a package's re-exports) that declares
it with parameters: an interface's catch-all; a base method taking only `self` declares
none, nor does torch's `nn.Module.__init__` (its `*args, **kwargs` raise on any
argument) or its `Dataset` and `IterableDataset` (no `__init__`), and neither do the
abstract collections of `typing` and `collections.abc` (`class BaseNode(Iterator[T])`);
or one of several implementations the change writes with the same unused `**kwargs`: a
function of the same name in two modules (each backend's `load_checkpoint(...,
**kwargs)`) or the `__init__` of two classes of one module (a family of strategy
classes): the caller hands one dict to whichever it picks, so the dispatch fixes the
signature); a `**kwargs` the change adds to an old signature and the body
never uses gets its ✗ at the added `**kwargs` line; a filter down to the keys of the
class built that the change adds to an older function, at the filter's line (naming the
class: "keeps only the keys `builder_cls` takes"); when the function is older, a ✗ at
the read of each key the change adds to it (a key the file read before is ⚠). No
dropped-keys ✗ for a method overriding a base method that itself takes `**kwargs`
(optimum-intel's `IPEXModel.__init__`, huggingface_hub's `ModelHubMixin._from_pretrained(
**model_kwargs)`): the family's callers hand every implementation one dict, so the base
class fixes the signature; its new reads are ⚠. Nor for a method that starts with the
parameters of a repository `Protocol`'s method taking `**kwargs` (in a module the file
imports, or one those import), then adds only defaulted options (mteb's encoder
wrappers and `EncoderProtocol.__init__(self, model_name, revision, *, device=None,
**kwargs)`): the structural interface fixes it as a base class would. A `Protocol`
method of `**kwargs` alone excuses nothing (every signature would fit it, so a pull
request could add one to hide the ✗), and at most 60 modules are read for one. A key read
before the dict is forwarded to `super().__init__(**kwargs)` or
`X.from_pretrained(**kwargs)` is that API's parameter: ⚠ only; a key popped out first
is too when the call is handed its value again (`tokenizer = kwargs.pop("tokenizer")`,
`super().__init__(image_processor, tokenizer, **kwargs)`), and otherwise the function's
own (the callee never sees it). So is a key that a read leaves in the dict (`[]`, `.get`, `in`; not
`.pop`) when the dict is forwarded with `WorkerProc(**kwargs)` to a function or class of
the same file that declares that parameter. So is a key read by a function that stands
in for another callable (`model.forward = self._prepare_stage`: `inputs["input_ids"]` is
a parameter of `forward`), a key popped as a statement after the dict went on whole
(`f(**kwargs)`, `dict(kwargs=kwargs)`: the callee took it; the pop releases the value),
and a key that the installed library a method's base class comes from declares as a
typed name (a `ProcessorMixin` subclass reading `text_kwargs`, a field of transformers'
`ProcessingKwargs`; without the library on the path the key is judged as the code
base's), and a key a `(*args, **kwargs)` function also takes positionally in the same
statement (`dim = args[0] if args else kwargs.get("dim")`: a `size` override mirroring
`Tensor.size(dim=None)` re-parses a parameter of the signature it stands in for, whose name
that signature fixes). A key read in more than four other files is an established
convention: ⚠ with the count. Not a reason: a value passed on under the key's own name
(`from_pretrained(path, trust_remote_code=kwargs.get("trust_remote_code"))`) or a key
named like a typed parameter of the file (`save_model(..., processor: Processor)`): the
literal is still written here, a misspelt key still silently reads the default, and
whether the key is established is what the base read from kwargs (the "not a new key"
⚠ above), not a parameter's name. A new class whose sibling classes (same base, same
module) mostly leave their `**kwargs` unused shares that catch-all (no dropped-keys ✗).
Test code never gets the ✗: copies of one test helper reading a new key in two or more
test files (chainlit's three `create_mock_run(**kwargs)`) fail the tests that use them
and never ship (⚠).

A read the change moves is not new: when the diff removes as many lines like the read's
line (whitespace and trailing commas aside, so `x = kwargs.get("k")` turned into the
argument `x=kwargs.get("k"),` is the same line), anywhere in the change, and the base
already read the key from kwargs, the ⚠ is not reported (a ✗ still is). A fail-fast
method that hands the dict on only as `super().<method>(**kwargs)` drops unknown keys
when the base method does: when the change makes it drop them (its own ✗; the base class
defined in the same file or in the repository module it is imported from), each key the
method reads is ✗ too, naming the base method.

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
{CONFIG_DOC}"""


# A key read from kwargs in more other files than this is an established convention of
# the code base, not a copy the change introduces: ⚠ with the count, not ✗.
MAX_CLUSTER = 4


def kwargs_lookup(src: SourceInfo) -> Iterator[KeyUse]:
    """String-key reads of kwargs dicts (see :mod:`kwreads`) the change adds.

    A read is new when its line is added, or when the dict parameter itself is new: its
    line is added and the hunk did not just edit an old line already declaring it (a
    change to the annotation of an old ``**kwargs`` does not make the old reads new).
    """
    contexts = {id(node): ctx for node, ctx in src.of_type(ast.FunctionDef, ast.AsyncFunctionDef)}
    dicts = src.kwargs_dicts()
    starred = src.star_dicts()
    seen: set[tuple[int, str]] = set()
    params: dict[str, list[frozenset[str]]] | None = None  # the module's callees, when needed
    for func, names in dicts.items():
        ctx = contexts.get(id(func))
        if ctx is None:
            continue  # the function does not overlap an added line
        new_params = {name for name in names if _param_is_new(src, func, name)}
        reads: list[tuple[str, str, ast.AST]] = []
        consumed: set[int] = set()
        # The calls forwarding a dict whole with ``f(**d)``, by the dict's name.
        star_calls: dict[str, list[ast.Call]] = {}
        # Each dict's keys its ``f(**d)`` callees declare (:func:`_callee_reason`).
        declaring: dict[str, dict[str, ast.Call]] = {}
        # The calls the dict goes to whole: ``f(**d)``, ``f(d)``, ``dict(kwargs=d)``.
        handed: dict[str, list[ast.Call]] = {}
        discarded: set[int] = set()  # ids of values computed as a statement, then dropped
        # Reads and calls after a name is rebound see another value (``kwreads.rebound``).
        rebound_at = kwreads.rebound(func, names)
        read_nodes: set[int] = set()
        # A dict handed whole to a public function is its plain dict parameter, an API of
        # its own (numba's ``get_identity(cls, kwargs)`` classmethods): its reads are not
        # the caller's ``**kwargs`` reads. A private helper (``self._setup(kwargs)``) is
        # the caller's body split out: its reads are.
        private = func.name.startswith("_") and not func.name.endswith("__")
        followed = set() if private else names - kwreads.own_dicts(func)
        for key_read, is_live in kwreads.key_reads(func, names, rebound_at):
            if is_live and key_read.name not in followed:
                reads.append((key_read.name, key_read.key, key_read.node))
            read_nodes.add(id(key_read.node))
            consumed.update(id(n) for n in ast.walk(key_read.node) if isinstance(n, ast.Name))
        for sub in kwreads.body_nodes(func):
            if isinstance(sub, ast.Expr):
                discarded.add(id(sub.value))
            if isinstance(sub, ast.Call) and id(sub) not in read_nodes:
                for k in sub.keywords:
                    if not isinstance(k.value, ast.Name) or not kwreads.live(
                        sub, k.value.id, rebound_at
                    ):
                        continue
                    if k.arg is None and k.value.id in names:
                        star_calls.setdefault(k.value.id, []).append(sub)
                    if k.value.id in names:
                        handed.setdefault(k.value.id, []).append(sub)
                for a in sub.args:
                    if (
                        isinstance(a, ast.Name)
                        and a.id in names
                        and kwreads.live(sub, a.id, rebound_at)
                    ):
                        handed.setdefault(a.id, []).append(sub)
        star = func.args.kwarg.arg if func.args.kwarg is not None else None
        typed = func.args.kwarg is not None and kwreads.typed_kwargs(func.args.kwarg.annotation)
        # Passed on: any use of the dict but a key read, a log line or ``_ = kwargs``
        # (forwarded, stored, iterated, tested for leftovers: unknown keys are not
        # silently dropped here).
        named = kwreads.named_keys_only(func, star) if star is not None else set()
        shown = (kwreads.shown_only(func, star) | named) if star is not None else set()
        # Filtered down to the keys of the class it builds (``C(**{k: v ... if k in
        # VALID})``, VALID from C's fields): that class's init path, which drops the rest.
        built = kwreads.builds_filtered(func, star) if star is not None else None
        if built is not None:
            shown |= built.kept
        passed_on = star is not None and _passed_on(func, star, consumed, shown)
        # ``super().__init__(**kwargs)`` / ``X.from_pretrained(**kwargs)``: the dict is
        # forwarded to a base class or a hub API whose parameters the keys are
        # (``tokenizer``, ``vision_config``...): their repetition is that API's, not a
        # string protocol of the code base.
        forwarded = star is not None and any(
            _forwards_to_api(call) for call in star_calls.get(star, ())
        )
        by_name = names_match(
            [*ctx.names(), func.name], (*src.config.fail_fast, *paths.WEIGHT_LOADING_MORE)
        )
        fail_fast = (
            by_name
            or (f"{func.name} -> cls()" if kwreads.builds_cls(func) else None)
            or (f"{func.name} -> {built.callee}()" if built is not None else None)
        )
        if fail_fast and star is not None and passed_on and not src.is_test:
            # Handed only to a check of named keys: the other keys still go nowhere.
            checked = kwreads.checked_only(func, star, src.functions_by_name())
            if checked:
                shown |= checked
                passed_on = _passed_on(func, star, consumed, shown)
        dropped_on = fail_fast if fail_fast and star is not None and not passed_on else None
        if dropped_on is not None and not src.is_test and _interface_catch_all(src, func):
            dropped_on = None  # the base's ``**kwargs`` fixes the signature: not its drop
        # Handed only to the base class's own method: where that method drops unknown
        # keys, so does this plumbing (decided with the change's other files).
        base_def = (
            _base_method(src, func)
            if fail_fast and star is not None and _only_to_super(func, star, consumed, shown)
            else None
        )
        replaced = _replaces(src).get(func.name) if star is not None else None
        drop_read = False  # a new read carries the function's drop or places its ✗
        signature_drop = False  # the function's one ✗ for the drop goes on its signature
        signature: bool | None = None  # whether the change writes the signature
        handed_again: _HandedAgain | None = None  # read once, at the first forwarded read
        for name, key, read in reads:
            line = getattr(read, "lineno", func.lineno)
            if (line, key) in seen:
                continue  # `"k" in kwargs and kwargs["k"]`: one finding a key a line
            added = _read_added(src, read)
            if name in new_params or added:
                seen.add((line, key))
                if forwarded and name == star and handed_again is None:
                    handed_again = _HandedAgain(func, star_calls.get(star, []))
                reason = (
                    _FORWARDED
                    if forwarded
                    and name == star
                    and not (handed_again is not None and handed_again.popped_own(read, key))
                    else ""
                )
                if not reason and name == star and replaced is not None:
                    reason = (
                        f"`{func.name}` stands in for `{replaced[0]}` (line {replaced[1]}), "
                        "so the key is that callable's parameter"
                    )
                if not reason and name == star and _positional_alternative(src, func, read):
                    vararg = func.args.vararg.arg if func.args.vararg is not None else ""
                    reason = (
                        f"the value is also taken positionally from `*{vararg}`: the key is "
                        "the keyword form of a parameter of the signature the function "
                        "mirrors, not a string key of this code base"
                    )
                if not reason and _released_after(read, discarded, handed.get(name, [])):
                    reason = (
                        "the key is dropped after the dict went on whole: the callee "
                        "took it; the pop releases the value"
                    )
                carries = None  # this read carries the function's drop ✗
                if dropped_on is not None and name == star and not src.is_test:
                    # The def line when the change writes it (a new function or
                    # signature: one ✗ for the function), else each new read (an old
                    # line is not reported): a key the file read before is the old
                    # plumbing (⚠, decided with the base in ``kwargs_finding``), a new key
                    # added to it is the ✗.
                    if signature is None:
                        kwarg = func.args.kwarg
                        signature = src.overlaps(func.lineno, func.lineno) or (
                            kwarg is not None and src.node_added(kwarg)
                        )
                    drop_read = True
                    signature_drop = signature_drop or signature
                    carries = None if signature else dropped_on
                if not reason and name in star_calls and not _pops(read):
                    params = kwreads.keyword_params(src.tree) if params is None else params
                    if name not in declaring:
                        declaring[name] = kwreads.declaring_calls(star_calls[name], params)
                    reason = _callee_reason(key, declaring[name])
                if not reason and name not in star_calls and not _pops(read):
                    # Only a dict read and kept (not popped, not forwarded): where it
                    # goes on, the callee decides (above).
                    library = _library_key(src, func, key)
                    if library is not None:
                        reason = (
                            f"`{library[1]}`, where base class `{library[0]}` comes from, "
                            f"declares `{key}`: that library's key, not one of this code base"
                        )
                yield KeyUse(
                    src.path,
                    line,
                    getattr(read, "col_offset", 0) + 1,
                    key,
                    short(src, read),
                    func.name,
                    carries,
                    src.is_test,
                    reason,
                    f"**{name}" if name == star else f"{name}: dict",
                    plain=name not in starred.get(func, ()),
                    handed=name != star and name in starred.get(func, ()),
                    typed=typed and name == star,
                    code=_moved_code(src, line),
                    base_def=base_def if name == star and not src.is_test else None,
                    unchanged=not added,
                )
        if (
            dropped_on is not None
            and by_name is not None  # an alternate constructor's unused dict: its siblings'
            and not src.is_test
            and not drop_read
            and not any(name == star for name, _key, _read in reads)
            and not kwreads.stub(func)
            and not _placeholder(func, _owner(src, func))
            and _own_signature(src, func)
            and not _family_catch_all(src, func)
            and func.args.kwarg is not None
            and not typed  # callers' unknown keys are type errors, not silent drops
            and (src.overlaps(func.lineno, func.lineno) or src.node_added(func.args.kwarg))
            and not _protocol_catch_all(src, func)
        ):
            # A new ``**kwargs`` the body never uses: all dropped.
            signature_drop = True
        filter_drop = (
            dropped_on is not None
            and built is not None
            and not src.is_test
            and not drop_read
            and not signature_drop
            and not _family_catch_all(src, func)
        )
        if filter_drop and built is not None and star is not None:
            if src.overlaps(func.lineno, func.lineno) or (
                func.args.kwarg is not None and src.node_added(func.args.kwarg)
            ):
                signature_drop = True  # a new function's drop: on its signature
            elif src.overlaps(built.line, built.line):
                # An old function the change makes filter its dict: on the filter.
                yield _drop_site(
                    src, func, star, (built.line, func.col_offset + 1), "", dropped_on
                ).with_filter(built.callee)
        if signature_drop and star is not None:
            # On the line declaring ``**kwargs`` when the change adds it (a multi-line
            # signature puts it lines below the ``def``), else on the ``def`` line.
            kwarg = func.args.kwarg
            at = kwarg if kwarg is not None and src.node_added(kwarg) else None
            keys = sorted({key for name, key, _read in reads if name == star})
            text = ", ".join(f'"{k}"' for k in keys[:3]) + (" ..." if len(keys) > 3 else "")
            site = _drop_site(
                src,
                func,
                star,
                (at.lineno, max(at.col_offset - 1, 1))
                if at is not None
                else (func.lineno, func.col_offset + 1),
                # Keys taken out under a computed name (``if hasattr(self, k)``).
                text or ("only the keys its tests keep" if named else ""),
                dropped_on,
            )
            yield site.with_filter(built.callee) if filter_drop and built is not None else site


def _drop_site(
    src: SourceInfo,
    func: kwreads.FunctionDef,
    star: str,
    at: tuple[int, int],
    text: str,
    dropped_on: str | None,
) -> KeyUse:
    """The function's one drop ✗ site at ``at`` (line, column): ``text`` names the keys
    it reads."""
    return KeyUse(
        src.path,
        at[0],
        at[1],
        "",
        text,
        func.name,
        dropped_on,
        src.is_test,
        param=f"**{star}",
        drop_site=True,
        def_line=func.lineno,
    )


_FORWARDED = "the dict is forwarded with `**`, so the key is the callee's parameter"


def _passed_on(func: kwreads.FunctionDef, star: str, consumed: set[int], kept: set[int]) -> bool:
    """Whether ``func`` uses its ``**`` dict other than by the key reads (``consumed``)
    and the uses that keep no other key (``kept``): forwarded, stored, iterated."""
    done = consumed | kept
    return any(
        isinstance(sub, ast.Name) and sub.id == star and id(sub) not in done
        for sub in kwreads.with_lambdas(func, {star})
    )


def _read_added(src: SourceInfo, read: ast.AST) -> bool:
    """Whether the change adds the read itself: a line from the lookup to its key
    (``kwargs.get(`` ... ``"k",``), not only the default after it. mlx-vlm rewrote the
    default of an old ``kwargs.get(\n "max_num_patches",\n max(...),\n)``: the same read
    of the same key, no new lookup (the brief's site is the lookup line)."""
    if isinstance(read, ast.Call) and read.args:
        key = read.args[0]
        return src.overlaps(read.lineno, getattr(key, "end_lineno", None) or key.lineno)
    return src.node_added(read)


def _positional_alternative(src: SourceInfo, func: kwreads.FunctionDef, read: ast.AST) -> bool:
    """Whether the statement holding ``read`` also reads the function's ``*args``:
    ``dim = args[0] if args else kwargs.get("dim")``. A ``(*args, **kwargs)`` function
    taking one value either positionally or under ``"dim"`` re-parses a
    positional-or-keyword parameter of the signature it stands in for (``size(*args,
    **kwargs)`` mirroring ``Tensor.size(dim=None)``): the key is that parameter's name,
    fixed by the mirrored callable, not a string key the code base invents and copies."""
    vararg = func.args.vararg
    if vararg is None:
        return False
    holders = src.per_node("positional_holders", func, lambda: _Holders(func, vararg.arg))
    holder = holders.holder.get(id(read))
    if holder is None or isinstance(holder, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
        return False
    return holders.reads_vararg(holder)


class _Holders:
    """The innermost statement holding each node of a function (a nested ``def`` or
    ``class`` statement is never one; the function itself neither), found in one walk,
    and whether a statement reads ``*args``, once a statement: a function of thousands of
    reads (or one statement of thousands) is not walked again for each."""

    def __init__(self, func: kwreads.FunctionDef, vararg: str) -> None:
        """Index ``func``'s nodes."""
        self.vararg = vararg
        # id(node) -> the innermost statement holding it (itself for a statement).
        self.holder: dict[int, ast.stmt] = {}
        self._reads: dict[int, bool] = {}
        stack: list[tuple[ast.AST, ast.stmt | None]] = [
            (child, None) for child in ast.iter_child_nodes(func)
        ]
        while stack:
            node, holder = stack.pop()
            if isinstance(node, ast.stmt) and not isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            ):
                holder = node
            if holder is not None:
                self.holder[id(node)] = holder
            stack.extend((child, holder) for child in ast.iter_child_nodes(node))

    def reads_vararg(self, holder: ast.stmt) -> bool:
        """Whether ``holder`` loads the ``*args`` name anywhere in it."""
        found = self._reads.get(id(holder))
        if found is None:
            found = self._reads[id(holder)] = any(
                isinstance(node, ast.Name)
                and node.id == self.vararg
                and isinstance(node.ctx, ast.Load)
                for node in ast.walk(holder)
            )
        return found


def _super_call(call: ast.Call, method: str) -> bool:
    """``super().method(...)`` (``super(Cls, self).method(...)`` too)."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == method
        and isinstance(func.value, ast.Call)
        and isinstance(func.value.func, ast.Name)
        and func.value.func.id == "super"
    )


def _only_to_super(
    func: kwreads.FunctionDef, star: str, consumed: set[int], shown: set[int]
) -> bool:
    """Whether the ``**star`` dict goes on only as ``super().<same method>(**star)``:
    every use of it but key reads, log lines and ``_ = star`` is such a call's ``**``."""
    handed: set[int] = set()
    for node in kwreads.body_nodes(func):
        if isinstance(node, ast.Call) and _super_call(node, func.name):
            handed.update(
                id(k.value)
                for k in node.keywords
                if k.arg is None and isinstance(k.value, ast.Name) and k.value.id == star
            )
    if not handed:
        return False
    return all(
        id(node) in handed or id(node) in consumed or id(node) in shown
        for node in kwreads.body_nodes(func)
        if isinstance(node, ast.Name) and node.id == star
    )


def _base_method(src: SourceInfo, func: kwreads.FunctionDef) -> tuple[str, int] | None:
    """(path, line) of the method ``func`` overrides in its class's first base, when that
    base is a class of this file or of the repository module it is imported from (one
    module read, bounded like every module the rules read); else None."""
    owner = next(
        (
            cls
            for cls in kwreads.statements(src.tree.body)
            if isinstance(cls, ast.ClassDef) and any(stmt is func for stmt in cls.body)
        ),
        None,
    )
    if owner is None or not owner.bases:
        return None
    base = owner.bases[0]
    name = unparse(base.value if isinstance(base, ast.Subscript) else base, 200)
    if "." in name:
        return None
    found = _method_line(src.tree, name, func.name)
    if found is not None:
        return src.path, found
    where = _imported_from(src, name)
    if where is None:
        return None
    relpath, path = where
    tree = fakes.module_tree(path)
    found = _method_line(tree, name, func.name) if tree is not None else None
    return (relpath, found) if found is not None else None


def _method_line(tree: ast.Module, cls_name: str, method: str) -> int | None:
    """The ``def`` line of ``cls_name.method`` at the module's top level, if any."""
    for cls in tree.body:
        if isinstance(cls, ast.ClassDef) and cls.name == cls_name:
            for stmt in cls.body:
                if (
                    isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and stmt.name == method
                ):
                    return stmt.lineno
    return None


def _imported_from(src: SourceInfo, name: str) -> tuple[str, str] | None:
    """(repository path, file path) of the repository module ``name`` is imported from
    (``from .profile import Profile``, ``from pkg.profile import Profile``); None when it
    is not imported by name or the module is not in the repository."""
    if src.root is None:
        return None
    for node in src.tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        if not any((alias.asname or alias.name) == name for alias in node.names):
            continue
        if node.level:
            # Relative: the path of the module from this file's directory.
            parts = src.path.split("/")[:-1]
            if node.level - 1 > len(parts):
                return None
            parts = parts[: len(parts) - (node.level - 1)]
            base = "/".join([*parts, *(node.module or "").split(".")]).strip("/")
            hit = fakes.module_file(src.root, base) if base else None
            return (hit[0], hit[1]) if hit is not None else None
        found = _finder(src).find(node.module or "")
        finder_root = _finder(src).root
        if found is None or finder_root is None or not found[0].startswith(finder_root + "/"):
            return None  # installed, not the repository's
        return found[1], found[0]
    return None


def _released_after(read: ast.AST, discarded: set[int], calls: list[ast.Call]) -> bool:
    """``kwargs.pop("k", None)`` as a statement (``discarded``: ids of such values) after
    the dict went on whole (``f(**kwargs)``, ``pickle.dumps(dict(kwargs=kwargs))``): the
    callee already took the key; the pop only drops this frame's reference to its value."""
    return (
        _pops(read)
        and id(read) in discarded
        and any(call.lineno < getattr(read, "lineno", 0) for call in calls)
    )


def _replaces(src: SourceInfo) -> dict[str, tuple[str, int]]:
    """Function name -> (target, line) of each ``obj.attr = self.f`` / ``obj.attr = f``
    of the file (computed once): ``f`` stands in for ``obj.attr`` (a wrapper patched over
    ``model.forward``), so the keys its ``**`` dict receives are that callable's
    parameters (``input_ids``), not a string protocol of the code base."""
    cached = src.cache.get("replaces")
    if isinstance(cached, dict):
        return cached
    found: dict[str, tuple[str, int]] = {}
    for node in kwreads.statements(src.tree.body):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        if not isinstance(target, ast.Attribute) or (
            isinstance(target.value, ast.Name) and target.value.id in ("self", "cls")
        ):
            continue  # ``self.on_done = self._f`` keeps a callback: not a stand-in
        if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
            name = value.attr if value.value.id in ("self", "cls") else None
        else:
            name = value.id if isinstance(value, ast.Name) else None
        if name is not None:
            found.setdefault(name, (unparse(target, 60), node.lineno))
    src.cache["replaces"] = found
    return found


def _finder(src: SourceInfo) -> fakes.Finder:
    """The module finder of the file's repository and ``sys.path`` (shared)."""
    return fakes.finder_for(src.root)


def _library_bases(src: SourceInfo) -> dict[int, list[tuple[str, str]]]:
    """id(method) -> (base, module) of each base class of its class imported from an
    absolute module (``from transformers.processing_utils import ProcessorMixin``,
    ``import diffusers`` then ``diffusers.X``); computed once a file."""
    cached = src.cache.get("library_bases")
    if isinstance(cached, dict):
        return cached
    # Bound name -> the dotted path of what it is bound to.
    imported: dict[str, str] = {}
    for node in src.tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                imported[bound] = alias.name if alias.asname else bound
    found: dict[int, list[tuple[str, str]]] = {}
    for cls in kwreads.statements(src.tree.body):
        if not isinstance(cls, ast.ClassDef):
            continue
        bases: list[tuple[str, str]] = []
        for base in cls.bases:
            if not isinstance(base, (ast.Name, ast.Attribute)):
                continue
            first, _dot, rest = unparse(base, 200).partition(".")
            if first in imported:
                path = imported[first] + (f".{rest}" if rest else "")
                module, _dot, name = path.rpartition(".")
                if module:
                    bases.append((name, module))
        if bases:
            for stmt in cls.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found[id(stmt)] = bases
    src.cache["library_bases"] = found
    return found


def _library_key(src: SourceInfo, func: kwreads.FunctionDef, key: str) -> tuple[str, str] | None:
    """(base, module) when a method's class derives from a class of an installed library
    (not the repository) whose module declares ``key`` as a typed name (a parameter or
    a field: transformers' ``ProcessingKwargs.text_kwargs`` for a ``ProcessorMixin``
    subclass's ``__call__(**kwargs)``): the library's API key, read the library's way."""
    bases = _library_bases(src).get(id(func))
    if not bases:
        return None
    finder = _finder(src)
    for base, module in bases:
        found = finder.find(module)
        if found is None or (finder.root is not None and found[0].startswith(finder.root)):
            continue  # not installed, or the repository's own module
        loaded = finder.load(module)
        if loaded is not None and key in loaded[0].annotations:
            return base, module
    return None


class _Classes:
    """A module's classes, indexed once a module tree (a file of thousands of classes is
    not scanned again for each of their methods): by name (the last definition wins, as
    the module's namespace does), the class each method statement belongs to, and the
    classes by their first base as written. Sibling families are answered once a (base,
    method) pair."""

    def __init__(self, tree: ast.Module) -> None:
        """Index the classes of ``tree``'s top-level statements."""
        classes = [c for c in kwreads.statements(tree.body) if isinstance(c, ast.ClassDef)]
        self.by_name = {c.name: c for c in classes}
        self.owner: dict[int, ast.ClassDef] = {}
        self.by_first_base: dict[str, list[ast.ClassDef]] = {}
        for cls in classes:
            for stmt in cls.body:
                self.owner.setdefault(id(stmt), cls)
            if cls.bases:
                self.by_first_base.setdefault(unparse(cls.bases[0], 200), []).append(cls)
        # (first base, method) -> [(class, whether its ``**`` dict is unused)]
        self._families: dict[tuple[str, str], list[tuple[ast.ClassDef, bool]]] = {}

    def family(self, base: str, method: str) -> list[tuple[ast.ClassDef, bool]]:
        """The methods named ``method`` taking a ``**`` dict in the classes whose first
        base is ``base``: each one's class, and whether it leaves the dict unused."""
        key = (base, method)
        found = self._families.get(key)
        if found is None:
            found = [
                (cls, _unused_kwargs(stmt))
                for cls in self.by_first_base.get(base, ())
                for stmt in cls.body
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
                and stmt.name == method
                and stmt.args.kwarg is not None
            ]
            self._families[key] = found
        return found


_CLASS_INDEXES: weakref.WeakKeyDictionary[ast.Module, _Classes] = weakref.WeakKeyDictionary()


def _classes(tree: ast.Module) -> _Classes:
    """``tree``'s :class:`_Classes`, built once a tree (this file's, or a base's module)."""
    index = _CLASS_INDEXES.get(tree)
    if index is None:
        index = _CLASS_INDEXES[tree] = _Classes(tree)
    return index


def _unused_kwargs(func: ast.stmt) -> bool:
    """Whether ``func`` takes a ``**`` dict its body never names."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or func.args.kwarg is None:
        return False
    star = func.args.kwarg.arg
    return not any(
        isinstance(node, ast.Name) and node.id == star for node in kwreads.body_nodes(func)
    )


def _family_catch_all(src: SourceInfo, func: kwreads.FunctionDef) -> bool:
    """Whether ``func``'s unused ``**kwargs`` is its class family's convention: two or
    more other classes of the module derive from the same base and define the method
    with ``**kwargs``, and most of them leave it unused too (optimum's dummy input
    generators: the exporter hands the whole shape dict to whichever generator class it
    picks). The dispatch fixes the signature, as for the implementations the change
    writes together. Not when the siblings mostly use theirs (a logger passing its
    options on to its library): this one alone drops them."""
    if not _unused_kwargs(func):
        return False
    index = _classes(src.tree)
    owner = index.owner.get(id(func))
    if owner is None or not owner.bases:
        return False
    siblings = [
        unused
        for cls, unused in index.family(unparse(owner.bases[0], 200), func.name)
        if cls is not owner
    ]
    unused = sum(siblings)
    return unused >= 2 and 2 * unused > len(siblings)


# Repository modules read for a ``Protocol`` a class conforms to: those the file imports
# and those they import (one more hop).
_MAX_PROTOCOL_MODULES = 60


def _parameters(args: ast.arguments) -> list[tuple[str, bool]]:
    """(name, has a default) of each named parameter of a method, ``self``/``cls``
    aside, in order."""
    found = [(a.arg, d is not None) for a, d in parameter_defaults(args)]
    return found[1:] if found and found[0][0] in ("self", "cls") else found


def _conforms(method: ast.arguments, protocol: ast.arguments) -> bool:
    """Whether ``method`` takes the ``protocol`` method's named parameters, in order,
    then only parameters with defaults (an implementation's own options)."""
    mine, theirs = _parameters(method), _parameters(protocol)
    if [name for name, _default in mine[: len(theirs)]] != [name for name, _d in theirs]:
        return False
    return all(default for _name, default in mine[len(theirs) :])


def _is_protocol(cls: ast.ClassDef) -> bool:
    """Whether ``cls`` names ``Protocol`` (or ``Protocol[T]``) among its bases."""
    return any(
        last_name(b.value if isinstance(b, ast.Subscript) else b) == "Protocol" for b in cls.bases
    )


def _protocol_methods(src: SourceInfo) -> list[tuple[str, ast.arguments]]:
    """(name, parameters) of each method with ``**kwargs`` and at least one named
    parameter that a repository ``Protocol`` declares, in a module the file imports or one
    those modules import (at most :data:`_MAX_PROTOCOL_MODULES` read; computed once per
    file). A method of ``**kwargs`` alone is left out: every signature would conform to
    it, so a pull request could add one to excuse any dropped key."""
    cached = src.cache.get("protocol_methods")
    if isinstance(cached, list):
        return cached
    finder = _finder(src)
    imported = fakes.imported_modules(src.tree, src.path)
    first = [m for m in imported if fakes.in_tree(finder, m)][:_MAX_PROTOCOL_MODULES]
    second = [
        m
        for m in fakes.imports_of(finder, first, limit=_MAX_PROTOCOL_MODULES)
        if fakes.in_tree(finder, m)
    ]
    found: list[tuple[str, ast.arguments]] = []
    for module in [*first, *second][:_MAX_PROTOCOL_MODULES]:
        tree = finder.tree(module)
        if tree is None:
            continue
        for cls in _classes(tree).by_name.values():
            if not _is_protocol(cls):
                continue
            found += [
                (stmt.name, stmt.args)
                for stmt in cls.body
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
                and stmt.args.kwarg is not None
                and _parameters(stmt.args)
            ]
    src.cache["protocol_methods"] = found
    return found


def _protocol_catch_all(src: SourceInfo, func: kwreads.FunctionDef) -> bool:
    """Whether ``func``'s unused ``**kwargs`` is a repository ``Protocol``'s: one of
    :func:`_protocol_methods` has its name and the named parameters the method starts
    with (mteb's ``EncoderProtocol.__init__(self, model_name, revision, *, device=None,
    **kwargs)``, which each encoder wrapper's ``__init__`` copies before its own
    defaulted options: the loader hands each the same keywords). The structural
    interface fixes the signature, as a base class's does. Text of the repository only;
    nothing is imported."""
    if _owner(src, func) is None or func.args.kwarg is None:
        return False
    return any(
        name == func.name and _conforms(func.args, args) for name, args in _protocol_methods(src)
    )


# Bases that declare no constructor of their own worth matching.
_NO_SIGNATURE_BASES = frozenset({"object", "ABC", "Protocol", "Generic", "NamedTuple"})
# torch's ``nn.Module``: its ``__init__(self, *args, **kwargs)`` raises on any argument
# it is handed (the catch-all is for cooperative multiple inheritance), so a module's own
# ``__init__(**kwargs)`` absorbs no keys of the base's callers (timm's
# ``EvaBlockPostNorm``): its constructor declares no parameters worth matching.
_TORCH_MODULES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
# torch's datasets define no ``__init__`` (``object``'s, which takes nothing): a dataset's
# ``__init__(**kwargs)`` absorbs no keys of the base's callers (bionemo's
# ``SimpleCodonDataset``), whether torch is installed where the sweep runs or not.
_TORCH_DATASETS = frozenset(
    {
        f"torch.utils.data{module}.{name}"
        for module in ("", ".dataset")
        for name in ("Dataset", "IterableDataset")
    }
)


def _no_signature_base(src: SourceInfo, func: kwreads.FunctionDef, base: ast.expr) -> bool:
    """Whether ``base`` declares no ``func`` of its own worth matching: a torch module's
    or dataset's constructor."""
    if func.name != "__init__":
        return False
    return src.qualname(base) in _TORCH_MODULES | _TORCH_DATASETS


# The abstract collections (``class BaseNode(Iterator[T])``): no method of theirs takes
# keywords a subclass's ``**kwargs`` would absorb, when imported from these modules.
_ABSTRACT_BASES = frozenset(
    {
        "AsyncIterable",
        "AsyncIterator",
        "Collection",
        "Container",
        "Iterable",
        "Iterator",
        "Mapping",
        "MutableMapping",
        "MutableSequence",
        "MutableSet",
        "Reversible",
        "Sequence",
        "Sized",
    }
)
_ABSTRACT_HOMES = frozenset({"typing", "typing_extensions", "collections.abc"})


@dataclasses.dataclass(frozen=True)
class _BaseHome:
    """One base class of a method's class: its name, the module tree that defines it
    (this file's for a local class; None when not found or not parsed), and for an
    imported one its attribute names (None when the class is not found)."""

    name: str
    node: ast.expr
    local: bool
    tree: ast.Module | None
    fields: frozenset[str] | None


def _base_homes(src: SourceInfo, func: kwreads.FunctionDef) -> Iterator[_BaseHome]:
    """Each base of the class whose body defines ``func`` (none for a module-level
    function), resolved in this file or through its imports (the file's import aliases:
    ``from m import Base as B``, ``import m`` then ``m.Base``; re-exports followed a few
    hops)."""
    owner = _owner(src, func)
    if owner is None:
        return
    local = _classes(src.tree).by_name
    for base in owner.bases:
        node = base.value if isinstance(base, ast.Subscript) else base
        name = unparse(node, 200).rpartition(".")[2]
        if isinstance(node, ast.Name) and name in local:
            yield _BaseHome(name, node, True, src.tree, None)
            continue
        module, _dot, defined = (src.qualname(node) or "").rpartition(".")
        home = _class_home(src, module, defined) if module else None
        if home is None:
            yield _BaseHome(name, node, False, None, None)
            continue
        module, fields = home
        tree = _base_module(src, module) if func.name in fields else None
        yield _BaseHome(name, node, False, tree, fields)


def _own_signature(src: SourceInfo, func: kwreads.FunctionDef) -> bool:
    """Whether ``func`` is not an override of a base class's method of the same name: a
    module-level function, or a method whose every base (typing's ``Protocol``, ``ABC``
    and ``Generic`` aside) is a class of this file or of a module found in the repository
    or on the path that does not declare it. An override's ``**kwargs`` absorbs what the
    base's callers pass every implementation (vLLM's ``AttentionImpl.__init__``): the
    interface's, not this signature's keys. A base that cannot be found: not known."""
    classes = _classes(src.tree).by_name
    for base in _base_homes(src, func):
        if base.name in _NO_SIGNATURE_BASES or _no_signature_base(src, func, base.node):
            continue
        package, _dot, last = (src.qualname(base.node) or "").rpartition(".")
        if last in _ABSTRACT_BASES and package in _ABSTRACT_HOMES:
            continue
        if base.local:
            if any(
                isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == func.name
                for stmt in classes[base.name].body
            ) and not _takes_nothing(src.tree, base.name, func.name):
                return False
            continue
        if base.fields is None:
            return False
        if func.name in base.fields and not _takes_nothing(base.tree, base.name, func.name):
            return False
    return True


def _owner(src: SourceInfo, func: kwreads.FunctionDef) -> ast.ClassDef | None:
    """The class of the module whose body defines ``func``, or None."""
    return _classes(src.tree).owner.get(id(func))


def _interface_catch_all(src: SourceInfo, func: kwreads.FunctionDef) -> bool:
    """Whether ``func`` overrides a base class method that itself takes ``**kwargs``
    (optimum-intel's ``IPEXModel.__init__``, huggingface_hub's
    ``ModelHubMixin._from_pretrained(**model_kwargs)``): the family's callers hand every
    implementation the same dict (``cls(model, **kwargs)`` after ``from_pretrained``
    took its share), so dropping the keys one class does not read is the interface's
    contract, a signature the base class fixes (reading 4), not this function's silent
    drop. A base of this file or of a module found in the repository or on the path."""
    for base in _base_homes(src, func):
        if _no_signature_base(src, func, base.node):
            continue
        args = _declares(base.tree, base.name, func.name) if base.tree is not None else None
        if args is not None and args.kwarg is not None:
            return True
    return False


# Re-exports followed to the module that defines an imported base class.
_MAX_REEXPORTS = 3


def _class_home(
    src: SourceInfo, module: str | None, name: str
) -> tuple[str, frozenset[str]] | None:
    """(defining module, attribute names) of class ``name`` imported from ``module``,
    through the re-exports of a package's ``__init__`` (Lightning's ``from
    lightning.pytorch.core.mixins import HyperparametersMixin``, defined in
    ``mixins/hparams_mixin.py``), a few hops; None when it is not found."""
    finder = _finder(src)
    for _hop in range(_MAX_REEXPORTS + 1):
        loaded = finder.load(module) if module else None
        if loaded is None:
            return None
        parsed, relpath = loaded
        if name in parsed.fields:
            return module or "", parsed.fields[name]
        target = parsed.imports.get(name)
        if target is None:
            return None
        source, _colon, name = target.partition(":")
        module = fakes.absolute_module(source, module or "", relpath.endswith("__init__.py"))
    return None


def _placeholder(func: kwreads.FunctionDef, owner: ast.ClassDef | None) -> bool:
    """A ``(*args, **kwargs)`` function that uses neither and sets nothing on ``self``:
    a placeholder taking anything (diffusers' dummy objects, whose ``__init__`` only
    calls ``requires_backends``; grain's no-op ``TraceAnnotation``, a class of methods
    that do nothing, whose ``__init__`` only deletes both), not an initializer that
    drops the keys it is given (Lightning's ``LightningDataModule.__init__`` sets its
    attributes: ✗; orbax's ``LustreClient``, a working client whose ``__init__`` deletes
    both: ✗)."""
    vararg = func.args.vararg
    if vararg is None:
        return False
    null = owner is not None and _does_nothing(owner)
    for node in kwreads.body_nodes(func):
        if (
            isinstance(node, ast.Name)
            and node.id == vararg.arg
            and not (null and isinstance(node.ctx, ast.Del))
        ):
            # ``*args`` goes on (or is deleted by a class that works): the keywords
            # alone are dropped.
            return False
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            return False
    return True


def _does_nothing(cls: ast.ClassDef) -> bool:
    """Whether every method of ``cls`` does nothing: a docstring, ``pass``, ``...``,
    ``del`` of its parameters and ``return None`` only (a null object standing in for
    a real one)."""
    for stmt in cls.body:
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for inner in stmt.body:
            if isinstance(inner, (ast.Pass, ast.Delete)):
                continue
            if isinstance(inner, ast.Expr) and isinstance(inner.value, ast.Constant):
                continue  # a docstring or ``...``
            if isinstance(inner, ast.Return) and (
                inner.value is None
                or (isinstance(inner.value, ast.Constant) and inner.value.value is None)
            ):
                continue
            return False
    return True


# Same-module bases followed to find where a class's method is declared.
_MAX_BASE_STEPS = 5


def _declares(tree: ast.Module, cls_name: str, method: str) -> ast.arguments | None:
    """The parameters of ``method`` as class ``cls_name`` of ``tree`` declares it or
    inherits it from a base class of the same module (a few steps); None when neither
    does."""
    classes = _classes(tree).by_name
    todo = [cls_name]
    for _step in range(_MAX_BASE_STEPS):
        if not todo:
            break
        cls = classes.get(todo.pop(0))
        if cls is None:
            continue
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == method:
                return stmt.args
        todo.extend(b.id for b in cls.bases if isinstance(b, ast.Name))
    return None


def _takes_nothing(tree: ast.Module | None, cls_name: str, method: str) -> bool:
    """Whether the base's ``method`` takes no parameter but ``self`` (lm-eval's
    ``LM.__init__(self)``): a base that declares no keywords for its callers to pass
    every subclass, so an override's ``**kwargs`` is that subclass's own signature, not
    an interface's catch-all."""
    args = _declares(tree, cls_name, method) if tree is not None else None
    return (
        args is not None
        and len(args.posonlyargs) + len(args.args) <= 1
        and not args.kwonlyargs
        and args.vararg is None
        and args.kwarg is None
    )


def _base_module(src: SourceInfo, module: str) -> ast.Module | None:
    """The parsed module a base class is imported from (bounded like every module the
    rules read), or None."""
    return _finder(src).tree(module)


class _HandedAgain:
    """What the calls a dict goes on to whole are handed again besides it, read once per
    function (a pull request's function of thousands of pops stays linear)."""

    def __init__(self, func: kwreads.FunctionDef, calls: list[ast.Call]) -> None:
        """Index the keywords and names ``calls`` pass, and the names each value of
        ``func``'s body is bound to."""
        self.keywords = {k.arg for call in calls for k in call.keywords if k.arg is not None}
        self.names = {
            v.id
            for call in calls
            for v in [*call.args, *(k.value for k in call.keywords if k.arg is not None)]
            if isinstance(v, ast.Name)
        }
        self.bound: dict[int, set[str]] = {}
        for node in kwreads.body_nodes(func):
            if isinstance(node, ast.Assign):
                self.bound.setdefault(id(node.value), set()).update(
                    kwreads.names_bound_to([node], node.value)
                )

    def popped_own(self, read: ast.AST, key: str) -> bool:
        """``kwargs.pop("image_size")`` before ``X.from_pretrained(path, **kwargs)``: the
        pop takes the key out, so the callee never receives it (optimum-executorch's
        object detection loader): the function's own key, not the callee's parameter.
        Not when a call the dict goes to is handed the value again: by the key's name
        (``torch_dtype=torch_dtype``), or as the local the pop was assigned to (an HF
        processor's ``tokenizer = kwargs.pop("tokenizer")``, then ``super().__init__(
        image_processor, tokenizer, **kwargs)``)."""
        if not _pops(read) or key in self.keywords:
            return False
        return not (self.bound.get(id(read), set()) & self.names)


def _pops(read: ast.AST) -> bool:
    """``d.pop("k")``: the key is taken out of the dict (a callee the dict goes on to
    never receives it: this function is the key's reader)."""
    return (
        isinstance(read, ast.Call)
        and isinstance(read.func, ast.Attribute)
        and read.func.attr == "pop"
    )


def _callee_reason(key: str, declaring: dict[str, ast.Call]) -> str:
    """Why a read that leaves its key in the dict is a callee's parameter, or ``""``:
    ``f(**d)`` after the read, so the key still reaches ``f``, which must be a function
    or class of this file declaring ``k`` (a callee taking ``**kwargs`` or one this file
    cannot see proves nothing). ``declaring``: the first such call of each key
    (:func:`kwreads.declaring_calls` of the dict's ``f(**d)`` calls).

    A value read and passed on under the key's own name (``f(k=d.get("k"))``) is no
    such reason: the literal is still written in this file, a misspelt key still
    silently reads the default, and a copy of it in another file is the duplicated
    key the ✗ is for.
    """
    call = declaring.get(key)
    if call is None:
        return ""
    callee = unparse(call.func, 60)
    return f"the dict is forwarded with `**` to `{callee}`, so the key is the callee's parameter"


_API_SUFFIXES = ("from_pretrained", "from_config")


def _forwards_to_api(call: ast.Call) -> bool:
    """``super().f(...)``, ``X.from_pretrained(...)``, ``X.from_config(...)``."""
    func = call.func
    if isinstance(func, ast.Attribute):
        base = func.value
        if (
            isinstance(base, ast.Call)
            and isinstance(base.func, ast.Name)
            and base.func.id == "super"
        ):
            return True
        return func.attr.endswith(_API_SUFFIXES)
    return isinstance(func, ast.Name) and func.id.endswith(_API_SUFFIXES)


def _param_is_new(src: SourceInfo, func: kwreads.FunctionDef, name: str) -> bool:
    """Whether the change adds parameter ``name`` (its line added, not merely edited)."""
    params = [*kwreads.named_params(func), func.args.kwarg, func.args.vararg]
    for param in params:
        if param is None or param.arg != name:
            continue
        if not src.node_added(param):
            return False
        old = src.replaced_text(param.lineno)
        return re.search(rb"\b" + re.escape(name.encode()) + rb"\b", old) is None
    return False


OWN_FILE = "this file read it before the change"


def read_before(key: str, base_path: str, before: dict[str, set[str]]) -> str:
    """Why ``key`` is not new to the change: the base revision already read it from
    kwargs, in this file (``base_path``, its path before a rename) or in another non-test
    file; else ``""``.

    The ✗ is for a change that introduces a new string key: a key the base
    already reads is an existing option of the code base, and one more copy of it is the
    backlog's duplication (⚠); a key no base file read, that the change reads in two
    files, is the ✗."""
    files = before.get(key, set())
    if base_path in files:
        return OWN_FILE
    others = sorted(files - {base_path})
    if not others:
        return ""
    more = f" and {len(others) - 1} more" if len(others) > 1 else ""
    return f"{others[0]}{more} read it from kwargs before the change"


def _interface_catch_alls(uses: Sequence[KeyUse]) -> set[tuple[str, int]]:
    """The unused-``**kwargs`` drop sites (the body never reads the dict) that the change
    writes as one of several implementations of the same function: the same name with
    an unused ``**kwargs`` twice or more in the change (``load_checkpoint`` of each
    distributed backend's plugin module, the ``__init__`` of each merge-strategy class
    of one module). Their callers pass one set of keys to whichever implementation is
    picked, so the catch-all is the interface's signature, fixed by the dispatch, not
    this function's own: the convention's ✗ is for an unused ``**kwargs`` "whose
    signature is not fixed by a base class/framework callback". A constructor counts
    only with its siblings of the same file: every class has an ``__init__``, so two
    in unrelated files say nothing of a shared interface."""
    unused = [u for u in uses if u.drop_site and not u.text and not u.in_test]

    def interface(use: KeyUse) -> str:
        return f"{use.path}:{use.function}" if use.function == "__init__" else use.function

    where: dict[str, set[str]] = {}
    for use in unused:
        where.setdefault(interface(use), set()).add(f"{use.path}:{use.def_line or use.line}")
    return {(u.path, u.line) for u in unused if len(where[interface(u)]) > 1}


def through_bases(uses: Sequence[KeyUse]) -> list[KeyUse]:
    """The uses, a read handed on with ``super().f(**kwargs)`` to a base method that the
    change makes drop unknown keys (its own ✗ among ``uses``) now carrying that drop:
    the key is one more of the plumbing's keys, and a misspelt one is dropped there.
    Without the unused catch-alls of one interface's implementations
    (:func:`_interface_catch_alls`): the dispatch fixes their signature."""
    catch_alls = _interface_catch_alls(uses)
    drops = {(u.path, u.def_line or u.line): u for u in uses if u.drop_site}
    out: list[KeyUse] = []
    for use in uses:
        if use.drop_site and (use.path, use.line) in catch_alls:
            continue
        base = drops.get(use.base_def) if use.base_def is not None else None
        if base is not None and not use.dropped_on and not use.drop_site:
            # Named by the line of the base's own ✗, which a reader finds in the report.
            use = dataclasses.replace(use, dropped_on=use.function, base_def=(base.path, base.line))
        out.append(use)
    return out


def _moved_code(src: SourceInfo, line: int) -> bytes:
    """:func:`moved_line` of head line ``line`` (empty past the end), once a line: one
    line of thousands of reads is not split again for each."""
    codes = src.cache.setdefault("moved_codes", {})
    assert isinstance(codes, dict)
    code = codes.get(line)
    if not isinstance(code, bytes):
        code = moved_line(src.byte_lines[line - 1]) if line <= len(src.byte_lines) else b""
        codes[line] = code
    return code


def moved_line(line: bytes) -> bytes:
    """A line as a move is matched: without whitespace and trailing commas, so a read
    re-indented, re-wrapped or turned from ``x = d.get("k")`` into the argument
    ``x=d.get("k"),`` is the same line."""
    return b"".join(line.split()).rstrip(b",")


def moved_reads(uses: Sequence[KeyUse], removed: Sequence[bytes]) -> set[int]:
    """Indexes of the reads the change moved: it removes as many lines like the read's
    (:func:`moved_line`) as it adds, anywhere in the diff (``git diff --color-moved``).
    A reviewer reads a moved block as moved, not new."""
    added: dict[bytes, set[tuple[str, int]]] = {}
    for use in uses:
        if use.code and not use.drop_site:
            added.setdefault(use.code, set()).add((use.path, use.line))
    if not added or not removed:
        return set()
    gone: dict[bytes, int] = {}
    for line in removed:
        code = moved_line(line)
        if code in added:
            gone[code] = gone.get(code, 0) + 1
    moved = {code for code, lines in added.items() if gone.get(code, 0) >= len(lines)}
    return {index for index, use in enumerate(uses) if use.code in moved and not use.drop_site}


def kwargs_finding(
    use: KeyUse,
    other_files: list[str],
    constants: list[str],
    before: str = "",
    moved: bool = False,
    spelled: Sequence[str] = (),
) -> Finding | None:
    """The finding for one key read, given the other non-test files reading the same key
    from a kwargs dict, the module constants holding it, and why the key is not new to
    the change (``before``: the base already read it; the ✗ is for a *new* key).
    ``spelled``: the other non-test files whose added lines spell the key as a literal
    none of them held before (the writer's half of a new key: ``{"k": v}`` handed on
    with ``**``, ``k in ["k", ...]``).

    None for a read of a plain dict parameter (``use.plain``): the rule is for a
    ``**kwargs`` signature (a hook's ``kwargs: dict``, a model dump handed to a helper
    holds keys a signature or a schema fixed); such a read still counts as another
    file reading the key for a ``**kwargs`` read's ✗."""
    if use.plain:
        return None
    if use.drop_site:
        if use.param.startswith("**_"):
            # ``**_`` names the extra keys as ignored on purpose (vllm-omni's
            # ``ResnetBlock(..., **_: object)``): not silent, but a misspelt key goes with
            # them, and renaming the dict must not hide the drop.
            message = (
                f"`{use.function}({use.param})` names the keys it drops as ignored: "
                f"unknown keys, a misspelt one too, are dropped on fail-fast path "
                f"`{use.dropped_on}`"
            )
            return Finding(use.path, use.line, use.col, "kwargs-lookup", message, WARN)
        if use.filtered_for:
            message = (
                f"`{use.function}({use.param})` keeps only the keys `{use.filtered_for}` "
                f"takes and drops the rest: a misspelt key is silently dropped on "
                f"fail-fast path `{use.dropped_on}`"
            )
            return Finding(use.path, use.line, use.col, "kwargs-lookup", message, BLOCK)
        reads = f"reads {use.text} and never passes" if use.text else "never reads or passes"
        message = (
            f"`{use.function}({use.param})` {reads} the dict on: "
            f"unknown keys are silently dropped on fail-fast path `{use.dropped_on}`"
        )
        return Finding(use.path, use.line, use.col, "kwargs-lookup", message, BLOCK)
    if use.typed:
        # ``**kwargs: Unpack[TD]``: the string key is the pattern (⚠), but the TypedDict
        # declares it, so a misspelling is a type error: no drift between files, no
        # silent drop (no ✗).
        use = dataclasses.replace(use, dropped_on=None)
        other_files, spelled = [], []
    if use.dropped_on and before == OWN_FILE:
        # The function's old plumbing read this key before: a rewritten read is ⚠; the
        # ✗ is for a key the change adds to a function that drops unknown keys.
        use = dataclasses.replace(use, dropped_on=None)
    if use.in_test:
        # A test's kwargs are neither the duplicated production key nor a fail-fast path:
        # copies of a test helper reading one new key (chainlit's three
        # ``create_mock_run(**kwargs)``) fail their own tests, never ship (⚠).
        other_files = []
        use = dataclasses.replace(use, dropped_on=None)
    if before and not use.forwarded and 1 <= len(other_files) <= MAX_CLUSTER and not constants:
        use = dataclasses.replace(use, forwarded=f"not a new key: {before}")
    if 1 <= len(other_files) <= MAX_CLUSTER and not constants and not use.forwarded:
        shown = ", ".join(other_files[:3]) + (" ..." if len(other_files) > 3 else "")
        message = (
            f'`{use.text}`: key "{use.key}" is also read from a kwargs dict in {shown} '
            "with no shared module constant"
        )
        return Finding(use.path, use.line, use.col, "kwargs-lookup", message, BLOCK)
    if (
        spelled
        and len(spelled) <= MAX_CLUSTER
        and not (other_files or constants or before or moved)
        and not (use.forwarded or use.in_test)
    ):
        shown = ", ".join(spelled[:3]) + (" ..." if len(spelled) > 3 else "")
        message = (
            f'`{use.text}`: key "{use.key}" is new and the change also spells it in {shown} '
            "with no shared module constant"
        )
        return Finding(use.path, use.line, use.col, "kwargs-lookup", message, BLOCK)
    if use.handed:
        # A dict another function's ``**kwargs`` hands whole to this one's plain
        # parameter (``self._setup(kwargs)``): no ``**kwargs`` signature here, so not the
        # ⚠; a new key it repeats across files is still the ✗ above.
        return None
    if use.unchanged and before == OWN_FILE:
        # An untouched line reading a key this file read before: the change wrapped the
        # old read in a new function (its own ``**kwargs``), it wrote no lookup.
        return None
    if moved and before and not use.dropped_on:
        # A moved read of a key the base already read is not a new instance (⚠); a
        # moved read never hides a new key, nor a ✗.
        return None
    if use.typed:
        message = (
            f"`{use.text}` in `{use.function}({use.param})` reads a key by its string; "
            "`Unpack[...]` types it, so a type checker checks it against the TypedDict"
        )
        return Finding(use.path, use.line, use.col, "kwargs-lookup", message, WARN)
    message = (
        f"`{use.text}` in `{use.function}({use.param})` reads a string key no type checker sees"
    )
    if use.dropped_on:
        message += f"; unknown keys are silently dropped on fail-fast path `{use.dropped_on}`"
        if use.base_def is not None:
            message += f" (by the base method at {use.base_def[0]}:{use.base_def[1]})"
    elif constants:
        message += f"; use the constant at {constants[0]}"
    elif other_files and use.forwarded:
        message += f"; {use.forwarded}"
    elif other_files:
        message += f"; {len(other_files)} other files read the same key from **kwargs"
    return Finding(
        use.path, use.line, use.col, "kwargs-lookup", message, BLOCK if use.dropped_on else WARN
    )


def check(source: SourceFile, config: Config) -> list[Finding]:
    """kwargs-lookup on its own: each read with the verdict one file can give.

    In a sweep the reads are also left on the source (``key_uses``): the run decides
    the cross-file ✗ once for the whole change and replaces these findings.
    """
    uses = list(kwargs_lookup(sweep_info(source, config)))
    if isinstance(source, SweepSource):
        source.key_uses.extend(uses)
    found = (kwargs_finding(use, [], []) for use in uses)
    return [finding for finding in found if finding is not None]


RULE = register(
    sweep_rule(
        "kwargs-lookup",
        "`**kwargs` string-key reads on added lines; ✗ when the key is repeated in another "
        "file or unknown keys are dropped on a fail-fast path",
        check,
        DOC,
        prefilter=lambda data, config: b"**" in data or b"kwargs" in data,
    )
)
