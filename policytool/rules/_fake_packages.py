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
  (top-level package, outside the work tree and the standard library), each small
  enough to read (``MAX_PACKAGE_FILES`` modules, ``MAX_PACKAGE_BYTES`` bytes: a
  framework the size of transformers is not scanned).

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
# A package larger than this is not scanned (cost, and too many classes to single one out).
MAX_PACKAGE_FILES = 400
MAX_PACKAGE_BYTES = 8_000_000
# At most this many packages are read per test file.
MAX_PACKAGES = 8
# Test imports resolved by the tail of a module path of the tree (a ``sys.path`` insert).
MAX_NESTED_IMPORTS = 32
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


def _declaring(package_dir: str, module: str, field: str) -> list[tuple[str, str, frozenset[str]]]:
    """(class, path to show, its attribute names) of each public record class of the
    package's ``module`` that declares ``field`` (``field: T`` in its body)."""
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
        (cls, shown, parsed.fields.get(cls, frozenset()))
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
    for module in (*modules, *second):
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
    modules: list[str],
    name: str = "",
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """The one record class of an installed package the code under test imports that
    has every keyword of the fake as a field, one of them its own (see the module)."""
    if len(keywords) < MIN_KEYWORDS or not finder.root:
        return None
    memo_key = ("by_package_fields", keywords, tuple(modules), name)
    if memo_key in finder.answers:
        return finder.answers[memo_key]
    answer = _by_package_fields(finder, keywords, modules, name)
    finder.answers[memo_key] = answer
    return answer


def _by_package_fields(
    finder: fakes.Finder, keywords: frozenset[str], modules: list[str], name: str
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """:func:`by_package_fields`, not memoized."""
    words = {w for w in name.lower().replace("-", "_").split("_") if w}
    packages = _packages(finder, modules)
    # a keyword one record class alone declares (``rfilename:``), the repository none
    fits: dict[tuple[str, str], tuple[str, str, str, frozenset[str]]] = {}
    for k in sorted(keywords):
        # declared in one module of the packages read (only that module is parsed)
        lines = [(p, d, m) for p, d in packages for m in _declaring_modules(d, k)]
        if len(lines) != 1:
            continue
        package, package_dir, module = lines[0]
        found = _declaring(package_dir, module, k)
        if len(found) != 1:
            continue
        cls, shown, names = found[0]
        if keywords <= names and not fakes._declaring(finder, k):
            fits[(module, cls)] = (package, shown, k, names)
    if len({cls for _m, cls in fits}) != 1:
        return None  # none, or two classes each own one of them: no one class is meant
    (module, cls), (package, where, specific, names) = next(iter(fits.items()))
    if any(w in fakes._SERVICE_WORDS and w not in cls.lower() for w in words):
        return None  # a client or a layer that copies a few fields of the record
    named = ", ".join(f"`{k}`" for k in sorted(keywords))
    how = (
        f"its keywords {named}, fields of `{cls}` in the installed `{package}` the code "
        f"under test imports (`{specific}` is a field of no other class)"
    )
    defined = fakes.Defined(where, module, True, names, True)
    return fakes.Mimicked(cls, where, how), defined
