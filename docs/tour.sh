#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
#
# Prints the README's tour: each command as `$ command` followed by what it really
# printed. It runs in a throwaway clone of this repository (under a temp directory), with
# the `policytool` on PATH, so it never changes the checkout it is run from.
#
#   docs/tour.sh > /tmp/tour.txt     # then paste the blocks into README.md
#
# `lock` and `bump` resolve against PyPI with uv (installed by quickstart step 2, or
# `pip install uv`); everything else is offline.
set -euo pipefail

src="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git clone -q "$src" "$work/policytool"
cd "$work/policytool"
git checkout -q -B main
git update-ref refs/remotes/origin/main HEAD
git remote set-head origin main

run() {
    printf '$ %s\n' "$*"
    set +e
    bash -c "$*" 2>&1
    local rc=$?
    set -e
    [ "$rc" -eq 0 ] || printf '(exit %s)\n' "$rc"
}

echo "## check / rules"
run policytool check
run policytool rules source

echo "## a new file, staged"
cat > policytool/retry.py <<'EOF'
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
EOF
git add policytool/retry.py
run policytool check
run policytool fix
run "head -n 4 policytool/retry.py"
git add policytool/retry.py

echo "## sweep"
run policytool sweep --staged -q
run "policytool sweep --staged --format markdown | head -n 12"
git reset -q --hard

echo "## lock"
run policytool lock --check
run policytool lock

echo "## bump"
sed -i 's/^ruff$/ruff==0.17.5/' requirements/test.in
policytool lock > /dev/null 2>&1
git commit -qam "pin ruff 0.17.5"
run 'policytool bump ruff --why "ruff 0.17.6 fixes a formatter bug we hit" --pr-body pr.md'
run git diff --stat
run "sed -n '3,12p' pr.md"
git reset -q --hard HEAD~1
rm -f pr.md

echo "## sync / init / baseline"
run policytool sync --check
run policytool init
rm -rf .github/PULL_REQUEST_TEMPLATE
run policytool baseline
