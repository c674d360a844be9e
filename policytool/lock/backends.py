# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Run ``uv pip compile`` or ``pip-compile`` isolated from ambient configuration.

The backend runs as a subprocess in the repository root with relative paths, with every
``PIP_*`` and ``UV_*`` variable removed (but the cache directories), ``PIP_CONFIG_FILE``
set to the null device (pip then reads no ``pip.conf`` at all) and ``UV_NO_CONFIG=1``
(no ``uv.toml`` / ``[tool.uv]``); ``pip-compile`` also gets ``--no-config``. Indexes and
find-links come only from the lock's configuration. The backend's own header is not emitted and its
body is normalised (no absolute or temporary paths, no index or find-links lines), so
the result depends only on the inputs, the options and what the index offers.

``POLICYTOOL_UV`` / ``POLICYTOOL_PIP_COMPILE`` name the executables explicitly;
otherwise they are looked up next to the running Python, then on ``PATH``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from policytool.core.boundary import read_bounded
from policytool.core.text import decode_text
from policytool.engine.locks import (
    UV_DEPENDENCY_KEYS,
    Lock,
    pyproject_requirements,
    target_python,
    uv_dependency_settings,
)
from policytool.errors import BackendError, PolicyError
from policytool.formats import pylock
from policytool.formats.lockfile import Settings, parse_pins
from policytool.formats.pylock import is_pylock_name
from policytool.formats.requirement import canonical_name, is_excluded
from policytool.formats.requirements import REQUIREMENT, ReqLine

EXECUTABLES = {
    "uv": ("uv", "POLICYTOOL_UV"),
    "pip-tools": ("pip-compile", "POLICYTOOL_PIP_COMPILE"),
}
_DROPPED_OPTIONS = (
    "--index-url",
    "--extra-index-url",
    "--find-links",
    "-f ",
    "-i ",
    "--trusted-host",
    "--no-index",
)
MAX_ERROR_LINES = 12
# Where the backends cache downloads: kept, since they cannot change what is resolved.
CACHE_VARIABLES = frozenset({"UV_CACHE_DIR", "PIP_CACHE_DIR"})


@dataclass(frozen=True)
class CompileRequest:
    """One compilation: which lock, which pins to prefer, what may move."""

    lock: Lock
    previous: str | None = None  # the current lock text: its pins are preferred
    upgrade: bool = False
    upgrade_packages: tuple[str, ...] = ()
    offline: bool = False
    # Never build (``lock --check --resolve``): uv ``--no-build``, pip ``--only-binary``.
    no_build: bool = False
    # The cut-off dates and holds that fix the resolution (recorded in the lock's header).
    resolution: Settings = Settings()


def find_executable(backend: str) -> str:
    """The backend's executable; a PolicyError says how to get it when it is missing."""
    program, variable = EXECUTABLES[backend]
    explicit = os.environ.get(variable)
    if explicit:
        if os.path.isfile(explicit) and os.access(explicit, os.X_OK):
            return explicit
        raise PolicyError(f"backend '{backend}': {variable}={explicit} is not an executable file")
    beside = Path(sys.executable).parent / program
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which(program)
    if found:
        return found
    package = "uv" if backend == "uv" else "pip-tools"
    raise PolicyError(
        f"backend '{backend}': '{program}' not found next to {sys.executable} or on PATH "
        f"(install it with `pip install {package}`)"
    )


# What the resolver subprocess inherits: what the machine needs to reach an index (paths,
# locale, certificates, proxies, caches) and nothing else. pip and uv expand ``${VAR}`` in
# requirement files the pull request controls (``--index-url http://HOST/${SECRET}/``), so
# no other variable of this process may reach them.
PASSED_VARIABLES = frozenset(
    {
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "TMPDIR",
        "TMP",
        "TEMP",
        "LANG",
        "LANGUAGE",
        "TZ",
        "SYSTEMROOT",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        "NIX_SSL_CERT_FILE",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "NO_PROXY",
        "XDG_CACHE_HOME",
        *CACHE_VARIABLES,
    }
)


def _passed(key: str) -> bool:
    """Whether the resolver subprocess inherits variable ``key``."""
    upper = key.upper()
    return upper in PASSED_VARIABLES or upper.startswith("LC_")


