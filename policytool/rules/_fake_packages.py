# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""A fake's keywords matched against the record classes of the installed packages the
code under test imports (one hop from the test).

A test fakes what the code under test receives, and that is often a class of a library
the code imports, not of the repository (``SimpleNamespace(rfilename=..., size=...)``
for huggingface_hub's ``RepoSibling``, the entries of ``HfApi().model_info().siblings``).
A reviewer recognises it by a field name only that class has. The match is trusted only
when it is that specific:

- the fake sets at least ``MIN_KEYWORDS`` attributes, all attributes of one public
  record class (``@dataclass``, ``TypedDict``, ``NamedTuple``, pydantic,
  ``msgspec.Struct``, attrs) of one package;
- one of its keywords is declared (an indented ``name:`` line) in one module alone of
  the packages read, by that class alone there, and by no record class of the
  repository (``path`` or ``size``, which many classes declare, name none of them; a
  class that sets ``self.rfilename`` for compatibility does not declare it); two
  classes that each own one of the keywords name neither;
- the packages read are those the test imports and those its imported modules import
  (top-level package, outside the work tree and the standard library; last, those the
  work tree's imported modules import whole or by a literal name at run time:
  :func:`fakes.whole_packages_of`), each small
  enough to read (``MAX_PACKAGE_FILES`` modules, ``MAX_PACKAGE_BYTES`` bytes: a
  framework the size of transformers is not scanned).

A generated SDK declares most fields in several models (openai's ``model``, ``choices``
and ``usage`` in ``Completion``, ``ChatCompletion`` and ``ChatCompletionChunk``), so no
keyword is one class's own. A fake of ``fakes.MIN_FIELD_MATCH`` keywords or more, one of
them declared in at most ``MAX_SHARED_MODULES`` modules, is matched against the classes
declaring them all instead (:func:`_by_shared_fields`); the nested fakes tell the models
apart, and the others as good are named in the message. And a fake that sets a field to
the literal a model declares as its type (``type="content_block_start"`` for
``type: Literal["content_block_start"]``) stands in for that model (:func:`by_tag`).

Only a ``SimpleNamespace`` fake is matched this way (mocks need their slot's annotation).
"""

from __future__ import annotations

import functools
import os
import re
import stat
import sysconfig
from dataclasses import dataclass

from policytool.rules import _fakes as fakes

# Attributes a fake must set to be matched by field names in a package.
MIN_KEYWORDS = 2
# A package larger than this is not scanned (cost: a generated SDK such as openai, 1,500
# modules and 11 MB of pydantic models, is read in 0.12 s; anthropic 2.x, 3,357 modules
# and 8.8 MB, in 0.12 s too; transformers and torch, over 40 MB, are not read: the bytes
# bound is the one that costs, the module count only stops a tree of tiny files).
MAX_PACKAGE_FILES = 4000
MAX_PACKAGE_BYTES = 16_000_000
# A keyword declared in at most this many modules of the packages read is rare enough to
# narrow a fake of ``fakes.MIN_FIELD_MATCH`` keywords or more to the few classes that
# declare every one (``choices`` in openai).
MAX_SHARED_MODULES = fakes.MAX_FIELD_MODULES
# A tag a generated SDK's model declares (``type: Literal["content_block_start"]``): an
# identifier or a dotted event name (``response.output_text.delta``), three characters
# at least.
_TAG_VALUE = re.compile(r"[A-Za-z][A-Za-z0-9_.\-]{2,63}")
# A quoted string inside ``Literal[...]``.
_QUOTED = re.compile(rb"[\"']([^\"'\n]*)[\"']")
# At most this many packages are read per test file.
MAX_PACKAGES = 8
# Test imports resolved by the tail of a module path of the tree (a ``sys.path`` insert).
MAX_NESTED_IMPORTS = 32
# Module path components of a package's preview API (``openai.types.beta``): its models
# lose a tie to the stable API's.
_PREVIEW = frozenset({"beta", "alpha", "preview", "experimental"})
# Folders of an installed package that hold no classes its users receive.
_SKIP_DIRS = frozenset({"tests", "test", "testing", "examples", "benchmarks", "docs"})


@dataclass(frozen=True)
class _Texts:
    """The modules of one installed package that may declare a record class."""

    # dotted module -> (its path, the path to show, its text)
    modules: dict[str, tuple[str, str, bytes]]


@functools.cache
def _stdlib_dir() -> str:
    """The standard library's directory, resolved once."""
    return os.path.realpath(sysconfig.get_paths()["stdlib"])


def _stdlib(path: str) -> bool:
    """Whether ``path`` (resolved) is a module of the standard library."""
    stdlib = _stdlib_dir()
    real = os.path.realpath(path)
    return real.startswith(stdlib + os.sep) and "site-packages" not in real.split(os.sep)


@functools.lru_cache(maxsize=64)
def _package_texts(package_dir: str) -> _Texts | None:
    """The texts of the package's modules that hold a record mark (``dataclass``,
    ``TypedDict``...), read once; None when the package is too big to read."""
    files: list[str] = []
    total = 0
    for dirpath, dirnames, filenames in os.walk(package_dir):
        dirnames[:] = sorted(
            d for d in dirnames if d not in _SKIP_DIRS and d.isidentifier() and d[:1] != "."
        )
        for filename in sorted(filenames):
            if not filename.endswith(".py"):
                continue
            path = os.path.join(dirpath, filename)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):
                continue
            total += info.st_size
            files.append(path)
            if len(files) > MAX_PACKAGE_FILES or total > MAX_PACKAGE_BYTES:
                return None
    parent = os.path.dirname(package_dir)
    modules: dict[str, tuple[str, str, bytes]] = {}
    for path in files:
        try:
            with open(path, "rb") as handle:
                data = handle.read(fakes.MAX_MODULE_BYTES + 1)
        except OSError:
            continue
        if len(data) > fakes.MAX_MODULE_BYTES or not any(m in data for m in fakes._RECORD_MARKS):
            continue
        shown = os.path.relpath(path, parent)
        module = shown[: -len(".py")].replace(os.sep, ".").removesuffix(".__init__")
        modules[module] = (path, shown, data)
    return _Texts(modules)


@functools.lru_cache(maxsize=4096)
def _declaring_modules(package_dir: str, field: str) -> tuple[str, ...]:
    """The package's modules with a line declaring ``field`` (an indented ``field:``, a
    cheap text test: a class field, or a parameter of a multi-line signature)."""
    texts = _package_texts(package_dir)
    if texts is None:
        return ()
    word = field.encode()
    line = re.compile(rb"^[ \t]+" + re.escape(word) + rb"[ \t]*:(?!=)", re.M)
    return tuple(
        module
        for module, (_path, _shown, data) in sorted(texts.modules.items())
        if word in data and line.search(data)
    )


def _declaring(
    package_dir: str, module: str, field: str
) -> list[tuple[str, str, frozenset[str], tuple[str, ...]]]:
    """(class, path to show, its attribute names, its bases) of each public record class
    of the package's ``module`` that declares ``field`` (``field: T`` in its body)."""
    texts = _package_texts(package_dir)
    entry = texts.modules.get(module) if texts is not None else None
    if entry is None:
        return []
    path, shown, data = entry
    try:
        info = os.stat(path)
    except OSError:
        return []
    parsed = fakes._module_at(path, info.st_mtime_ns, info.st_size)
    if parsed is None:
        return []
    declared = _declared(data)
    return [
        (cls, shown, parsed.fields.get(cls, frozenset()), parsed.bases.get(cls, ()))
        for cls in sorted(parsed.records)
        if not cls.startswith("_") and field in declared.get(cls, ())
    ]


def _declared(data: bytes) -> dict[str, frozenset[str]]:
    """Module-level class -> the fields its body declares (``name: T`` at the body's own
    indentation; not a method, not an attribute set in ``__init__``)."""
    out: dict[str, frozenset[str]] = {}
    for match in fakes._CLASS_RE.finditer(data):
        start = match.end()
        body = data[start : fakes._class_end(data, start)]
        newline = body.find(b"\n")
        indent = fakes._INDENT_RE.search(body, newline + 1) if newline >= 0 else None
        if indent is None:
            continue
        member = re.compile(
            rb"^" + re.escape(indent.group(1)) + rb"([A-Za-z_][A-Za-z0-9_]*)[ \t]*:(?!=)", re.M
        )
        out[match.group(1).decode()] = frozenset(n.decode() for n in member.findall(body))
    return out


def _packages(finder: fakes.Finder, modules: list[str]) -> list[tuple[str, str]]:
    """(package, its directory) of each installed top-level package that the test or
    the modules it imports import: outside the work tree and the standard library
    (kept per test file with the finder's second tier of modules)."""
    key = tuple(modules)
    kept = finder.packages.get(key)
    if kept is None:
        kept = finder.packages[key] = _find_packages(finder, modules)
    return kept


def _find_packages(finder: fakes.Finder, modules: list[str]) -> list[tuple[str, str]]:
    """:func:`_packages`, not kept."""
    second = finder.second_tier(modules)
    # a test importing ``hub.utils.gguf`` from a folder its conftest puts on ``sys.path``
    # (``studio/backend/hub/utils/gguf.py``): the one module of the tree ending so
    # (only when its top-level package is nowhere: ``vllm.config.X`` names a function)
    unresolved = [m for m in modules if "." in m and finder.find(m.split(".", 1)[0]) is None]
    if unresolved:
        sources = fakes._sources(finder)
        nested: list[str] = []
        for module in unresolved[:MAX_NESTED_IMPORTS]:
            tail = "." + module
            hits = [m for m in sources if m.endswith(tail)]
            if len(hits) == 1:
                nested.append(hits[0])
        if nested:
            second = [*second, *fakes.imports_of(finder, nested)]
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    root = finder.root or ""
    # last: a package the code under test imports whole, named by none of its classes
    whole = fakes.whole_packages_of(finder, modules)
    for module in (*modules, *second, *whole):
        top = module.split(".", 1)[0]
        if not top or top in seen:
            continue
        seen.add(top)
        found = finder.find(top)
        if found is None or not found[0].endswith("__init__.py"):
            continue
        path = os.path.realpath(found[0])
        if (root and path.startswith(root + os.sep)) or _stdlib(path):
            continue
        out.append((top, os.path.dirname(path)))
        if len(out) >= MAX_PACKAGES:
            break
    return out


def by_package_fields(
    finder: fakes.Finder,
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
    modules: list[str],
    name: str = "",
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """The one record class of an installed package the code under test imports that
    has every keyword of the fake as a field, one of them its own, or else the record
    classes that have them all, one of the keywords rare (see the module); ``nested``
    (keyword, its fake's keywords) rules out a class whose field type they do not fit."""
    evidence = len(keywords) + sum(len(inner) for _k, inner in nested)
    if not keywords or evidence < MIN_KEYWORDS or not finder.root:
        return None
    memo_key = ("by_package_fields", keywords, nested, tuple(modules), name)
    if memo_key in finder.answers:
        return finder.answers[memo_key]
    answer = _by_package_fields(finder, keywords, nested, modules, name)
    finder.answers[memo_key] = answer
    return answer


def _by_package_fields(
    finder: fakes.Finder,
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
    modules: list[str],
    name: str,
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """:func:`by_package_fields`, not memoized."""
    words = {w for w in name.lower().replace("-", "_").split("_") if w}
    packages = _packages(finder, modules)
    # a keyword one record class alone declares (``rfilename:``), the repository none
    fits: dict[tuple[str, str], tuple[str, str, str, frozenset[str]]] = {}
    for k in sorted(keywords) if len(keywords) >= MIN_KEYWORDS else ():
        # declared in one module of the packages read (only that module is parsed)
        lines = [(p, d, m) for p, d in packages for m in _declaring_modules(d, k)]
        if len(lines) != 1:
            continue
        package, package_dir, module = lines[0]
        found = _declaring(package_dir, module, k)
        if len(found) != 1:
            continue
        cls, shown, names, _bases = found[0]
        if keywords <= names and not fakes._declaring(finder, k):
            fits[(module, cls)] = (package, shown, k, names)
    if len(fits) > 1 and len({cls for _m, cls in fits}) != 1:
        return None  # two classes each own one of them: no one class is meant
    if fits:
        (module, cls), (package, where, specific, names) = next(iter(fits.items()))
        tail = f" (`{specific}` is a field of no other class)"
    else:
        shared = _by_shared_fields(finder, keywords, nested, packages)
        if shared is None:
            return None
        (package, module, cls, where, names), others = shared
        tail = _as_good(others)
    named = ", ".join(f"`{k}`" for k in sorted(keywords))
    how = (
        f"its keywords {named}, fields of `{cls}` in the installed `{package}` the code "
        f"under test imports{tail}"
    )
    if any(w in fakes._SERVICE_WORDS and w not in cls.lower() for w in words):
        return None  # a client or a layer that copies a few fields of the record
    defined = fakes.Defined(where, module, True, names, True)
    return fakes.Mimicked(cls, where, how), defined


def _by_shared_fields(
    finder: fakes.Finder,
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
    packages: list[tuple[str, str]],
) -> tuple[_Candidate, list[str]] | None:
    """The record classes of one package declaring every keyword, found through the
    rarest keyword (declared in at most ``MAX_SHARED_MODULES`` modules, by no record
    class of the repository), when the fake sets ``fakes.MIN_FIELD_MATCH`` keywords or
    more: ``SimpleNamespace(model=..., choices=[...], usage=...)`` is one of openai's
    completion models. A ``TypedDict`` is left out (read by key, where a
    ``SimpleNamespace`` is read by attribute), and so is a class whose field types the
    nested fakes do not fit (:func:`fakes.misfits`). Named is the class whose field
    types the nested fakes fit best (``choices=[SimpleNamespace(delta=...)]`` is a
    ``ChatCompletionChunk``), then the one with the fewest fields the fake leaves unset,
    then the one in the shallower module (``types.X``, not ``types.beta.X``); the others
    as good are listed."""
    # Fewer keywords than that count when the fakes it holds name fields of those
    # fields' types, each of them (``SimpleNamespace(choices=[choice])`` holding
    # ``SimpleNamespace(message=...)``: a completion's choices, each with a message).
    thin = len(keywords) < fakes.MIN_FIELD_MATCH
    if thin and not any(inner for _k, inner in nested):
        return None  # ``path`` and ``size``: two names many a record has
    rare: list[tuple[int, str, list[tuple[str, str, str]]]] = []
    for k in sorted(keywords):
        lines = [(p, d, m) for p, d in packages for m in _declaring_modules(d, k)]
        if 0 < len(lines) <= MAX_SHARED_MODULES and not fakes._declaring(finder, k):
            rare.append((len(lines), k, lines))
    if not rare:
        return None
    _count, key, lines = min(rare)
    candidates = [
        (package, module, cls, shown, names)
        for package, package_dir, module in lines
        for cls, shown, names, bases in _declaring(package_dir, module, key)
        if keywords <= names and "TypedDict" not in bases
    ]
    return _best_fit(finder, keywords, nested, candidates, thin)


def _as_good(others: list[str]) -> str:
    """The message's tail naming the classes that fit as well as the one named."""
    return f"; so do {', '.join(f'`{o}`' for o in others)}" if others else ""


# (package, module, class, path to show, its fields) of a record class a fake may mimic
_Candidate = tuple[str, str, str, str, frozenset[str]]


def _best_fit(
    finder: fakes.Finder,
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
    candidates: list[_Candidate],
    every_nested_fits: bool = False,
) -> tuple[_Candidate, list[str]] | None:
    """The candidate the fake stands in for, with the names of the others as good: a
    class whose field types the nested fakes do not fit is out; then the one whose field
    types they fit best (their keywords that are fields there), the one outside a preview
    API (:data:`_PREVIEW`), the one whose fields the fake leaves fewest unset, the one in
    the shallower module (``types.X`` before ``types.beta.X``). None when none is
    left or they come from two packages. ``every_nested_fits``: a candidate must have
    each nested fake's every keyword as a field of that field's type (a fake of few
    keywords of its own is told by what it holds)."""
    ranked: list[tuple[int, bool, int, int, _Candidate]] = []
    for candidate in candidates:
        package, module, cls, shown, names = candidate
        defined = fakes.Defined(shown, module, True, names, True)
        if fakes.misfits(finder, defined, nested):
            continue
        fitted = 0
        for keyword, inner in nested:
            field_type = fakes._field_type(finder, defined, keyword)
            fitted += len(inner & field_type.fields) if field_type is not None else 0
        if every_nested_fits and fitted < sum(len(inner) for _k, inner in nested):
            continue
        # a stable API's model before its preview's (``types.responses.Response``, not
        # ``types.beta.BetaResponse``)
        preview = bool(_PREVIEW & set(module.split(".")))
        ranked.append((-fitted, preview, len(names - keywords), module.count("."), candidate))
    if not ranked or len({entry[4][0] for entry in ranked}) != 1:
        return None  # none, or classes of two packages: no one library is meant
    ranked.sort(key=lambda entry: (*entry[:4], entry[4][1], entry[4][2]))
    best = ranked[0]
    others = sorted({e[4][2] for e in ranked[1:] if e[0] == best[0]} - {best[4][2]})
    return best[4], others


def by_tag(
    finder: fakes.Finder,
    keywords: frozenset[str],
    tags: tuple[tuple[str, str], ...],
    nested: tuple[tuple[str, frozenset[str]], ...],
    modules: list[str],
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """The record class of an installed package the code under test imports whose field's
    ``Literal`` type lists the string the fake sets it to, every keyword a field of it:
    ``SimpleNamespace(type="content_block_start", content_block=...)`` is anthropic's
    ``RawContentBlockStartEvent`` (``type: Literal["content_block_start"]``). A
    generated SDK tags each model of a union so; the tag names the model where its
    field names (``type``, ``index``) name none. Classes of one package only; a
    ``TypedDict`` aside; ranked as :func:`_by_shared_fields` ranks them."""
    tags = tuple((k, v) for k, v in tags if k in keywords and _TAG_VALUE.fullmatch(v))
    if not tags or not finder.root:
        return None
    memo_key = ("by_tag", keywords, tags, nested, tuple(modules))
    if memo_key in finder.answers:
        return finder.answers[memo_key]
    answer = _by_tag(finder, keywords, tags, nested, _packages(finder, modules))
    finder.answers[memo_key] = answer
    return answer


def _by_tag(
    finder: fakes.Finder,
    keywords: frozenset[str],
    tags: tuple[tuple[str, str], ...],
    nested: tuple[tuple[str, frozenset[str]], ...],
    packages: list[tuple[str, str]],
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """:func:`by_tag`, not memoized."""
    found = None
    for field, value in tags:
        # ``Literal["file"]``, or one of several (``Literal["file", "dir", "symlink"]``)
        line = re.compile(
            rb"^[ \t]+" + re.escape(field.encode()) + rb"[ \t]*:[ \t]*(?:typing\.)?Literal\["
            rb"[^\]\n]*[\"']" + re.escape(value.encode()) + rb"[\"'][^\]\n]*\]",
            re.M,
        )
        candidates: list[_Candidate] = []
        for package, package_dir in packages:
            texts = _package_texts(package_dir)
            if texts is None:
                continue
            for module in _tag_index(package_dir, field).get(value, ()):
                tagged = _tagged_classes(texts.modules[module][2], line)
                candidates.extend(
                    (package, module, cls, shown, names)
                    for cls, shown, names, bases in _declaring(package_dir, module, field)
                    if cls in tagged and "TypedDict" not in bases and keywords <= names
                )
        found = _best_fit(finder, keywords, nested, candidates) if candidates else None
        if found is not None:
            break  # the first tag that names a class decides
    if found is None:
        return None
    (package, module, cls, where, names), others = found
    how = (
        f'its `{field}="{value}"`, a `Literal` value of `{cls}.{field}` in the installed '
        f"`{package}` the code under test imports{_as_good(others)}"
    )
    return fakes.Mimicked(cls, where, how), fakes.Defined(where, module, True, names, True)


@functools.lru_cache(maxsize=256)
def _tag_index(package_dir: str, field: str) -> dict[str, tuple[str, ...]]:
    """Each string the package's modules list in a ``field: Literal[...]`` line -> those
    modules: built once per field, so that each fake's tag is looked up, not searched
    for (a test of thousands of tagged fakes costs one pass over the package)."""
    texts = _package_texts(package_dir)
    if texts is None:
        return {}
    line = re.compile(
        rb"^[ \t]+" + re.escape(field.encode()) + rb"[ \t]*:[ \t]*(?:typing\.)?Literal\["
        rb"([^\]\n]*)\]",
        re.M,
    )
    out: dict[str, dict[str, None]] = {}
    for module in _declaring_modules(package_dir, field):
        for match in line.finditer(texts.modules[module][2]):
            for value in _QUOTED.findall(match.group(1)):
                out.setdefault(value.decode("utf-8", "replace"), {})[module] = None
    return {value: tuple(modules) for value, modules in out.items()}


def _tagged_classes(data: bytes, line: re.Pattern[bytes]) -> frozenset[str]:
    """Module-level classes whose own body holds a line matching ``line``."""
    out: set[str] = set()
    for match in fakes._CLASS_RE.finditer(data):
        start = match.end()
        if line.search(data, start, fakes._class_end(data, start)):
            out.add(match.group(1).decode())
    return frozenset(out)
