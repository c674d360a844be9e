# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``[tool.policytool]`` of ``pyproject.toml`` -> typed, frozen dataclasses.

Every section is a frozen dataclass whose field names are the TOML keys with ``-``
turned into ``_``. :func:`build_section` converts a TOML table into one of them
generically from the field annotations, so a new section is declared, not parsed by
hand. Unknown keys and wrong types raise :class:`ConfigError` naming the file, the
key, its line and (for unknown keys) the nearest valid key.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import sys
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from policytool.errors import PolicyError

# The resolvers `policytool lock` drives.
Backend = Literal["uv", "pip-tools"]


class ConfigError(PolicyError):
    """The configuration cannot be used; the message names file, key and line."""


@dataclass(frozen=True)
class SpdxConfig:
    """``[tool.policytool.spdx]``: the SPDX header lines every source file carries."""

    # None: any ``SPDX-License-Identifier`` line is accepted (and fix cannot insert one).
    license: str | None = None
    copyright: str | None = None
    replaces: tuple[str, ...] = ()
    # File kinds (see files.KIND_BY_SUFFIX) the header is required in.
    kinds: tuple[str, ...] = ("python",)


@dataclass(frozen=True)
class ForbiddenImportConfig:
    """One ``[[tool.policytool.forbidden-import]]`` entry."""

    modules: tuple[str, ...]
    reason: str = ""
    allow: tuple[str, ...] = ()
    allowlist_file: str | None = None


@dataclass(frozen=True)
class TorchCudaConfig:
    """``[tool.policytool.torch-cuda]``: banned ``torch.cuda`` calls and where they may stay."""

    allow: tuple[str, ...] = ()
    allowlist_file: str | None = None
    # api name -> replacement hint; empty means the built-in default set.
    banned: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PreCommitConfig:
    """``[tool.policytool.pre-commit]``: the ``.pre-commit-config.yaml`` policy."""

    file: str = ".pre-commit-config.yaml"
    final_hook: str | None = None
    default_stages: tuple[str, ...] = ("pre-commit", "manual")
    manual_only: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    min_rev: dict[str, str] = field(default_factory=dict)
    # repo URL -> regex its release tags match (overrides the built-in schemes).
    rev_pattern: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class MergifyConfig:
    """``[tool.policytool.mergify]``: where the pre-commit failure comment lives."""

    file: str = ".github/mergify.yml"
    rule: str = "comment-pre-commit-failure"


@dataclass(frozen=True)
class CiConfig:
    """``[tool.policytool.ci]``: why CI skips the hooks it skips."""

    skip_reasons: dict[str, str] = field(default_factory=dict)
    # The branch CodeQL must scan on push/pull_request; None: origin's HEAD, else main.
    default_branch: str | None = None


@dataclass(frozen=True)
class FloatingPinConfig:
    """``[tool.policytool.floating-pin]``: requirement lists that must be exact pins."""

    files: tuple[str, ...] = ("requirements/*.txt",)
    pyproject: tuple[str, ...] = ()


@dataclass(frozen=True)
class LockConfig:
    """One ``[[tool.policytool.lock]]`` entry: inputs compiled into an exact-pinned file."""

    name: str
    inputs: tuple[str, ...]
    output: str
    constraints: tuple[str, ...] = ()
    python_version: str | None = None
    platform: str | None = None
    hashes: bool = False
    backend: Backend = "uv"
    index_url: str | None = None
    extra_index_urls: tuple[str, ...] = ()
    find_links: tuple[str, ...] = ()
    no_index: bool = False
    exclude: tuple[str, ...] = ()
    jobs: tuple[str, ...] = ()


@dataclass(frozen=True)
class SweepConfig:
    """``[tool.policytool.sweep]``: what counts as fail-fast, request and serving code."""

    fail_fast: tuple[str, ...] = (
        "__init__",
        "__post_init__",
        "load_weights",
        "*load_weight*",
        "*validate_config*",
        "*verify*",
        "*check_config*",
        "*setup*",
    )
    request_path: tuple[str, ...] = (
        "*request*",
        "*forward*",
        "*step*",
        "*generate*",
        "*handle*",
        "*infer*",
    )
    # Per-step functions whose name says nothing of a request (vLLM's model runner).
    hot_path: tuple[str, ...] = (
        "execute_model",
        "_preprocess",
        "*_process",
        "*denoise*",
        "*sample*",
        "*decode*",
    )
    # Path globs (``**`` spans directories): engine/, entrypoints/, connectors/ anywhere.
    serving_paths: tuple[str, ...] = ("**/engine/**", "**/entrypoints/**", "**/connectors/**")
    test_paths: tuple[str, ...] = ("**/tests/**", "**/test_*.py", "**/*_test.py", "**/conftest.py")
    # Not swept: examples, benchmarks, tools and generated code (the top-level exclude too).
    exclude: tuple[str, ...] = (
        "examples/**",
        "benchmarks/**",
        "tools/**",
        "**/examples/**",
        "**/benchmarks/**",
        "**/_generated/**",
        "**/generated/**",
        "**/*_pb2.py",
        "**/*_pb2_grpc.py",
    )
    # "3.10": parse for this Python; default the lower bound of [project] requires-python.
    target_version: str | None = None


