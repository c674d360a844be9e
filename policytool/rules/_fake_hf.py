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
- a config: the fake fills a slot named ``config``, ``*config`` or ``*cfg`` (what it is bound to,
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
from dataclasses import dataclass

from policytool.rules import _fake_packages
from policytool.rules import _fakes as fakes

PACKAGE = "transformers"
# The model config modules read per installed transformers (5.x has about 480, 3 MB).
MAX_CONFIG_FILES = 1500
MAX_CONFIG_BYTES = 24_000_000
# How far up from the fake the ``return`` of a ``forward`` may be (through a lambda).
_MAX_UP = 3


@dataclass(frozen=True)
class _Classes:
    """What an installed transformers declares: its config base and output dataclasses
    (the model configs are read apart, only when a fake needs them)."""

    # the installed package's directory
    package_dir: str
    # the base config class's name, its module path (shown) and attributes
    base: tuple[str, str, frozenset[str]]
    # ModelOutput dataclass -> its fields, in the order of modeling_outputs.py
    outputs: tuple[tuple[str, frozenset[str]], ...]


def _attributes(module: fakes._Module, name: str, public: bool = False) -> frozenset[str]:
    """The attributes :func:`policytool.rules._fakes.parse_module` reads for class
    ``name`` (fields, ``self.x =``, methods and properties, those of its bases in the
    same module); ``public``: without ``_private`` ones (a ``ModelOutput``'s fields)."""
    names = module.fields.get(name, frozenset())
    return frozenset(n for n in names if not n.startswith("_")) if public else names


@functools.lru_cache(maxsize=8)
def _classes(package_dir: str) -> _Classes | None:
    """:class:`_Classes` of the transformers installed at ``package_dir``, read once;
    None when it has no config base."""
    base_data = fakes._module_bytes(os.path.join(package_dir, "configuration_utils.py"))
    if base_data is None:
        return None
    base_module = fakes.parse_module(base_data)
    spellings = ("PreTrainedConfig", "PretrainedConfig")
    name = next((n for n in spellings if n in base_module.fields), "")
    if not name:
        return None
    base = (name, f"{PACKAGE}/configuration_utils.py", _attributes(base_module, name))
    outputs: list[tuple[str, frozenset[str]]] = []
    out_module = fakes.parse_module(
        fakes._module_bytes(os.path.join(package_dir, "modeling_outputs.py")) or b""
    )
    for cls, bases in out_module.bases.items():
        if any("Output" in b for b in bases):
            outputs.append((cls, _attributes(out_module, cls, public=True)))
    return _Classes(package_dir, base, tuple(outputs))


@functools.lru_cache(maxsize=8)
def _model_configs(package_dir: str) -> dict[str, frozenset[str]] | None:
    """The model config classes (``models/*/configuration_*.py``) of the transformers at
    ``package_dir`` and their attributes, read once (about 0.6 s for 850 classes); None
    when they are too many to read."""
    configs: dict[str, frozenset[str]] = {}
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
            data = fakes._module_bytes(os.path.join(folder_dir, filename))
            if data is None:
                continue
            total += len(data)
            if files > MAX_CONFIG_FILES or total > MAX_CONFIG_BYTES:
                return None
            module = fakes.parse_module(data)
            for cls in module.fields:
                if cls.endswith("Config") and not cls.startswith("_"):
                    configs.setdefault(cls, _attributes(module, cls))
    return configs


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


def _config_name(name: str) -> bool:
    """Whether ``name`` is ``config`` or ends so (``hf_config``, ``text_config``,
    ``mixer_config``), or in its common short form ``cfg`` (``layer0_cfg``)."""
    return name.lower().rstrip("_").endswith(("config", "cfg"))


def _config_slot(names: list[str]) -> bool:
    """Whether one of the slot's names is a config's (:func:`_config_name`)."""
    return any(_config_name(n) for n in names)


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
    attribute (empty when the base has them all: no model config is read); None when no
    config has them."""
    rest = keywords - classes.base[2]
    if not rest:
        return []
    configs = _model_configs(classes.package_dir)
    fits = [cls for cls, own in (configs or {}).items() if rest <= own]
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
    slot = next(n for n in slots if _config_name(n))
    some = ", ".join(f"`{c}`" for c in configs[:3]) + (", ..." if len(configs) > 3 else "")
    how = (
        f"the config slot `{slot}` it fills, with {named}, attributes of transformers' "
        f"`{cls}`" + (f" (as {some})" if configs else "") + f" in the installed {PACKAGE}"
    )
    module = where[: -len(".py")].replace("/", ".")
    return fakes.Mimicked(cls, where, how), fakes.Defined(where, module, True, frozenset())