def isolated_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The resolver's environment: only :data:`PASSED_VARIABLES` of ``base`` (default:
    this process's environment) and ``LC_*``, configs disabled.

    Every ``PIP_*`` / ``UV_*`` setting but the caches is dropped with the rest.
    """
    env = {
        key: value
        for key, value in (os.environ if base is None else base).items()
        if _passed(key) and (not key.upper().startswith(("PIP_", "UV_")) or key in CACHE_VARIABLES)
    }
    env["PIP_CONFIG_FILE"] = os.devnull
    env["UV_NO_CONFIG"] = "1"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    return env


_ENV_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_URL_RE = re.compile(r"^(https?)://([^/?#]*)(.*)$", re.IGNORECASE | re.DOTALL)
INDEX_ENV = "POLICYTOOL_INDEX_ENV"
_UNSAFE_IN_USERINFO = frozenset("@/?#\\ \t\r\n")


def allowed_index_env(environ: Mapping[str, str] | None = None) -> dict[str, frozenset[str]]:
    """``VAR -> hosts`` the maintainer allows (``POLICYTOOL_INDEX_ENV="VAR@HOST ..."``).

    Entries are separated by blanks or commas; a HOST may carry a ``:port``. This is the
    machine's setting, never the repository's: a pull request cannot widen it.
    """
    raw = (os.environ if environ is None else environ).get(INDEX_ENV, "")
    allowed: dict[str, set[str]] = {}
    for entry in raw.replace(",", " ").split():
        name, at, host = entry.partition("@")
        if not at or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or not host:
            raise PolicyError(f"{INDEX_ENV}: '{entry}' is not VAR@HOST")
        allowed.setdefault(name, set()).add(host.lower())
    return {name: frozenset(hosts) for name, hosts in allowed.items()}


def _host_port(netloc_host: str) -> tuple[str, str]:
    """(host, host:port) of the host part of a URL's netloc (both lower-case)."""
    full = netloc_host.lower()
    host, colon, port = full.rpartition(":")
    if colon and port.isdigit() and (not host.startswith("[") or host.endswith("]")):
        return host, full
    return full, full


def expand_env(
    value: str,
    lock_name: str,
    key: str,
    allowed: Mapping[str, frozenset[str]] | None = None,
) -> str:
    """``value`` with each ``${VAR}`` replaced from the environment (index credentials).

    A variable is expanded only where the maintainer allowed it (``allowed``, default
    :func:`allowed_index_env`): in the ``user:password@`` part of an ``http(s)`` index URL
    whose host is one named for it. Anything else with ``${...}`` (a host, a path, a
    query, a local ``find-links`` directory, a variable not allowed) is a PolicyError
    raised before anything is requested. Only the backend's command line sees the
    result: the fingerprint, the lock and every message keep ``${VAR}`` as written.
    """
    names = _ENV_RE.findall(value)
    if not names:
        return value
    permitted = allowed_index_env() if allowed is None else allowed
    how = f"allow it with {INDEX_ENV}=VAR@HOST (set by the maintainer, outside the repository)"
    match = _URL_RE.match(value)
    userinfo, at, hostpart = match.group(2).rpartition("@") if match else ("", "", "")
    if match is None or not at or _ENV_RE.search(hostpart + match.group(3)) or "${" in hostpart:
        raise PolicyError(
            f"lock '{lock_name}': {key} uses ${{{names[0]}}} outside the user:password@ part "
            f"of an http(s) index URL; policytool expands no variable into a host, a path or "
            f"a directory"
        )
    host, host_port = _host_port(hostpart)
    for name in names:
        hosts = permitted.get(name, frozenset())
        if host not in hosts and host_port not in hosts:
            raise PolicyError(
                f"lock '{lock_name}': {key} uses ${{{name}}} for host {host_port}, which the "
                f"maintainer did not allow; {how}"
            )

    def lookup(found: re.Match[str]) -> str:
        """The value of one variable."""
        name = found.group(1)
        if name not in os.environ:
            raise PolicyError(
                f"lock '{lock_name}': {key} uses ${{{name}}} but {name} is not set in the "
                "environment"
            )
        secret = os.environ[name]
        if any(char in _UNSAFE_IN_USERINFO for char in secret):
            raise PolicyError(
                f"lock '{lock_name}': {key} uses ${{{name}}}, whose value holds a character "
                "that would change the URL (@ / ? # \\ or a blank); percent-encode it"
            )
        return secret

    return match.group(1) + "://" + _ENV_RE.sub(lookup, userinfo) + "@" + hostpart + match.group(3)


