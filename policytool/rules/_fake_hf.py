# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""A test fake of transformers' model config or of a model's ``forward`` output.

Code built on transformers receives two kinds of its objects everywhere: the model's
config (``PreTrainedConfig``, or a model's subclass such as ``Qwen3VLConfig``) and what a
model's ``forward`` returns (a ``ModelOutput`` dataclass such as
``CausalLMOutputWithPast``). A test fakes them with ``SimpleNamespace(num_hidden_layers=
32)`` or ``return SimpleNamespace(logits=logits)``. A reviewer recognises them when the
repository uses transformers and both the slot and the keywords say so:

- the test or a module it imports imports ``transformers`` (installed, outside the work
  tree: see :func:`policytool.rules._fake_packages._packages`);
- a config: the fake fills a slot named ``config`` or ``*config`` (what it is bound to,
  the parameter of the test's own helper or of a ``parametrize`` it fills) and every
  keyword is an attribute of ``PreTrainedConfig`` or of one model config class (its
  fields, ``self.x =`` and ``__init__`` parameters), read from the installed package;
- an output: the fake is what a function named ``*forward*`` returns (a fake or
  monkeypatched ``forward``) and every keyword is a field of one ``ModelOutput``
  dataclass of ``transformers/modeling_outputs.py``.

The model config modules are read as text once per installed transformers, bounded by
``MAX_CONFIG_FILES`` and ``MAX_CONFIG_BYTES``.
"""

from __future__ import annotations

import ast
import functools
import os
import re
import stat
from dataclasses import dataclass

from policytool.rules import _fake_packages
from policytool.rules import _fakes as fakes

PACKAGE = "transformers"
# The model config modules read per installed transformers (5.x has about 480, 3 MB).
MAX_CONFIG_FILES = 1500
MAX_CONFIG_BYTES = 24_000_000
# How far up from the fake the ``return`` of a ``forward`` may be (through a lambda).
_MAX_UP = 3

_CLASS_HEAD = re.compile(rb"^class[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*(\([^)]*\))?[ \t]*:", re.M)
_NEXT_TOP = re.compile(rb"^(?:class|def|async|@|if|try|[A-Za-z_][A-Za-z0-9_.]*[ \t]*[=:(])", re.M)
_FIELD = re.compile(rb"^[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*:(?!=)[^\n]*$", re.M)
_SELF_SET = re.compile(rb"\bself\.([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::[^=\n]*)?=(?!=)")
_PROPERTY = re.compile(rb"@property[ \t]*\n[ \t]+def[ \t]+([A-Za-z_][A-Za-z0-9_]*)")
_INIT = re.compile(rb"def[ \t]+__init__[ \t]*\(([^)]*)\)", re.S)
_PARAM = re.compile(rb"(?:^|,)\s*\**([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class _Classes:
    """What an installed transformers declares: config classes and output dataclasses."""

    # the base config class's name, its module path (shown) and attributes
    base: tuple[str, str, frozenset[str]]
    # model config class -> (its module path, its own attributes)
    configs: dict[str, tuple[str, frozenset[str]]]
    # ModelOutput dataclass -> its fields, in the order of modeling_outputs.py
    outputs: tuple[tuple[str, frozenset[str]], ...]


def _read(path: str, limit: int) -> bytes | None:
    """A regular file's bytes, None when missing or past ``limit``."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


def _class_bodies(data: bytes) -> list[tuple[str, bytes, bytes]]:
    """(name, bases text, body) of each module-level class of a module's text."""
    out: list[tuple[str, bytes, bytes]] = []
    for match in _CLASS_HEAD.finditer(data):
        after = _NEXT_TOP.search(data, match.end())
        body = data[match.end() : after.start() if after else len(data)]
        out.append((match.group(1).decode(), match.group(2) or b"", body))
    return out


def _attributes(body: bytes) -> frozenset[str]:
    """The attributes a config class body declares: annotated fields at any indentation
    of the body (a dataclass field), ``self.x =``, properties and ``__init__``
    parameters (transformers 4's configs take their fields as parameters)."""
    names = {m.decode() for m in _FIELD.findall(body)}
    names.update(m.decode() for m in _SELF_SET.findall(body))
    names.update(m.decode() for m in _PROPERTY.findall(body))
    init = _INIT.search(body)
    if init is not None:
        names.update(m.decode() for m in _PARAM.findall(init.group(1)))
    names.discard("self")
    names.discard("kwargs")
    return frozenset(names)


def _output_fields(body: bytes) -> frozenset[str]:
    """The fields of a ``ModelOutput`` dataclass body (``name: T = None`` lines)."""
    return frozenset(m.decode() for m in _FIELD.findall(body) if not m.startswith(b"_"))


@functools.lru_cache(maxsize=8)
def _classes(package_dir: str) -> _Classes | None:
    """:class:`_Classes` of the transformers installed at ``package_dir``, read once;
    None when it has no config base or its model configs are too many to read."""
    base_data = _read(os.path.join(package_dir, "configuration_utils.py"), fakes.MAX_MODULE_BYTES)
    if base_data is None:
        return None
    base: tuple[str, str, frozenset[str]] | None = None
    for name, _bases, body in _class_bodies(base_data):
        if name in ("PreTrainedConfig", "PretrainedConfig"):
            base = (name, f"{PACKAGE}/configuration_utils.py", _attributes(body))
            break
    if base is None:
        return None
    configs: dict[str, tuple[str, frozenset[str]]] = {}
    models = os.path.join(package_dir, "models")
    try:
        folders = sorted(os.listdir(models))
    except OSError:
        folders = []
    files = 0
    total = 0
    for folder in folders:
        folder_dir = os.path.join(models, folder)
        try:
            names = sorted(os.listdir(folder_dir))
        except OSError:
            continue
        for filename in names:
            if not (filename.startswith("configuration_") and filename.endswith(".py")):
                continue
            files += 1
            data = _read(os.path.join(folder_dir, filename), fakes.MAX_MODULE_BYTES)
            if data is None:
                continue
            total += len(data)
            if files > MAX_CONFIG_FILES or total > MAX_CONFIG_BYTES:
                return None
            shown = f"{PACKAGE}/models/{folder}/{filename}"
            for name, _bases, body in _class_bodies(data):
                if name.endswith("Config") and not name.startswith("_"):
                    configs.setdefault(name, (shown, _attributes(body)))
    outputs: list[tuple[str, frozenset[str]]] = []
    out_data = _read(os.path.join(package_dir, "modeling_outputs.py"), fakes.MAX_MODULE_BYTES)
    for name, bases, body in _class_bodies(out_data or b""):
        if b"Output" in bases:
            outputs.append((name, _output_fields(body)))
    return _Classes(base, configs, tuple(outputs))


_IMPORTS_PACKAGE = re.compile(rb"^[ \t]*(?:from|import)[ \t]+transformers\b", re.M)


def _package_dir(finder: fakes.Finder, modules: list[str]) -> str | None:
    """The installed transformers the test or a module it imports imports, else the one
    installed when the work tree's own code imports it (a test importing the code under
    test through ``pytest.importorskip("pkg.trainer")`` names no module)."""
    for top, package_dir in _fake_packages._packages(finder, modules):
        if top == PACKAGE:
            return package_dir
    if PACKAGE not in finder.tops:
        finder.tops[PACKAGE] = _tree_package(finder)
    return finder.tops[PACKAGE]


def _tree_package(finder: fakes.Finder) -> str | None:
    """:func:`_package_dir`'s installed transformers imported by the work tree's code
    (read once per finder, bounded as :func:`policytool.rules._fakes._sources`)."""
    found = finder.find(PACKAGE)
    if found is None or not found[0].endswith("__init__.py"):
        return None
    path = os.path.realpath(found[0])
    root = finder.root or ""
    if root and path.startswith(root + os.sep):
        return None
    if not any(_IMPORTS_PACKAGE.search(data) for data in fakes._sources(finder).values()):
        return None
    return os.path.dirname(path)


def _config_slot(names: list[str]) -> bool:
    """Whether one of the slot's names is ``config`` or ends so (``hf_config``,
    ``text_config``, ``mixer_config``)."""
    return any(n.lower().rstrip("_").endswith("config") for n in names)


def forward_return(call: ast.Call, parents: dict[int, ast.AST]) -> bool:
    """Whether the fake is what a function named ``*forward*`` returns (``return fake``,
    or a lambda's body, in a ``def forward`` / ``def fake_language_model_forward``)."""
    node: ast.AST = call
    for _ in range(_MAX_UP):
        parent = parents.get(id(node))
        if isinstance(parent, ast.Return):
            func = fakes._enclosing_function(parent, parents)
            return func is not None and "forward" in func.name.lower()
        if not isinstance(parent, ast.Lambda) or parent.body is not node:
            return False
        node = parent
    return False


def _config_fits(classes: _Classes, keywords: frozenset[str]) -> list[str] | None:
    """The model config classes having every keyword the base config lacks as an
    attribute (empty when the base has them all); None when no config has them."""
    rest = keywords - classes.base[2]
    if not rest:
        return []
    fits = [cls for cls, (_shown, own) in classes.configs.items() if rest <= own]
    return fits or None


def _output_class(classes: _Classes, keywords: frozenset[str]) -> tuple[str, list[str]] | None:
    """(class, the classes that fit) of the ``ModelOutput`` dataclass having every keyword
    as a field: the one that does, else the base ``ModelOutput`` (``logits`` alone is a
    field of many; which one the real model returns is not said by the keyword)."""
    fits = [cls for cls, fields in classes.outputs if keywords <= fields]
    if not fits:
        return None
    return (fits[0] if len(fits) == 1 else "ModelOutput"), fits


def hf_fake(
    finder: fakes.Finder,
    modules: list[str],
    call: ast.Call,
    parents: dict[int, ast.AST],
    keywords: frozenset[str],
    slots: list[str],
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """The transformers config or ``ModelOutput`` class a ``SimpleNamespace`` fake in a
    test of a repository using transformers stands in for (see the module)."""
    if not keywords or not finder.root:
        return None
    output = forward_return(call, parents)
    if not output and not _config_slot(slots):
        return None
    package_dir = _package_dir(finder, modules)
    if package_dir is None:
        return None
    classes = _classes(package_dir)
    if classes is None:
        return None
    named = ", ".join(f"`{k}`" for k in sorted(keywords))
    if output:
        found = _output_class(classes, keywords)
        if found is None:
            return None
        cls, fits = found
        where = f"{PACKAGE}/modeling_outputs.py"
        listed = ", ".join(f"`{c}`" for c in fits[:3]) + (", ..." if len(fits) > 3 else "")
        how = (
            f"what a fake `forward` returns, with {named}, fields of the `ModelOutput` "
            f"dataclass {listed} of the installed {PACKAGE}"
        )
        fields = dict(classes.outputs).get(cls, keywords)
        defined = fakes.Defined(where, f"{PACKAGE}.modeling_outputs", True, fields)
        return fakes.Mimicked(cls, where, how), defined
    configs = _config_fits(classes, keywords)
    if configs is None:
        return None
    # the code's slot is typed with the base; the model configs having them are listed
    cls, where, _attributes = classes.base
    slot = next(n for n in slots if n.lower().rstrip("_").endswith("config"))
    some = ", ".join(f"`{c}`" for c in configs[:3]) + (", ..." if len(configs) > 3 else "")
    how = (
        f"the config slot `{slot}` it fills, with {named}, attributes of transformers' "
        f"`{cls}`" + (f" (as {some})" if configs else "") + f" in the installed {PACKAGE}"
    )
    module = where[: -len(".py")].replace("/", ".")
    return fakes.Mimicked(cls, where, how), fakes.Defined(where, module, True, frozenset())
