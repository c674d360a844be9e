#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
#
# The README's tour: each command as `$ command` followed by what it really printed, in
# blocks that start with a `<!-- tour:NAME -->` line, the name of the README block they
# fill. It runs in a throwaway repository made from this checkout's files (tracked and
# untracked, not ignored: what the next commit holds), with the `policytool` on PATH, so
# it never changes the checkout it is run from.
#
#   docs/tour.sh              # print the tour
#   docs/tour.sh --write      # rewrite README.md's blocks between the tour markers
#   docs/tour.sh --offline    # only the blocks that need no network (all but `bump`)
#
# `bump` resolves against PyPI with uv (installed by quickstart step 2, or
# `pip install uv`); everything else is offline (`lock` finds the lock up to date and
# resolves nothing; --offline sets UV_OFFLINE so it could not). tests/test_docs.py
# reruns the offline blocks and fails when README.md differs.
set -euo pipefail

write=0
offline=0
for arg in "$@"; do
    case "$arg" in
    --write) write=1 ;;
    --offline) offline=1 ;;
    *)
        echo "usage: docs/tour.sh [--offline] [--write]" >&2
        exit 2
        ;;
    esac
done

src="$(cd "$(dirname "$0")/.." && pwd)"
if [ "$write" -eq 1 ]; then
    flags=()
    [ "$offline" -eq 0 ] || flags+=(--offline)
    out="$(mktemp)"
    trap 'rm -f "$out"' EXIT
    "$0" ${flags[@]+"${flags[@]}"} >"$out"
    (cd "$src" && python -m tests.readme_tour README.md <"$out")
    exit
fi
if [ "$offline" -eq 1 ]; then
    export UV_OFFLINE=1 PIP_NO_INDEX=1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/policytool"
git -C "$src" ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' path; do
        if [ -e "$src/$path" ] || [ -L "$src/$path" ]; then printf '%s\0' "$path"; fi
    done |
    tar -C "$src" --null -T - -cf - | tar -C "$work/policytool" -xf -
cd "$work/policytool"
export GIT_AUTHOR_NAME=tour GIT_AUTHOR_EMAIL=tour@example.invalid
export GIT_COMMITTER_NAME=tour GIT_COMMITTER_EMAIL=tour@example.invalid
git init -q -b main
git add -A
git commit -qm "tour"
git remote add origin "$src"
git update-ref refs/remotes/origin/main HEAD
git remote set-head origin main

block() {
    printf '<!-- tour:%s -->\n' "$1"
}

run() {
    printf '$ %s\n' "$*"
    set +e
    bash -c "$*" 2>&1
    local rc=$?
    set -e
    [ "$rc" -eq 0 ] || printf '(exit %s)\n' "$rc"
}

block check
run policytool check

block rules
run policytool rules source

block new-file
cat > policytool/retry.py <<'PY'
"""Retry a flaky call."""

import time
from collections.abc import Callable
from typing import Any


def retry(call: Callable[[], object], **kwargs: Any) -> bool:
    for _ in range(kwargs.get("attempts", 3)):
        try:
            call()
            return True
        except Exception:
            time.sleep(1)
            continue
PY
git add policytool/retry.py
run policytool check
run policytool fix
run "head -n 4 policytool/retry.py"
git add policytool/retry.py

block sweep
run policytool sweep --staged -q
git reset -q --hard
git clean -qfd

block lock
run policytool lock --check
run policytool lock

if [ "$offline" -eq 0 ]; then
    block bump
    sed -i 's/^ruff$/ruff==0.17.5/' requirements/test.in
    policytool lock > /dev/null 2>&1
    git commit -qam "pin ruff 0.17.5"
    run 'policytool bump ruff --why "ruff 0.17.6 fixes a formatter bug we hit" --pr-body pr.md'
    run git diff --stat
    run "sed -n '3,12p' pr.md"
    git reset -q --hard HEAD~1
    rm -f pr.md
fi

block sync-init-baseline
run policytool sync --check
run policytool init
rm -rf .github/PULL_REQUEST_TEMPLATE
run policytool baseline
