# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``any-annotation`` (sweep, added lines): ``Any`` and untyped signatures, provably
wrong return annotations, and ``SimpleNamespace`` test fakes of real classes.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import functools
import operator
import re
from collections.abc import Callable, Container, Iterator

from policytool.config import Config
from policytool.engine.findings import Finding
from policytool.engine.registry import register
from policytool.engine.source import SourceFile
from policytool.rules import _fake_hf, _fake_owner, _fake_packages, _fake_slots
from policytool.rules import _fake_replaced as replaced
from policytool.rules import _fakes as fakes
from policytool.rules import _kwreads as kwreads
from policytool.rules import _parametrize as parametrize
from policytool.rules import _wrong_annotation as wrong
from policytool.rules._pyast import last_name
from policytool.rules._pysource import (
    TRY_NODES,
    SourceInfo,
    sweep_info,
    union_items,
    unparse,
    unquoted,
)
from policytool.rules._sweep import BLOCK, CONFIG_DOC, WARN, finding, short, sweep_rule

DOC = f"""\
## What it checks
In production code (not `test-paths`), on added lines: `Any` leaking into a new
signature, a `: Any` parameter, class attribute or module variable, a `-> Any` return,
or a function with no annotation at all (⚠). Not reported: `*args: Any` / `**kwargs:
Any`, the standard pass-through form (what is forwarded is the callee's contract, which
the type checker still applies at the call it forwards to), and a local variable's `x:
Any` inside a function body (no signature: nothing outside the function sees it;
`self.x: Any` declares an attribute and is reported). A function with no annotation at
all is reported whether public or private, module-level, method or nested, whose `def`
line the change adds (a parameter added to an old `def` does not make it new). A
function with no parameters (besides `self`/`cls`) that only lacks its return type gets
"add `-> None`" (or its return type). A module's `__getattr__`/`__dir__` returning `Any`
(PEP 562 lazy exports) is not reported. `**kwargs: dict[...]` (or `Optional[dict]`) is ✗:
it says every
*value* is a dict, which is almost never meant (`**kwargs: Unpack[SomeTypedDict]` is); so
is `*args: Tuple[int]` or `Tuple[Tensor, ...]` (every positional argument a tuple), but not
`*pairs: tuple[str, str]`, a fixed-length tuple that types each argument as a pair. A
provably wrong return annotation is ✗: `-> bool` (any builtin that cannot hold None,
`List[Dict]` too) that returns None (or `x if c else None`, or, as its last statement,
a local the body sets to None and then binds again only under `if` statements without
an `else`, reading it nowhere else: `outputs = None`, `if self.is_engine: outputs =
...`, `return outputs` is None whenever no condition holds; a loop, an `else`, a test of
the name or an unconditional rebinding decide otherwise) or falls off its end (so does `-> T` of a
class that cannot hold None, a CamelCase class imported from a package that is not
installed too, `-> StateGraph` over a body that only stores the graph it builds: a `try`
that returns whose `except` only logs or prints; a body that ends in a call, `with
tarfile.open(p) as tar: tar.extractall(d)` under `-> str`, unless the callee may end the
run: one named for it, `sys.exit`, `os.execv`, `parser.error`, `self.fail`, `abort(404)`,
`assert_never`, `_raise_unsupported`, `handle_exception`, or a function of the module that
never returns, `raise` on every path or `-> NoReturn`; a loop whose `else` returns or
raises and that no `break` leaves, or a `while True` without a `break`, does not fall off;
nor does a retry loop, `for attempt in range(retries):` over a `try` that returns whose
handlers end the run, or do so on the last round (`if attempt + 1 == retries: raise`,
`if attempt < retries - 1: sleep(...) else: raise`): it falls through only with zero
retries; nor does a last `if`/`elif` chain of `isinstance(p, ...)` tests, each returning, whose
classes cover every member of the parameter's own annotation, `prompt: str | list[dict]`:
it falls through only with a value the declared types exclude; consecutive `if` statements
that each return read as one chain; nor do `if` chains comparing one name with members of
one `Enum`, `if vlm ==
VLM.PALIGEMMA:` / `is` / `in (VLM.A, VLM.B)`, each returning, that cover every member of
that enum, of this module or imported from one: only a value outside it falls through),
`-> None` that returns a value (a literal, a display, a method's own `self`, a class it
builds, or a name it binds to a value: a parameter without a None default, a local it
assigns, loops over or takes from `with`; NeMo's `save_checkpoint(...) -> None` returning
its `async_save_request`; not a call of anything else, which may give None), `-> T` (a class,
`torch.Tensor`, a `typing` generic) with an explicit `return None`, a bare `return` or a
conditional None, or with a `return` of a call whose function is annotated to return an
Optional (`-> Optional[X]`, `-> X | None`, `Union[X, None]`; the function a
module-level `def` of the file that is the name's only binding, one an imported module
defines, or `self.method(...)` of the same class; not `f(x) or default`, not a name the
function binds) or of `self.key` / `self.definition.key` that the class (or the module's
class it annotates `definition` with) declares Optional, a field or a `self.key: T`, when
the function reads it nowhere else (an `assert` or `if` on it narrows) and no method sets
`self.key` to a value (a set-up method's field is None only before it runs), and
`-> dict[...]` (`list`, `tuple`, `set`, `bool`, `int`, `str`,
`float`, `bytes`) returning a literal of another kind (`return a, b`), or a call of a
builtin that always gives one builtin type (`dict(...)`, `dict.fromkeys(...)`, `list(...)`,
`tuple(...)`, `set(...)`, `frozenset(...)`, `str(...)`, `int(...)`, `float(...)`,
`bool(...)`, `bytes(...)`, `sorted(...)`, `len(...)`, `repr(...)`, `"sep".join(...)`;
not when the file or the function binds that name itself; and `await asyncio.gather(...)`,
a list, when the module imports `asyncio` and never rebinds it), or a local name every binding
of which gives one such kind (`rewards = []`, appended to, `return rewards`; not a name
also bound by a call, a loop, unpacking or as a parameter): `-> float` returning
`dict.fromkeys(keys, res)`; under a signature the change writes, a call of a function
(the same certain callees as for an Optional above, a method defined once: not an
`@overload`ed one) annotated with a union naming a builtin kind the declared builtin
rejects, `-> float` returning `self.generate_score(...)` annotated `-> float |
tuple[float, dict]`; under a new `-> C` (or `C | None`, a union of classes; not a
dunder's) a return of `D(...)` where `C` and `D` are classes of the repository and `D`
derives from no member (`to_cache(...) -> FileCacheLazy` returning a sibling
`CacheFileLazy(...)`): the bases are read through the repository's modules as written
(`Base[T]` as `Base`), a base from outside the repository ends the walk, since it cannot
derive from a repository class, and a `Protocol` member, a star import, a computed base, a
repository module that cannot be read or a hierarchy past 12 classes leave it unreported;
an annotation that is a literal display, `-> [str, str]` or
`ids: (int, str)`, which is no type (the message names the type meant, `tuple[str, str]`;
a return tuple display that every return keeps, `-> (dict, bool)` over `return {{}},
False`, each a display of as many items and none a `None` where the display names a type
that cannot hold it, is ⚠: no type, but no reader is misled about the shape; a function
returning a call of one under another builtin, `-> dict` over `return kept(...)`, returns
the tuple it states, ✗);
a generator function (its body yields; no decorator but `staticmethod`/`classmethod`
wraps it, `@contextmanager` makes something else of it) annotated with a builtin,
`get_all_loop(...) -> list` over `yield from values`, when the change writes the
annotation or the signature, or adds a `yield` to a function its base version did not
make a generator (a `yield` only re-indented is the base's): calling it gives a
generator (the message says
`Iterator[...]`, `AsyncIterator[...]` for an `async def`), and so does a function with
a builtin annotation returning a call of such a generator of the file (a module-level
`def`, `self.method(...)`) directly or through a local bound once to it (`issues =
self.get_all_loop(...)`, `return issues`);
a parameter, return, attribute or variable annotation naming the builtin function
`callable` or `any`, or a `lambda`, as a type, at any depth (`reward_fns:
List[callable]`, `-> any`, `backend: lambda s: Backend[s] = field(...)`,
`model_kwargs: dict[str, any] = {{}}`; not when the file binds the name itself): a type
checker rejects it, the message names `Callable[..., T]` or `Any`; so is a well-known
factory or module written as a type, by the name the file's imports resolve it to:
`torch.tensor` (`torch.Tensor`), `np.array` (`numpy.ndarray`), `Image` imported with
`from PIL import Image` (the module; its class is `Image.Image`), `namedtuple` (the
factory; `typing.NamedTuple` or the class it made is the type);
an array or tensor annotation (`np.ndarray`, `torch.Tensor`, `torch.FloatTensor`) over a
returned `x.item()` (a Python number) or `x.tolist()` (a list), directly or as an item
of a returned tuple display under `-> tuple[A, B]` (optuna's `return fval.item(),
grad.ravel()` under `-> tuple[np.ndarray, np.ndarray]`), when the change writes the
annotation or the signature;
`-> tuple[str]` (one item; `tuple[str, ...]` is any number) returning a tuple of another
length: a display (`return a, b`) or a local bound once to one and only grown with `+=`
of displays (`names = ("w", "s")`, `names += (...)`: two or more); `-> tuple[A, B, C]`
(a fixed length of two or more) returning a display of another length (`return out,
weights`; not a display with a `*` item), or of that length with `None` where an item
cannot hold it (`-> Tuple[torch.Tensor, dict]` returning `z, None`; a class imported
from a package not installed, gpytorch's `Kernel`, reads as one that cannot), or with an
item of a builtin kind its builtin item annotation rejects (`-> tuple[list[int], ...]`
returning `dims_to_keep, fn` where `dims_to_relax, dims_to_keep = {{}}, {{}}`, or a
parameter annotated `dict[...]` the function never rebinds); an old `return` the change
rewrites is read for the items whose text it changes (`return mean, None` in place of
`return mean, task_kernel`: item 2 is the change's), reported at that return;
a parameter the change annotates `tuple[X]` (one item, also inside `Optional`) that its
own function uses as a tuple of any length: loops over it, takes its `len`, indexes it
past item 0 or by a name, slices, unpacks (`*shape`) or searches it (`x in names`), as
chatlearn's `models: Tuple[BaseModule]` looped over: the message says `tuple[X, ...]`
(not a name the function rebinds first);
`typing.Self` (quoted or not) in the signature of a function no class encloses, `def
load(path) -> "Self"` moved out of a class to module level: it names no class there (PEP
673; mypy and pyright reject it), reported at the `def` line (not a module-level function
whose first parameter is `self` or `cls`, a method a class is given later);
an unannotated parameter whose default is a type, `batch=Optional[Dict[str, Any]]` (`=`
written for `:`: the default is the typing object, never None; a subscripted typing
construct or builtin generic, `list[int]`, `X | Optional[Y]`); a new `-> T` or
`-> A | B` (not a dunder's), or an old one over a signature the change rewrites
(`convert_and_build(..., engine_save_path=None) -> Path` now returning `folder, rel`),
returning a literal no member can hold (`-> torch.Tensor | IntermediateTensors`
returning `hidden, aux`; pathlib's `Path` holds none either: a member holds it when it is
`tuple`, `Sequence`, a class with bases or an unknown name). A wrong return is reported
once, on the line carrying `->` when the change adds the annotation or that line (a
multi-line signature has it below the `def`), on the `def` line when the change edits the
signature elsewhere (a parameter added to it; its returns listed), else at each added
return: a return whose `return` line the change adds, and not in place of a return of the
same kind (`return a, b` rewritten as `return a, b, c` under an old `-> List[...]` leaves
the mismatch as old as it was). Under an old annotation, a fall-off is the change's only
when it edits the last statement and either the signature or removes a `return`/`raise` of
the function (an edit inside the last loop of a function that already fell off is not),
and the base version of the file has no function of that name in the same classes, under
the same annotation, that could already fall off its end (a parameter added to a function
that never returned on every path edits an old mismatch; a base that does not parse is no
evidence). So is an implicit
Optional, `x: T = None` (or `field(default=None)` / `field(default_factory=None)`, and
FastAPI's `Form(None)` / `Query(default=None)` / `Body`, `Header`, `Cookie`, `File` for a
parameter: the request leaving it out gives None) as an
attribute or
dataclass field where `T` cannot hold None and None can reach it (not when the class's
`__post_init__` raises or asserts unless it is set, `if not isinstance(self.x, int):
raise`, a required-field placeholder; nor when the class has no `__init__` of its own and
every construction of it in the module and the work tree passes the field by keyword a
value that never holds None; a positional or `**` argument, a subclass, `cls(...)` or no
construction found leave it reported) (a module global too when `T` is a CamelCase
class imported from a package that is not installed and the module tests the global for
None or a function rebinds it: `_buffer: Buffer = None`; a parameter's such class, as
`from torch.distributed import ProcessGroup`, reads as its dotted spelling does), or as a
parameter None really reaches: its body (or a function nested in it) tests it (`x is
None`, `if not x`, `x or default`) or uses it on some paths only (`if image_tokens:
x.images[i]`, after an early `return` or `break`), it hands it to a function or `self.`
method of the module that tests it (or stores it in `self.<attr>`, which another
method tests, or the storing one after the store: speechbrain's `self.bnb_config =
bnb_config` then `if self.bnb_config is not None:`), or a call in the
work tree (tests too) leaves the default or passes `None`, or a name the calling
function (or module) sets to None on some path or takes as a parameter defaulting to
None, or a `self.<attr>` its class sets to None (a function nested in another is called
by that name only in its own
module: another module's same-named call is not its caller; a tree past 1,500 files or
24 MB, or a function called from more than 12 modules, is not read: the value handed on
counts; a parameter only passed on, stored or returned has an inexact default, and one
the body never reads, or dereferences on every path, a dead
one: neither is a misleading type; nor is one whose every read hands it to a call of an
instance attribute no class of the module defines as a method, `self.model(input_ids=
input_ids)` in an HF-style forward copied from upstream: the receiver, a submodule or a
method inherited from another module, states what it takes; nor one the body only stores
as a value of a dict display, a pipeline's `inputs = {{"seed": seed, ...}}`: whoever reads
the dict decides what None means): the message says `T | None`; so is a FastAPI
dependency's parameter, `provider_tokens: TOKENS = Depends(get_provider_tokens)` where
the dependency (of the file or an imported module) is annotated `-> TOKENS | None` and
the body tests the parameter (`if provider_tokens:`): FastAPI hands it what the
dependency returns, None included (only when the parameter's annotation is the
dependency's without its None, as written; one only dereferenced or forwarded is not
read); a bool
default under a number, `flag: int = True` (or `float`): "annotate bool"; and a constant
default of a kind the annotation certainly rejects (a builtin, a tensor, a class without
bases), `torch_dtype: Optional[torch.dtype] = "auto"`: the body must handle a value the
annotation hides (a string under `torch.device` is not reported: torch takes device
strings wherever it takes a device). A field or default whose value the annotation
cannot hold is ✗ too, when the change writes the annotation (or a one-line value): a
display of another kind (`converter_block_types: List[BlockTypes] = (...)`, a tuple), a
tuple of other than one item under `Tuple[X]` (also inside `Annotated[...]`), and a
class, or a display of classes, where an instance of it or of one of its bases is
annotated (`default_llm_service: BaseService = GoogleGeminiService`, `default_processors:
Tuple[BaseProcessor, ...] = (EquationProcessor,)`: annotate `type[BaseService]`), or
where a call returns a class (`CharClass: Char = get_block_class(...)`, the function
annotated `-> Type[Block]`); a class the module or an imported module defines, its bases
followed through imports; a name bound otherwise may be an instance and is not read.
A local container the change annotates whose own function then puts a literal `None`
in it is ✗ when the item type certainly holds none (nv-ingest's `all_text: List[str] =
[]` then `all_text.append(None)` as a "no text" sentinel; `.add(None)`, `.insert(i,
None)`, `d[k] = None` under `Dict[K, V]`). So is a local list, set or dict the
function returns under `-> list[X]` (`set[X]`, `dict[K, X]`) after putting a literal
`None` in it, `X` holding none (open-r1's `code_reward -> list[float]` appending `None`
for a reward it could not compute): at the `->` line when the change writes the
annotation, else at the `None` the change adds.
A name the change annotates and binds to a lookup that may miss, `x: T = d.get("k")` with
no default or `None` spelled out (`d.get("k", None)`), is ✗ when `T` certainly holds no
None: an environment lookup (`API_KEY: str = os.getenv("API_KEY")`, `os.environ.get`)
always, another `.get` when its function then tests the name for None or truth (sentry's
`messages: "Union[str, ...]" = kwargs.get("input")` and later `if messages is None:
return`; a generic class written with its parameters, `SequenceNotStr[str]`, counts as
holding no None even from a package not read; chainlit's `spec: AskFileSpec =
session.files_spec.get(ask_parent_id, None)` and then `if not spec`); not a request
(`requests.get(url)`, `self.session.get(url)`; a mapping attribute of a session,
`session.files_spec`, is no request).
A parameter annotation the change writes that a caller contradicts with what it passes
as written is ✗ (the pattern's "a parameter annotation its callers contradict"): `None`
under an annotation that holds none (its default not None, else it is the implicit
Optional above) where the function expects None (its body tests it, uses it on some paths
only, or hands it to a function or `self.` method that tests it: FastChat's
`register_worker(..., worker_status: dict, ...)` given `None` by `refresh_all_workers`
and testing `if not worker_status`); a literal or display of a builtin kind the annotation
certainly rejects (`lora_ref_impl(y, x, [wa, wa], ...)` for `wa: torch.Tensor`; not a
string for `torch.device`, a number for a number, `60.0` for an `int`, or a display
listing candidates each of which the annotation holds: `RTNConfig(use_sym=[True, False])`
builds a tuning grid); a
tuple display of other than one item for `tuple[X]`; the calling function's own
parameter defaulting to None, handed on as it came (never rebound, tested for None or
narrowed by `isinstance` there), to a parameter the function expects None in (botorch's
`super().__init__(model, posterior_transform)` from a subclass taking
`posterior_transform: PosteriorTransform | None = None`, the base annotating
`posterior_transform: PosteriorTransform` and testing `if posterior_transform is not
None:`); for a call in no loop only what runs before it
counts, the statements above the call's own and a guard in that statement, so the call's
own assignment rebinding the name with its result hands the None in first (kornia's
`mask = self.fix_mask(mask, reference_signal)` in `__init__(..., mask: torch.Tensor |
None = None)`, `fix_mask(mask: torch.Tensor, ...)` testing `if mask is None:`). Only
calls that certainly reach the function count: the module's own `f(...)`, `C(...)` and
a subclass's `super().__init__(...)` in the module for `C.__init__`, `self.m(...)` /
`cls.m(...)` / `C.m(...)` in its class, and the calls of the work tree's modules that
import the name with `from` from its module or package (`from pkg.lib import f`, `from
.lib import f`, `from pkg import f`; at most 12 such modules; a test module's calls only for a
test's own helper: a test passes a wrong value on purpose, to see it rejected); a
function nested in another is called only inside the function defining it, and a
module-level one not where a function of its name nested there shadows it (two tests
each defining a helper `_fetch` call each their own), nor where the calling function
binds the name to a value itself (a test's `tokenizer` parameter is the value of the
`tokenizer` fixture: `tokenizer([...])` calls that value); not a function defined twice at
module level, a call with `*args`/`**kwargs`, or a parameter line that silences the
checker. The message names the call and what it passes. A test's
`@pytest.mark.parametrize` rows are calls pytest certainly makes, read the same way, a
None whatever the body does with it: a row is written to run the test with its value
(nunchaku's `lora_name: str` given `None` by both rows; `pytest.param(...)` rows read as
their values; not `indirect` rows, which go to fixtures). A test's (or a fixture's)
parameter annotated as a generator, `stub: AsyncGenerator[Stub, None]`, is ✗: pytest hands
it what the fixture yields, the `Stub` (not a `parametrize` argument, nor a fixture of
the module that returns an iterator); so is one of pytest's own fixtures annotated as a
builtin, `tmp_path: str` (a `pathlib.Path`), unless the module defines that fixture.
A parameter
the change annotates with a type that holds no string (`moe_router_dtype: torch.dtype |
None`; not a union with `str`, a `Literal`, a class with bases such as a `str` enum, or an
unknown name) whose body compares it only to string literals (`== "fp32"`, `!=`, `in
("a", "b")`; None tests aside), or hands it as is to a function, `self.` method or class
of the module whose parameter is so compared, is ✗: a value of the annotated type never
equals them and is silently ignored (a type checker's strict equality rejects the
comparison). So is a parameter the change annotates as one builtin container or string
kind (`dict`, `list`, `tuple`, `set`, `frozenset`, `str`, `bytes`, their `typing`
spellings) that the body tests for another (`def visit(n: dict):` ... `if isinstance(n,
list): return [visit(x) for x in n]`) and handles in that branch: the function takes
what its annotation rejects, by design. Not a branch that only raises or asserts (a guard
the annotation agrees with), a parameter the function rebinds (`items = list(items)`), a
union, or the numeric tower (`x: float` tested for `int`). So is a parameter the change
annotates as a builtin (`str`, `int`, `float`, `bool`, `bytes`, `dict`, `list`, `tuple`,
`set`, `frozenset`, their `typing` spellings) whose attribute the body reads or sets
though no such builtin has it (tritonparse's `entry: str` ... `entry.setdefault(...)`,
given a trace dict; `question: dict` ... `question.to_dict()`, a pandas row): the
callers pass another type, which a type checker reports. Not when the function rebinds
the parameter, tests what it is (`isinstance`, `hasattr`, `getattr`, `type`,
`callable`), catches `AttributeError` or matches it (`match`). Only what is
certain counts: builtins, `typing`/`collections.abc` generics, classes the file defines
or an import (absolute or relative) defines as `class` or re-exports from a module
that does (`from transformers import PreTrainedModel`: the package's `__init__` imports it
from `modeling_utils`, a `TYPE_CHECKING` import too; followed 3 imports deep), and a class
named dotted through
an imported module
(`ray.actor.ActorHandle`: a CamelCase last part, its module not on the path or defining
it as `class` there); a `TypeVar`, an alias (a name ending in `Like`/`Type`/`T`,
starting `Optional`/`Maybe`, or from a types module such as `torch.types`,
`numpy.typing`), an unresolvable name, generators, abstract or stub bodies and a line
with `# type: ignore` or `# noqa` are skipped. A test file's own functions (module-level
or nested in a function) get the same parameter and return checks (a test helper's `plan:
str = None` that None reaches, a benchmark's `-> List[float]` that falls off its end):
a wrong annotation misleads in a test helper as it does anywhere; the ⚠ for `Any` and
untyped signatures stays production-only, and a method of a class in a test file is not
checked (a double: a stub `Request`, a `DummyInputsStrategy.make_dummy`, whose signature
mirrors the API it stands in for), nor is a function the test builds to be rejected:
one its own scope uses inside a `with pytest.raises(...)` / `with
self.assertRaises...(...)` block (warp's test kernel `def f4(x: float) -> float: return`
launched under `assertRaisesRegex(WarpCodegenTypeError, ...)`: the wrong annotation is
what the test checks).

In tests: a new `SimpleNamespace(...)` (its `SimpleNamespace(` line added: a keyword
added inside an old one does not make it new) that stands in for a typed data class (a
`@dataclass`, vLLM `@config`, `TypedDict`, `Protocol`, `NamedTuple`, pydantic model
(`SQLModel` too: gpustack's table classes `Cluster`, `Principal`),
`msgspec.Struct` or a `*Config` class) is ✗, and the message names the class. What it
stands in for is found the way a reviewer does: from what it is bound to (`vllm_config
= SimpleNamespace(...)`, `runner.moe_config = ...`, `monkeypatch.setattr(obj, "config",
...)`, `object.__setattr__(obj, "config", ...)`, a keyword `f(kv_cache_spec=...)`, a
list element, the return of a `make_vllm_config()` helper, `cast(T, ...)` (`cast(Any,
...)` is read through to the slot it fills), a mock's return value: `mock_get_config.
return_value = ...` under `@patch("pkg.get_ascend_config")`, `with patch(...) as m`,
`patch(..., return_value=...)` or `MagicMock(return_value=...)` bound to a getter is what
`get_ascend_config` returns, an `ascend_config`), read against the annotations of that name
in the modules the test imports and the modules those import (`vllm_config: VllmConfig`,
`self.rl_config = RlConfig(...)`), a class named like it (`kv_cache_config` ->
`KVCacheConfig`), and the field annotations of the class an enclosing fake stands in
for (`SimpleNamespace(cache_config=SimpleNamespace(...))` inside a `VllmConfig` fake,
directly or through a local name), what a patched function returns (`patch("pkg.
get_config", return_value=cfg)`: its `def`'s `-> AppConfig`; for an unannotated class
method, the class the repository binds its value to: `config: PretrainedConfig =
AutoConfig.from_pretrained(...)` names the fake a patched `from_pretrained` returns),
the class the code's own calls pass for an untyped parameter the fake is passed to
(`simple_layer_modules(model_config=...)`, where the code passes a `PretrainedConfig`),
the `__init__` parameter of a class the fake is passed to (read where the class is
defined when the test imports it from a package `__init__` that re-exports it:
`SubmitToolOutputsAction(submit_tool_outputs=SimpleNamespace(...))` of azure-ai-agents'
`models` package); first of all the parameter of
the code under test that the fake reaches, by keyword or position, directly, through a
local name, `self.x` or a list a `for` loop walks, or as the return of a test helper
called in the test file (`route(_json_request(b))`, `bench = _make_mock_benchmark()`),
or as an element of a
list or tuple display passed to a parameter or record field typed as a sequence of a
class (`Batch(states=[[sample]])`, `states: list[list[State]]` -> `State`)
(`manager.allocate(seq)` -> `seq: SchedulerSequence`,
`NewRequestData.from_state(self._state)` -> `state: DiffusionRequestState`; a callee no
module the test reaches by its imports defines, called on an object nothing resolves,
such as a fixture's module, is read at the one `def` of that name in the work tree
outside tests, as a reviewer greps for it, and a name defined twice names none): it wins
over a name or keyword match, and a record parameter the fake does not fit leaves it ⚠;
a parameter annotated with a plain class of a `py.typed` installed package (starlette's
`Request`; the marker in the top-level package or, for a namespace package such as
`azure.ai.agents`, in the subpackage; not a service class: a worker, engine, layer...)
counts when every keyword
of the fake is one of its attributes, and so does a plain class of the repository, found
by the slot's annotation or name, when the class declares every keyword with a type
(`x: T` in its body, `self.x: T = ...`, a `@property` with `-> T`: evalscope's
`task_state = SimpleNamespace(sample_id=2)` for `TaskState`, whose `sample_id` is a typed
property) and is shaped like a record: no base but `Generic`, no `__call__`, no more
public methods than typed attributes (vLLM's `GroupCoordinator`, a service a test fakes
for want of a process group, stays ⚠); a fake made only of tensor attributes (`dtype`,
`shape`, `ndim`, `is_cuda`...) passed where the callee's own `def` declares
`torch.Tensor` stands in for `torch.Tensor` (torch ships typed stubs; a meta tensor is
the real thing); a subclass of a typed data class is one (a pydantic model's subclass
in another module); a `src/` layout's packages are read, and so are those under a
top-level folder no package can be named after (`mooncake-wheel/mooncake/`) and under
a folder one or two levels down with its own `pyproject.toml` or `setup.py`, a project
of a monorepo (`python/aibrix/`, or its `src/`); the second tier of modules (those the
test's imports import, the first 80) leaves out the standard library's and pytest's, and
holds a module imported from its package by name (`from maxtext.configs import types`)
and, for a name the repository only re-exports, the module defining it, up to three
imports (`camel.types` -> `.openai_types` -> `openai.types.chat`); a fake passed
positionally to a parameter no class annotates (none, `Any`, or `config: Config` with
`Config = Any`; not `request: "Request"`, a class that is no data class: ⚠) is read by
the parameter's name, as one passed by that keyword is;
`self.x = ...` in a test class derived from a class of the code reads that class's
module; a private class an annotation names counts; relative imports of the test are
followed. A parameter's type its docstring names (`config (JobConfig):`, `:type config:
JobConfig`, `:param JobConfig config:`, `config : JobConfig`) reads as its annotation; a
class nested in another (`Trainer.Config`, written `Config` inside `Trainer`) is a class;
a call through `func.__wrapped__(...)` reaches `func`'s parameters; a fake set as what a
mock's method returns (`api.list_repo_refs.return_value = ...`), where the mock stands
for an instance of a class (`Mock(spec=HfApi)`, or the return value of a mock patched
over `HfApi`), is what that method is annotated to return (`-> GitRefs`; a `Protocol`'s
one-line stub `-> ExecResult: ...` too). More
generally, what the code under test gets in a fake's place when the fake is what a
*replaced* callable returns is that callable's real return: the fake (or the local name
bound to it) given as `return_value=` / `side_effect=[...]` of `patch(...)` /
`patch.object(...)`, or set as `<mock>.return_value` / `<mock>.side_effect = [...]`, where
the mock is read back, by data flow only, to the real callable: `patch("pkg.get_api") as
api_cls; api = api_cls.return_value; api.run_job.return_value = job` (`get_api() ->
HfApi`, `HfApi.run_job() -> JobInfo`), `patch.object(api, "get_endpoint", ...)` with `api
= HfApi(...)` or a parameter `api: HfApi`, a bare `MagicMock()` (or `AsyncMock()`, whose
methods' `return_value` is what they are awaited to) passed to a parameter of
the code annotated with a class (`Controller(scheduler=scheduler)`, `scheduler:
Scheduler`); each element of a comprehension of fakes (`workers = [SimpleNamespace(
name=f"w{{i}}") for i in range(5)]`) is a fake as each of a display is, and the list
handed on whole fills the element type of the parameter it is passed to (`workers:
List[Worker]`), which decides over another annotation of the name; an element of a
`return_value=[fake]` fakes the element type of a `->
list[Worker]`. A hand-written fake class is no ✗ itself, but the test installs it for a
real class (`monkeypatch.setattr(mod, "LLMEngine", FakeEngine)`, or as what a class's
method gives: `setattr(ToolParserManager, "get_tool_parser", staticmethod(lambda name:
FakeParser))` with `-> type[ToolParser]`): a fake one of its methods returns stands in for
what the real class's same-named method is annotated to return. An empty
`SimpleNamespace()` counts only when bound to such a typed slot (a parameter, a field of a
fake of a known class, an attribute), never by a name alone.
A mock (`Mock`, `MagicMock`, `AsyncMock`, `create_autospec`) is no fake of this rule,
whatever data it is given: the ✗ names `SimpleNamespace`, whose root cause is the `Any`
a fake forces into the code under test, and typeshed declares `class
NonCallableMock(Base, Any)`, so mypy accepts a mock where a typed class is expected
(`route(MagicMock())` with `team: Team` checks; `route(SimpleNamespace(...))` does not).
`cast(Any, fake)` still fills the slot the cast is put in.
Or from its keywords: all data fields (not properties or methods) of a class the test
imports, or a record class (`@dataclass`, pydantic...) the test file itself defines (an
untyped helper class of the test, `FakeAsyncOmni`, is itself a fake), or all data
fields of the one record class (`@dataclass`,
`TypedDict`, `NamedTuple`, attrs, `msgspec.Struct`, pydantic) of the repository that has
them, at least three names counting those of the fakes it holds that fit the fields'
types (two when it is passed to a record class's constructor); not a private class, a
field only a property has, two classes of different names, a fake named like a plain
class beside the record (`input_buffers`, `InputBuffers`) or named as a service object
(`stage0_client`), or a fake filling a slot (the name it is bound to, or the parameter
of the test's own helper it is passed to) that the repository annotates with one plain
class nearly everywhere (`cfg: DictDefault`, five times and 80%: the code consumes
that, whatever record shares the names). Fields of several classes of one class chain
name the base declaring them (`FastVideoArgs`, not `TrainingArgs`), or the nearest
common base of sibling subclasses when it is a record declaring every keyword; fewer
names count when they are fields of one class chain only and the fake fills a slot of
the code under test (passed to
a function of it, directly, through a local name, `self.x` or a `parametrize` argument);
two fields of one record class count when the fake's name names it (`vllm_config` ->
`VLLMConfig`), or ends its name (`config` -> `WorkerConfig`) for a fake filling a slot
with a field no other module declares (a keyword reaches a keyword-only parameter too).
Else the record classes of the installed packages that the test or the modules it
imports import (by a `from` import, or, read last, a whole `import anthropic` or a
literal name given to an import call at run time:
`importlib.import_module("anthropic")`, deepeval's `require_dependency("anthropic")`; a
package of at most 4,000 modules and 16 MB: the generated SDKs of openai and anthropic are
read, transformers is not): two or more keywords, all fields of one class, one of them a
field that class alone declares there and no record of the repository declares
(`SimpleNamespace(rfilename=..., size=...)` -> huggingface_hub's `RepoSibling`; `path`,
`size` name no class); or three or more keywords, one of them declared in at most 12
modules of the package and by no record of the repository, all fields of classes there
(a `TypedDict` aside: it is read by key): the class whose field types the nested fakes
fit best (a fake in a list display fills the field's element type), then the one whose
fields the fake leaves fewest unset, is named, with the others as good
(`SimpleNamespace(model=..., choices=[SimpleNamespace(delta=...)], usage=...)` ->
openai's `ChatCompletionChunk`); fewer keywords do when the fakes they hold each set
only fields of the candidate's field type (graphiti's `SimpleNamespace(choices=[choice])`
with `choice = SimpleNamespace(message=message)` -> `ChatCompletion`, and `choice`, an
element held through a local name, that module's `Choice`); or, nothing else naming a
class, a keyword set to a string that a record class there lists in that field's
`Literal` type, every keyword a
field of that class: a generated SDK's tag (`SimpleNamespace(type="content_block_start",
content_block=...)` -> anthropic's `RawContentBlockStartEvent`, the shallower module
before its `beta` copy). When the test or a module it imports
imports transformers (installed), or the work tree's code does, and nothing above named
a class: a fake filling a slot named `config`, `*config` or `*cfg` (its binding, the test
helper's parameter or the `parametrize` argument) whose keywords are all attributes of
transformers' `PreTrainedConfig` or of one model config class with it
(`SimpleNamespace(text_config=..., vision_config=...)`, `mixer_config =
SimpleNamespace(_attn_implementation=...)`) stands in for `PreTrainedConfig` (the
model configs that have them listed), and what a function named `*forward*` returns
whose keywords are all fields of a `ModelOutput` dataclass of `modeling_outputs.py`
(`return SimpleNamespace(logits=logits)`) stands in for it (`ModelOutput` when several
have them), read from the installed package (a `tokenizer` with `pad_token_id` fills no
config slot). A
name the repository annotates with one class nearly everywhere (`vllm_config:
VllmConfig`, five times and 80% of its class annotations) names it. A fake returned by a
test function patched over a real one (`monkeypatch.setattr(module.subprocess, "run",
fake_run)`), or returned by a lambda patched so (`monkeypatch.setattr("pkg.get_config",
lambda *_a: fake)`), stands in for what that returns: its `-> T` (a data class that is no
record, such as transformers' configs, takes any keyword; a module-level alias such as
`PretrainedConfig = PreTrainedConfig` names its class), or the class its `return` builds
when a record or a stdlib class (`CompletedProcess`). So does a fake put in a local
variable that such a replacement returns (`result = SimpleNamespace(returncode=1, ...)`
then `lambda *a, **k: result`), or an element of a list or `iter([...])` bound to a local
that the replacement hands out (`return next(results)`, `results.pop()`, `results[i]`):
data flow only, the variable's name says nothing, and a replacement binding that name
itself is not it. An `Enum` member (`.value`, `.name`)
in an enum-typed slot counts. Attributes the code sets on the object (`self.moe_config.tp_group =
...`) count as its class's. A fake set as an attribute of a real object the test builds
(`recipe = Recipe.__new__(Recipe)`, `object.__new__(Backend)`, `Backend(...)`,
`Mock(spec=Backend)`, a parameter or a test helper annotated with the class) stands in for
the type that class or a base declares for the attribute: `attr: T` in its body, `self.attr:
T`, or `self.attr = f(...)` with `f`'s `-> T` or its docstring's `Returns:` type
(`recipe.dist_env = SimpleNamespace(...)`, `self.dist_env = initialize_distributed(...)`
returning `DistInfo`); an untyped or mixed assignment, or a plain service class there,
leaves it ⚠. Modules
are read from the repository, else from the installed packages on `sys.path` (as text:
nothing is imported); at least half of the fake's keywords must be attributes of the
class, and a fake passed as one of its keywords must fit that field's type when the
type is a record (`@dataclass`, `TypedDict`, `msgspec.Struct`...: a layer whose
`compressor` sub-layer has a `prefix` is not the metadata class with a `compressor`
field). Any other new `SimpleNamespace` (a module of functions, a duck-typed layer or
service object, an empty placeholder) is ⚠.

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
{CONFIG_DOC}"""


