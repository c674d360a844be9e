# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``action-pin``: every action a workflow uses is pinned by commit SHA, with its tag named.

``uses: owner/repo[/path]@ref`` in workflow steps, reusable-workflow jobs and composite
actions is a finding when ``ref`` is a tag or branch (a tag can be moved to other code
without a trace), a short commit id, ``main``/``master`` (always, trusted or not), or a
full 40-hex SHA without a trailing ``# vX.Y.Z`` comment saying which release it is.
Owners the repo trusts (``trusted = ["actions/*"]``) may stay on tags. Local actions
(``./...``) pass. As an opt-in (``docker-digest``), container images without an
``@sha256:`` digest are findings too: Dockerfile ``FROM``, ``docker://`` actions, job
``container:`` and ``services:`` images.

``policytool fix --online`` resolves each tag or branch with ``git ls-remote`` against
``<base>/<owner>/<repo>`` (``POLICYTOOL_GIT_BASE_URL``, else the https ``git-base-url``)
and writes ``@<sha> # <tag>`` (the most specific tag on
that commit, ``v4`` -> ``v4.2.2``); a bare SHA gets the comment of the tag that points
at it. Only the ref and comment characters of the line change; the workflow is
re-parsed to prove every other ``uses:`` is as it was. Offline, the finding names that
command.
"""

from __future__ import annotations

import fnmatch
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from policytool.config import Config
from policytool.core.text import split_lines
from policytool.engine.findings import Finding
from policytool.engine.fixes import Edit, Fix
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.errors import PolicyError
from policytool.formats.gha import ACTION_GLOBS, WORKFLOW_GLOBS, action_of, workflow_of
from policytool.formats.yamldoc import YamlNode, scalar_start, value_pos
from policytool.rules._ci_config import ActionPinConfig
from policytool.rules._ci_scan import (
    FileLines,
    Selection,
    SourceFile,
    load_sources,
    split_analysis,
    widening,
    yaml_data,
)
from policytool.rules._yaml_fix import YamlFixCheck

RULE_ID = "action-pin"
FIX_COMMAND = "policytool fix --online --only action-pin"
_SHA_RE = re.compile(r"[0-9a-f]{40}")
_SHORT_SHA_RE = re.compile(r"[0-9a-f]{7,39}")
_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_VERSIONISH_RE = re.compile(r"v?\d+(?:\.\d+)*(?:[-+.][0-9A-Za-z.]+)?")
_REF_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/+-]*")
_BRANCHES = frozenset({"main", "master"})


@dataclass(frozen=True)
class Uses:
    """One ``uses:`` value and where its characters are on its line.

    ``value_start``/``value_end`` are file offsets of the scalar's characters (quotes
    excluded), ``after`` is just past a closing quote, ``line_end`` the end of the line
    (before ``\\r``); all -1 when the scalar is not written verbatim on one line.
    """

    relpath: str
    line: int
    col: int
    value: str
    key: tuple[object, ...]
    value_start: int = -1
    value_end: int = -1
    after: int = -1
    line_end: int = -1
    comment: str | None = None

    @property
    def located(self) -> bool:
        """Whether the characters of the value are known, so a fix can edit them."""
        return self.value_start >= 0

    @property
    def action(self) -> str:
        """``owner/repo[/path]`` without the ref."""
        return self.value.partition("@")[0]

    @property
    def ref(self) -> str:
        """The ref after ``@`` (empty when there is none)."""
        return self.value.partition("@")[2]

    @property
    def repo(self) -> tuple[str, str] | None:
        """``(owner, repo)`` when both are plain GitHub names."""
        parts = self.action.split("/")
        if len(parts) < 2 or not all(_NAME_RE.fullmatch(p) for p in parts[:2]):
            return None
        return parts[0], parts[1]


def _locate(
    relpath: str, holder: object, key: str, value: str, lines: FileLines, path: tuple[object, ...]
) -> Uses:
    """The :class:`Uses` of ``holder[key]`` with the position of its characters."""
    pos = value_pos(holder, key)
    if pos is None:
        return Uses(relpath, 1, 1, value, path)
    line0, col = pos
    number = line0 + 1
    text = lines.line_text(number)
    base = lines.starts[line0]
    start = scalar_start(text, col)  # past an ``&anchor`` or ``!!str`` tag
    if start is None:
        return Uses(relpath, number, col + 1, value, path)
    col = start
    quote = text[col : col + 1]
    if quote in ("'", '"'):
        close = text.find(quote, col + 1)
        if close < 0 or text[col + 1 : close] != value:
            return Uses(relpath, number, col + 1, value, path)
        start, end, after = col + 1, close, close + 1
    else:
        if text[col : col + len(value)] != value:
            return Uses(relpath, number, col + 1, value, path)
        start, end, after = col, col + len(value), col + len(value)
    rest = text[after:]
    comment = None
    if rest.strip().startswith("#"):
        comment = rest.strip()[1:].strip()
    return Uses(
        relpath,
        number,
        col + 1,
        value,
        path,
        base + start,
        base + end,
        base + after,
        base + len(text),
        comment,
    )


def uses_of(relpath: str, data: YamlNode, lines: FileLines, kind: str) -> Iterator[Uses]:
    """Every ``uses:`` of a workflow (steps and reusable-workflow jobs) or composite action."""
    if kind == "workflow":
        workflow = workflow_of(relpath, data)
        for job in workflow.jobs:  # reusable-workflow jobs first, then every step
            if job.uses is not None:
                yield _locate(relpath, job.node, "uses", job.uses, lines, ("job", job.id))
        for step in workflow.steps():
            if step.uses is not None:
                yield _locate(relpath, step.node, "uses", step.uses, lines, step.path)
        return
    for step in action_of(relpath, data).steps:
        if step.uses is not None:
            yield _locate(relpath, step.node, "uses", step.uses, lines, step.path)


def images_of(data: YamlNode, kind: str) -> Iterator[tuple[object, str, str]]:
    """(holder, key, image) of the container images a workflow or action names."""
    if not isinstance(data, dict):
        return
    if kind == "action":
        runs = data.get("runs")
        if isinstance(runs, dict) and isinstance(runs.get("image"), str):
            image = str(runs["image"])
            if image.startswith("docker://"):
                yield runs, "image", image.removeprefix("docker://")
        return
    for model in workflow_of("", data).jobs:
        job = model.node
        container = job.get("container")
        if isinstance(container, str):
            yield job, "container", str(container)
        elif isinstance(container, dict) and isinstance(container.get("image"), str):
            yield container, "image", str(container["image"])
        services = job.get("services")
        for _service, spec in services.items() if isinstance(services, dict) else ():
            if isinstance(spec, dict) and isinstance(spec.get("image"), str):
                yield spec, "image", str(spec["image"])


# --------------------------------------------------------------------------------------
# Judging
# --------------------------------------------------------------------------------------


def _trusted(uses: Uses, patterns: Sequence[str]) -> bool:
    """Whether the action's ``owner/repo`` (or its full path) matches a trusted glob."""
    repo = uses.repo
    names = [uses.action.lower()]
    if repo is not None:
        names.append(f"{repo[0]}/{repo[1]}".lower())
    return any(fnmatch.fnmatchcase(n, p.lower()) for n in names for p in patterns)