@dataclass(frozen=True)
class Config:
    """The whole ``[tool.policytool]`` table plus where it came from."""

    root: Path = field(default_factory=Path.cwd)
    source: Path | None = None
    exclude: tuple[str, ...] = ()
    spdx: SpdxConfig = field(default_factory=SpdxConfig)
    forbidden_import: tuple[ForbiddenImportConfig, ...] = ()
    torch_cuda: TorchCudaConfig = field(default_factory=TorchCudaConfig)
    pre_commit: PreCommitConfig = field(default_factory=PreCommitConfig)
    mergify: MergifyConfig = field(default_factory=MergifyConfig)
    ci: CiConfig = field(default_factory=CiConfig)
    floating_pin: FloatingPinConfig = field(default_factory=FloatingPinConfig)
    lock: tuple[LockConfig, ...] = ()
    sweep: SweepConfig = field(default_factory=SweepConfig)


# Fields of Config that are not TOML keys.
_INTERNAL_FIELDS = frozenset({"root", "source"})

T = TypeVar("T")


class _Context:
    """Where a table came from, for error messages."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def line_of(self, key: str, table: str = "") -> int | None:
        """Best-effort line of ``key = ...`` below ``[table]`` (tomllib keeps no positions)."""
        start = 0
        if table:
            headers = (f"[{table}]", f"[[{table}]]")
            for number, line in enumerate(self.lines):
                if line.strip().replace(" ", "") in headers:
                    start = number
                    break
        for number, line in enumerate(self.lines[start:], start=start + 1):
            stripped = line.strip()
            for quote in ("", '"', "'"):
                quoted = f"{quote}{key}{quote}"
                if stripped.startswith(quoted) and stripped[len(quoted) :].lstrip().startswith("="):
                    return number
        return None

    def error(self, key_path: str, key: str, message: str) -> ConfigError:
        """A ConfigError naming the file, the line of ``key`` and ``key_path``."""
        table = re.sub(r"\[\d+\]", "", key_path.rsplit(".", 1)[0]) if "." in key_path else ""
        line = self.line_of(key, table)
        where = f"{self.path}:{line}" if line else str(self.path)
        return ConfigError(f"{where}: {key_path}: {message}")


def _toml_key(field_name: str) -> str:
    return field_name.replace("_", "-")


def _type_name(tp: object) -> str:
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(c) for c in typing.get_args(tp))
    if origin is tuple:
        return "a list"
    if origin is dict:
        return "a table"
    if origin in (typing.Union, types.UnionType):
        names = [_type_name(a) for a in typing.get_args(tp) if a is not type(None)]
        return " or ".join(names)
    if dataclasses.is_dataclass(tp):
        return "a table"
    labels: dict[object, str] = {str: "a string", bool: "a boolean", int: "an integer"}
    return labels.get(tp, str(tp))


def _convert(value: object, tp: object, key_path: str, key: str, ctx: _Context) -> object:
    """Convert one TOML value to the annotated type ``tp`` or raise a ConfigError."""
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        choices = typing.get_args(tp)
        if value not in choices:
            shown = ", ".join(repr(c) for c in choices)
            raise ctx.error(key_path, key, f"expected one of {shown}, got {value!r}")
        return value
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        for arg in args:
            try:
                return _convert(value, arg, key_path, key, ctx)
            except ConfigError:
                continue
        raise ctx.error(key_path, key, f"expected {_type_name(tp)}, got {value!r}")
    if origin is tuple:
        (item_type, _ellipsis) = typing.get_args(tp)
        if isinstance(value, str) and item_type is str:
            # A single string where a list is expected is a common slip; be strict.
            raise ctx.error(
                key_path, key, f'expected a list of strings, got a string (write ["{value}"])'
            )
        if not isinstance(value, list):
            raise ctx.error(key_path, key, f"expected a list, got {type(value).__name__}")
        return tuple(
            _convert(item, item_type, f"{key_path}[{i}]", key, ctx) for i, item in enumerate(value)
        )
    if origin is dict:
        (key_type, value_type) = typing.get_args(tp)
        if not isinstance(value, dict):
            raise ctx.error(key_path, key, f"expected a table, got {type(value).__name__}")
        return {
            str(k): _convert(v, value_type, f"{key_path}.{k}", str(k), ctx)
            for k, v in value.items()
        }
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise ctx.error(key_path, key, f"expected a table, got {type(value).__name__}")
        return build_section(tp, value, key_path, ctx)
    if tp is bool:
        if not isinstance(value, bool):
            raise ctx.error(key_path, key, f"expected true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ctx.error(key_path, key, f"expected an integer, got {value!r}")
        return value
    if tp is str:
        if not isinstance(value, str):
            raise ctx.error(key_path, key, f"expected a string, got {value!r}")
        return value
    raise TypeError(f"unsupported config annotation {tp!r}")  # a bug in a section declaration


def build_section(cls: type[T], table: Mapping[str, object], key_path: str, ctx: _Context) -> T:
    """Build dataclass ``cls`` from a TOML table, rejecting unknown keys and wrong types."""
    hints = typing.get_type_hints(cls)
    by_key = {
        _toml_key(f.name): f
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if f.name not in _INTERNAL_FIELDS
    }
    kwargs: dict[str, object] = {}
    for key, value in table.items():
        f = by_key.get(key)
        if f is None:
            close = difflib.get_close_matches(key, list(by_key), n=1, cutoff=0.5)
            hint = (
                f"; did you mean '{close[0]}'?"
                if close
                else f"; valid keys: {', '.join(sorted(by_key))}"
            )
            raise ctx.error(key_path, key, f"unknown key '{key}'{hint}")
        kwargs[f.name] = _convert(value, hints[f.name], f"{key_path}.{key}", key, ctx)
    missing = [
        _toml_key(f.name)
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if f.name not in kwargs
        and f.name not in _INTERNAL_FIELDS
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise ConfigError(f"{ctx.path}: {key_path}: missing required key '{missing[0]}'")
    return cls(**kwargs)


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start``."""
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _validate(config: Config, ctx: _Context) -> None:
    """Cross-field checks the types alone cannot express."""
    names = [lock.name for lock in config.lock]
    for name in names:
        if names.count(name) > 1:
            raise ctx.error("tool.policytool.lock", "name", f"duplicate lock name '{name}'")
    from policytool.files import COMMENT_PREFIX_BY_KIND

    for kind in config.spdx.kinds:
        if kind not in COMMENT_PREFIX_BY_KIND:
            close = difflib.get_close_matches(kind, list(COMMENT_PREFIX_BY_KIND), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise ctx.error(
                "tool.policytool.spdx.kinds", "kinds", f"unknown file kind '{kind}'{hint}"
            )
    for index, rule in enumerate(config.forbidden_import):
        if not rule.modules:
            raise ctx.error(
                f"tool.policytool.forbidden-import[{index}]", "modules", "modules is empty"
            )


def load_config(config_path: Path | None = None, cwd: Path | None = None) -> Config:
    """Load ``[tool.policytool]`` from ``config_path`` or the nearest pyproject upward."""
    cwd = (cwd or Path.cwd()).resolve()
    if config_path is None:
        config_path = find_pyproject(cwd)
        if config_path is None:
            return Config(root=cwd)
    config_path = config_path.resolve()
    try:
        raw = config_path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{config_path}: cannot read config: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError:
        raise ConfigError(f"{config_path}: not valid UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{config_path}: invalid TOML: {exc}") from None
    tool = data.get("tool", {})
    table = tool.get("policytool", {}) if isinstance(tool, dict) else {}
    ctx = _Context(config_path, text)
    if not isinstance(table, dict):
        raise ctx.error("tool", "policytool", "[tool.policytool] must be a table")
    # Defaults that come from the rest of pyproject.toml.
    spdx_table = table.get("spdx", {})
    base = build_section(Config, table, "tool.policytool", ctx)
    if isinstance(spdx_table, dict) and "license" not in spdx_table:
        project_license = _project_license(data)
        if project_license:
            base = dataclasses.replace(
                base, spdx=dataclasses.replace(base.spdx, license=project_license)
            )
    config = dataclasses.replace(base, root=config_path.parent, source=config_path)
    _validate(config, ctx)
    return config


def _project_license(data: Mapping[str, object]) -> str | None:
    """``project.license`` when it is an SPDX expression string (PEP 639)."""
    project = data.get("project")
    if isinstance(project, dict):
        value = project.get("license")
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None
