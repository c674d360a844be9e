# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What each lock is compiled from, its fingerprint, and the order locks are compiled in.

An input is a requirement file (``requirements/test.in``, following its ``-r`` / ``-c``
includes) or a ``pyproject.toml`` spelled ``pyproject.toml`` (``project.dependencies``),
``pyproject.toml[dev,docs]`` (plus those optional-dependency extras) or
``pyproject.toml:test`` (the PEP 735 dependency group ``test`` alone). A constraint is
another lock's name, another lock's output path, or a requirement file.

The fingerprint is a sha256 over the normalised content of every input (comments and
blank lines dropped, continuations joined), of every constraint file, and of the options
that change resolution. It does not depend on the machine, the working directory or
which Python runs policytool.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from policytool.config import Config
from policytool.core.boundary import read_text, resolve_inside
from policytool.engine.lock_config import LockConfig
from policytool.errors import PolicyError
from policytool.formats.pyproject import load_table, project_requirements, requirement_line
from policytool.formats.requirement import canonical_name
from policytool.formats.requirements import CONSTRAINT, INCLUDE, REQUIREMENT, ReqLine, read_lines

FINGERPRINT_VERSION = 1
_SPEC_RE = re.compile(
    r"^(?P<path>[^\[\]:]+?)(?:\[(?P<extras>[^\]]*)\]|:(?P<group>[A-Za-z0-9._-]+))?$"
)


@dataclass(frozen=True)
class InputSpec:
    """One configured input: a requirement file or a slice of a ``pyproject.toml``."""

    raw: str
    path: str
    extras: tuple[str, ...] = ()
    group: str | None = None

    @property
    def is_pyproject(self) -> bool:
        """Whether the input is read from a ``pyproject.toml``."""
        return self.path.rsplit("/", 1)[-1] == "pyproject.toml"


@dataclass(frozen=True)
class Lock:
    """A configured lock with its inputs parsed and its constraints resolved."""

    config: LockConfig
    inputs: tuple[InputSpec, ...]
    constraint_files: tuple[str, ...]  # repo-relative files passed with ``-c``
    constraint_locks: tuple[str, ...]  # names of the locks among them

    @property
    def name(self) -> str:
        """The lock's name."""
        return self.config.name

    @property
    def output(self) -> str:
        """The repo-relative path of the lock file."""
        return _norm(self.config.output)


def _norm(path: str) -> str:
    return path.replace("\\", "/").removeprefix("./")


def parse_input_spec(raw: str, lock_name: str) -> InputSpec:
    """``pyproject.toml[dev]`` -> InputSpec(path, extras); a bad spelling is a PolicyError."""
    match = _SPEC_RE.match(raw.strip())
    if not match:
        raise PolicyError(
            f"lock '{lock_name}': cannot read input '{raw}' (write a path, "
            f"'pyproject.toml[extra,...]' or 'pyproject.toml:group')"
        )
    path = _norm(match.group("path"))
    extras = tuple(e.strip() for e in (match.group("extras") or "").split(",") if e.strip())
    spec = InputSpec(raw, path, extras, match.group("group"))
    if (spec.extras or spec.group) and not spec.is_pyproject:
        raise PolicyError(
            f"lock '{lock_name}': input '{raw}': extras and groups need a pyproject.toml"
        )
    return spec


def resolve_locks(config: Config) -> dict[str, Lock]:
    """Every configured lock by name, constraints resolved to files and lock names."""
    by_output = {_norm(lock.output): lock.name for lock in config.entries(LockConfig)}
    names = {lock.name for lock in config.entries(LockConfig)}
    out: dict[str, Lock] = {}
    for lock_config in config.entries(LockConfig):
        if not lock_config.inputs:
            raise PolicyError(f"lock '{lock_config.name}': inputs is empty")
        inputs = tuple(parse_input_spec(raw, lock_config.name) for raw in lock_config.inputs)
        files: list[str] = []
        locks: list[str] = []
        for raw in lock_config.constraints:
            if raw in names:
                other = next(c for c in config.entries(LockConfig) if c.name == raw)
                files.append(_norm(other.output))
                locks.append(raw)
            else:
                path = _norm(raw)
                _inside(config.root, path, lock_config.name, "constraints")
                if path not in by_output and not (config.root / path).exists():
                    _no_constraint(lock_config.name, raw, sorted(names))
                files.append(path)
                if path in by_output:
                    locks.append(by_output[path])
        if lock_config.name in locks:
            raise PolicyError(f"lock '{lock_config.name}': constrains itself")
        _inside(config.root, _norm(lock_config.output), lock_config.name, "output")
        for spec in inputs:
            _inside(config.root, spec.path, lock_config.name, "inputs")
        out[lock_config.name] = Lock(lock_config, inputs, tuple(files), tuple(locks))
    return out


