#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
#
# The shell steps of policytool's GitHub Action (action.yml), one per subcommand, run
# in the repository's work tree. tests/test_action.py runs each of them with bash in a
# temporary repository, so what the Action does is what the suite checks.
#
#   steps.sh install  ACTION_PATH        pip install the policytool of the Action's own
#                                        commit (the SHA the workflow pinned)
#   steps.sh base                        fetch the pull request's base commit; prints
#                                        base=SHA to $GITHUB_OUTPUT (empty on a push)
#   steps.sh check    SARIF_PATH         `policytool check` with the base's baseline:
#                                        annotations on the PR, SARIF for code scanning
#   steps.sh lock-check                  `policytool lock --check` (skipped without locks)
#   steps.sh sweep                       `policytool sweep` of the PR's added lines; the
#                                        markdown report becomes the job summary
#
# Environment: POLICYTOOL_BASE (the base commit, empty on a push), GITHUB_OUTPUT,
# GITHUB_STEP_SUMMARY (files the runner gives; /dev/null when unset).
set -uo pipefail

step="${1:?usage: steps.sh install|base|check|lock-check|sweep}"
base="${POLICYTOOL_BASE:-}"
summary="${GITHUB_STEP_SUMMARY:-/dev/null}"
output="${GITHUB_OUTPUT:-/dev/null}"

case "$step" in
install)
    # The Action's own checkout: exactly the code of the SHA in `uses:`.
    python -m pip install --disable-pip-version-check -q "${2:?the path of the Action}"
    policytool --version
    ;;
base)
    if [ -n "$base" ]; then
        git fetch --no-tags --depth=1 origin "$base" || exit 2
    fi
    echo "base=$base" >>"$output"
    ;;
check)
    sarif="${2:?the SARIF path}"
    args=()
    if [ -n "$base" ]; then
        args=(--baseline-from "$base")
    fi
    # One run for the SARIF file (uploaded by the next step), one for the annotations.
    policytool check "${args[@]}" --format sarif --exit-zero >"$sarif" || exit $?
    policytool check "${args[@]}" --format github
    ;;
lock-check)
    if ! grep -q '^\[\[tool\.policytool\.lock\]\]' pyproject.toml 2>/dev/null; then
        echo "policytool: no [[tool.policytool.lock]] in pyproject.toml; lock --check skipped"
        exit 0
    fi
    args=()
    if [ -n "$base" ]; then
        # The base's adoptions: a pull request that edits an adopted lock and re-runs
        # `baseline` in the same change must not be judged by its own digest.
        args=(--baseline-from "$base")
    fi
    policytool lock --check "${args[@]}" --format github
    ;;
sweep)
    args=()
    if [ -n "$base" ]; then
        # actions/checkout gives the merge of the PR into its base: the two-dot diff
        # against the base is the PR's change, and needs no history.
        args=(--base "$base" --two-dot)
    fi
    status=0
    report="$(policytool sweep "${args[@]}" --format markdown)" || status=$?
    printf '%s\n' "$report" >>"$summary"
    printf '%s\n' "$report"
    exit "$status"
    ;;
*)
    echo "steps.sh: unknown step '$step'" >&2
    exit 2
    ;;
esac
