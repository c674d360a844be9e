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
``<git-base-url>/<owner>/<repo>`` and writes ``@<sha> # <tag>`` (the most specific tag on
that commit, ``v4`` -> ``v4.2.2``); a bare SHA gets the comment of the tag that points
at it. Only the ref and comment characters of the line change; the workflow is
re-parsed to prove every other ``uses:`` is as it was. Offline, the finding names that
command.
"""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from policytool.config import Config
from policytool.engine.findings import Finding
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.errors import PolicyError
from policytool.files import split_lines
from policytool.formats.yamldoc import YamlNode, value_pos
from policytool.rules.ci_floating_install import (
    ACTION_GLOBS,
    WORKFLOW_GLOBS,
    FileLines,
    Selection,
    SourceFile,
    apply_edits,
    load_sources,
    widening,
    write_sources,
    yaml_data,
)

RULE_ID = "action-pin"
FIX_COMMAND = "policytool fix --online --only action-pin"
_SHA_RE = re.compile(r"[0-9a-f]{40}")
_SHORT_SHA_RE = re.compile(r"[0-9a-f]{7,39}")
_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_VERSIONISH_RE = re.compile(r"v?\d+(?:\.\d+)*(?:[-+.][0-9A-Za-z.]+)?")
_REF_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/+-]*")
_BRANCHES = frozenset({"main", "master"})
_BASE_SCHEMES = ("https://", "http://", "file://")
_GIT_TIMEOUT = 60


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
    if not isinstance(data, dict):
        return
    step_lists: list[tuple[object, tuple[object, ...]]] = []
    if kind == "workflow":
        jobs = data.get("jobs")
        for name, job in jobs.items() if isinstance(jobs, dict) else ():
            if not isinstance(job, dict):
                continue
            uses = job.get("uses")
            if isinstance(uses, str):
                yield _locate(relpath, job, "uses", str(uses), lines, ("job", str(name)))
            step_lists.append((job.get("steps"), ("job", str(name))))
    else:
        runs = data.get("runs")
        if isinstance(runs, dict):
            step_lists.append((runs.get("steps"), ("runs",)))
    for steps, path in step_lists:
        if not isinstance(steps, list):
            continue
        for index, step in enumerate(steps):
            uses = step.get("uses") if isinstance(step, dict) else None
            if isinstance(uses, str):
                yield _locate(relpath, step, "uses", str(uses), lines, (*path, index))


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
    jobs = data.get("jobs")
    for _name, job in jobs.items() if isinstance(jobs, dict) else ():
        if not isinstance(job, dict):
            continue
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
    if _trusted(uses, config.action_pin.trusted):
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
    """The configured base URL, refused unless https, http or file."""
    base = config.action_pin.git_base_url.rstrip("/")
    if not base.startswith(_BASE_SCHEMES):
        raise PolicyError(
            f"[tool.policytool.action-pin] git-base-url: {base!r} must start with "
            "https://, http:// or file://"
        )
    return base


def ls_remote(base: str, owner: str, repo: str) -> Remote | str:
    """The refs of ``base/owner/repo`` (cached a run), or why they cannot be listed."""
    key = (base, owner, repo)
    cached = _REMOTES.get(key)
    if cached is not None:
        return cached
    url = f"{base}/{owner}/{repo}"
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "echo"}
    try:
        proc = subprocess.run(
            ["git", "-c", "protocol.ext.allow=never", "ls-remote", "--tags", "--heads", url],
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT,
            env=env,
            check=False,
        )
    except FileNotFoundError:
        result: Remote | str = "git is not installed"
    except subprocess.TimeoutExpired:
        result = f"git ls-remote {url} timed out after {_GIT_TIMEOUT} s"
    else:
        if proc.returncode != 0:
            lines = proc.stderr.strip().splitlines()
            result = f"git ls-remote {url} failed: {lines[-1] if lines else proc.returncode}"
        else:
            result = _parse_refs(proc.stdout)
    _REMOTES[key] = result
    return result


def _parse_refs(out: str) -> Remote:
    """Tags (annotated ones peeled to their commit) and branches of ls-remote output."""
    tags: dict[str, str] = {}
    peeled: dict[str, str] = {}
    heads: dict[str, str] = {}
    for line in out.splitlines():
        sha, _, ref = line.partition("\t")
        if ref.startswith("refs/tags/"):
            name = ref.removeprefix("refs/tags/")
            if name.endswith("^{}"):
                peeled[name[:-3]] = sha
            else:
                tags[name] = sha
        elif ref.startswith("refs/heads/"):
            heads[ref.removeprefix("refs/heads/")] = sha
    tags.update(peeled)
    return Remote(tags, heads)


# --------------------------------------------------------------------------------------
# Check and fix
# --------------------------------------------------------------------------------------


def selection(config: Config) -> Selection:
    """The files ``action-pin`` reads."""
    options = config.action_pin
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
    out: list[FileProblems | Finding] = []
    for source in load_sources(ctx, selection(config)):
        if isinstance(source, Finding):
            out.append(source)
            continue
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
        if config.action_pin.docker_digest:
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
    findings: list[Finding] = []
    for item in analyse(ctx):
        if isinstance(item, Finding):
            findings.append(item)
            continue
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


def _pin_edit(uses: Uses, text: str, sha: str, tag: str) -> tuple[int, int, str]:
    """The edit writing ``@sha # tag`` over the ref and the trailing comment."""
    ref_start = uses.value_end - len(uses.ref)
    closing = text[uses.value_end : uses.after]
    old_comment = uses.comment or ""
    keep = ""
    first = old_comment.split()[0] if old_comment.split() else ""
    if old_comment and not _VERSIONISH_RE.fullmatch(first) and first != tag:
        keep = f" {old_comment}"
    return ref_start, uses.line_end, f"{sha}{closing} # {tag}{keep}"


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