_ANY_NAMES = frozenset({"Any", "typing.Any", "typing_extensions.Any"})
_SIMPLE_NAMESPACE = frozenset({"SimpleNamespace", "types.SimpleNamespace"})

# Return annotations that can never hold None: a ``return None`` there is provably wrong.
_NEVER_NONE = wrong.BUILTINS | frozenset(
    f"typing.{name}" for name in ("List", "Dict", "Set", "FrozenSet", "Tuple")
)
# ``try``, and ``try``/``except*`` where the running Python has it (3.11+).
_NEVER_NONE_VALUES = (
    ast.List,
    ast.Tuple,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.JoinedStr,
    ast.Compare,
)


def _is_any(src: SourceInfo, annotation: ast.expr | None) -> bool:
    """Whether an annotation is ``Any`` (also ``Optional[Any]``, ``Any | None``, ``"Any"``)."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        parsed = unquoted(annotation)
        return parsed is not None and _is_any(src, parsed)
    members = union_items(src, annotation)
    if members is not None:
        return any(_is_any(src, member) for member in members)
    if isinstance(annotation, ast.Subscript):
        return False
    return src.qualname(annotation) in _ANY_NAMES


def _annotation_base(src: SourceInfo, annotation: ast.expr) -> str | None:
    """The qualified name an annotation is built on (``dict`` of ``dict[str, int]``).

    A string annotation is parsed first; one that does not parse names nothing.
    """
    node = unquoted(annotation)
    if node is None:
        return None
    base = node.value if isinstance(node, ast.Subscript) else node
    return src.qualname(base) if isinstance(base, (ast.Name, ast.Attribute)) else None


def _never_none(src: SourceInfo, annotation: ast.expr) -> str | None:
    """The annotation's text when it is a builtin type that cannot hold None."""
    name = _annotation_base(src, annotation)
    return short(src, annotation).strip("\"'") if name in _NEVER_NONE else None