def _has_tag_comment(comment: str | None) -> bool:
    """Whether a trailing comment names the ref the SHA was taken from: a release
    (``v4.2.2``), a branch written by ``fix --online`` (``main``), ``ratchet:...``."""
    if not comment:
        return False
    first = comment.split()[0]
    if first.startswith("ratchet:") or _VERSIONISH_RE.fullmatch(first):
        return True
    return bool(_REF_NAME_RE.fullmatch(first))


@dataclass(frozen=True)
class Problem:
    """One ``uses:`` that is not pinned, and what ``fix --online`` can do with it."""

    uses: Uses
    message: str
    resolvable: bool  # a tag/branch to resolve, or a SHA whose tag comment is missing


def judge(uses: Uses, config: Config) -> Problem | None:
    """The problem of one ``uses:`` value, if any."""
    value = uses.value
    if value.startswith(("./", "../")) or "${{" in value:
        return None
    if value.startswith("docker://"):
        return None  # images: see docker_problems
    if uses.repo is None:
        return Problem(uses, f"`{value}` does not name an owner/repo action", False)
    ref = uses.ref
    shown = f"`{value}`"
    if not ref:
        return Problem(uses, f"{shown} names no ref; pin a commit SHA with its tag", False)
    if ref in _BRANCHES:
        return Problem(
            uses,
            f"{shown} follows the `{ref}` branch: every push to it changes what CI runs; "
            f"pin the commit SHA (`{FIX_COMMAND}`)",
            True,
        )
    if _SHA_RE.fullmatch(ref):
        if _has_tag_comment(uses.comment):
            return None
        return Problem(
            uses,
            f"{shown} is pinned by SHA without a `# vX.Y.Z` comment naming its release, so "
            f"updates cannot be reviewed; add it (`{FIX_COMMAND}` looks it up)",
            True,
        )
    if _SHORT_SHA_RE.fullmatch(ref):
        return Problem(
            uses,
            f"{shown} uses a short commit id, which a new commit can make ambiguous; use the "
            "full 40-character SHA",
            False,
        )
    if _trusted(uses, config.section(ActionPinConfig).trusted):
        return None
    return Problem(
        uses,
        f"{shown} is pinned to a tag or branch, which can be moved to other code; pin the "
        f"commit SHA with a `# {ref}` comment (`{FIX_COMMAND}` resolves it)",
        True,
    )