def check_index_env(lock: Lock) -> None:
    """Raise the PolicyError :func:`expand_env` would for any index setting of ``lock``.

    Called for every selected lock before the first resolver runs, so a refused
    variable requests nothing at all.
    """
    cfg = lock.config
    allowed = allowed_index_env()
    for key, values in (
        ("index-url", (cfg.index_url,) if cfg.index_url else ()),
        ("extra-index-urls", cfg.extra_index_urls),
        ("find-links", cfg.find_links),
    ):
        for value in values:
            expand_env(value, lock.name, key, allowed)


def needs_build(root: Path, lock: Lock) -> ReqLine | None:
    """The first line of ``lock``'s inputs or constraint files only a build can resolve.

    A local path (``./sub``, ``.``, ``-e ./pkg``, ``file:``), a VCS URL or a URL to
    anything but a wheel: the resolver would run that project's build backend to read
    its metadata (pip-compile does so even with ``--only-binary :all:``).
    """
    from policytool.engine.locks import input_lines
    from policytool.formats.requirement import parse
    from policytool.formats.requirements import EDITABLE, read_lines

    lines = list(input_lines(root, lock))
    for path in lock.constraint_files:
        lines += read_lines(root, path)
    for line in lines:
        if line.kind == EDITABLE:
            return line
        if line.kind != REQUIREMENT:
            continue
        words = line.text.split()
        text = " ".join(words[: next((i for i, w in enumerate(words) if w[:1] == "-"), None)])
        req = parse(text)  # without the options after it (``--hash=...``)
        url = text if req is None else req.url
        if url is not None and not url.split("#", 1)[0].split("?", 1)[0].endswith(".whl"):
            return line
    return None


def secrets_of(lock: Lock) -> list[tuple[str, str]]:
    """(expanded value, ``${VAR}``) of every variable a lock's index settings use."""
    cfg = lock.config
    out = []
    for value in (cfg.index_url or "", *cfg.extra_index_urls, *cfg.find_links):
        for match in _ENV_RE.finditer(value):
            secret = os.environ.get(match.group(1), "")
            if secret:
                out.append((secret, match.group(0)))
    return out


def refuse_for_pip_tools(lock: Lock) -> None:
    """A PolicyError for uv-only options on a pip-tools lock."""
    cfg = lock.config
    uv_only = {
        "index-strategy": cfg.index_strategy not in (None, "unsafe-best-match"),
        "torch-backend": cfg.torch_backend is not None,
        "prerelease": cfg.prerelease not in (None, "allow", "disallow"),
        "resolution": cfg.resolution not in (None, "highest"),
        "universal": cfg.universal,
    }
    for key, used in uv_only.items():
        if used:
            raise PolicyError(
                f"lock '{lock.name}': {key} is a uv option; pip-tools cannot honour it "
                "(use backend = 'uv')"
            )