def running_python() -> str:
    """``3.N`` of the interpreter policytool runs on."""
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def target_python(lock: Lock) -> str:
    """The Python version resolved for: configured, else the running interpreter's."""
    return lock.config.python_version or running_python()


def _inside(root: Path, relpath: str, lock_name: str, key: str) -> None:
    """A BoundaryError unless ``relpath`` stays inside the repository (symlinks followed)."""
    resolve_inside(root, relpath, f"lock '{lock_name}' {key}")


def _no_constraint(lock_name: str, raw: str, names: Sequence[str]) -> None:
    """A constraint that is neither a lock nor a file: a PolicyError with a suggestion."""
    import difflib

    close = difflib.get_close_matches(raw, names, n=1)
    hint = f"; did you mean lock '{close[0]}'?" if close else f" (locks: {', '.join(names)})"
    raise PolicyError(
        f"lock '{lock_name}': constraint '{raw}' is neither a configured lock nor a file{hint}"
    )


def variant_locks(config: Config, variants: Sequence[str]) -> list[str]:
    """The names of the locks the ``variants`` entries fanned out to (``--variant cpu``)."""
    import difflib

    known = sorted({lock.variant for lock in config.entries(LockConfig) if lock.variant})
    names: list[str] = []
    for variant in variants:
        if variant not in known:
            close = difflib.get_close_matches(variant, known, n=1)
            hint = (
                f"; did you mean '{close[0]}'?"
                if close
                else (f"; variants: {', '.join(known)}" if known else "; no lock has variants")
            )
            raise PolicyError(f"--variant {variant}: no lock has this variant{hint}")
        names += [lock.name for lock in config.entries(LockConfig) if lock.variant == variant]
    return names


def select(locks: dict[str, Lock], names: Sequence[str]) -> list[Lock]:
    """The named locks (all when none named) plus the locks they are layered on, in order.

    A lock used as a constraint comes before the locks it constrains; otherwise the
    configured order is kept. Unknown names and cycles are PolicyErrors.
    """
    for name in names:
        if name not in locks:
            import difflib

            close = difflib.get_close_matches(name, list(locks), n=1)
            hint = (
                f"; did you mean '{close[0]}'?"
                if close
                else (
                    f"; configured: {', '.join(locks)}"
                    if locks
                    else "; no [[tool.policytool.lock]] is configured"
                )
            )
            raise PolicyError(f"unknown lock '{name}'{hint}")
    wanted = list(names) or list(locks)
    ordered: list[Lock] = []
    state: dict[str, str] = {}

    def visit(name: str, path: tuple[str, ...]) -> None:
        if state.get(name) == "done":
            return
        if state.get(name) == "visiting":
            cycle = " -> ".join((*path[path.index(name) :], name))
            raise PolicyError(f"locks constrain each other in a cycle: {cycle}")
        state[name] = "visiting"
        for dep in locks[name].constraint_locks:
            visit(dep, (*path, name))
        state[name] = "done"
        ordered.append(locks[name])

    for name in wanted:
        visit(name, ())
    return ordered


def pyproject_requirements(root: Path, spec: InputSpec) -> list[str]:
    """The requirement strings a pyproject input stands for (self-extras and groups expanded)."""
    data = load_table(read_text(root, spec.path), spec.path)
    return project_requirements(data, spec.path, spec.extras, spec.group, spec.raw)


def input_lines(root: Path, lock: Lock) -> list[ReqLine]:
    """Every logical line of every input (includes followed; pyproject as requirement lines)."""
    return [line for spec in lock.inputs for line in input_lines_of(root, spec)]


def direct_requirements(root: Path, lock: Lock) -> list[ReqLine]:
    """The requirement lines a lock must satisfy (not the ones only constraining)."""
    return [
        line
        for line in input_lines(root, lock)
        if line.kind == REQUIREMENT and not line.constrained
    ]