def _has_digest(image: str) -> bool:
    """Whether an image reference carries an ``@sha256:`` digest."""
    return "@sha256:" in image or "@sha512:" in image


def _image_problem(image: str) -> str | None:
    """The message for an image without a digest (None when fine or not decidable)."""
    if "${{" in image or "$" in image or _has_digest(image) or image == "scratch":
        return None
    return (
        f"`{image}` has no digest, so the tag can be re-pushed with other content; pin "
        f"`{image}@sha256:...` (`docker buildx imagetools inspect {image}` prints it)"
    )


def dockerfile_findings(source: SourceFile) -> Iterator[Finding]:
    """``FROM`` images without a digest (stages, ``scratch`` and open ARGs excepted)."""
    from policytool.formats import dockerfile

    parsed = dockerfile.parse(source.text)
    args: dict[str, str] = {}
    stages: set[str] = set()
    seen_from = False
    for instruction in parsed.instructions:
        if instruction.keyword == "ARG" and not seen_from:
            args.update(parsed.arg_defaults(instruction))
            continue
        found = parsed.from_image(instruction)
        if found is None:
            continue
        seen_from = True
        word, stage = found
        image = dockerfile.expand_args(word.value, args)
        if image is not None and image.lower() not in stages:
            message = _image_problem(image)
            if message is not None:
                column = word.start - source.lines.starts[instruction.line - 1] + 1
                yield Finding(source.relpath, instruction.line, column, RULE_ID, message)
        if stage:
            stages.add(stage.lower())


# --------------------------------------------------------------------------------------
# git ls-remote
# --------------------------------------------------------------------------------------