def _breaks_out(body: list[ast.stmt], jump: type[ast.stmt] = ast.Break) -> bool:
    """Whether a ``break`` (or ``jump``: ``continue``) in ``body`` leaves *this* loop's
    round (not a nested loop's or function's)."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, jump):
            return True
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            stack.extend(node.orelse)  # a break in a nested loop's else leaves this loop
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def _retries(loop: ast.stmt, no_return: Container[str] | None) -> bool:
    """Whether ``loop`` is a retry loop that ends on its last round: ``for attempt in
    range(retries):`` over a ``try`` that returns, each of whose handlers ends the run
    or does so on the last round (an ``if`` testing the counter: ``if attempt + 1 ==
    retries: raise``, ``if attempt < retries - 1: sleep(...) else: raise``). It falls off
    only when it runs no round at all, a count of zero retries, which no caller passes
    (lmms-eval's ``evaluate(...) -> Response``, MLServer's ``send_requests``)."""
    if not (
        isinstance(loop, (ast.For, ast.AsyncFor))
        and isinstance(loop.target, ast.Name)
        and isinstance(loop.iter, ast.Call)
        and isinstance(loop.iter.func, ast.Name)
        and loop.iter.func.id == "range"
        and loop.iter.args
    ):
        return False
    counter = loop.target.id
    bound = unparse(loop.iter.args[-1], 200)
    tries = [stmt for stmt in loop.body if isinstance(stmt, TRY_NODES)]
    if len(tries) != 1:
        return False
    attempt = tries[0]
    others = [stmt for stmt in loop.body if stmt is not attempt]
    try_body: list[ast.stmt] = getattr(attempt, "body", [])
    if _breaks_out([*others, *try_body], ast.Continue) or not _terminates(try_body, no_return):
        return False
    handlers: list[ast.ExceptHandler] = getattr(attempt, "handlers", [])

    def last_round(stmt: ast.stmt) -> bool:
        """An ``if`` on the counter against the bound, one of whose branches ends."""
        return (
            isinstance(stmt, ast.If)
            and any(isinstance(n, ast.Name) and n.id == counter for n in ast.walk(stmt.test))
            and any(unparse(n, 200) == bound for n in ast.walk(stmt.test))
            and (_terminates(stmt.body, no_return) or _terminates(stmt.orelse, no_return))
        )

    return bool(handlers) and all(
        _terminates(h.body, no_return) or any(last_round(stmt) for stmt in h.body) for h in handlers
    )


def _terminates(body: list[ast.stmt], no_return: Container[str] | None = None) -> bool:
    """Whether control can never fall off the end of ``body`` (conservatively True).

    A last call statement may be a NoReturn call (``sys.exit``, a raise helper): without
    ``no_return`` (the names of the module's own functions that never return) any call
    but a logging call or a ``print`` counts as one; with it, only a call of one of
    those or of a callee named for ending the run (:func:`_may_not_return`)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        # An ``elif`` chain is an ``If`` in each ``orelse``: followed by a loop, not by
        # recursion, so a 2,000-branch chain is read like a short one.
        while isinstance(last, ast.If) and len(last.orelse) == 1:
            if not _terminates(last.body, no_return):
                return False
            if not isinstance(last.orelse[0], ast.If):
                return _terminates(last.orelse, no_return)
            last = last.orelse[0]
        return _terminates(last.body, no_return) and _terminates(last.orelse, no_return)
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return _terminates(last.body, no_return)
    if isinstance(last, TRY_NODES):
        if _terminates(getattr(last, "finalbody", []), no_return):
            return True
        try_body: list[ast.stmt] = getattr(last, "body", [])
        orelse: list[ast.stmt] = getattr(last, "orelse", [])
        handlers: list[ast.ExceptHandler] = getattr(last, "handlers", [])
        return _terminates(try_body + orelse, no_return) and all(
            _terminates(h.body, no_return) for h in handlers
        )
    if isinstance(last, (ast.For, ast.AsyncFor, ast.While)):
        # Without a ``break`` out of it, a loop ends only by running its ``else`` (a
        # retry ``for ... else: raise``), or never (``while True``).
        if _breaks_out(last.body):
            return False
        forever = (
            isinstance(last, ast.While)
            and isinstance(last.test, ast.Constant)
            and bool(last.test.value)
        )
        return forever or _terminates(last.orelse, no_return) or _retries(last, no_return)
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call):
        if _returning_call(last.value):
            return False
        return no_return is None or _may_not_return(last.value, no_return)
    if isinstance(last, ast.Match):
        return True  # exhaustiveness is not provable here
    return (
        isinstance(last, ast.Assert) and isinstance(last.test, ast.Constant) and not last.test.value
    )


# The words of a callee that may end the run instead of returning: ``sys.exit``,
# ``os._exit``, ``parser.error``, ``self.fail``, ``pytest.skip``, ``abort(404)``,
# ``_raise_unsupported``, ``six.reraise``, ``handle_exception``, ``serve_forever``,
# ``typing.assert_never`` (vLLM's encoding-format dispatch ends in it).
_NO_RETURN_WORDS = frozenset(
    {
        "abort",
        "bail",
        "crash",
        "deny",
        "die",
        "err",
        "error",
        "errors",
        "exc",
        "except",
        "exception",
        "exit",
        "fail",
        "failure",
        "fatal",
        "forever",
        "halt",
        "implemented",
        "invalid",
        "kill",
        "never",
        "panic",
        "quit",
        "raise",
        "reject",
        "reraise",
        "shutdown",
        "skip",
        "stop",
        "terminate",
        "throw",
        "unreachable",
        "unsupported",
        "usage",
        "xfail",
    }
)
_NAME_WORD_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
# ``os.execv`` and its siblings replace the process.
_EXEC_RE = re.compile(r"^_*exec[lv]p?e?$")


def _may_not_return(call: ast.Call, no_return: Container[str]) -> bool:
    """Whether ``call`` may be a NoReturn call: its callee is named for ending the run
    (:data:`_NO_RETURN_WORDS`, ``os.execv``) or is one of the module's own functions
    that never return (``no_return``, asked last: :class:`_ModuleNoReturn` reads the
    module then). ``tar.extractall(...)`` returns."""
    name = last_name(call.func)
    if not name or _EXEC_RE.match(name):
        return True
    if any(word.lower() in _NO_RETURN_WORDS for word in _NAME_WORD_RE.findall(name)):
        return True
    return name in no_return


class _ModuleNoReturn:
    """The module's :func:`_no_return_functions`, read when first asked: most annotated
    functions never end in a bare call, and their files are not walked for it."""

    def __init__(self, src: SourceInfo) -> None:
        """Wrap ``src``; nothing is read yet."""
        self._src = src

    def __contains__(self, name: object) -> bool:
        """Whether ``name`` is a function of the module that never returns."""
        return name in _no_return_functions(self._src)