def options_of(lock: LockConfig) -> dict[str, object]:
    """The options that change what the backend resolves (part of the fingerprint)."""
    options: dict[str, object] = {
        "backend": lock.backend,
        "python-version": lock.python_version,
        "platform": lock.platform,
        "hashes": lock.hashes,
        "index-url": lock.index_url,
        "extra-index-urls": list(lock.extra_index_urls),
        "find-links": list(lock.find_links),
        "no-index": lock.no_index,
        "exclude": sorted(canonical_name(e) for e in lock.exclude),
    }
    # Added later: present only when set, so the fingerprints of existing locks stay.
    later: dict[str, object] = {
        "universal": lock.universal,
        "index-strategy": lock.index_strategy,
        "torch-backend": lock.torch_backend,
        "prerelease": lock.prerelease,
        "resolution": lock.resolution,
    }
    options.update({key: value for key, value in later.items() if value})
    if not lock.exclude_newer:
        options["no-exclude-newer"] = True
    if not lock.strip_extras:
        options["no-strip-extras"] = True
    return options


# ``[tool.uv]`` keys of the repository's pyproject.toml that change what ``uv pip
# compile`` resolves there, and the option each becomes (uv reads them itself unless
# ``--no-config``, which policytool always passes).
UV_DEPENDENCY_KEYS = {
    "exclude-dependencies": "--excludes",
    "override-dependencies": "--overrides",
    "constraint-dependencies": "--constraint",
}


def uv_dependency_settings(root: Path, lock: LockConfig) -> dict[str, tuple[str, ...]]:
    """``[tool.uv]`` exclude-/override-/constraint-dependencies of ``root/pyproject.toml``.

    Empty for a pip-tools lock, with ``uv-config = false``, or without such keys. A value
    that is not a list of strings is a PolicyError naming the key.
    """
    if lock.backend != "uv" or not lock.uv_config or not (root / "pyproject.toml").is_file():
        return {}
    data = load_table(read_text(root, "pyproject.toml"), "pyproject.toml")
    tool = data.get("tool")
    uv = tool.get("uv") if isinstance(tool, dict) else None
    if not isinstance(uv, dict):
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for key in UV_DEPENDENCY_KEYS:
        value = uv.get(key)
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise PolicyError(f"pyproject.toml: [tool.uv] {key} must be a list of strings")
        if value:
            out[key] = tuple(value)
    return out


def _content(lines: Sequence[ReqLine]) -> list[list[object]]:
    return [[line.path, line.kind, line.text, line.constrained] for line in lines]


def fingerprint(root: Path, lock: Lock) -> str:
    """``sha256:<hex>`` over normalised inputs, constraint contents and options."""
    constraints: list[list[object]] = []
    for path in lock.constraint_files:
        if (root / path).is_file():
            constraints.append([path, _content(read_lines(root, path))])
        else:
            constraints.append([path, None])
    doc = {
        "version": FINGERPRINT_VERSION,
        "inputs": [[spec.raw, _content(input_lines_of(root, spec))] for spec in lock.inputs],
        "constraints": constraints,
        "options": options_of(lock.config),
    }
    uv_settings = uv_dependency_settings(root, lock.config)
    if uv_settings:  # only when present, so the fingerprints of existing locks stay
        doc["tool-uv"] = {key: list(value) for key, value in uv_settings.items()}
    blob = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return "sha256:" + hashlib.sha256(blob).hexdigest()


def input_lines_of(root: Path, spec: InputSpec) -> list[ReqLine]:
    """The logical lines one input contributes (pyproject lines carry a best-effort line)."""
    if spec.is_pyproject:
        reqs = pyproject_requirements(root, spec)
        text = read_text(root, spec.path)
        return [
            ReqLine(spec.path, requirement_line(text, req), " ".join(req.split()), REQUIREMENT)
            for req in reqs
        ]
    return read_lines(root, spec.path)


def watched_files(root: Path, lock: Lock) -> list[str]:
    """Every repo-relative file whose change can make ``lock`` stale (best effort)."""
    files = {lock.output, *lock.constraint_files, *(spec.path for spec in lock.inputs)}
    for spec in lock.inputs:
        if spec.is_pyproject:
            continue
        try:
            lines = read_lines(root, spec.path)
        except PolicyError:
            continue
        files.update(
            line.target for line in lines if line.kind in (INCLUDE, CONSTRAINT) and line.target
        )
    return sorted(files)