# The maintainer's choice of where ``fix --online`` asks, made outside the repository:
# it wins over ``git-base-url`` and may also name an http:// or file:// mirror.
BASE_URL_VARIABLE = "POLICYTOOL_GIT_BASE_URL"
_CONFIG_SCHEMES: tuple[str, ...] = ("https",)
_MAINTAINER_SCHEMES: tuple[str, ...] = ("https", "http", "file")
# One deadline for every ``git ls-remote`` of a run together, asked a few at a time.
ONLINE_DEADLINE = 60.0
_WORKERS = 8
# The refs one repository may list; past it git is stopped and the action is not pinned.
MAX_REFS_BYTES = 8 * 1024 * 1024
# The heap of each git process (it holds every ref a remote lists, about 5 bytes a byte).
MAX_GIT_MEMORY = 256 * 1024 * 1024
_MAX_STDERR_BYTES = 64 * 1024
_MAX_REF_CHARS = 200
_MAX_LINE_BYTES = 4096
_NULL_SHA = "0" * 40
# Variables of the caller's environment git keeps; every other ``GIT_*`` is dropped.
_KEPT_GIT_VARIABLES = ("GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "GIT_EXEC_PATH")


@dataclass(frozen=True)
class Remote:
    """The refs of one action repository: tag -> commit (peeled), branch -> commit."""

    tags: dict[str, str]
    heads: dict[str, str]

    def resolve(self, ref: str) -> str | None:
        """The commit a tag (preferred) or branch points at."""
        return self.tags.get(ref) or self.heads.get(ref)

    def tag_for(self, sha: str, hint: str = "") -> str | None:
        """The most specific tag pointing at ``sha`` (one under ``hint`` first)."""
        tags = [t for t, commit in self.tags.items() if commit == sha]
        if not tags:
            return None
        under = [t for t in tags if hint and (t == hint or t.startswith(hint + "."))]
        pool = under or tags
        return max(pool, key=lambda t: (t.count("."), bool(_VERSIONISH_RE.fullmatch(t)), t))


_REMOTES: dict[tuple[str, str, str], Remote | str] = {}


def _base_url(config: Config) -> str:
    """Where to ask: ``POLICYTOOL_GIT_BASE_URL`` (https, http or file), else the config's
    ``git-base-url`` (https only: a PR may not point it at the machine or the local net)."""
    variable = os.environ.get(BASE_URL_VARIABLE, "").strip()
    if variable:
        base, allowed, where = variable.rstrip("/"), _MAINTAINER_SCHEMES, BASE_URL_VARIABLE
    else:
        base = config.section(ActionPinConfig).git_base_url.rstrip("/")
        allowed, where = _CONFIG_SCHEMES, "[tool.policytool.action-pin] git-base-url"
    scheme, sep, rest = base.partition("://")
    if not sep or scheme not in allowed or not rest or not base.isprintable() or " " in base:
        shown = ", ".join(f"{s}://" for s in allowed)
        hint = (
            "" if variable else f"; a mirror outside the repository is set with {BASE_URL_VARIABLE}"
        )
        raise PolicyError(f"{where}: {base!r} must start with {shown}{hint}")
    return base


def _git_env(scheme: str, home: str) -> dict[str, str]:
    """git's environment: no system or global config (no credential helper, no
    ``insteadOf``), no prompt, no ``.netrc``, only ``scheme`` as transport."""
    env = {
        k: v
        for k, v in os.environ.items()
        if (not k.startswith("GIT_") or k in _KEPT_GIT_VARIABLES) and k != "SSH_ASKPASS"
    }
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_ALLOW_PROTOCOL=scheme,
        GIT_CEILING_DIRECTORIES=os.path.dirname(home),
        HOME=home,
        XDG_CONFIG_HOME=home,
    )
    return env


def _size(count: int) -> str:
    """``8 MiB``, ``64 KiB``."""
    mib = 1024 * 1024
    return f"{count // mib} MiB" if count % mib == 0 else f"{count // 1024} KiB"


def _printable(data: bytes) -> str:
    """The last line of git's stderr, decoded and stripped of control characters."""
    lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    return "".join(c if c.isprintable() else "?" for c in last)[:300]