def build_command(
    executable: str,
    request: CompileRequest,
    sources: Sequence[str],
    output: str,
    holds: Sequence[str] = (),
    extra: Sequence[str] = (),
    constraints: Sequence[str] | None = None,
) -> list[str]:
    """The backend command line for ``request`` (paths relative to the repo root).

    ``holds`` names the temporary constraints file of the header's ``holds``; ``extra``
    are more options (the ``[tool.uv]`` dependency files); ``constraints`` replaces the
    lock's constraint files (a ``pylock.toml`` one given as its pins).
    """
    lock = request.lock
    cfg = lock.config
    if cfg.backend == "uv":
        cmd = [
            executable,
            "pip",
            "compile",
            "--quiet",
            "--no-header",
            "--no-config",
            "--annotation-style",
            "split",
            "--python-version",
            target_python(lock),
            # uv would otherwise discover an interpreter on PATH (through pyenv shims
            # that alone cost 0.3 s); it resolves for --python-version either way.
            "--python",
            sys.executable,
        ]
        if cfg.platform:
            cmd += ["--python-platform", cfg.platform]
        if not cfg.strip_extras:
            cmd.append("--no-strip-extras")
        if cfg.universal:
            cmd.append("--universal")
        if cfg.index_strategy:
            cmd += ["--index-strategy", cfg.index_strategy]
        if cfg.torch_backend:
            cmd += ["--torch-backend", cfg.torch_backend]
        if cfg.prerelease:
            cmd += ["--prerelease", cfg.prerelease]
        if cfg.resolution:
            cmd += ["--resolution", cfg.resolution]
        if is_pylock_name(lock.output):
            cmd += ["--format", "pylock.toml"]
        if request.offline:
            cmd.append("--offline")
        if request.no_build:
            cmd.append("--no-build")
        if request.resolution.exclude_newer:
            cmd.append(f"--exclude-newer={request.resolution.exclude_newer}")
        for package, when in request.resolution.exclude_newer_packages:
            cmd.append(f"--exclude-newer-package={package}={when}")
    else:
        refuse_for_pip_tools(lock)
        running = f"{sys.version_info.major}.{sys.version_info.minor}"
        if cfg.python_version and cfg.python_version != running:
            raise PolicyError(
                f"lock '{lock.name}': backend pip-tools resolves for the Python it runs on "
                f"({running}), not python-version {cfg.python_version}; "
                f"use backend = 'uv' or run policytool on Python {cfg.python_version}"
            )
        if cfg.platform:
            raise PolicyError(
                f"lock '{lock.name}': backend pip-tools cannot target platform "
                f"'{cfg.platform}'; use backend = 'uv'"
            )
        cmd = [
            executable,
            "--no-config",
            "--quiet",
            "--no-header",
            "--allow-unsafe",
            "--strip-extras" if cfg.strip_extras else "--no-strip-extras",
            "--no-emit-find-links",
            "--no-emit-index-url",
            "--no-emit-trusted-host",
            "--no-emit-options",
            "--annotation-style=split",
            # Hashes come from the index, never from the previous lock.
            "--no-reuse-hashes",
        ]
        pip_args = []
        if request.no_build:
            # Wheels only; pip still prepares a local directory (see needs_build).
            pip_args.append("--only-binary=:all:")
        if request.resolution.exclude_newer_packages:
            raise PolicyError(
                f"lock '{lock.name}': backend pip-tools has no per-package cut-off "
                "(exclude-newer-package); use backend = 'uv'"
            )
        if request.resolution.exclude_newer:
            pip_args.append(f"--uploaded-prior-to={request.resolution.exclude_newer}")
        if pip_args:
            cmd.append("--pip-args=" + " ".join(pip_args))
    if cfg.hashes:
        cmd.append("--generate-hashes")
    if cfg.no_index:
        cmd.append("--no-index")
    if cfg.prerelease == "allow" and cfg.backend == "pip-tools":
        cmd.append("--pre")
    if cfg.index_url:
        cmd += ["--index-url", expand_env(cfg.index_url, lock.name, "index-url")]
    for url in cfg.extra_index_urls:
        cmd += ["--extra-index-url", expand_env(url, lock.name, "extra-index-urls")]
    for link in cfg.find_links:
        cmd += ["--find-links", expand_env(link, lock.name, "find-links")]
    chosen = lock.constraint_files if constraints is None else constraints
    for path in (*chosen, *holds):
        cmd += ["--constraint", path]
    if request.upgrade:
        cmd.append("--upgrade")
    for package in request.upgrade_packages:
        cmd += ["--upgrade-package", package]
    cmd += [*extra, "--output-file", output, *sources]
    return cmd


HEARTBEAT_SECONDS = 15.0
# How the header's holds file is named in the lock's ``# via -c`` annotations.
HOLDS_NAME = "(holds)"
_HASH_OPTION_RE = re.compile(r"\s*--hash[=\s]\S+")


def preferences(previous: str) -> str:
    """The pins of a previous lock as the backend's preferences: versions only.

    Every ``--hash`` option is dropped (with the continuations that only carried them),
    so the hashes of the new lock come from the index and never from the old file: a
    hand-edited hash cannot survive ``policytool lock NAME``, ``--upgrade-package`` or
    ``bump``.
    """
    out: list[str] = []
    for raw in previous.replace("\r\n", "\n").replace("\\\n", "\n").splitlines():
        line = _HASH_OPTION_RE.sub("", raw).rstrip()
        if line or not raw.strip():
            out.append(line)
    return "\n".join(out) + "\n"