def _verified(source: SourceFile, new_text: str, expected: dict[tuple[object, ...], str]) -> bool:
    """Whether ``new_text`` parses and its ``uses:`` values are the old ones but ``expected``."""
    from policytool.errors import YamlError
    from policytool.formats.yamldoc import parse_text

    try:
        new_data = parse_text(new_text, source.relpath)
        old_data = parse_text(source.text, source.relpath)
    except YamlError:
        return False
    new_lines = FileLines.of(new_text)
    old = {u.key: u.value for u in uses_of(source.relpath, old_data, source.lines, source.kind)}
    new = {u.key: u.value for u in uses_of(source.relpath, new_data, new_lines, source.kind)}
    return new == {key: expected.get(key, value) for key, value in old.items()}


def fix(ctx: RepoContext) -> list[str]:
    """``fix --online``: pin each resolvable ``uses:`` by SHA with its tag comment.

    Offline it changes nothing (the findings name this command). Every new content is
    computed before the first write; a file whose result does not verify is left alone.
    """
    if not ctx.online:
        return []
    base = _base_url(ctx.config)
    writes: list[tuple[SourceFile, str]] = []
    for item in analyse(ctx):
        if isinstance(item, Finding) or not item.problems:
            continue
        source = item.source
        edits: list[tuple[int, int, str]] = []
        expected: dict[tuple[object, ...], str] = {}
        for problem in item.problems:
            uses = problem.uses
            if not problem.resolvable or not uses.located:
                continue
            resolved = _resolve(problem, base)
            if resolved is None:
                continue
            sha, tag = resolved
            edits.append(_pin_edit(uses, source.text, sha, tag))
            expected[uses.key] = f"{uses.action}@{sha}"
        if not edits:
            continue
        new_text = apply_edits(source.text, edits)
        if new_text != source.text and _verified(source, new_text, expected):
            writes.append((source, new_text))
    return write_sources(ctx.root, writes)


def triggers(config: Config) -> tuple[str, ...]:
    """Globs whose change re-runs the rule."""
    globs = [*WORKFLOW_GLOBS, *ACTION_GLOBS, *widening(config)]
    if config.action_pin.docker_digest:
        globs += config.action_pin.dockerfiles
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
it. Without `--online` nothing is fetched and the finding names this command.

## Configuration
`[tool.policytool.action-pin]`: `trusted` (`owner/repo` globs such as `actions/*` that
may stay on tags; `@main` is still reported), `allow` / `allowlist-file` (path globs not
checked), `docker-digest` (opt-in image digests) with `dockerfiles` (globs), and
`git-base-url` (default `https://github.com`; `file://` for mirrors and tests).
"""


RULE = register(
    RepoRule(
        id=RULE_ID,
        summary="workflow and composite-action `uses:` pin a commit SHA with a `# vX.Y.Z` "
        "comment; fix --online resolves tags",
        check=check,
        triggers=triggers,
        fix=fix,
        doc=DOC,
        narrows=True,
        group="ci",
        config=("action-pin",),
    )
)
