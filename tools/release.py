# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Cut a release of policytool (RELEASING.md): ``python tools/release.py VERSION``.

In a clean work tree on the branch to release, it makes two commits and one tag:

1. ``Release VERSION``: pyproject.toml's version becomes VERSION, CHANGELOG.md's
   *Unreleased* section becomes ``## VERSION (YYYY-MM-DD)`` under a new empty
   *Unreleased*, and every hook reference the docs show for policytool's own repository
   (``rev: vOLD`` under ``repo: <homepage>``) becomes ``rev: vVERSION``. That commit is
   tagged ``vVERSION`` (annotated), the ``rev`` ``policytool init`` writes from that
   version.
2. ``Back to development``: the version becomes the next patch's ``.dev0``, so an
   install from a commit after the tag is never mistaken for the release (``init`` then
   writes ``repo: local`` hooks instead of a tag that does not hold that code).

It pushes nothing: it prints the ``git push`` that publishes the release.
``--check`` verifies instead that the docs' hook references name the latest release of
CHANGELOG.md (the test suite runs it).
"""

from __future__ import annotations

import argparse
import datetime
import re
import subprocess
import sys
from pathlib import Path

from packaging.version import InvalidVersion, Version

from policytool import HOMEPAGE

ROOT = Path(__file__).resolve().parent.parent
UNRELEASED = "## Unreleased\n"
RELEASE_HEADING = re.compile(r"^## (\d+\.\d+\.\d+)\b", re.M)
VERSION_LINE = re.compile(r'^version = "([^"]+)"$', re.M)
# `repo: <homepage>` and the `rev: vN...` line right after it, in any indentation
# (`rev: vX.Y.Z` in prose is a placeholder, not a reference).
HOOK_REFERENCE = re.compile(
    r"(^[ \t]*-?[ \t]*repo:[ \t]*" + re.escape(HOMEPAGE) + r"[ \t]*\n[ \t]*rev:[ \t]*)v(\d\S*)",
    re.M,
)


class ReleaseError(Exception):
    """A reason not to release, one sentence."""


def _git(root: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise ReleaseError(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc.stdout


def current_version(root: Path) -> str:
    """pyproject.toml's ``version``."""
    match = VERSION_LINE.search((root / "pyproject.toml").read_text(encoding="utf-8"))
    if match is None:
        raise ReleaseError('pyproject.toml has no `version = "..."` line')
    return match.group(1)


def latest_release(root: Path) -> str | None:
    """The first ``## X.Y.Z`` heading of CHANGELOG.md: the latest release."""
    match = RELEASE_HEADING.search((root / "CHANGELOG.md").read_text(encoding="utf-8"))
    return match.group(1) if match else None


def doc_pages(root: Path) -> list[Path]:
    """The pages that may show a hook reference to policytool's repository."""
    pages = [root / "README.md", *sorted((root / "docs").glob("**/*.md"))]
    return [page for page in pages if page.is_file()]


def stale_references(root: Path, release: str) -> list[str]:
    """``PAGE:LINE: rev: vX`` for each docs hook reference not naming ``release``."""
    stale = []
    for page in doc_pages(root):
        text = page.read_text(encoding="utf-8")
        for match in HOOK_REFERENCE.finditer(text):
            if match.group(2) != release:
                line = text.count("\n", 0, match.start(2)) + 1
                stale.append(f"{page.relative_to(root)}:{line}: rev: v{match.group(2)}")
    return stale


def _set_version(root: Path, version: str) -> None:
    path = root / "pyproject.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(VERSION_LINE.sub(f'version = "{version}"', text, count=1), encoding="utf-8")


def _next_dev(version: Version) -> str:
    return f"{version.major}.{version.minor}.{version.micro + 1}.dev0"


def prepare(root: Path, new: str, today: datetime.date) -> list[str]:
    """Make the release commit, its tag and the back-to-development commit; the push lines."""
    try:
        version = Version(new)
    except InvalidVersion as exc:
        raise ReleaseError(f"{new!r} is not a version ({exc})") from None
    if str(version) != new or version.is_prerelease or version.local or version.post:
        raise ReleaseError(f"{new!r} is not a final X.Y.Z release version")
    if _git(root, "status", "--porcelain", "--untracked-files=no").strip():
        raise ReleaseError("the work tree has uncommitted changes; commit or drop them first")
    if _git(root, "tag", "-l", f"v{new}").strip():
        raise ReleaseError(f"the tag v{new} exists already")
    last = latest_release(root)
    if last is not None and Version(last) >= version:
        raise ReleaseError(f"{new} is not newer than the latest release {last} (CHANGELOG.md)")
    changelog = root / "CHANGELOG.md"
    text = changelog.read_text(encoding="utf-8")
    start = text.find(UNRELEASED)
    if start < 0:
        raise ReleaseError("CHANGELOG.md has no `## Unreleased` section")
    body_start = start + len(UNRELEASED)
    end_match = RELEASE_HEADING.search(text, body_start)
    body_end = end_match.start() if end_match else len(text)
    if not text[body_start:body_end].strip():
        raise ReleaseError("CHANGELOG.md's Unreleased section is empty: nothing to release")
    heading = f"## {new} ({today.isoformat()})\n"
    changelog.write_text(text[:body_start] + "\n" + heading + text[body_start:], encoding="utf-8")
    _set_version(root, new)
    for page in doc_pages(root):
        page_text = page.read_text(encoding="utf-8")
        updated = HOOK_REFERENCE.sub(lambda m: f"{m.group(1)}v{new}", page_text)
        if updated != page_text:
            page.write_text(updated, encoding="utf-8")
    _git(root, "commit", "-q", "-a", "-m", f"Release {new}")
    _git(root, "tag", "-a", f"v{new}", "-m", f"policytool {new}")
    _set_version(root, _next_dev(version))
    _git(root, "commit", "-q", "-a", "-m", f"Back to development: {_next_dev(version)}")
    branch = _git(root, "rev-parse", "--abbrev-ref", "HEAD").strip()
    return [f"git push origin {branch} v{new}"]


def main(argv: list[str] | None = None) -> int:
    """``release.py VERSION`` or ``release.py --check``; one sentence and exit 2 on refusal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("version", nargs="?", help="the release's X.Y.Z")
    parser.add_argument("--check", action="store_true", help="check the docs' hook references")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        if args.check:
            release = latest_release(args.root)
            if release is None:
                raise ReleaseError("CHANGELOG.md has no release section")
            stale = stale_references(args.root, release)
            for line in stale:
                print(f"{line} (the latest release is {release})")
            return 1 if stale else 0
        if not args.version:
            parser.error("give the release's version, or --check")
        for line in prepare(args.root, args.version, datetime.date.today()):
            print(f"released; publish it with: {line}")
    except ReleaseError as exc:
        print(f"release: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