def _no_return_functions(src: SourceInfo) -> frozenset[str]:
    """Names of the module's functions and methods (any depth) that never return: every
    path of the body ends in ``raise`` or in such a call, or the return annotation is
    ``NoReturn`` / ``Never``. Read by name: a name any of whose definitions never
    returns counts (a call of it may not return, so no fall-off is claimed)."""
    cached = src.cache.get("no_return_functions")
    if isinstance(cached, frozenset):
        return cached
    defs = [n for n in ast.walk(src.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    names: set[str] = set()
    for func in defs:
        returns = func.returns
        spelled = last_name(returns) if returns is not None else None
        if spelled in ("NoReturn", "Never"):
            names.add(func.name)
    # A method whose body only raises is an interface's stub a subclass overrides; a
    # module-level function that only raises is a raise helper.
    module_level = {id(stmt) for stmt in src.tree.body}
    # Raise helpers calling raise helpers: two passes reach ``_fail`` -> ``_raise``.
    for _round in range(2):
        for func in defs:
            if func.name in names or (id(func) not in module_level and wrong.is_stub(func.body)):
                continue
            if _never_returns(func.body, frozenset(names)):
                names.add(func.name)
    out = frozenset(names)
    src.cache["no_return_functions"] = out
    return out


def _never_returns(body: list[ast.stmt], no_return: frozenset[str]) -> bool:
    """Whether ``body`` never returns: it holds no ``return`` of its own and every path
    ends in ``raise`` or a call of a ``no_return`` function."""
    if any(isinstance(n, ast.Return) for n in kwreads.statements(body, scopes=False)):
        return False
    return _terminates(body, no_return)


# Logging methods: ``log.warning(...)`` returns (unlike ``parser.error``, which exits).
_LOG_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
)
# A receiver named as a logger: ``log``, ``logger``, ``self._logger``, ``LOGGER``, ``logging``.
_LOGGER_RE = re.compile(r"(?i)^_*(log|logger|logging|\w*_logger|\w*_log)$")


def _returning_call(call: ast.Call) -> bool:
    """Whether ``call`` certainly returns: ``print(...)``, ``warnings.warn(...)`` or a
    logging method of a logger-named receiver (``log.warning``, ``self.logger.info``)."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id == "print"
    if not isinstance(func, ast.Attribute) or func.attr not in _LOG_METHODS:
        return False
    receiver = func.value
    name = (
        receiver.attr
        if isinstance(receiver, ast.Attribute)
        else receiver.id
        if isinstance(receiver, ast.Name)
        else ""
    )
    if name == "warnings":
        return func.attr == "warn"
    return _LOGGER_RE.match(name) is not None


def _contradiction(
    src: SourceInfo,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    ret: ast.Return,
    declared: str | None,
    receiver: bool = False,
) -> str | None:
    """How ``ret`` of ``node`` contradicts the annotation: a value under ``-> None``
    (``declared`` None; ``receiver``: ``self`` is the method's instance; a name the
    function binds to a value, a class built), None or a call
    annotated to return an Optional under ``-> declared``; None when it does not."""
    value = ret.value
    if declared is None:
        if value is not None and (
            isinstance(value, _NEVER_NONE_VALUES)
            or (isinstance(value, ast.Constant) and value.value is not None)
            or (receiver and isinstance(value, ast.Name) and value.id == "self")
            or (isinstance(value, ast.Name) and wrong.binds_value(src, node, value.id))
            or wrong.constructs_class(src, node, value)
        ):
            return f"returns `{short(src, value)}`"
        return None
    if value is None or wrong.gives_none(value):
        return "may return None" if isinstance(value, ast.IfExp) else "returns None"
    optional = wrong.optional_value(src, node, value)
    if optional is not None:
        return wrong.optional_how(src, value, optional)
    unset = wrong.left_none(node, ret)
    if unset is not None:
        return f"returns `{short(src, value)}` (None unless the `if` on line {unset} runs)"
    return None


def _takes_self(src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``node`` is a method whose first parameter ``self`` is its instance (never
    None): a class encloses it, it is no ``staticmethod`` and it never rebinds ``self``."""
    params = [*node.args.posonlyargs, *node.args.args]
    if not params or params[0].arg != "self" or id(node) not in wrong.class_functions(src):
        return False
    if wrong.decorated(node, ("staticmethod",)):
        return False
    return not any(
        isinstance(n, ast.Name) and n.id == "self" and isinstance(n.ctx, ast.Store)
        for n in kwreads.body_nodes(node)
    )


def _wrong_return(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef
) -> Iterator[Finding]:
    """``-> bool`` (any never-None builtin) that returns None, or ``-> None`` returning a value."""
    if node.returns is None or wrong.is_stub(node.body):
        return
    is_none = isinstance(node.returns, ast.Constant) and node.returns.value is None
    if not is_none and _never_none(src, node.returns) is None:
        return  # only these two can be proven wrong: skip the body walk
    text = b"\n".join(src.byte_lines[node.lineno - 1 : node.end_lineno or node.lineno])
    if b"yield" in text and any(
        isinstance(n, (ast.Yield, ast.YieldFrom)) for n in kwreads.body_nodes(node)
    ):
        return  # a generator: its annotation is about what it yields
    # Its own returns, not those of nested functions or classes.
    own = kwreads.statements(node.body, scopes=False)
    returns = [n for n in own if isinstance(n, ast.Return)]
    annotation_added = src.node_added(node.returns)
    declared = None if is_none else _never_none(src, node.returns)
    receiver = is_none and _takes_self(src, node)
    contradictions: list[tuple[ast.Return, str, str]] = []
    for ret in returns:
        how = _contradiction(src, node, ret, declared, receiver)
        if how is not None and not annotation_added:
            given = (
                "None"
                if ret.value is None or wrong.gives_none(ret.value)
                else wrong.literal_kind(ret.value) or "other"
            )
            if not src.node_added(ret) or wrong.rewritten_return(src, ret, given):
                continue  # an old return the change edited: no new evidence
        if how is not None:
            fix = "fix the annotation" if declared is None else f"annotate `-> {declared} | None`"
            contradictions.append((ret, how, fix))
    yield from wrong.wrong_returns(src, node, declared or "None", contradictions, annotation_added)
    if declared is None:
        return
    ends = functools.partial(_terminates, no_return=_ModuleNoReturn(src))
    if (
        not ends(node.body)
        and wrong.falls_off_newly(src, node, annotation_added)
        and not wrong.exhaustive_dispatch(src, node, ends)
        and (annotation_added or not _fell_off_before(src, node))
    ):
        yield finding(
            src,
            wrong.return_site(src, node)
            if annotation_added or wrong.signature_added(src, node)
            else node.returns,
            "any-annotation",
            BLOCK,
            f"`{node.name}` is annotated `-> {declared}` but can fall off its end and return None",
        )


def _class_falls_off(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef
) -> Iterator[Finding]:
    """``-> T`` (a class or generic that cannot hold None, not a builtin: those are
    :func:`_wrong_return`'s) whose body can fall off its end: a path returns None
    (``try: ... return path`` whose ``except`` only logs)."""
    if (
        node.returns is None
        or (isinstance(node.returns, ast.Constant) and node.returns.value is None)
        or _never_none(src, node.returns) is not None
        or wrong.is_stub(node.body)
    ):
        return
    annotation_added = src.node_added(node.returns)
    ends = functools.partial(_terminates, no_return=_ModuleNoReturn(src))
    if not wrong.falls_off_newly(src, node, annotation_added) or ends(node.body):
        return
    if wrong.exhaustive_dispatch(src, node, ends):
        return  # falls off only with a parameter its own annotation excludes
    if _silenced_def(src, node) or _is_generator(node):
        return
    if wrong.decorated(node, ("abstractmethod", "overload", "abstractproperty")):
        return
    types = wrong.types_of(src)
    # A class imported by name from an absent module (``StateGraph`` of langgraph where
    # it is not installed) is read as the parameters' reading reads it: a class.
    if types.admits_none(node.returns) is not False and not types.uninstalled_class(node.returns):
        return
    if not annotation_added and _fell_off_before(src, node):
        return
    declared = short(src, node.returns).strip("\"'")
    yield finding(
        src,
        wrong.return_site(src, node)
        if annotation_added or wrong.signature_added(src, node)
        else node.returns,
        "any-annotation",
        BLOCK,
        f"`{node.name}` is annotated `-> {declared}` but can fall off its end and return None",
    )


def _fell_off_before(src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the base version of the file has this function (the one of its name in the
    same classes and functions), under the same return annotation, and it could already
    fall off its end: the change edits an old mismatch (a parameter added to a function
    that never returned on every path), not one it makes. Not a stub or a generator
    there: a body the change writes in place of ``...`` is new."""
    old = src.base_function(node)
    return (
        old is not None
        and old.returns is not None
        and node.returns is not None
        and ast.dump(old.returns) == ast.dump(node.returns)
        and not wrong.is_stub(old.body)
        and not _is_generator(old)
        and not _terminates(old.body, _ModuleNoReturn(src))
    )


def _silenced_def(src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the ``def`` or its return annotation's line has ``# type: ignore`` / ``# noqa``."""
    assert node.returns is not None
    lines = {node.lineno, node.returns.lineno}
    return any(wrong.silenced(src, line) for line in lines)


_CONTAINERS = {
    "dict": "dict",
    "typing.Dict": "dict",
    "list": "list",
    "typing.List": "list",
    "tuple": "tuple",
    "typing.Tuple": "tuple",
    "collections.abc.Mapping": "mapping",
    "typing.Mapping": "mapping",
}


def _without_none(src: SourceInfo, node: ast.expr | None) -> ast.expr | None:
    """The type an ``Optional[T]`` / ``T | None`` / ``Union[T, None]`` holds besides None
    (``**kwargs: Optional[dict]`` says each value is a dict or None); ``node`` itself when
    it is no such union."""
    if node is None:
        return None
    members = union_items(src, node)
    if members is None:
        return node
    rest = [m for m in members if not (isinstance(m, ast.Constant) and m.value is None)]
    return rest[0] if len(rest) == 1 and len(members) == 2 else None


def _container(src: SourceInfo, annotation: ast.expr, star: str) -> str | None:
    """``dict`` / ``list`` / ... when a ``*args``/``**kwargs`` annotation is a container.

    Not ``*pairs: tuple[str, str]``: a tuple of fixed length (two or more items) types
    each positional argument as a pair, which is what it means (``for name, cfg in
    pairs``); ``*shape: Tuple[int]`` and ``*tensors: Tuple[Tensor, ...]`` describe the
    whole ``args`` tuple instead."""
    node = _without_none(src, unquoted(annotation))
    if node is None:
        return None
    kind = _CONTAINERS.get(_annotation_base(src, node) or "")
    if kind == "tuple" and star == "*":
        items = node.slice if isinstance(node, ast.Subscript) else None
        if (
            isinstance(items, ast.Tuple)
            and len(items.elts) >= 2
            and not any(
                isinstance(item, ast.Constant) and item.value is Ellipsis for item in items.elts
            )
        ):
            return None
    return kind


def mimicked_class(src: SourceInfo, call: ast.Call) -> tuple[str, str] | None:
    """(class, where) when a ``SimpleNamespace(a=..., b=...)`` has only attributes of a
    class the test defines or imports from the repository (at least two of them)."""
    wanted = {k.arg for k in call.keywords if k.arg}
    if len(wanted) < 2:
        return None
    for name, where, fields in _known_classes(src):
        if wanted <= fields:
            return name, where
    return None


_RECORD_DECORATOR = re.compile(r"\b(?:dataclass|define|frozen|attr\.s|attrs)\b")
_RECORD_BASE = re.compile(r"\b(?:" + "|".join(fakes.RECORD_BASE_NAMES) + r")\b")


def _test_records(tree: ast.Module) -> dict[str, frozenset[str]]:
    """The test file's own record classes (``@dataclass``, ``TypedDict``, ``NamedTuple``,
    pydantic, ``msgspec.Struct``) and their declared fields: an untyped helper class of
    the test (``class FakeAsyncOmni:``) is itself a fake, not a real typed class."""
    out: dict[str, frozenset[str]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        marks = " ".join(ast.unparse(d) for d in node.decorator_list)
        bases = " ".join(ast.unparse(b) for b in node.bases)
        if not (_RECORD_DECORATOR.search(marks) or _RECORD_BASE.search(bases)):
            continue
        out[node.name] = frozenset(
            item.target.id
            for item in node.body
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
        )
    return out


def _known_classes(src: SourceInfo) -> list[tuple[str, str, frozenset[str]]]:
    """Classes of the test file and those it imports from modules of the repository."""
    cached = src.cache.get("classes")
    if isinstance(cached, list):
        return cached
    found: list[tuple[str, str, frozenset[str]]] = [
        (name, src.path, fields) for name, fields in _test_records(src.tree).items()
    ]
    if src.root is not None:
        for node in src.tree.body:
            if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                continue
            wanted = {a.name for a in node.names if a.name[:1].isupper()}
            if not wanted:
                continue
            module = _module_classes(src.root, node.module)
            if module is None:
                continue
            relpath, classes = module
            # An imported class counts when it is a typed data class (a dataclass, a
            # config, a TypedDict...): a layer or service class faked by a few attributes
            # is a duck-typed stand-in, the ⚠ case.
            loaded = _finder(src).load(node.module)
            kinds = loaded[0].classes if loaded is not None else {}
            # A keyword the module defines as a method or property is a wrapper's
            # delegating attribute (``OmniRequestOutput.prompt_token_ids``), no field:
            # the class's fields then do not name what the fake is.
            methods = _module_methods(src.root, node.module)
            found.extend(
                (n, relpath, classes[n] - methods)
                for n in sorted(wanted)
                if n in classes and kinds.get(n)
            )
    src.cache["classes"] = found
    return found


@functools.lru_cache(maxsize=256)
def _parsed_classes(path: str, mtime_ns: int, size: int) -> dict[str, frozenset[str]]:
    """:func:`class_fields_text` of a file, cached by its stat (a sweep reads a module once)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_MODULE_BYTES + 1)
    except OSError:
        return {}
    return {} if len(data) > MAX_MODULE_BYTES else fakes.class_fields_text(data)


MAX_MODULE_BYTES = 2_000_000


_METHOD_RE = re.compile(rb"^[ \t]+(?:async[ \t]+)?def[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(", re.M)


@functools.lru_cache(maxsize=256)
def _parsed_methods(path: str, mtime_ns: int, size: int) -> frozenset[str]:
    """The names of the methods and properties (an indented ``def name(``) of a file."""
    del mtime_ns, size
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_MODULE_BYTES + 1)
    except OSError:
        return frozenset()
    if len(data) > MAX_MODULE_BYTES:
        return frozenset()
    return frozenset(m.decode() for m in _METHOD_RE.findall(data))


def _module_methods(root: str, module: str) -> frozenset[str]:
    """:func:`_parsed_methods` of module ``a.b`` under ``root`` (empty when not there)."""
    hit = fakes.module_file(root, module.replace(".", "/"))
    if hit is None:
        return frozenset()
    _relpath, path, info = hit
    return _parsed_methods(path, info.st_mtime_ns, info.st_size)


def _module_classes(root: str, module: str) -> tuple[str, dict[str, frozenset[str]]] | None:
    """The classes of module ``a.b`` read from ``root/a/b.py`` or ``root/a/b/__init__.py``,
    staying inside ``root`` (no symlink out)."""
    hit = fakes.module_file(root, module.replace(".", "/"))
    if hit is None:
        return None
    relpath, path, info = hit
    return relpath, _parsed_classes(path, info.st_mtime_ns, info.st_size)


def _parents(src: SourceInfo, call: ast.AST) -> dict[int, ast.AST]:
    """id(node) -> parent, over the top-level statement holding ``call`` (each such
    statement walked once: the parent links a binding needs never leave it)."""
    parents = src.cache.setdefault("parents", {})
    walked = src.cache.setdefault("parents_walked", set())
    assert isinstance(parents, dict) and isinstance(walked, set)
    line = getattr(call, "lineno", 0)
    spans = src.cache.get("top_spans")
    if not isinstance(spans, tuple):
        # (first lines, last lines) of the top-level statements, in order: a decorated
        # ``def``/``class`` starts at its first decorator. Statements do not overlap, so
        # the last lines never decrease: the first statement holding a line is found by
        # bisection (not a scan of the module for each fake).
        spans = src.cache["top_spans"] = (
            [
                min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
                for stmt in src.tree.body
            ],
            [stmt.end_lineno or stmt.lineno for stmt in src.tree.body],
        )
    firsts, lasts = spans
    index = bisect.bisect_left(lasts, line)
    if index < len(lasts) and firsts[index] <= line:
        stmt = src.tree.body[index]
        if id(stmt) not in walked:
            walked.add(id(stmt))
            parents[id(stmt)] = src.tree
            for parent in fakes.walked(stmt):
                for child in ast.iter_child_nodes(parent):
                    parents[id(child)] = parent
    return parents


def _finder(src: SourceInfo) -> fakes.Finder:
    """The module finder of the file's repository (shared: the modules it reads are the
    same for every test file of a change)."""
    return fakes.finder_for(src.root)


def fake_of(src: SourceInfo, call: ast.Call) -> fakes.Mimicked | None:
    """The typed class a ``SimpleNamespace(...)`` in a test stands in for: by what it is
    bound to (the annotation of that name in the code under test, a class named like it,
    the field of the class an enclosing fake stands in for) or by its keywords (all
    fields of a class the test defines or imports, or of the one record class of the
    repository that has them all)."""
    found = _fake_of(src, call, 0)
    if found is not None:
        if "its keyword" in found[0].how and _plain_slot(src, call, found[0].name):
            return None
        return found[0]
    vetoed = src.cache.get("vetoed")
    if isinstance(vetoed, set) and id(call) in vetoed:
        return None  # the typed parameter it reaches is another class
    by_fields = mimicked_class(src, call)
    if by_fields is None:
        # last: transformers' config / ``ModelOutput`` (a class of the repository or the
        # test sharing the keywords is nearer)
        found = _hf_fake(src, call)
        return found[0] if found is not None else None
    if _plain_slot(src, call, by_fields[0]):
        return None
    return fakes.Mimicked(by_fields[0], by_fields[1], "its keywords (all fields of the class)")


def _plain_slot(src: SourceInfo, call: ast.Call, cls: str) -> bool:
    """Whether the slot a fake matched to ``cls`` by its keywords only fills is annotated
    with another, plain class nearly everywhere in the work tree (see
    :mod:`policytool.rules._fake_slots`): a field-name match is no evidence then."""
    if src.root is None:
        return False
    names = _fake_slots.slot_names(call, _parents(src, call))
    return bool(names) and _fake_slots.plain_consensus(_finder(src), names, cls) is not None


def _is_fake(src: SourceInfo, node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and bool(node.keywords)
        and src.qualname(node.func) in _SIMPLE_NAMESPACE
    )


def _local_fakes(
    src: SourceInfo, call: ast.AST, parents: dict[int, ast.AST]
) -> dict[str, ast.Call]:
    """Local name -> the ``SimpleNamespace(...)`` the function holding ``call`` binds it to
    (names bound once only)."""
    func = fakes._enclosing_function(call, parents)
    if func is None:
        return {}
    memo = src.cache.setdefault("local_fakes", {})
    assert isinstance(memo, dict)
    if id(func) in memo:
        cached: dict[str, ast.Call] = memo[id(func)]
        return cached
    bound: dict[str, ast.Call] = {}
    twice: set[str] = set()
    for node in fakes.walked(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                if target.id in bound or target.id in twice:
                    twice.add(target.id)
                    bound.pop(target.id, None)
                elif _is_fake(src, node.value):
                    assert isinstance(node.value, ast.Call)
                    bound[target.id] = node.value
                else:
                    twice.add(target.id)
    memo[id(func)] = bound
    return bound


# Elements of a list or tuple display read as nested fakes (the first few tell the
# element type; a pull request's display of thousands of fakes made each reading of the
# outer fake quadratic).
MAX_DISPLAY_FAKES = 8


def _nested(
    src: SourceInfo, call: ast.Call, parents: dict[int, ast.AST]
) -> tuple[tuple[str, frozenset[str]], ...]:
    """(keyword, its fake's keywords) of each fake passed as a keyword of ``call``,
    directly or through a local name bound to it, or as an element of a list or tuple
    display (``choices=[SimpleNamespace(delta=...)]``: the field's element type)."""
    out: dict[tuple[str, frozenset[str]], None] = {}  # in order, each once
    local: dict[str, ast.Call] | None = None
    for k in call.keywords:
        if not k.arg:
            continue
        values = k.value.elts if isinstance(k.value, (ast.List, ast.Tuple)) else [k.value]
        for value in values[:MAX_DISPLAY_FAKES]:
            if isinstance(value, ast.Name):
                if local is None:
                    local = _local_fakes(src, call, parents)
                value = local.get(value.id, value)
            if isinstance(value, ast.Call) and _is_fake(src, value):
                out[(k.arg, frozenset(n.arg for n in value.keywords if n.arg))] = None
    return tuple(out)


def _in_record(
    src: SourceInfo, call: ast.Call, parents: dict[int, ast.AST], modules: list[str]
) -> bool:
    """Whether the fake is a keyword of a call of a record class
    (``AscendCompressorMetadata(cache=fake)``): a real slot, whatever its annotation."""
    keyword = parents.get(id(call))
    outer = parents.get(id(keyword)) if isinstance(keyword, ast.keyword) else None
    if not isinstance(outer, ast.Call):
        return False
    name = src.qualname(outer.func) or ""
    cls = name.rsplit(".", 1)[-1]
    if not cls[:1].isupper() or cls in _SIMPLE_NAMESPACE:
        return False
    module = name.rpartition(".")[0]
    finder = _finder(src)
    for where in [module] if module else modules:
        defined = fakes.define(finder, cls, where)
        if defined is not None:
            return defined.record
    return False


def _fake_of(
    src: SourceInfo, call: ast.Call, depth: int
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """:func:`fake_of` by binding, else by its fields, memoized per call (nested fakes ask
    for their outer)."""
    memo = src.cache.setdefault("fakes", {})
    assert isinstance(memo, dict)
    if id(call) in memo:
        cached: tuple[fakes.Mimicked, fakes.Defined] | None = memo[id(call)]
        return cached
    memo[id(call)] = None  # a cycle through local names ends here
    result = None
    # An empty ``SimpleNamespace()`` counts when what it is bound to is typed (the
    # binding is the evidence): an annotation, never a name alone.
    if call.keywords or not call.args:
        parents = _parents(src, call)
        modules = src.cache.get("modules")
        if not isinstance(modules, list):
            modules = list(fakes.imported_modules(src.tree, src.path))
            src.cache["modules"] = modules
        keywords = frozenset(k.arg for k in call.keywords if k.arg)
        nested = _nested(src, call, parents)
        bound = fakes.binding(call, parents)
        reached = _reached(src, call, parents, modules, keywords, nested)
        if reached is not None:
            # The parameter the test passes the fake to is typed: it wins over a class
            # named like the variable or one sharing its keywords (none when the fake
            # does not fit it).
            result = reached[0]
            vetoed = src.cache.setdefault("vetoed", set())
            if result is None and isinstance(vetoed, set):
                vetoed.add(id(call))
            memo[id(call)] = result
            return result
        if bound is not None:
            # ``AttentionOp(mesh=SimpleNamespace(...))``: the parameter's annotation, like
            # a held fake's (the name ``mesh`` is only a name)
            result = _argument_fake(src, call, parents, modules, keywords, nested)
        if bound is not None and result is None:
            name, element, explicit = bound
            outer = fakes.outer_call(call, parents)
            outer_found = (
                _fake_of(src, outer, depth + 1)
                if outer is not None and depth < 4 and src.qualname(outer.func) in _SIMPLE_NAMESPACE
                else None
            )
            result = fakes.mimicked(
                _finder(src),
                modules,
                name,
                element,
                explicit,
                keywords,
                outer_found[1] if outer_found is not None else None,
                nested,
            )
            if result is None and name and not element and not explicit:
                result = _passed_fake(src, call, parents, name, modules, keywords, nested)
            if result is None and name and not element and not explicit and depth < 4:
                result = _held_fake(src, call, parents, name, modules, keywords, nested, depth)
            if result is None and name and not element and not explicit:
                result = _inherited_fake(src, call, parents, modules, keywords, nested)
            if result is None and name and not element and not explicit:
                result = _owner_fake(src, call, parents, modules, keywords, nested)
            if result is None and name and not element and not explicit and keywords:
                result = fakes.by_consensus(_finder(src), name, keywords, nested)
        if result is None and bound is None:
            result = _argument_fake(src, call, parents, modules, keywords, nested)
        if result is None:
            result = _patched_function_fake(src, call, parents, keywords, nested)
        if result is None and keywords:
            result = _mocked_method_fake(src, call, parents, modules, keywords, nested)
        if result is None and keywords:
            result = replaced.replaced_return(
                _finder(src), modules, call, parents, keywords, nested
            )
        if result is None and keywords:
            result = replaced.installed_method_fake(
                _finder(src), modules, call, parents, keywords, nested
            )
        if result is None:
            result = _caller_fake(src, call, parents, modules, keywords, nested)
        if result is None:
            result = fakes.by_fields(
                _finder(src),
                keywords,
                nested,
                _in_record(src, call, parents, modules),
                modules,
                bound[0] if bound is not None else "",
                _reaches_code(src, call, parents, modules),
            )
        if result is None and keywords:
            # ``SimpleNamespace(type="content_block_start", ...)``: the tag one model of
            # an installed SDK declares as its ``type: Literal[...]``
            tags = tuple(
                (k.arg, k.value.value)
                for k in call.keywords
                if k.arg and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)
            )
            result = _fake_packages.by_tag(_finder(src), keywords, tags, nested, modules)
    if result is not None and not call.keywords:
        parents = _parents(src, call)
        stmt = parents.get(id(call))
        local = isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)
        holder = fakes.outer_call(call, parents)
        if holder is not None and src.qualname(holder.func) in _SIMPLE_NAMESPACE:
            # a keyword of another fake: typed only when that fake's class is known
            local = local or _fake_of(src, holder, depth + 1) is None
        flowed = "it is passed" in result[0].how or _REPLACED in result[0].how
        if not _typed_binding(result[0].how) or (local and not flowed):
            # a local name's annotation elsewhere is a name match: the parameter the
            # test passes it to decides (or the base class of ``self``)
            read = src.cache.get("modules")
            result = (
                _inherited_fake(src, call, parents, read, frozenset(), ())
                if isinstance(read, list)
                else None
            )
            if result is None and isinstance(read, list):
                # or the class the code's own calls pass for the parameter it reaches
                result = _caller_fake(src, call, parents, read, frozenset(), ())
            if result is not None and not _typed_binding(result[0].how):
                result = None
    memo[id(call)] = result
    return result


def _hf_fake(src: SourceInfo, call: ast.Call) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """A ``SimpleNamespace`` fake of transformers' model config or of a ``forward``'s
    ``ModelOutput`` (see :mod:`policytool.rules._fake_hf`): the slot names it fills are
    what it is bound to, the test helper's parameter or the ``parametrize`` argument it
    is."""
    keywords = frozenset(k.arg for k in call.keywords if k.arg)
    modules = src.cache.get("modules")
    if not keywords or not isinstance(modules, list):
        return None
    if src.qualname(call.func) not in _SIMPLE_NAMESPACE:
        return None
    parents = _parents(src, call)
    slots = _fake_slots.slot_names(call, parents)
    parametrized = _parametrized(call, parents)
    if parametrized is not None:
        slots = [*slots, parametrized[0]]
    return _fake_hf.hf_fake(_finder(src), modules, call, parents, keywords, slots)


# How a fake found as what a replaced callable returns says so (data flow, no name).
_REPLACED = replaced.REPLACED


def _typed_binding(how: str) -> bool:
    """Whether ``how`` a fake was found is an annotation (``x: T``, its own annotation,
    a function's ``-> T``), not a name or keyword match."""
    return "the name `" not in how and "its keywords" not in how


def _inherited_fake(
    src: SourceInfo,
    call: ast.Call,
    parents: dict[int, ast.AST],
    modules: list[str],
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """A fake set as ``self.x`` in a test class derived from a class of the code under
    test (``class _Bare(MoERunner): ... self.moe_config = SimpleNamespace()``): the
    annotation of ``x`` where that base class is defined."""
    stmt = parents.get(id(call))
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return None
    target = stmt.targets[0]
    if not (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    ):
        return None
    func = fakes._enclosing_function(stmt, parents)
    owner = parents.get(id(func)) if func is not None else None
    if not isinstance(owner, ast.ClassDef):
        return None
    finder = _finder(src)
    for base in owner.bases[:4]:
        name = fakes._terminal(base)
        if not name[:1].isupper():
            continue
        for module in modules:
            defined = fakes.define(finder, name, module)
            if defined is None:
                continue
            found = fakes.mimicked(
                finder, [defined.module], target.attr, False, None, keywords, None, nested
            )
            if found is not None:
                mimics, data = found
                how = f"the attribute `{target.attr}` of `{name}`: {mimics.how}"
                return fakes.Mimicked(mimics.name, mimics.where, how), data
            break
    return None


def _owner_fake(
    src: SourceInfo,
    call: ast.Call,
    parents: dict[int, ast.AST],
    modules: list[str],
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """A fake set as an attribute of a real object the test builds (``recipe =
    Recipe.__new__(Recipe); recipe.dist_env = SimpleNamespace(...)``): the type the
    object's class declares for that attribute (see :mod:`policytool.rules._fake_owner`)."""
    stmt = parents.get(id(call))
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or stmt.value is not call:
        return None
    target = stmt.targets[0]
    if not isinstance(target, ast.Attribute) or not isinstance(target.value, ast.Name):
        return None
    func = fakes._enclosing_function(stmt, parents)
    if func is None:
        return None
    cls = _fake_owner.owner_class(target.value, func, src.tree)
    if not cls:
        return None
    finder = _finder(src)
    found = _fake_owner.attribute_type(finder, modules, cls, target.attr)
    if found is None:
        return None
    defined, name, how = found
    if not defined.data_class or not fakes.plausible(
        defined, keywords, fakes.misfits(finder, defined, nested)
    ):
        return None
    return fakes.Mimicked(name, defined.relpath, how), defined


def _held_fake(
    src: SourceInfo,
    call: ast.Call,
    parents: dict[int, ast.AST],
    var: str,
    modules: list[str],
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
    depth: int,
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """A fake bound to a local name that another fake holds as a keyword
    (``cache = SimpleNamespace(req_metadata=req)``), or as an element of a list or tuple
    display there (``SimpleNamespace(choices=[choice])``): the field of that keyword in
    the class the outer fake stands in for (its element type for a display)."""
    stmt = parents.get(id(call))
    if not isinstance(stmt, ast.Assign) or not isinstance(stmt.targets[0], ast.Name):
        return None
    func = fakes._enclosing_function(stmt, parents)
    if func is None:
        return None
    for node in fakes.walked(func):
        if node is call or not _is_fake(src, node):
            continue
        assert isinstance(node, ast.Call)
        for k in node.keywords:
            display = isinstance(k.value, (ast.List, ast.Tuple))
            values = (
                k.value.elts[:MAX_DISPLAY_FAKES]
                if isinstance(k.value, (ast.List, ast.Tuple))
                else [k.value]
            )
            if k.arg and any(isinstance(v, ast.Name) and v.id == var for v in values):
                outer_found = _fake_of(src, node, depth + 1)
                if outer_found is None:
                    continue
                return fakes.mimicked(
                    _finder(src), modules, k.arg, display, None, keywords, outer_found[1], nested
                )
    return None


_MOCK_CALLS = frozenset(
    {"MagicMock", "Mock", "AsyncMock", "NonCallableMagicMock", "create_autospec"}
)


def _holder(call: ast.Call, parents: dict[int, ast.AST]) -> tuple[str, ast.AST] | None:
    """(``name`` or ``self.name``, the scope using it) of a fake assigned to a local name
    (its function) or to an attribute of ``self`` (its class)."""
    stmt = parents.get(id(call))
    # a list or tuple display holds its children as elements (``call in stmt.elts`` was a
    # linear search per fake: a display of 30,000 fakes took 14 s)
    element = isinstance(stmt, (ast.ListComp, ast.List, ast.Tuple))
    if element:
        # ``seqs = [SimpleNamespace(...) for _ in range(n)]``: each element, as the
        # target of a ``for seq in seqs:`` loop (see ``_element_names``).
        stmt = parents.get(id(stmt))
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return None
    target = stmt.targets[0]
    func = fakes._enclosing_function(stmt, parents)
    if func is None:
        return None
    if isinstance(target, ast.Name):
        return ("[]" if element else "") + target.id, func
    if element:
        return None
    if (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    ):
        owner = parents.get(id(func))
        if isinstance(owner, ast.ClassDef):
            return f"self.{target.attr}", owner
    return None


def _element_names(scope: ast.AST, var: str) -> str:
    """``[]seqs`` -> the names that ``for name in seqs:`` loops of ``scope`` bind (each a
    fake of the list), joined by ``|``; any other ``var`` as it is."""
    if not var.startswith("[]"):
        return var
    names = {
        node.target.id
        for node in fakes.walked(scope)
        if isinstance(node, (ast.For, ast.AsyncFor))
        and isinstance(node.target, ast.Name)
        and isinstance(node.iter, ast.Name)
        and node.iter.id == var[2:]
    }
    return "|".join(sorted(names))


# Local names bound to a test helper's calls, followed per helper.
MAX_HELPER_HOLDERS = 12


def _helper_holders(call: ast.Call, parents: dict[int, ast.AST]) -> list[tuple[str, ast.AST]]:
    """A fake a test helper returns (``def _json_request(body): return SimpleNamespace(
    ...)``): its calls (``()_json_request``, over the module or class defining the
    helper) and the local names bound to one (``benchmark = _make_mock_benchmark()``,
    each in its function)."""
    stmt = parents.get(id(call))
    if not isinstance(stmt, ast.Return):
        return []
    func = fakes._enclosing_function(stmt, parents)
    scope = parents.get(id(func)) if func is not None else None
    if func is None or not isinstance(scope, (ast.Module, ast.ClassDef)):
        return []
    marker = f"(){func.name}"
    out: list[tuple[str, ast.AST]] = [(marker, scope)]
    users: list[ast.AST] = []
    for top in scope.body:
        if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)):
            users.append(top)
        elif isinstance(top, ast.ClassDef):
            users.extend(
                m for m in top.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
            )
    for user in users:
        for node in fakes.walked(user):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and _is_holder(node.value, marker)
                and len(out) < MAX_HELPER_HOLDERS
            ):
                out.append((node.targets[0].id, user))
    return out


def _is_holder(node: ast.expr, var: str) -> bool:
    if var.startswith("()"):
        # a call of the helper returning the fake: ``helper(...)`` / ``self.helper(...)``
        return isinstance(node, ast.Call) and (
            (isinstance(node.func, ast.Name) and node.func.id == var[2:])
            or (
                isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, (ast.Name))
                and node.func.value.id in ("self", "cls")
                and node.func.attr == var[2:]
            )
        )
    if isinstance(node, ast.Name):
        return node.id in var.split("|")
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and f"self.{node.attr}" == var
    )


def _reached(
    src: SourceInfo,
    call: ast.Call,
    parents: dict[int, ast.AST],
    modules: list[str],
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[tuple[fakes.Mimicked, fakes.Defined] | None] | None:
    """What the parameters a fake held by a local name or ``self.x`` is passed to say:
    (the typed class one of them annotates and the fake fits,) or (None,) when one is
    annotated with a typed data class the fake does not fit; None when no parameter
    reached is annotated with a typed data class (the other evidence decides)."""
    held = _holder(call, parents)
    holders = [held] if held is not None else _helper_holders(call, parents)
    if not holders:
        return None
    finder = _finder(src)
    second = finder.second_tier(modules)
    seen = 0
    for var, scope in holders:
        if var.startswith("[]"):
            # ``workers = [SimpleNamespace(...) for i in range(5)]`` handed on whole:
            # each fake fills the element type of the parameter it is passed to
            found = _reached_from(
                src, scope, var[2:], modules, second, keywords, nested, seen, listed=True
            )
            if isinstance(found, tuple):
                return found
            seen = found
        var = _element_names(scope, var)
        if not var:
            continue
        found = _reached_from(src, scope, var, modules, second, keywords, nested, seen)
        if isinstance(found, tuple):
            return found
        seen = found
    return None


def _reached_from(
    src: SourceInfo,
    scope: ast.AST,
    var: str,
    modules: list[str],
    second: list[str],
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
    seen: int,
    listed: bool = False,
) -> tuple[tuple[fakes.Mimicked, fakes.Defined]] | int:
    """:func:`_reached` for one holder ``var`` of ``scope``: the typed class found, else
    the count of calls read so far (``seen`` before). ``listed``: ``var`` holds a list of
    the fakes, so passing it fills a parameter's element type."""
    finder = _finder(src)
    for node in fakes.walked(scope):
        if not isinstance(node, ast.Call) or seen >= 8:
            continue
        callee = fakes._callee(node)
        if not callee or callee in _MOCK_CALLS or src.qualname(node.func) in _SIMPLE_NAMESPACE:
            continue
        if callee in (*fakes.SETTERS, "patch", "cast", "isinstance", "getattr"):
            continue
        unbound = fakes.called_on_class(node)
        params: list[tuple[str, str]] = []
        for index, arg in enumerate(node.args):
            if isinstance(arg, ast.Starred):
                break
            if _is_holder(arg, var) and not listed:
                seen += 1
                params += fakes.parameter_names(finder, [*modules, *second], callee, index, unbound)
            depth = int(_is_holder(arg, var)) if listed else _display_depth(arg, var)
            if depth:
                seen += 1
                for name, module in fakes.parameter_names(
                    finder, [*modules, *second], callee, index, unbound
                ):
                    element = _parameter_element(finder, module, name, callee, depth)
                    found = _element_fake(finder, element, keywords, nested)
                    if found is not None:
                        return (found,)
        for k in node.keywords:
            depth = int(_is_holder(k.value, var)) if listed else _display_depth(k.value, var)
            if k.arg and depth:
                seen += 1
                element = _record_element(finder, [*modules, *second], callee, k.arg, depth)
                for module in [*modules, *second] if element is None else []:
                    if any(k.arg in p for p in fakes.signatures_in(finder, module, callee)):
                        element = _parameter_element(finder, module, k.arg, callee, depth)
                        if element is not None:
                            break
                found = _element_fake(finder, element, keywords, nested)
                if found is not None:
                    return (found,)
            if k.arg and _is_holder(k.value, var) and not listed:
                seen += 1
                params += [
                    (k.arg, m)
                    for m in [*modules, *second]
                    if any(k.arg in p for p in fakes.signatures_in(finder, m, callee))
                ]
        for name, module in params:
            found = fakes.annotated_in(finder, module, name, keywords, nested, callee=callee)
            if found is not None:
                mimics, defined = found
                how = f"the parameter `{name}` of `{callee}` it is passed to: {mimics.how}"
                return ((fakes.Mimicked(mimics.name, mimics.where, how), defined),)
    # A record parameter the fake does not fit is no veto: keyword evidence (all the
    # fields of another record) still names the class (vllm-ascend's compressor fakes).
    return seen


# Nesting of list and tuple displays a held fake is read through (``[[sample]]``).
MAX_DISPLAY_DEPTH = 2


def _display_depth(node: ast.expr, var: str, depth: int = 0) -> int:
    """How many list or tuple displays deep the holder ``var`` is an element of ``node``
    (``[[sample]]``: 2); 0 when it is not inside one."""
    if not isinstance(node, (ast.List, ast.Tuple)) or depth >= MAX_DISPLAY_DEPTH:
        return 0
    for elt in node.elts:
        if _is_holder(elt, var):
            return depth + 1
        inner = _display_depth(elt, var, depth + 1)
        if inner:
            return inner
    return 0


def _record_element(
    finder: fakes.Finder, where: list[str], cls: str, field: str, depth: int
) -> tuple[str, str, str, str] | None:
    """:func:`_parameter_element` of the field when ``cls`` is a record class with
    ``field`` (``rollout_states: list[list[RolloutState]]``), the slot a display's
    element fills."""
    if not cls[:1].isupper():
        return None
    for module in where:
        defined = fakes.define(finder, cls, module)
        if defined is None:
            continue
        if not defined.record or field not in defined.fields:
            return None
        return _parameter_element(finder, defined.module, field, cls, depth)
    return None


def _parameter_element(
    finder: fakes.Finder, module: str, name: str, owner: str, depth: int
) -> tuple[str, str, str, str] | None:
    """(the element class, the annotation shown, the module, its path) when ``module``
    annotates ``name`` (a parameter of ``owner`` or a field of the record ``owner``) as a
    sequence of a class at ``depth`` (``groups: list[list[RolloutState]]``)."""
    loaded = finder.load(module)
    if loaded is None:
        return None
    for text in loaded[0].annotations.get(name, ())[:4]:
        element = fakes.nested_element_type(text, depth)
        if element:
            shown = fakes.balanced(text.strip())
            return element, f"`{name}: {shown}` of `{owner}`", module, loaded[1]
    return None


def _element_fake(
    finder: fakes.Finder,
    element: tuple[str, str, str, str] | None,
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """The typed data class a fake stands in for as an element of a sequence slot (see
    :func:`_parameter_element`)."""
    if element is None:
        return None
    cls, annotation, module, relpath = element
    found = fakes.mimicked(finder, [module], "", False, cls, keywords, None, nested)
    if found is None:
        return None
    how = f"an element of {annotation} in {relpath}, which it is put in"
    return fakes.Mimicked(found[0].name, found[0].where, how), found[1]


def _patch_targets(scope: ast.AST, is_func: Callable[[ast.expr | None], bool]) -> list[str]:
    """The dotted paths a replacement of ``scope`` (a function by its name, a lambda) is
    patched over: ``monkeypatch.setattr(module.subprocess, "run", func)`` (the object's
    last name), ``monkeypatch.setattr("subprocess.run", func)``, ``patch("subprocess.run",
    side_effect=func)``, ``patch.object(subprocess, "run", new=func)``."""
    out: list[str] = []
    for node in fakes.walked(scope):
        if not isinstance(node, ast.Call) or len(out) >= 4:
            continue
        callee = fakes._callee(node)
        args = node.args
        given = [k.value for k in node.keywords if k.arg in ("side_effect", "new")]
        if callee in fakes.SETTERS:
            if len(args) >= 3 and (is_func(args[2]) or any(is_func(v) for v in given)):
                obj, attr = fakes._terminal(args[0]), args[1]
                if obj and isinstance(attr, ast.Constant) and isinstance(attr.value, str):
                    out.append(f"{obj}.{attr.value}")
            elif len(args) == 2 and callee == "setattr" and is_func(args[1]):
                target = args[0]
                if isinstance(target, ast.Constant) and isinstance(target.value, str):
                    out.append(target.value)
        elif callee == "patch" and args and isinstance(args[0], ast.Constant):
            if any(is_func(v) for v in (*args[1:2], *given)) and isinstance(args[0].value, str):
                out.append(args[0].value)
    return [t for t in out if "." in t]


def _names(name: str, node: ast.expr | None) -> bool:
    """Whether ``node`` is the bare name ``name``."""
    return isinstance(node, ast.Name) and node.id == name


def _patched_function_fake(
    src: SourceInfo,
    call: ast.Call,
    parents: dict[int, ast.AST],
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """A fake a test function returns (``return SimpleNamespace(returncode=0)``) where
    that function is patched over a real one (``monkeypatch.setattr(module.subprocess,
    "run", fake_run)``): what the real function returns, by its ``-> T`` or, with no
    annotation, the class its ``return`` builds (``subprocess.run``: ``CompletedProcess``)."""
    stmt = parents.get(id(call))
    if not keywords:
        return None
    is_func: Callable[[ast.expr | None], bool]
    if isinstance(stmt, ast.Lambda) and stmt.body is call:
        # ``setattr("pkg.get_config", lambda *_a: fake)``: the lambda is the replacement
        replacement: ast.AST = stmt
        is_func = functools.partial(operator.is_, stmt)
    elif isinstance(stmt, ast.Return):
        func = fakes._enclosing_function(stmt, parents)
        if func is None:
            return None
        replacement = func
        is_func = functools.partial(_names, func.name)
    else:
        return _named_patched_fake(src, call, parents, keywords, nested)
    scope = fakes._enclosing_function(replacement, parents) or parents.get(id(replacement))
    if scope is None:
        return None
    return _patched_over(src, scope, is_func, keywords, nested)


def _patched_over(
    src: SourceInfo,
    scope: ast.AST,
    is_func: Callable[[ast.expr | None], bool],
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """What the real function a replacement (``is_func``) is patched over in ``scope``
    returns (see :func:`_patched_function_fake`)."""
    finder = _finder(src)
    for target in _patch_targets(scope, is_func):
        found = fakes.patched_return(finder, target, keywords, nested)
        owner, _dot, method = target.rpartition(".")
        owner = owner.rpartition(".")[2]
        if found is None and owner[:1].isupper():
            # a class's method (``setattr(auto.AutoConfig, "from_pretrained", ...)``)
            # with no ``-> T``: the class the repository binds its value to
            found = fakes.bound_return(finder, owner, method, keywords, nested)
        if found is not None:
            mimics, defined = found
            how = f"what the patched `{target}` returns: {mimics.how}"
            return fakes.Mimicked(mimics.name, mimics.where, how), defined
    return None


def _local_flow(call: ast.Call, parents: dict[int, ast.AST]) -> tuple[str, bool] | None:
    """(name, as an element) of the local variable a fake's value is put in: ``v = fake``
    (False), or ``v = [fake, ...]`` / ``v = iter([fake, ...])`` (True); None otherwise."""
    node: ast.AST = call
    parent = parents.get(id(node))
    element = False
    if isinstance(parent, (ast.List, ast.Tuple)):
        element, node = True, parent
        parent = parents.get(id(node))
        if (
            isinstance(parent, ast.Call)
            and isinstance(parent.func, ast.Name)
            and parent.func.id == "iter"
            and len(parent.args) == 1
            and not parent.keywords
        ):
            node, parent = parent, parents.get(id(parent))
    if (
        isinstance(parent, ast.Assign)
        and parent.value is node
        and len(parent.targets) == 1
        and isinstance(parent.targets[0], ast.Name)
    ):
        return parent.targets[0].id, element
    return None


def _yields_var(var: str, element: bool, expr: ast.expr | None) -> bool:
    """Whether ``expr`` is the value of the local ``var`` (``var``), or with ``element``
    one element of it (``next(var)``, ``var.pop(...)``, ``var[i]``)."""
    if not element:
        return _names(var, expr)
    if isinstance(expr, ast.Subscript):
        return _names(var, expr.value)
    if not isinstance(expr, ast.Call) or expr.keywords:
        return False
    if isinstance(expr.func, ast.Name) and expr.func.id == "next":
        return len(expr.args) == 1 and _names(var, expr.args[0])
    return (
        isinstance(expr.func, ast.Attribute)
        and expr.func.attr == "pop"
        and _names(var, expr.func.value)
    )


def _own_returns(func: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.Return]:
    """The ``return`` statements of ``func`` itself (not of the functions it nests)."""
    stack: list[ast.AST] = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


def _binds(func: ast.FunctionDef | ast.AsyncFunctionDef, var: str) -> bool:
    """Whether ``func`` binds ``var`` itself (a parameter or an assignment: a local of
    its own, not the enclosing function's)."""
    args = func.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    if any(a is not None and a.arg == var for a in params):
        return True
    return any(
        isinstance(n, ast.Name) and n.id == var and isinstance(n.ctx, ast.Store)
        for n in fakes.walked(func)
    )


def _named_patched_fake(
    src: SourceInfo,
    call: ast.Call,
    parents: dict[int, ast.AST],
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """A fake put in a local variable (``result = SimpleNamespace(returncode=1)``, or an
    element of ``results = iter([...])``) that a replacement returns (``lambda *a, **k:
    result``, a nested ``def fake_run(...): return next(results)``), where that
    replacement is patched over a real function in the same test: what the real
    function returns, as for a fake the replacement returns itself. Data flow only: the
    name the variable has says nothing."""
    flow = _local_flow(call, parents)
    if flow is None:
        return None
    var, element = flow
    scope = fakes._enclosing_function(call, parents)
    if scope is None:
        return None
    for node in fakes.walked(scope):
        is_func: Callable[[ast.expr | None], bool]
        if isinstance(node, ast.Lambda) and _yields_var(var, element, node.body):
            is_func = functools.partial(operator.is_, node)
        elif (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node is not scope
            and not _binds(node, var)
            and any(_yields_var(var, element, r.value) for r in _own_returns(node))
        ):
            is_func = functools.partial(_names, node.name)
        else:
            continue
        found = _patched_over(src, scope, is_func, keywords, nested)
        if found is not None:
            return found
    return None


def _mock_class(mock: str, scope: ast.AST) -> str:
    """The class whose instance the local mock ``mock`` stands for in a test function:
    ``mock = Mock(spec=Cls)`` / ``create_autospec(Cls)``, or the return value of a mock
    patched over a class (``setattr(module, "Cls", Mock(return_value=mock))``,
    ``patch("pkg.Cls", return_value=mock)``); "" when none says."""
    for node in fakes.walked(scope):
        if not isinstance(node, ast.Call):
            continue
        callee = fakes._callee(node)
        given = {k.arg: k.value for k in node.keywords if k.arg}
        specced = fakes.spec_class(node)
        if specced and _is_holder_of(node, scope, mock):
            return specced
        returned = given.get("return_value")
        if not (isinstance(returned, ast.Name) and returned.id == mock):
            continue
        patched = fakes._patched_name(node) if callee in ("patch", "object") else ""
        if not patched and callee in _MOCK_CALLS:
            patched = _setattr_name(scope, node)
        if patched[:1].isupper():
            return patched
    return ""


def _is_holder_of(call: ast.Call, scope: ast.AST, name: str) -> bool:
    """Whether ``name = call`` is a statement of the scope."""
    return any(
        isinstance(node, ast.Assign)
        and node.value is call
        and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
        for node in fakes.walked(scope)
    )


def _setattr_name(scope: ast.AST, value: ast.Call) -> str:
    """The attribute ``setattr(obj, "name", value)`` / ``monkeypatch.setattr(...)``
    replaces with ``value`` (the call itself, or the local name it is bound to)."""
    names = kwreads.names_bound_to(fakes.walked(scope), value)
    for node in fakes.walked(scope):
        if not isinstance(node, ast.Call) or fakes._callee(node) != "setattr":
            continue
        if len(node.args) < 3 or not isinstance(node.args[1], ast.Constant):
            continue
        arg = node.args[2]
        if arg is value or (isinstance(arg, ast.Name) and arg.id in names):
            return str(node.args[1].value).rsplit(".", 1)[-1]
    return ""


def _mocked_method_fake(
    src: SourceInfo,
    call: ast.Call,
    parents: dict[int, ast.AST],
    modules: list[str],
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """A fake set as what a mock's method returns (``api.list_repo_refs.return_value =
    fake``) where the mock stands for an instance of a class (:func:`_mock_class`):
    what that class's method is annotated to return."""
    stmt = parents.get(id(call))
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return None
    target = stmt.targets[0]
    if not (
        isinstance(target, ast.Attribute)
        and target.attr == "return_value"
        and isinstance(target.value, ast.Attribute)
        and isinstance(target.value.value, ast.Name)
    ):
        return None
    scope = fakes._enclosing_function(stmt, parents)
    cls = _mock_class(target.value.value.id, scope) if scope is not None else ""
    if not cls:
        return None
    method = target.value.attr
    finder = _finder(src)
    second = finder.second_tier(modules)
    found = fakes.method_return(finder, cls, method, [*modules, *second], keywords, nested)
    if found is None:
        return None
    mimics, defined = found
    how = f"what the mocked `{cls}.{method}` returns: {mimics.how}"
    return fakes.Mimicked(mimics.name, mimics.where, how), defined


def _parametrized(call: ast.Call, parents: dict[int, ast.AST]) -> tuple[str, ast.AST] | None:
    """(argument name, the test function) of a fake that is a value of
    ``@pytest.mark.parametrize("validation, loaded", [(fake, fake), ...])`` (or of a
    single-name list): the parameter of the decorated test that receives it."""
    node: ast.AST = call
    index = 0
    parent = parents.get(id(node))
    if isinstance(parent, ast.Tuple):
        index = parent.elts.index(call) if call in parent.elts else -1
        node, parent = parent, parents.get(id(parent))
    if index < 0 or not isinstance(parent, ast.List):
        return None
    decorator = parents.get(id(parent))
    if (
        not isinstance(decorator, ast.Call)
        or not parametrize.is_parametrize(decorator)
        or len(decorator.args) < 2
        or decorator.args[1] is not parent
    ):
        return None
    argnames = parametrize.argnames(decorator)
    if argnames is None:
        return None
    if node is call and len(argnames) != 1:
        return None  # a bare value of several names: no one parameter
    func = parents.get(id(decorator))
    if (
        not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef))
        or decorator not in func.decorator_list
        or index >= len(argnames)
    ):
        return None
    return argnames[index], func


def _reaches_code(
    src: SourceInfo, call: ast.Call, parents: dict[int, ast.AST], modules: list[str]
) -> bool:
    """Whether the fake, directly or through the local name or ``self.x`` holding it, is
    an argument of a function of the code under test (a ``def`` of that name in the
    modules the test imports or those they import, whose parameter it reaches): a slot
    of real code the fake fills, whatever that parameter's annotation (``Any``)."""
    finder = _finder(src)
    second = finder.second_tier(modules)
    where = [*modules, *second]
    for node, at in _reached_calls(src, call, parents):
        callee = fakes._callee(node)
        unbound = fakes.called_on_class(node)
        if isinstance(at, int):
            if fakes.parameter_names(finder, where, callee, at, unbound):
                return True
        elif any(any(at in p for p in fakes.signatures_in(finder, m, callee)) for m in where):
            return True
    return False


def _reached_calls(
    src: SourceInfo, call: ast.Call, parents: dict[int, ast.AST]
) -> list[tuple[ast.Call, int | str]]:
    """(call, positional index or keyword) of each call of real code the fake is an
    argument of, directly or through the local name or ``self.x`` holding it (at most
    8; mocks, patches and builtins left out)."""
    outer = parents.get(id(call))
    scope: ast.AST | None = None
    var = ""
    if isinstance(outer, ast.Call) and call in outer.args:
        calls: list[tuple[ast.Call, int | str]] = [(outer, outer.args.index(call))]
    elif isinstance(outer, ast.keyword) and outer.arg and outer.arg != "return_value":
        holder = parents.get(id(outer))
        if not isinstance(holder, ast.Call):
            return []
        calls = [(holder, outer.arg)]
    else:
        held = _holder(call, parents) or _parametrized(call, parents)
        if held is None:
            return []
        var, scope = held
        var = _element_names(scope, var)
        if not var:
            return []
        calls = []
        for node in fakes.walked(scope):
            if not isinstance(node, ast.Call) or len(calls) >= 8:
                continue
            for index, arg in enumerate(node.args):
                if isinstance(arg, ast.Starred):
                    break
                if _is_holder(arg, var):
                    calls.append((node, index))
            calls.extend((node, k.arg) for k in node.keywords if k.arg and _is_holder(k.value, var))
    return [
        (node, at)
        for node, at in calls
        if fakes._callee(node)
        and fakes._callee(node) not in _MOCK_CALLS
        and src.qualname(node.func) not in _SIMPLE_NAMESPACE
        and fakes._callee(node)
        not in (*fakes.SETTERS, "patch", "cast", "isinstance", "getattr", "hasattr")
    ]


def _caller_fake(
    src: SourceInfo,
    call: ast.Call,
    parents: dict[int, ast.AST],
    modules: list[str],
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """A fake passed to an untyped parameter of the code under test (``simple_layer_
    modules(model_config=fake)``): the class the code's own calls of that function pass
    for it, when they agree (:func:`fakes.callers_pass`)."""
    finder = _finder(src)
    second = finder.second_tier(modules)
    where = [*modules, *second]
    sources = fakes._sources(finder)
    for node, at in _reached_calls(src, call, parents):
        callee = fakes._callee(node)
        # the work tree's own function (its ``def`` in a module read), which the code
        # calls somewhere: no other file is read for it
        head = f"def {callee}(".encode()
        defining = [m for m in where if head in sources.get(m, b"")]
        if not defining or not fakes.calling_modules(finder, callee):
            continue
        if isinstance(at, int):
            unbound = fakes.called_on_class(node)
            slots = fakes.parameter_names(finder, defining, callee, at, unbound)
        else:
            slots = [
                (at, m)
                for m in defining
                if any(at in p for p in fakes.signatures_in(finder, m, callee))
            ]
        for name, module in slots[:4]:
            found = fakes.callers_pass(finder, callee, name, module, keywords, nested)
            if found is not None:
                mimics, defined = found
                how = f"the parameter `{name}` of `{callee}` it is passed to: {mimics.how}"
                return fakes.Mimicked(mimics.name, mimics.where, how), defined
    return None


def _argument_fake(
    src: SourceInfo,
    call: ast.Call,
    parents: dict[int, ast.AST],
    modules: list[str],
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """A fake passed straight to a call, positionally (``manager.allocate(
    SimpleNamespace(...))``) or by keyword (``AttentionOp(mesh=SimpleNamespace(...))``):
    the annotation of that parameter where the callee is defined (``allocate(self, seq:
    SchedulerSequence)``, ``mesh: Mesh``)."""
    outer = parents.get(id(call))
    slot: int | str
    if isinstance(outer, ast.keyword) and outer.arg:
        slot = outer.arg
        outer = parents.get(id(outer))
        if not isinstance(outer, ast.Call):
            return None
    elif isinstance(outer, ast.Call) and call in outer.args:
        slot = outer.args.index(call)
        if any(isinstance(a, ast.Starred) for a in outer.args[:slot]):
            return None
    else:
        return None
    callee = fakes._callee(outer)
    if not callee or src.qualname(outer.func) in _SIMPLE_NAMESPACE or callee in _MOCK_CALLS:
        return None
    unbound = fakes.called_on_class(outer)
    return _parameter_fake(src, modules, callee, slot, unbound, keywords, nested)


def _parameter_fake(
    src: SourceInfo,
    modules: list[str],
    callee: str,
    slot: int | str,
    unbound: bool,
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """What a fake given to ``callee``'s parameter ``slot`` (its position, or its keyword)
    stands in for: that parameter's annotation where the callee is defined, in the
    modules the test imports or those they import; for a positional one no class
    annotates, the class its name names (:func:`_named_by_parameter`; by keyword the
    name is the fake's binding already)."""
    finder = _finder(src)
    where = [*modules, *finder.second_tier(modules)]
    params = _slot_params(finder, where, callee, slot, unbound)
    if not params and callee[:1].isupper():
        # ``SubmitToolOutputsAction(submit_tool_outputs=fake)``: a class the test imports
        # from a package's ``__init__`` that re-exports it; its ``__init__`` is where the
        # class is defined
        home = next(
            (d.module for m in modules if (d := fakes.define(finder, callee, m)) is not None),
            None,
        )
        if home is not None and home not in where:
            params = _slot_params(finder, [home], callee, slot, unbound)
    if (
        not params
        and not any(fakes.signatures_in(finder, m, callee) for m in where)
        and _receiver_unresolved(src, callee)
    ):
        # Defined in no module the test reaches by its imports (a fixture hands the test
        # the module): the one function of that name in the work tree, as a reviewer
        # greps for it; a name defined twice names neither.
        homes = fakes.defining_modules(finder, callee)
        if len(homes) == 1:
            params = _slot_params(finder, homes, callee, slot, unbound)
    found: tuple[fakes.Mimicked, fakes.Defined] | None = None
    label = ""
    for name, module in params:
        found = fakes.annotated_in(finder, module, name, keywords, nested, callee=callee)
        if found is not None:
            label = f"the parameter `{name}` of `{callee}` it is passed to"
            break
    if found is None and isinstance(slot, int):
        found, label = _named_by_parameter(src, modules, params, callee, keywords, nested)
    if found is None:
        return None
    mimics, defined = found
    return fakes.Mimicked(mimics.name, mimics.where, f"{label}: {mimics.how}"), defined


def _receiver_unresolved(src: SourceInfo, callee: str) -> bool:
    """Whether the test calls ``callee`` only as a method of an object no import of the
    file binds (``recipe_runner.sync_layout(...)`` on a fixture's module,
    ``self.runner.step(...)``): what a reviewer looks up by name in the work tree. Not a
    name the file imports (``from lib import f``, found in ``lib`` or not at all, however
    broken the import), nor a call on an imported module or class (``m.f(...)``: ``m``'s
    function), nor a plain call (``f(...)``: a name of the file itself)."""
    calls = src.per_node("call_roots", src.tree, lambda: _CallRoots(src.tree))
    found = calls.roots.get(callee)
    if not found or callee in calls.imported or "" in found:
        return False
    return found.isdisjoint(calls.imported)


class _CallRoots:
    """The names a file's imports bind, and for each name called the root names of its
    calls' receivers (``""`` for a plain ``f(...)``, ``runner`` for
    ``runner.cfg.f(...)``, ``"."`` for a receiver that is no name): one walk of the
    file, however many callees are asked about."""

    def __init__(self, tree: ast.Module) -> None:
        """Walk ``tree`` once."""
        imported: set[str] = set()
        roots: dict[str, set[str]] = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    bound = alias.asname or alias.name
                    plain = isinstance(node, ast.Import)
                    imported.add(bound.split(".", 1)[0] if plain else bound)
            elif isinstance(node, ast.Call) and (name := last_name(node.func)):
                root = node.func
                while isinstance(root, ast.Attribute):
                    root = root.value
                held = roots.setdefault(name, set())
                if root is node.func:
                    held.add("")
                else:
                    held.add(root.id if isinstance(root, ast.Name) else ".")
        self.imported = frozenset(imported)
        self.roots = {name: frozenset(held) for name, held in roots.items()}


def _slot_params(
    finder: fakes.Finder, where: list[str], callee: str, slot: int | str, unbound: bool
) -> list[tuple[str, str]]:
    """(parameter name, module) that ``slot`` (a position, or a keyword) of a call of
    ``callee`` reaches in each ``def callee(...)`` of the modules ``where``."""
    if isinstance(slot, int):
        return fakes.parameter_names(finder, where, callee, slot, unbound)
    return [
        (slot, m) for m in where if any(slot in p for p in fakes.signatures_in(finder, m, callee))
    ]


def _named_by_parameter(
    src: SourceInfo,
    modules: list[str],
    params: list[tuple[str, str]],
    callee: str,
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[tuple[fakes.Mimicked, fakes.Defined] | None, str]:
    """A fake passed positionally to a parameter no class annotates (none, ``Any``, or
    ``config: Config`` with ``Config = Any``): what the parameter's name names, as a fake
    passed by that keyword would be read (``_resolve_attention_type(SimpleNamespace(...),
    t)`` -> ``config`` -> ``MaxTextConfig``); the first parameter name found decides. A
    parameter annotated with a class that is no data class (``request: "Request"``) says
    what the fake stands in for: its name is not read."""
    if not params:
        return None, ""
    finder = _finder(src)
    name, module = params[0]
    for text in fakes.parameter_annotations(finder, module, callee, name):
        cls = fakes._type_name(text)
        defined = fakes.define(finder, cls, module) if cls else None
        # ``Config = Any`` resolves to typing's ``Any``, a class since Python 3.11
        if defined is not None and defined.module != "typing":
            return None, ""
    label = f"the parameter `{name}` of `{callee}` it is passed to"
    return fakes.mimicked(finder, modules, name, False, None, keywords, None, nested), label


def _passed_fake(
    src: SourceInfo,
    call: ast.Call,
    parents: dict[int, ast.AST],
    var: str,
    modules: list[str],
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """A fake bound to a local variable (``common_metadata = SimpleNamespace(...)``) that
    names no class stands in for the parameter the test passes it to
    (``builder.build(0, common_metadata)`` -> ``build``'s ``common_attn_metadata``,
    read from ``def build(`` in the modules the test imports or those they import)."""
    stmt = parents.get(id(call))
    if not isinstance(stmt, ast.Assign) or not isinstance(stmt.targets[0], ast.Name):
        return None
    finder = _finder(src)
    tried = {var}
    for callee, where in fakes.passed_as(var, stmt, parents):
        found: tuple[fakes.Mimicked, fakes.Defined] | None = None
        if isinstance(where, str) and "." in callee:
            # ``patch("pkg.get_config", return_value=var)``: what ``get_config`` returns.
            found = fakes.patched_return(finder, callee, keywords, nested)
            if found is not None:
                mimics, defined = found
                how = f"what the patched `{callee}` returns: {mimics.how}"
                return fakes.Mimicked(mimics.name, mimics.where, how), defined
            callee = "patch"
        if isinstance(where, str):
            label = f"`{where}`, what `{callee}(...)` binds it to"
            if callee not in (*fakes.SETTERS, "patch") and callee not in _MOCK_CALLS:
                label = f"the keyword `{where}` of `{callee}` it is passed as"
            if where not in tried:
                tried.add(where)
                found = fakes.mimicked(finder, modules, where, False, None, keywords, None, nested)
            if found is None and callee not in (*fakes.SETTERS, "patch", *_MOCK_CALLS):
                # ``verifier(q=fake)``: the annotation of the callee's parameter ``q``,
                # where the callee is defined, as for a fake passed positionally.
                passed = _parameter_fake(src, modules, callee, where, False, keywords, nested)
                if passed is not None:
                    return passed
        else:
            passed = _parameter_fake(src, modules, callee, where, False, keywords, nested)
            if passed is not None:
                return passed
        if found is not None:
            mimics, defined = found
            return fakes.Mimicked(mimics.name, mimics.where, f"{label}: {mimics.how}"), defined
    return None


# What naming a file's new fakes may cost, in fakes x lines of the function each sits in:
# the readings walk that function once or more per fake, so one test function of
# thousands of fakes took minutes (quadratic). Real tests stay far below (the largest
# seen: 66 fakes in one vllm-omni test file); past it a fake is reported unnamed (⚠).
MAX_FAKE_READING = 300_000


class _FakeBudget:
    """What is left of :data:`MAX_FAKE_READING` in one file."""

    def __init__(self) -> None:
        self.left = MAX_FAKE_READING

    def take(self, function: ast.AST | None) -> bool:
        """Spend one fake's reading in ``function`` (module level: one line); False once
        the file's budget is spent."""
        lines = 1
        if function is not None:
            first = getattr(function, "lineno", 1)
            lines = (getattr(function, "end_lineno", None) or first) - first + 1
        self.left -= lines
        return self.left >= 0


def any_annotation(src: SourceInfo) -> Iterator[Finding]:
    """``Any`` and untyped signatures in production code, wrong returns, test fakes."""
    if src.is_test:
        budget = _FakeBudget()
        for node, ctx in src.of_type(ast.Call):
            assert isinstance(node, ast.Call)
            # New when its ``SimpleNamespace(`` is on an added line: a keyword added
            # inside an old fake does not make the fake new.
            if src.qualname(node.func) in _SIMPLE_NAMESPACE and src.node_added(node.func):
                mimics = fake_of(src, node) if budget.take(ctx.innermost) else None
                if mimics is not None:
                    yield finding(
                        src,
                        node,
                        "any-annotation",
                        BLOCK,
                        f"new `SimpleNamespace` fake stands in for `{mimics.name}` "
                        f"({mimics.where}; found by {mimics.how}), a real typed class: "
                        f"build `{mimics.name}(...)` or a typed fake",
                    )
                else:
                    yield finding(
                        src,
                        node,
                        "any-annotation",
                        WARN,
                        "new `SimpleNamespace` fake in a test: it forces `Any` into the code "
                        "under test" + ("" if budget.left >= 0 else _unread()),
                    )
        # A wrong annotation misleads in a test helper as it does anywhere (the ⚠ for
        # ``Any`` is about production signatures only).
        yield from _wrong_annotations(src)
        return
    for node, ctx in src.of_type(ast.AnnAssign):
        assert isinstance(node, ast.AnnAssign)
        # A local variable's ``: Any`` in a function body is no signature (the ⚠
        # is ``Any`` leaking into signatures); class and module attributes are.
        if (
            src.node_added(node.annotation)
            and _is_any(src, node.annotation)
            and not wrong.local_variable(node, ctx.innermost)
        ):
            yield finding(
                src,
                node.annotation,
                "any-annotation",
                WARN,
                f"`{short(src, node.target)}: {short(src, node.annotation)}` "
                "turns the type checker off",
            )
        yield from wrong.annassign_findings(src, node)
        # ``none_items`` filters cheaply first: the locality walk runs for few nodes.
        given_none = wrong.none_items(src, node, ctx.innermost)
        if given_none is not None:
            yield given_none
        looked_up = wrong.optional_lookup(src, node, ctx.innermost)
        if looked_up is not None:
            yield looked_up
    for node, _ctx in src.of_type(ast.FunctionDef, ast.AsyncFunctionDef):
        assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        positional = [*node.args.posonlyargs, *node.args.args]
        args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        args += [a for a in (node.args.vararg, node.args.kwarg) if a is not None]
        for arg in args:
            if arg.annotation is None or not src.node_added(arg.annotation):
                continue
            star = "**" if arg is node.args.kwarg else "*" if arg is node.args.vararg else ""
            container = _container(src, arg.annotation, star) if star else None
            if container is not None:
                each = "value" if star == "**" else "positional argument"
                yield finding(
                    src,
                    arg.annotation,
                    "any-annotation",
                    BLOCK,
                    f"`{star}{arg.arg}: {short(src, arg.annotation)}` says every {each} is a "
                    f"{container}; annotate one {each}'s type (or use `Unpack[TypedDict]`)",
                )
            elif not star and _is_any(src, arg.annotation):
                # ``*args: Any`` / ``**kwargs: Any`` is the standard pass-through form
                # (what the function forwards is the callee's contract): not reported.
                message = (
                    f"parameter `{arg.arg}: {short(src, arg.annotation)}` "
                    f"of `{node.name}` has no contract"
                )
                yield finding(src, arg.annotation, "any-annotation", WARN, message)
        lazy_exports = node.name in ("__getattr__", "__dir__") and node in src.tree.body
        if (
            node.returns is not None
            and src.node_added(node.returns)
            and _is_any(src, node.returns)
            and not lazy_exports  # a module's ``__getattr__(name) -> Any``: PEP 562's form
        ):
            yield finding(
                src,
                node.returns,
                "any-annotation",
                WARN,
                f"`{node.name}` returns `{short(src, node.returns)}`: callers get no type checking",
            )
        checked = node.returns is not None and _never_none(src, node.returns) is not None
        yield from _merged(
            getattr(wrong.return_site(src, node), "lineno", node.lineno),
            [
                *_wrong_return(src, node),
                *_class_falls_off(src, node),
                *wrong.function_findings(src, node, checked),
            ],
        )
        # Only a method's first parameter is its receiver: a module-level function's
        # parameter named ``self`` is an ordinary argument (it makes the signature untyped).
        params = args[1:] if positional and _takes_receiver(src, node, positional[0]) else args
        typed = node.returns is not None or any(a.annotation is not None for a in params)
        if typed or not src.overlaps(node.lineno, node.lineno) or _def_edited(src, node):
            continue  # judged on the ``def`` line the change adds, not on an old def
        if params:
            yield finding(
                src,
                node,
                "any-annotation",
                WARN,
                f"function `{node.name}` has a fully unannotated signature",
            )
        else:
            returns = any(
                isinstance(n, ast.Return) and n.value is not None
                for n in kwreads.statements(node.body, scopes=False)
            )
            hint = "add its return type" if returns or _is_generator(node) else "add `-> None`"
            yield finding(
                src,
                node,
                "any-annotation",
                WARN,
                f"`{node.name}` takes no arguments but has no return annotation: {hint}",
            )


def _wrong_annotations(src: SourceInfo) -> Iterator[Finding]:
    """The provably wrong annotations of a test file's own functions (module-level or
    nested in a function): implicit Optional parameters, and returns that contradict the
    return annotation. Not inside a class: a test file's class is a double (a stub
    ``Request``, a ``DummyInputsStrategy``) whose signatures mirror the API it stands in
    for, so a wrong annotation there is that API's (reported where it is written) or a
    stub's; a helper function's signature is its own contract."""
    in_class = wrong.class_functions(src)
    for node, ctx in src.of_type(ast.FunctionDef, ast.AsyncFunctionDef):
        assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        if id(node) in in_class:
            continue
        outer = [f for f in ctx.funcs if f is not node]
        if node.name in _expected_rejected(src, outer[-1] if outer else src.tree):
            continue  # built to be rejected: the wrong annotation is what the test checks
        checked = node.returns is not None and _never_none(src, node.returns) is not None
        yield from _merged(
            getattr(wrong.return_site(src, node), "lineno", node.lineno),
            [
                *_wrong_return(src, node),
                *_class_falls_off(src, node),
                *wrong.function_findings(src, node, checked),
            ],
        )


# The context managers a test asserts an error with: ``pytest.raises``,
# ``self.assertRaises``, ``test.assertRaisesRegex``.
_RAISES = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"})


def _expected_rejected(src: SourceInfo, scope: ast.AST) -> frozenset[str]:
    """The names a test's ``scope`` (a function, or the module) uses inside its own ``with
    pytest.raises(...):`` / ``with self.assertRaises...(...):`` blocks: what it expects to
    be rejected (warp's test kernel ``def f4(x: float) -> float: return``, launched
    under ``assertRaisesRegex(WarpCodegenTypeError, ...)``). Read once a scope."""
    cache = src.cache.setdefault("expected_rejected", {})
    assert isinstance(cache, dict)
    found = cache.get(id(scope))
    if isinstance(found, frozenset):
        return found
    names: set[str] = set()
    stack: list[ast.AST] = list(getattr(scope, "body", []))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(
            isinstance(item.context_expr, ast.Call)
            and fakes._terminal(item.context_expr.func) in _RAISES
            for item in node.items
        ):
            names.update(
                n.id
                for stmt in node.body
                for n in ast.walk(stmt)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            )
        stack.extend(ast.iter_child_nodes(node))
    cache[id(scope)] = frozen = frozenset(names)
    return frozen


def _takes_receiver(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, first: ast.arg
) -> bool:
    """Whether ``first`` is the receiver: ``self``/``cls`` of a function defined in a class
    body that is no ``@staticmethod`` (the class bodies are walked once per file, and only
    for a file with such a parameter)."""
    if first.arg not in ("self", "cls"):
        return False
    if any(fakes._terminal(d) == "staticmethod" for d in node.decorator_list):
        return False
    methods = src.cache.get("method_ids")
    if not isinstance(methods, set):
        methods = {
            id(item)
            # a class is a statement: the statements alone hold them all (cheap)
            for cls in kwreads.statements(src.tree.body)
            if isinstance(cls, ast.ClassDef)
            for item in cls.body
        }
        src.cache["method_ids"] = methods
    return id(node) in methods


def _unread(prefix: str = "not named: ") -> str:
    """How a message says the file's fake budget was spent."""
    return (
        f" ({prefix}this file's new fakes are read up to {MAX_FAKE_READING:,} "
        "fake-lines, and it has more)"
    )


def _merged(line: int, found: list[Finding]) -> Iterator[Finding]:
    """``found``, with the ✗ of one function's signature line (:func:`wrong.return_site`)
    joined into one finding (one site: its wrong returns, its falling off the end)."""
    at_def = [f for f in found if f.line == line and f.severity == BLOCK]
    yield from (f for f in found if not (f.line == line and f.severity == BLOCK))
    if len(at_def) == 1:
        yield at_def[0]
    elif at_def:
        first = at_def[0]
        yield dataclasses.replace(first, message="; ".join(f.message for f in at_def))


def _is_generator(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the function yields (its own body, not nested functions)."""
    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in kwreads.body_nodes(node))


def _def_edited(src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the hunk adding the ``def`` line replaced an old ``def`` of that name."""
    old = src.replaced_text(node.lineno)
    name = node.name.encode()
    return name in old and re.search(rb"def\s+" + re.escape(name) + rb"\b", old) is not None


def check(source: SourceFile, config: Config) -> list[Finding]:
    """``Any``, untyped and wrong signatures, test fakes, on the lines the sweep looks at."""
    return list(any_annotation(sweep_info(source, config)))


RULE = register(
    sweep_rule(
        "any-annotation",
        "a new `Any` / untyped signature; ✗ for a wrong annotation or a "
        "`SimpleNamespace` test fake of a real class",
        check,
        DOC,
    )
)