class _RefReader:
    """Tags (annotated ones peeled to their commit) and branches of ls-remote output.

    Fed bytes as git writes them; a line whose SHA is not 40 lowercase hex, whose name is
    not UTF-8 or not a plain ref name (letters, digits, ``._+-/``) is skipped.
    """

    def __init__(self) -> None:
        self.tags: dict[str, str] = {}
        self.peeled: dict[str, str] = {}
        self.heads: dict[str, str] = {}
        self.pending = b""
        self.skipping = False

    def feed(self, data: bytes) -> None:
        """Read the complete lines of ``data``; keep a partial last line for later (a line
        longer than any ref line is dropped whole)."""
        lines = (self.pending + data).split(b"\n")
        self.pending = lines.pop()
        if self.skipping and lines:
            lines.pop(0)
            self.skipping = False
        for line in lines:
            self.line(line)
        if len(self.pending) > _MAX_LINE_BYTES:
            self.pending, self.skipping = b"", True

    def line(self, line: bytes) -> None:
        """One ``<sha>\\t<ref>`` line."""
        raw_sha, tab, raw_ref = line.partition(b"\t")
        if not tab:
            return
        try:
            sha, ref = raw_sha.decode("ascii"), raw_ref.decode("utf-8")
        except UnicodeDecodeError:
            return
        if not _SHA_RE.fullmatch(sha) or sha == _NULL_SHA:
            return
        if ref.startswith("refs/tags/"):
            name = ref.removeprefix("refs/tags/")
            target = self.tags
            if name.endswith("^{}"):
                name, target = name[:-3], self.peeled
        elif ref.startswith("refs/heads/"):
            name, target = ref.removeprefix("refs/heads/"), self.heads
        else:
            return
        if len(name) <= _MAX_REF_CHARS and _REF_NAME_RE.fullmatch(name):
            target[name] = sha

    def remote(self) -> Remote:
        """The refs read so far."""
        if self.pending and not self.skipping:
            self.line(self.pending)
            self.pending = b""
        return Remote({**self.tags, **self.peeled}, self.heads)


def _limit_memory(pid: int) -> None:
    """Cap git's heap at :data:`MAX_GIT_MEMORY` (Linux): git reads a remote's whole ref
    list before it prints a line, so the byte cap alone would not bound its memory. The
    transport helper (``git-remote-https``, ``git-upload-pack``) it starts inherits it."""
    if sys.platform == "linux":
        import resource

        try:
            resource.prlimit(pid, resource.RLIMIT_DATA, (MAX_GIT_MEMORY, MAX_GIT_MEMORY))
        except (OSError, ValueError):
            pass  # ended already, or a limit the system refuses: the deadline still holds


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill git and the transport helper it started (its process group)."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except ProcessLookupError:
        pass
    proc.wait()