def _preferences_of(previous: str, toml: bool) -> str:
    """The preferences file for the backend: versions only, in the output's format."""
    if not toml:
        return preferences(previous)
    return pylock.preferences(lockfile_body(previous))


def lockfile_body(text: str) -> str:
    """A lock text without its policytool header (the whole text when it has none)."""
    from policytool.formats.lockfile import parse

    return parse(text).body


def _normalise_pylock(
    produced: str, root: Path, tmp: Path, rename: Mapping[str, str], lock: Lock
) -> str:
    """uv's ``pylock.toml`` in policytool's layout: excluded packages out, local paths
    relative to the lock, no temporary or repository path (see :func:`pylock.normalise`)."""
    excluded = [canonical_name(name) for name in lock.config.exclude]
    lock_dir = os.path.dirname(lock.output.replace("\\", "/").removeprefix("./"))
    scrub = _Scrubber(root, tmp, rename)
    try:
        return pylock.normalise(
            produced,
            list(dict.fromkeys([str(root), os.path.realpath(root)])),
            lock_dir,
            lambda name: is_excluded(name, excluded),
            scrub,
        )
    except pylock.PylockError as exc:
        raise BackendError(
            f"{lock.output}: uv wrote no PEP 751 document for lock '{lock.name}': {exc}"
        ) from None


def make_temp_dir(prefix: str, who: str) -> Path:
    """A new temporary directory; a PolicyError naming ``who`` when none can be made.

    ``tempfile`` probes its candidate directories by writing a file in each; when every
    write fails (a full disk, ``ulimit -f 0``, no writable TMPDIR) it raises
    ``FileNotFoundError("No usable temporary directory found")``: one sentence here.
    """
    try:
        return Path(tempfile.mkdtemp(prefix=prefix))
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if "No usable temporary directory" in reason:
            reason = (
                "writing a file fails in TMPDIR, /tmp, /var/tmp and the current directory "
                "(disk full, ulimit -f or no write permission?)"
            )
            raise PolicyError(f"{who}: cannot create a temporary directory: {reason}") from None
        raise PolicyError(
            f"{who}: cannot create a temporary directory in {tempfile.tempdir}: {reason}"
        ) from None


def compile_lock(
    root: Path, request: CompileRequest, progress: Callable[[str], None] | None = None
) -> str:
    """Resolve ``request.lock`` and return the normalised body (no header).

    Raises BackendError with the resolver's explanation trimmed when it fails; nothing in
    the repository is written here. ``progress`` hears a line every
    :data:`HEARTBEAT_SECONDS` while the backend runs. The temporary directory is removed
    whatever happens (an interrupt or SIGTERM included).
    """
    lock = request.lock
    executable = find_executable(lock.config.backend)
    for spec in lock.inputs:
        if not (root / spec.path).is_file():
            raise PolicyError(f"lock '{lock.name}': input {spec.path}: no such file")
    for path in lock.constraint_files:
        if not (root / path).is_file():
            raise PolicyError(f"lock '{lock.name}': constraint {path}: no such file")
    tmp = make_temp_dir("policytool-lock-", f"lock '{lock.name}'")
    try:
        rename: dict[str, str] = {}
        sources: list[str] = []
        for index, spec in enumerate(lock.inputs):
            if spec.is_pyproject:
                generated = tmp / f"input-{index}.in"
                generated.write_text(
                    "".join(f"{r}\n" for r in pyproject_requirements(root, spec)), "utf-8"
                )
                rename[str(generated)] = spec.raw
                sources.append(str(generated))
            else:
                sources.append(spec.path)
        extra_options: list[str] = []
        for key, values in uv_dependency_settings(root, lock.config).items():
            listed = tmp / f"{key}.txt"
            listed.write_text("".join(f"{v}\n" for v in values), "utf-8")
            rename[str(listed)] = f"pyproject.toml [tool.uv] {key}"
            extra_options += [UV_DEPENDENCY_KEYS[key], str(listed)]
        holds: list[str] = []
        if request.resolution.holds:
            held = tmp / "holds.txt"
            held.write_text("".join(f"{h}\n" for h in request.resolution.holds), "utf-8")
            rename[str(held)] = HOLDS_NAME
            holds = [str(held)]
        constraints: list[str] = []
        for number, path in enumerate(lock.constraint_files):
            if not is_pylock_name(path):
                constraints.append(path)
                continue
            # A pylock.toml lock this one is layered on: its pins, as requirement lines.
            pinned = tmp / f"constraint-{number}.txt"
            text = decode_text(read_bounded(root / path, path), path)
            pinned.write_text(
                "".join(f"{pin.text}\n" for pin in parse_pins(text) if pin.version), "utf-8"
            )
            rename[str(pinned)] = path
            constraints.append(str(pinned))
        toml = is_pylock_name(lock.output)
        output = tmp / ("pylock.toml" if toml else "lock.txt")
        if request.previous is not None and not request.upgrade:
            output.write_text(_preferences_of(request.previous, toml), "utf-8")
        cmd = build_command(
            executable, request, sources, str(output), holds, extra_options, constraints
        )
        returncode, stdout, stderr = _run(cmd, root, lock, progress)
        if returncode != 0:
            explanation = trim_error(
                stderr.decode("utf-8", "replace") or stdout.decode("utf-8", "replace"),
                root,
                tmp,
                rename,
                secrets_of(lock),
            )
            if "--uploaded-prior-to" in explanation:
                raise PolicyError(
                    f"lock '{lock.name}': the pip that pip-compile runs is older than 26.0 "
                    "and cannot honour the lock's cut-off (--uploaded-prior-to); upgrade "
                    "pip next to pip-compile, or set exclude-newer = false in the lock's "
                    "config"
                )
            if "filtered by `exclude-newer`" in explanation:
                explanation += (
                    f"\n(lock '{lock.name}' resolves at the cut-off date its header records: "
                    "to let a newer release of that package in, name it too with "
                    "--upgrade-package (or use --upgrade); if its index publishes no "
                    "upload dates, set exclude-newer = false in the lock's config)"
                )
            raise BackendError(
                f"{lock.output}: {lock.config.backend} could not resolve lock "
                f"'{lock.name}' (no lock file was changed):\n{explanation}"
            )
        try:
            produced = output.read_text("utf-8")
        except FileNotFoundError:
            raise BackendError(
                f"{lock.output}: {lock.config.backend} wrote no output for lock '{lock.name}'"
            ) from None
        if toml:
            return _normalise_pylock(produced, root, tmp, rename, lock)
        body = normalise(produced, root, tmp, rename, lock.config.exclude)
        return _with_input_indexes(root, lock, body)
    except OSError as exc:
        raise PolicyError(
            f"lock '{lock.name}': cannot use the temporary directory {tmp}: {exc.strerror or exc}"
        ) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(
    cmd: Sequence[str], root: Path, lock: Lock, progress: Callable[[str], None] | None
) -> tuple[int, bytes, bytes]:
    """Run the backend; kill it if this process is interrupted (Ctrl-C, SIGTERM)."""
    import time

    try:
        proc = subprocess.Popen(
            cmd, cwd=root, env=isolated_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
    except OSError as exc:
        raise PolicyError(
            f"backend '{lock.config.backend}': cannot run {cmd[0]}: {exc.strerror}"
        ) from None
    started = time.monotonic()
    try:
        while True:
            try:
                stdout, stderr = proc.communicate(timeout=HEARTBEAT_SECONDS)
                return proc.returncode, stdout, stderr
            except subprocess.TimeoutExpired:
                if progress is not None:
                    elapsed = time.monotonic() - started
                    progress(
                        f"lock '{lock.name}': {lock.config.backend} still resolving "
                        f"({elapsed:.0f} s)"
                    )
    except BaseException:
        # Interrupted: stop the resolver before the caller restores files (re-raised).
        proc.kill()
        proc.wait()
        raise


# Index options of the inputs that the lock keeps, so installing it finds the same wheels.
_INDEX_OPTIONS = ("--index-url", "--extra-index-url", "--find-links", "-i", "-f")


def input_index_options(root: Path, lock: Lock) -> list[str]:
    """The index option lines uv honours in a lock's files, each once, in order.

    Those of the inputs and the files they include with ``-r``, and of the constraint
    files (``-c`` on the command line) and their includes; uv ignores them in a file an
    input includes with ``-c``, and so does this list.
    """
    from policytool.engine.locks import input_lines
    from policytool.formats.requirements import OPTION, read_lines

    lines = list(input_lines(root, lock))
    for path in lock.constraint_files:
        lines += read_lines(root, path)
    seen: dict[str, None] = {}
    for line in lines:
        if line.kind != OPTION or line.constrained:
            continue
        if line.text.split("=", 1)[0].split()[0] in _INDEX_OPTIONS:
            seen[line.text] = None
    return list(seen)


def _with_input_indexes(root: Path, lock: Lock, body: str) -> str:
    """``body`` headed by the index options its inputs carry (``--extra-index-url ...``).

    The backend honours such a line in an input; the lock keeps it, so ``pip install -r
    LOCK`` looks where the resolver looked. Index settings of the config are never
    written (they may carry credentials).
    """
    options = input_index_options(root, lock)
    if not options:
        return body
    return "".join(f"{option}\n" for option in options) + body


class _Scrubber:
    """Replaces temporary and repository paths in backend output (built once per run)."""

    def __init__(self, root: Path, tmp: Path, rename: Mapping[str, str]) -> None:
        pairs = list(rename.items())
        for base in (tmp, root):
            for spelled in dict.fromkeys([str(base), os.path.realpath(base)]):
                pairs += [(f"file://{spelled}/", ""), (f"{spelled}/", ""), (spelled, ".")]
        self.pairs = pairs

    def __call__(self, line: str) -> str:
        """``line`` without machine-specific paths or trailing blanks."""
        if "/" in line:
            for old, new in self.pairs:
                if old in line:
                    line = line.replace(old, new)
        return line.rstrip()


def normalise(
    text: str, root: Path, tmp: Path, rename: Mapping[str, str], exclude: Sequence[str] = ()
) -> str:
    """The backend output made machine-independent; excluded packages removed."""
    lines = text.splitlines()
    while lines and (not lines[0].strip() or lines[0].startswith("#")):
        lines.pop(0)  # a backend header, if one slipped through
    excluded = [canonical_name(name) for name in exclude]
    scrub = _Scrubber(root, tmp, rename)
    out: list[str] = []
    skipping = False
    for raw in lines:
        if raw.startswith(_DROPPED_OPTIONS):
            continue
        if raw[:1].isspace():
            if not skipping:
                out.append(scrub(raw))
            continue
        skipping = False
        if raw and not raw.startswith(("#", "-")):
            name = raw.split("=", 1)[0].split("[", 1)[0].split(";", 1)[0].split("@", 1)[0]
            name = name.split("<", 1)[0].split(">", 1)[0].split("~", 1)[0].split("!", 1)[0].strip()
            if is_excluded(name, excluded):
                skipping = True
                continue
        out.append(scrub(raw))
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n" if out else ""


def trim_error(
    stderr: str,
    root: Path,
    tmp: Path,
    rename: Mapping[str, str],
    secrets: Sequence[tuple[str, str]] = (),
) -> str:
    """The resolver's explanation without tracebacks and noise, at most a dozen lines.

    Each ``secrets`` value (an expanded ``${VAR}``) is put back as ``${VAR}``.
    """
    kept: list[str] = []
    paths = _Scrubber(root, tmp, rename)

    def scrub(line: str) -> str:
        """``line`` without paths or credentials."""
        for secret, variable in secrets:
            line = line.replace(secret, variable)
        return paths(line)

    in_traceback = False
    for raw in stderr.splitlines():
        line = raw.rstrip()
        if line.startswith("Traceback (most recent call last):"):
            in_traceback = True
            continue
        if in_traceback:
            if line and not line[0].isspace():
                in_traceback = False  # the exception line itself: pip already said it better
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith(
            ("The above exception", "During handling of the above exception")
            + ("Resolved ", "Using ", "Looking in")
        ):
            continue
        kept.append(scrub(line))
    if not kept:
        kept = [scrub(line) for line in stderr.strip().splitlines()[-MAX_ERROR_LINES:]]
    if len(kept) > MAX_ERROR_LINES:
        kept = kept[:MAX_ERROR_LINES] + [f"  ... ({len(kept) - MAX_ERROR_LINES} more lines)"]
    return "\n".join(kept) if kept else "(the backend printed no explanation)"