def _list_refs(url: str, deadline: float, stop: threading.Event) -> Remote | str:
    """Run ``git ls-remote`` on ``url``, reading at most :data:`MAX_REFS_BYTES` of refs and
    stopping it at ``deadline`` (``time.monotonic()``) or when ``stop`` is set."""
    scheme = url.partition("://")[0]
    home = tempfile.mkdtemp(prefix="policytool-git-")
    args = [
        "git",
        "-c",
        "protocol.allow=never",
        "-c",
        f"protocol.{scheme}.allow=always",
        "-c",
        "credential.helper=",
        "ls-remote",
        "--tags",
        "--heads",
        "--",
        url,
    ]
    try:
        try:
            proc = subprocess.Popen(
                args,
                cwd=home,
                env=_git_env(scheme, home),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except FileNotFoundError:
            return "git is not installed"
        except OSError as exc:
            return f"cannot run git: {exc.strerror or exc}"
        _limit_memory(proc.pid)
        return _read_refs(proc, url, deadline, stop)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _read_refs(
    proc: subprocess.Popen[bytes], url: str, deadline: float, stop: threading.Event
) -> Remote | str:
    """The refs ``proc`` (git ls-remote) writes, within the byte cap and the deadline."""
    assert proc.stdout is not None and proc.stderr is not None
    reader = _RefReader()
    err = bytearray()
    size = 0
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        selector.register(proc.stderr, selectors.EVENT_READ)
        try:
            while selector.get_map():
                left = deadline - time.monotonic()
                if left <= 0 or stop.is_set():
                    _stop(proc)
                    return (
                        f"git ls-remote {url} did not answer within the "
                        f"{ONLINE_DEADLINE:.0f} s that fix --online allows all look-ups"
                    )
                for key, _events in selector.select(min(left, 0.5)):
                    chunk = os.read(key.fd, 65536)
                    if not chunk:
                        selector.unregister(key.fileobj)
                    elif key.fileobj is proc.stdout:
                        size += len(chunk)
                        if size > MAX_REFS_BYTES:
                            _stop(proc)
                            return (
                                f"git ls-remote {url} listed more than "
                                f"{_size(MAX_REFS_BYTES)} of refs; stopped"
                            )
                        reader.feed(chunk)
                    elif len(err) < _MAX_STDERR_BYTES:
                        err += chunk
        except BaseException:
            _stop(proc)
            raise
    proc.stdout.close()
    proc.stderr.close()
    code = proc.wait()
    if code != 0:
        return f"git ls-remote {url} failed: {_printable(bytes(err)) or code}"
    return reader.remote()


def prefetch(base: str, repos: Sequence[tuple[str, str]]) -> None:
    """Ask for the refs of every ``(owner, repo)`` not cached, a few at a time, all within
    one :data:`ONLINE_DEADLINE`; each answer (or why there is none) goes to the cache."""
    todo = sorted({r for r in repos if (base, *r) not in _REMOTES})
    if not todo:
        return
    deadline = time.monotonic() + ONLINE_DEADLINE
    stop = threading.Event()
    with ThreadPoolExecutor(max_workers=min(_WORKERS, len(todo))) as pool:
        futures = {
            r: pool.submit(_list_refs, f"{base}/{r[0]}/{r[1]}", deadline, stop) for r in todo
        }
        try:
            for (owner, name), future in futures.items():
                _REMOTES[(base, owner, name)] = future.result()
        except BaseException:
            stop.set()
            raise


def ls_remote(base: str, owner: str, repo: str) -> Remote | str:
    """The refs of ``base/owner/repo`` (cached a run), or why they cannot be listed."""
    prefetch(base, [(owner, repo)])
    return _REMOTES[(base, owner, repo)]


# --------------------------------------------------------------------------------------
# Check and fix
# --------------------------------------------------------------------------------------


def selection(config: Config) -> Selection:
    """The files ``action-pin`` reads."""
    options = config.section(ActionPinConfig)
    kinds: list[tuple[str, tuple[str, ...]]] = [
        ("workflow", WORKFLOW_GLOBS),
        ("action", ACTION_GLOBS),
    ]
    if options.docker_digest:
        kinds.append(("dockerfile", options.dockerfiles))
    return Selection(kinds, options.allow, options.allowlist_file, RULE_ID)


@dataclass
class FileProblems:
    """A file's problems and its other findings."""

    source: SourceFile
    problems: list[Problem]
    findings: list[Finding]


def _ignored_lines(source: SourceFile) -> set[int]:
    """Lines carrying ``# policytool: ignore[action-pin]``."""
    if b"policytool: ignore" not in source.raw:
        return set()
    from policytool.engine.runner import parse_ignores

    ignored, _bare = parse_ignores(split_lines(source.text, keepends=False), source.relpath)
    return {line for line, ids in ignored.items() if RULE_ID in ids}


def analyse(ctx: RepoContext) -> list[FileProblems | Finding]:
    """Every file's problems (ignored lines dropped), or why a file was not read."""
    config = ctx.config
    unread, sources = split_analysis(load_sources(ctx, selection(config)))
    out: list[FileProblems | Finding] = [*unread]
    for source in sources:
        if source.kind == "dockerfile":
            findings = list(dockerfile_findings(source))
            ignored = _ignored_lines(source)
            out.append(FileProblems(source, [], [f for f in findings if f.line not in ignored]))
            continue
        if b"uses" not in source.raw and b"image" not in source.raw:
            continue
        data = yaml_data(source, RULE_ID)
        if isinstance(data, Finding):
            out.append(data)
            continue
        ignored = _ignored_lines(source)
        problems = [
            problem
            for uses in uses_of(source.relpath, data, source.lines, source.kind)
            if (problem := judge(uses, config)) is not None and uses.line not in ignored
        ]
        findings = []
        if config.section(ActionPinConfig).docker_digest:
            for holder, key, image in images_of(data, source.kind):
                message = _image_problem(image)
                pos = value_pos(holder, key)
                line = pos[0] + 1 if pos else 1
                if message is not None and line not in ignored:
                    col = pos[1] + 1 if pos else 1
                    findings.append(Finding(source.relpath, line, col, RULE_ID, message))
            for uses in uses_of(source.relpath, data, source.lines, source.kind):
                if uses.value.startswith("docker://") and uses.line not in ignored:
                    message = _image_problem(uses.value.removeprefix("docker://"))
                    if message is not None:
                        findings.append(
                            Finding(source.relpath, uses.line, uses.col, RULE_ID, message)
                        )
        out.append(FileProblems(source, problems, findings))
    return out


def _why_unresolved(problem: Problem, config: Config) -> str | None:
    """What ``fix --online`` learned about a problem it could not fix (from the cache)."""
    repo = problem.uses.repo
    if repo is None or not problem.resolvable:
        return None
    try:
        base = _base_url(config)
    except PolicyError:
        return None
    remote = _REMOTES.get((base, *repo))
    if remote is None:
        return None
    if isinstance(remote, str):
        return remote
    ref = problem.uses.ref
    if _SHA_RE.fullmatch(ref):
        return None if remote.tag_for(ref) else f"no tag of {repo[0]}/{repo[1]} points at it"
    if remote.resolve(ref) is None:
        return f"`{ref}` is neither a tag nor a branch of {repo[0]}/{repo[1]}"
    if not problem.uses.located:
        return "the `uses:` value is not written on one line; edit it by hand"
    return None


def check(ctx: RepoContext) -> list[Finding]:
    """Findings of ``action-pin``."""
    findings, analysed = split_analysis(analyse(ctx))
    for item in analysed:
        findings.extend(item.findings)
        for problem in item.problems:
            why = _why_unresolved(problem, ctx.config)
            message = problem.message + (f" ({why})" if why else "")
            fixable = ctx.online and problem.resolvable and problem.uses.located and not why
            uses = problem.uses
            findings.append(
                Finding(uses.relpath, uses.line, uses.col, RULE_ID, message, fixable=fixable)
            )
    return findings


def _pin_edit(uses: Uses, text: str, sha: str, tag: str) -> Edit:
    """The edit writing ``@sha # tag`` over the ref and the trailing comment."""
    ref_start = uses.value_end - len(uses.ref)
    closing = text[uses.value_end : uses.after]
    old_comment = uses.comment or ""
    keep = ""
    first = old_comment.split()[0] if old_comment.split() else ""
    if old_comment and not _VERSIONISH_RE.fullmatch(first) and first != tag:
        keep = f" {old_comment}"
    return Edit(uses.relpath, ref_start, uses.line_end, f"{sha}{closing} # {tag}{keep}")


def _resolve(problem: Problem, base: str) -> tuple[str, str] | None:
    """(sha, tag comment) for a problem, asking the action's repository."""
    repo = problem.uses.repo
    if repo is None:
        return None
    remote = ls_remote(base, *repo)
    if isinstance(remote, str):
        return None
    ref = problem.uses.ref
    if _SHA_RE.fullmatch(ref):
        tag = remote.tag_for(ref)
        return (ref, tag) if tag else None
    sha = remote.resolve(ref)
    if sha is None:
        return None
    tag = remote.tag_for(sha, ref) if ref in remote.tags else None
    return sha, tag or ref


def _pin_check(source: SourceFile) -> YamlFixCheck[dict[tuple[object, ...], str]]:
    """The verification of the pins of one file: the new text parses and its ``uses:``
    values are the old ones, but the pinned one, which names its action at the SHA."""

    def read(text: str, data: YamlNode) -> dict[tuple[object, ...], str]:
        """The ``uses:`` values of a text."""
        lines = FileLines.of(text)
        return {u.key: u.value for u in uses_of(source.relpath, data, lines, source.kind)}

    return YamlFixCheck(source.relpath, source.text, read)


def _pinned(
    key: tuple[object, ...], expected: str
) -> Callable[[dict[tuple[object, ...], str]], dict[tuple[object, ...], str]]:
    """The ``uses:`` values after ``key`` is pinned to ``expected``."""
    return lambda old: {k: expected if k == key else value for k, value in old.items()}


def fixes(ctx: RepoContext) -> Iterator[Finding]:
    """``fix --online``: each resolvable ``uses:`` with the fix pinning it by SHA with its
    tag comment (verified on its own: the file's other ``uses:`` values stay).

    Offline there is none (the findings name this command). Every SHA is resolved before
    the engine writes anything.
    """
    if not ctx.online:
        return
    base = _base_url(ctx.config)
    items = [i for i in split_analysis(analyse(ctx))[1] if i.problems]
    prefetch(
        base,
        [
            repo
            for item in items
            for problem in item.problems
            if problem.resolvable and problem.uses.located and (repo := problem.uses.repo)
        ],
    )
    for item in items:
        pins = _pin_check(item.source)
        for problem in item.problems:
            uses = problem.uses
            if not problem.resolvable or not uses.located:
                continue
            resolved = _resolve(problem, base)
            if resolved is None:
                continue
            sha, tag = resolved
            fix = Fix(
                f"pin {uses.action}@{sha} # {tag}",
                (_pin_edit(uses, item.source.text, sha, tag),),
                pins.verify(_pinned(uses.key, f"{uses.action}@{sha}"), "other `uses:` values"),
            )
            yield Finding(uses.relpath, uses.line, uses.col, RULE_ID, problem.message, fix=fix)


def triggers(config: Config) -> tuple[str, ...]:
    """Globs whose change re-runs the rule."""
    globs = [*WORKFLOW_GLOBS, *ACTION_GLOBS, *widening(config)]
    if config.section(ActionPinConfig).docker_digest:
        globs += config.section(ActionPinConfig).dockerfiles
    return tuple(globs)


DOC = """\
## What it checks
Every `uses:` of a GitHub workflow (steps and reusable-workflow jobs) and of a composite
action names a full 40-character commit SHA followed by a comment naming its release:
`uses: actions/checkout@9c091bb21b7c1c1d1991bb908d89e4e9dddfe3e0 # v7.0.0`. A tag or
branch (`@v4`, `@release`), a short commit id, and `@main`/`@master` (always) are
findings, as is a SHA with no `# vX.Y.Z` comment. Local actions (`./...`) pass. With
`docker-digest = true`, container images without an `@sha256:` digest are findings too
(Dockerfile `FROM`, `docker://` actions, job `container:` and `services:` images).

## Why
A tag can be moved to any commit by whoever controls the action's repository, so
`@v4` runs different code tomorrow with no change in this repository; a SHA cannot
move. The comment keeps the pin reviewable: Dependabot and Renovate update both.

## Example
```yaml
steps:
  - uses: actions/checkout@v4
  - uses: some-org/deploy@main
```

## Fix
`policytool fix --online --only action-pin` runs `git ls-remote` against each action's
repository and writes `@<sha> # <tag>` (the most specific tag on that commit: `v4`
becomes the SHA with `# v4.2.2`); a bare SHA gets the comment of the tag pointing at
it. Without `--online` nothing is fetched and the finding names this command. The
look-ups run 8 at a time and all of them within 60 s; a repository listing more than
8 MiB of refs is stopped, and a tag that is not a plain name (letters, digits, `._+-/`)
or a SHA that is not 40 lowercase hex is ignored. Each of those stays a finding with
the reason.

## Configuration
`[tool.policytool.action-pin]`: `trusted` (`owner/repo` globs such as `actions/*` that
may stay on tags; `@main` is still reported), `allow` / `allowlist-file` (path globs not
checked), `docker-digest` (opt-in image digests) with `dockerfiles` (globs), and
`git-base-url` (default `https://github.com`; https only). A mirror (`http://`,
`file://`) is the maintainer's choice, made outside the repository:
`POLICYTOOL_GIT_BASE_URL` wins over `git-base-url`.
"""


RULE = register(
    RepoRule(
        id=RULE_ID,
        summary="workflow and composite-action `uses:` pin a commit SHA with a `# vX.Y.Z` "
        "comment; fix --online resolves tags",
        check=check,
        triggers=triggers,
        fixes=fixes,
        doc=DOC,
        narrows=True,
        group="ci",
        config=("action-pin",),
    )
)
