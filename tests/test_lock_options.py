# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Locks for real repos: backend options, variants, universal locks, Python recorded,
credentials from the environment, the repository boundary; real uv on local wheels and
local indexes (no network)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Repo, Result
from tests.test_lock import lock_table, pins, setup_simple
from tests.wheelhouse import Wheelhouse, build_simple_index

Run = Callable[..., Result]


def recording_uv(tmp_path: Path) -> tuple[Path, Path]:
    """A ``uv`` wrapper that logs its arguments, then runs the real uv; (script, log)."""
    real = Path(sys.executable).parent / "uv"
    log = tmp_path / "uv-args.log"
    script = tmp_path / "uv"
    script.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexec {real} "$@"\n', "utf-8")
    script.chmod(0o755)
    return script, log


def stale_lines(run: Run) -> list[str]:
    """The lock-stale/lock-skew finding lines of ``lock --check``."""
    result = run("lock", "--check")
    return [line for line in result.out.splitlines() if " lock-s" in line]


# ---------------------------------------------------------------------------- options


def test_resolution_options_reach_uv_and_the_fingerprint(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script, log = recording_uv(tmp_path)
    monkeypatch.setenv("POLICYTOOL_UV", str(script))
    setup_simple(
        repo,
        wheelhouse.path,
        extra=(
            'index-strategy = "unsafe-best-match"\ntorch-backend = "cpu"\n'
            'prerelease = "if-necessary"\nresolution = "highest"\n'
            'platform = "x86_64-manylinux_2_28"\npython-version = "3.12"'
        ),
    )
    result = run("lock")
    assert result.code == 0, result.err
    args = log.read_text()
    for flag in (
        "--index-strategy unsafe-best-match",
        "--torch-backend cpu",
        "--prerelease if-necessary",
        "--resolution highest",
        "--python-platform x86_64-manylinux_2_28",
        "--python-version 3.12",
    ):
        assert flag in args
    assert run("lock", "--check").code == 0
    # Each option is part of the fingerprint.
    text = repo.read("pyproject.toml").decode()
    repo.write("pyproject.toml", text.replace('torch-backend = "cpu"', 'torch-backend = "cu128"'))
    assert any("fingerprint mismatch" in line for line in stale_lines(run))


def test_index_strategy_makes_an_extra_index_that_shadows_a_package_usable(
    repo: Repo, run: Run, tmp_path: Path
) -> None:
    # A PyTorch-style extra index that also serves an old alpha: uv's first-index rule
    # takes alpha from it alone and cannot satisfy alpha>=2.
    main = build_simple_index(tmp_path / "main", {"alpha": {"1.0": (), "2.0": ()}})
    extra = build_simple_index(tmp_path / "extra", {"alpha": {"1.0": ()}})
    repo.write("requirements/test.in", "alpha>=2\n")
    config = (
        "[tool.policytool]\n\n[[tool.policytool.lock]]\n"
        'name = "test"\ninputs = ["requirements/test.in"]\noutput = "requirements/test.txt"\n'
        f'index-url = "{main}"\nextra-index-urls = ["{extra}"]\n'
        "exclude-newer = false\n"  # a file:// simple index has no upload dates
    )
    repo.write("pyproject.toml", config)
    failed = run("lock")
    assert failed.code == 2
    assert "unsafe-best-match" in failed.err  # uv's hint, now one config key away
    repo.write("pyproject.toml", config + 'index-strategy = "unsafe-best-match"\n')
    result = run("lock")
    assert result.code == 0, result.err
    assert pins(repo.read("requirements/test.txt").decode()) == {"alpha": "2.0"}


def test_exclude_globs_leave_packages_out_and_check_agrees(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    setup_simple(repo, wheelhouse.path, extra='exclude = ["GAM*", "Beta"]')
    assert run("lock").code == 0
    assert set(pins(repo.read("requirements/test.txt").decode())) == {
        "alpha",
        "delta",
        "epsilon",
    }
    assert stale_lines(run) == []


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("torch-backnd", "did you mean 'torch-backend'?"),
        ("no-emit-package", "did you mean 'exclude'?"),
        ("extra-index-url", "did you mean 'extra-index-urls'?"),
        ("python-platform", "did you mean 'platform'?"),
        ("cuda-backend", "valid keys:"),  # not "did you mean 'backend'"
    ],
)
def test_unknown_lock_keys_suggest_the_right_option(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, key: str, expected: str
) -> None:
    setup_simple(repo, wheelhouse.path, extra=f'{key} = "x"')
    result = run("lock", "--check")
    assert result.code == 2
    assert f"unknown key '{key}'; {expected}" in result.err
    assert "Traceback" not in result.err


@pytest.mark.parametrize("value", ["3.1x", "3", "python3.12", "4.0"])
def test_python_version_is_validated(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, value: str
) -> None:
    setup_simple(repo, wheelhouse.path, extra=f'python-version = "{value}"')
    result = run("lock", "--check")
    assert result.code == 2
    assert "python-version: expected a Python version such as '3.12'" in result.err
    assert "pyproject.toml:" in result.err


def test_misspelt_constraint_lock_name_gets_a_suggestion(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    repo.write("requirements/common.in", "alpha\n")
    repo.write("requirements/test.in", "delta\n")
    repo.write(
        "pyproject.toml",
        "[tool.policytool]\n\n"
        + lock_table(
            "common", ["requirements/common.in"], "requirements/common.txt", wheelhouse.path
        )
        + lock_table(
            "test",
            ["requirements/test.in"],
            "requirements/test.txt",
            wheelhouse.path,
            extra='constraints = ["comon"]',
        ),
    )
    result = run("lock")
    assert result.code == 2
    assert (
        "constraint 'comon' is neither a configured lock nor a file; did you mean lock 'common'?"
        in result.err
    )


# ---------------------------------------------------------------------------- variants


VARIANTS = """\
[tool.policytool]

[[tool.policytool.lock]]
name = "test"
inputs = ["requirements/common.in"]
output = "requirements/test-{{variant}}.txt"
no-index = true
find-links = ["{wheels}"]
jobs = ["unit"]

[[tool.policytool.lock.variants]]
name = "cpu"
exclude = ["gamma"]

[[tool.policytool.lock.variants]]
name = "cuda"
inputs = ["requirements/common.in", "requirements/cuda.in"]
torch-backend = "cu128"
jobs = ["gpu"]
"""


def test_variants_fan_out_inherit_and_select(repo: Repo, run: Run, wheelhouse: Wheelhouse) -> None:
    repo.write("requirements/common.in", "beta<2\n")
    repo.write("requirements/cuda.in", "delta\n")
    repo.write("pyproject.toml", VARIANTS.format(wheels=wheelhouse.path.as_posix()))
    result = run("lock", "--variant", "cpu")
    assert result.code == 0, result.err
    assert "requirements/test-cpu.txt: written" in result.err
    assert not (repo.root / "requirements/test-cuda.txt").exists()
    # cpu: inherited inputs and find-links, its own exclude.
    assert pins(repo.read("requirements/test-cpu.txt").decode()) == {"beta": "1.1"}
    result = run("lock")
    assert result.code == 0, result.err
    cuda = repo.read("requirements/test-cuda.txt").decode()
    assert "#    policytool lock test-cuda" in cuda
    assert pins(cuda) == {"alpha": "1.1", "beta": "1.1", "delta": "2.0", "gamma": "1.1"}
    assert run("lock", "--check").code == 0
    unknown = run("lock", "--variant", "cdua")
    assert unknown.code == 2
    assert "--variant cdua: no lock has this variant; did you mean 'cuda'?" in unknown.err


def test_variants_need_their_own_outputs(repo: Repo, run: Run, wheelhouse: Wheelhouse) -> None:
    repo.write("requirements/common.in", "beta\n")
    repo.write(
        "pyproject.toml",
        VARIANTS.format(wheels=wheelhouse.path.as_posix()).replace("-{variant}", ""),
    )
    result = run("lock", "--check")
    assert result.code == 2
    assert "locks write the same output 'requirements/test.txt'" in result.err


def test_a_variant_overrides_the_resolver_options(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    # cuda locks with hashes and the lowest versions; cpu inherits neither.
    repo.write("requirements/common.in", "beta<2\n")
    repo.write("requirements/cuda.in", "delta\n")
    config = VARIANTS.format(wheels=wheelhouse.path.as_posix()).replace(
        'torch-backend = "cu128"\n',
        'torch-backend = "cu128"\nhashes = true\nresolution = "lowest"\n',
    )
    repo.write("pyproject.toml", config)
    result = run("lock")
    assert result.code == 0, result.err
    cpu = repo.read("requirements/test-cpu.txt").decode()
    cuda = repo.read("requirements/test-cuda.txt").decode()
    assert "--hash=sha256:" not in cpu and pins(cpu) == {"beta": "1.1"}
    assert "--hash=sha256:" in cuda
    assert pins(cuda)["beta"] == "1.0"  # the lowest allowed, not 1.1
    assert run("lock", "--check").code == 0


def test_a_variant_error_names_the_variant_table(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    # universal is inherited; the cpu variant's pip-tools cannot honour it.
    config = VARIANTS.format(wheels=wheelhouse.path.as_posix()).replace(
        'jobs = ["unit"]\n', 'jobs = ["unit"]\nuniversal = true\n'
    )
    config = config.replace('name = "cpu"\n', 'name = "cpu"\nbackend = "pip-tools"\n')
    repo.write("pyproject.toml", config)
    result = run("lock", "--check")
    assert result.code == 2
    line = config.splitlines().index('name = "cpu"')  # 0-based: the table header's line
    assert f"pyproject.toml:{line}:" in result.err, result.err
    assert "universal locks need backend = 'uv'" in result.err


# ---------------------------------------------------------------------------- index options in inputs


def test_extra_index_url_in_an_input_is_kept_in_the_lock(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    url = wheelhouse.path.as_uri()
    setup_simple(repo, wheelhouse.path, requirements=f"--find-links {url}\nalpha\n")
    assert run("lock").code == 0
    text = repo.read("requirements/test.txt").decode()
    body = text.split("# body: ", 1)[1].split("\n", 1)[1]
    # The backend used it; the lock says so, so `pip install -r` looks in the same place.
    assert body.startswith(f"--find-links {url}\nalpha==2.0\n")
    assert run("lock", "--check").code == 0


# ---------------------------------------------------------------------------- universal / Python


def test_universal_lock_keeps_both_sides_of_a_marker(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    setup_simple(
        repo,
        wheelhouse.path,
        extra='universal = true\npython-version = "3.10"',
        requirements="alpha<2 ; python_version < '3.12'\nalpha>=2 ; python_version >= '3.12'\n",
    )
    result = run("lock")
    assert result.code == 0, result.err
    text = repo.read("requirements/test.txt").decode()
    assert "alpha==1.1 ; python_full_version < '3.12'" in text
    assert "alpha==2.0 ; python_full_version >= '3.12'" in text
    assert run("lock", "--check").code == 0
    # universal is part of the fingerprint.
    config = repo.read("pyproject.toml").decode()
    repo.write("pyproject.toml", config.replace("universal = true\n", ""))
    assert any("fingerprint mismatch" in line for line in stale_lines(run))


def test_universal_needs_uv(repo: Repo, run: Run, wheelhouse: Wheelhouse) -> None:
    setup_simple(repo, wheelhouse.path, backend="pip-tools", extra="universal = true")
    result = run("lock", "--check")
    assert result.code == 2
    assert "universal locks need backend = 'uv'" in result.err


def test_lock_without_python_version_records_and_checks_its_python(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    setup_simple(repo, wheelhouse.path)
    assert run("lock").code == 0
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    text = repo.read("requirements/test.txt").decode()
    assert f"# python: {running}\n" in text
    # The same lock checked from another Python (the header is what that run wrote).
    repo.write("requirements/test.txt", text.replace(f"# python: {running}", "# python: 3.99"))
    assert stale_lines(run) == [
        f"requirements/test.txt:5:1: lock-stale resolved for Python 3.99, checked on Python "
        f"{running}: pins may differ; set python-version in the lock's config or run on "
        "Python 3.99"
    ]


# ---------------------------------------------------------------------------- --check


def rehash(text: str) -> str:
    """A lock text with its body hash recomputed (a careful hand edit)."""
    from policytool.formats.lockfile import body_hash, parse

    parsed = parse(text)
    assert parsed.body_hash is not None
    return text.replace(parsed.body_hash, body_hash(parsed.body))


def test_check_compares_inputs_even_when_both_hashes_match(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    setup_simple(repo, wheelhouse.path, requirements="alpha<2\n")
    assert run("lock").code == 0
    text = repo.read("requirements/test.txt").decode()
    repo.write("requirements/test.txt", rehash(text.replace("alpha==1.1", "alpha==2.0")))
    assert stale_lines(run) == [
        "requirements/test.in:1:1: lock-stale 'alpha<2' is not satisfied by alpha==2.0 in "
        "requirements/test.txt; run `policytool lock test`"
    ]


def test_check_compares_pins_with_constraint_files(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    repo.write("requirements/constraints.txt", "# CI bounds\ngamma<2\n")
    setup_simple(
        repo,
        wheelhouse.path,
        extra='constraints = ["requirements/constraints.txt"]',
        requirements="beta\n",
    )
    assert run("lock").code == 0
    text = repo.read("requirements/test.txt").decode()
    assert pins(text)["gamma"] == "1.1"
    repo.write("requirements/test.txt", rehash(text.replace("gamma==1.1", "gamma==2.0")))
    lines = stale_lines(run)
    assert len(lines) == 1
    assert (
        "lock-stale gamma==2.0 violates constraint 'gamma<2' (requirements/constraints.txt:2)"
        in lines[0]
    )


def test_lock_truncated_to_its_header_is_one_finding(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    setup_simple(repo, wheelhouse.path, requirements="alpha\nbeta\ndelta\nepsilon\n")
    assert run("lock").code == 0
    text = repo.read("requirements/test.txt").decode()
    header = text.split("# body: ", 1)[0] + "# body: " + text.split("# body: ", 1)[1].split("\n")[0]
    repo.write("requirements/test.txt", header + "\n")
    lines = stale_lines(run)
    assert len(lines) == 1
    assert "the lock holds no pins but its inputs require 4 packages (truncated?)" in lines[0]


def test_dependabot_edit_is_repaired_by_one_lock_command(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    setup_simple(repo, wheelhouse.path, requirements="alpha<2\n")
    repo.write("requirements/test.in", "alpha==1.0\n")
    assert run("lock").code == 0
    # Dependabot bumps the pin in the input and in the lock, but not the header hashes.
    repo.write("requirements/test.in", "alpha==1.1\n")
    text = repo.read("requirements/test.txt").decode()
    repo.write("requirements/test.txt", text.replace("alpha==1.0", "alpha==1.1"))
    assert stale_lines(run)
    assert run("lock").code == 0
    assert pins(repo.read("requirements/test.txt").decode()) == {"alpha": "1.1"}
    assert stale_lines(run) == []


# ---------------------------------------------------------------------------- credentials


def test_no_variable_is_expanded_into_a_find_links_directory(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A path is the pull request's to pick: no variable goes into one (issue 20), even
    # one that is set; only the user:password@ part of an allowed host takes one.
    setup_simple(repo, wheelhouse.path)
    config = repo.read("pyproject.toml").decode()
    repo.write(
        "pyproject.toml",
        config.replace(
            f'find-links = ["{wheelhouse.path.as_posix()}"]', 'find-links = ["${WHEELS}"]'
        ),
    )
    monkeypatch.setenv("WHEELS", wheelhouse.path.as_posix())
    refused = run("lock")
    assert refused.code == 2
    assert "find-links uses ${WHEELS} outside the user:password@ part" in refused.err
    assert not (repo.root / "requirements/test.txt").exists()
    # The offline check expands nothing: it only reports the missing lock.
    assert "does not exist" in run("lock", "--check").out


def test_a_failing_private_index_does_not_print_the_token(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INDEX_TOKEN", "s3cr3t-t0ken")
    monkeypatch.setenv("POLICYTOOL_INDEX_ENV", "INDEX_TOKEN@127.0.0.1")  # the maintainer's
    repo.write("requirements/test.in", "alpha\n")
    repo.write(
        "pyproject.toml",
        "[tool.policytool]\n\n[[tool.policytool.lock]]\n"
        'name = "test"\ninputs = ["requirements/test.in"]\noutput = "requirements/test.txt"\n'
        'index-url = "http://user:${INDEX_TOKEN}@127.0.0.1:9/simple"\n',
    )
    result = run("lock")
    assert result.code == 2
    assert "could not resolve" in result.err  # allowed: the resolver ran
    assert "s3cr3t-t0ken" not in result.err + result.out
    assert not (repo.root / "requirements/test.txt").exists()


def test_trim_error_drops_traceback_noise() -> None:
    from policytool.lock.backends import trim_error

    stderr = (
        "Traceback (most recent call last):\n  File x\nValueError: boom\n\n"
        "During handling of the above exception, another exception occurred:\n\n"
        "Could not find a version that matches alpha>=9\n"
    )
    out = trim_error(stderr, Path("/r"), Path("/t"), {})
    assert out == "Could not find a version that matches alpha>=9"


# ---------------------------------------------------------------------------- boundary, failures


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("output", "../OUTSIDE-lock.txt"),
        ("output", "/tmp/OUTSIDE-lock.txt"),
        ("inputs", ["../outside.in"]),
        ("constraints", ["../outside.txt"]),
    ],
)
def test_lock_paths_stay_inside_the_repository(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, key: str, value: str | list[str]
) -> None:
    (repo.root.parent / "outside.in").write_text("alpha\n")
    (repo.root.parent / "outside.txt").write_text("alpha<2\n")
    repo.write("requirements/test.in", "alpha\n")
    shown = (
        f'"{value}"' if isinstance(value, str) else "[" + ", ".join(f'"{v}"' for v in value) + "]"
    )
    table = (
        "[tool.policytool]\n\n[[tool.policytool.lock]]\n"
        'name = "test"\nno-index = true\n'
        f'find-links = ["{wheelhouse.path.as_posix()}"]\n'
    )
    fields = {"inputs": '["requirements/test.in"]', "output": '"requirements/test.txt"'}
    fields[key] = shown
    table += "".join(f"{k} = {v}\n" for k, v in fields.items())
    repo.write("pyproject.toml", table)
    before = sorted(p.name for p in repo.root.parent.iterdir())
    result = run("lock")
    assert result.code == 2
    assert "resolves outside the repository" in result.err or "is absolute" in result.err
    assert sorted(p.name for p in repo.root.parent.iterdir()) == before
    assert not Path("/tmp/OUTSIDE-lock.txt").exists()


def test_lock_through_a_symlink_out_of_the_repo_is_refused(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    outside = repo.root.parent / "elsewhere"
    outside.mkdir()
    (repo.root / "locks").symlink_to(outside)
    repo.write("requirements/test.in", "alpha\n")
    repo.write(
        "pyproject.toml",
        "[tool.policytool]\n\n"
        + lock_table("test", ["requirements/test.in"], "locks/test.txt", wheelhouse.path),
    )
    result = run("lock")
    assert result.code == 2
    assert "lock 'test' output: 'locks/test.txt' resolves outside the repository" in result.err
    assert list(outside.iterdir()) == []


def test_mkdtemp_failure_is_one_sentence(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    setup_simple(repo, wheelhouse.path)
    monkeypatch.setattr(tempfile, "tempdir", str(repo.root / "no-such-tmp"))
    result = run("lock")
    assert result.code == 2
    assert "policytool: error: lock 'test': cannot create a temporary directory in " in result.err
    assert "Traceback" not in result.err
    assert not (repo.root / "requirements/test.txt").exists()


def test_sigterm_restores_like_ctrl_c_and_leaves_no_temp_dir(
    repo: Repo, wheelhouse: Wheelhouse, tmp_path: Path
) -> None:
    # common is compiled (and written) first; test's resolver then hangs until SIGTERM.
    real = Path(sys.executable).parent / "uv"
    slow = tmp_path / "slow-uv"
    slow.write_text(
        f'#!/bin/sh\ncase "$*" in *requirements/test.in*) exec sleep 60;; esac\nexec {real} "$@"\n'
    )
    slow.chmod(0o755)
    repo.write("requirements/common.in", "alpha<2\n")
    repo.write("requirements/test.in", "delta\n")
    repo.write(
        "pyproject.toml",
        "[tool.policytool]\n\n"
        + lock_table(
            "common", ["requirements/common.in"], "requirements/common.txt", wheelhouse.path
        )
        + lock_table(
            "test",
            ["requirements/test.in"],
            "requirements/test.txt",
            wheelhouse.path,
            extra='constraints = ["common"]',
        ),
    )
    repo.write("requirements/common.txt", "# hand-made, before policytool\nalpha==1.0\n")
    before = repo.read("requirements/common.txt")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "POLICYTOOL_UV": str(slow), "TMPDIR": str(tmp)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "policytool", "lock"],
        cwd=repo.root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while repo.read("requirements/common.txt") == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert repo.read("requirements/common.txt") != before  # common was rewritten
    time.sleep(0.3)  # test's resolver is running
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 2, err
    assert "terminated (SIGTERM)" in err
    assert "Traceback" not in err
    assert repo.read("requirements/common.txt") == before  # restored byte for byte
    assert not (repo.root / "requirements/test.txt").exists()
    assert list(tmp.iterdir()) == []  # no policytool-lock-* left behind


def test_progress_is_reported_on_stderr(repo: Repo, run: Run, wheelhouse: Wheelhouse) -> None:
    setup_simple(repo, wheelhouse.path)
    result = run("lock")
    assert "policytool: lock 'test' (1/1): resolving with uv" in result.err
    quiet = run("lock", "--upgrade", "-q")
    assert quiet.err == ""


def test_uv_comes_with_policytool_and_pip_tools_is_an_extra() -> None:
    from policytool.formats import toml

    root = Path(__file__).resolve().parent.parent
    project = toml.loads((root / "pyproject.toml").read_text(), "pyproject.toml")["project"]
    assert isinstance(project, dict)
    names = [dep.split(">")[0].split("=")[0].strip() for dep in project["dependencies"]]
    assert "uv" in names
    assert any(d.startswith("pip-tools") for d in project["optional-dependencies"]["pip-tools"])
    from policytool.lock.backends import find_executable

    assert Path(find_executable("uv")).parent == Path(sys.executable).parent


def test_index_options_uv_honours_in_constraint_files_are_kept_and_others_not(
    repo: Repo, run: Run, tmp_path: Path
) -> None:
    main = build_simple_index(tmp_path / "main", {"beta": {"1.0": ()}})
    extra = build_simple_index(tmp_path / "extra", {"alpha": {"3.0": ()}})
    ignored = build_simple_index(tmp_path / "ignored", {"gamma": {"1.0": ()}})
    # vLLM's requirements/xpu.txt: a constraint file naming an extra index.
    repo.write("requirements/xpu.txt", f"--extra-index-url {extra}\n")
    repo.write("requirements/other.txt", f"--extra-index-url {ignored}\n")
    repo.write("requirements/test.in", "-c other.txt\nalpha\n")
    repo.write(
        "pyproject.toml",
        "[tool.policytool]\n\n[[tool.policytool.lock]]\n"
        'name = "test"\ninputs = ["requirements/test.in"]\noutput = "requirements/test.txt"\n'
        f'index-url = "{main}"\nconstraints = ["requirements/xpu.txt"]\n'
        "exclude-newer = false\n",
    )
    result = run("lock")
    assert result.code == 0, result.err
    body = repo.read("requirements/test.txt").decode().split("# body: ", 1)[1].split("\n", 1)[1]
    # uv used xpu.txt's index (alpha 3.0 is only there) and ignored the one of a file
    # the input includes with -c; the lock records exactly what uv used, never the
    # config's index-url.
    assert body.startswith(f"--extra-index-url {extra}\nalpha==3.0\n")
    assert ignored not in body
    assert main not in body
    assert run("lock", "--check").code == 0


@pytest.mark.parametrize(
    "extra",
    ['torch-backend = "cpu"', 'index-strategy = "first-index"', 'resolution = "lowest"'],
)
def test_uv_only_options_are_refused_for_pip_tools(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, extra: str
) -> None:
    setup_simple(repo, wheelhouse.path, backend="pip-tools", extra=extra)
    result = run("lock")
    assert result.code == 2
    key = extra.split(" ", 1)[0]
    assert f"lock 'test': {key} is a uv option; pip-tools cannot honour it" in result.err
    assert not (repo.root / "requirements/test.txt").exists()


def test_a_long_resolution_reports_progress(
    repo: Repo,
    run: Run,
    wheelhouse: Wheelhouse,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from policytool.lock import backends

    real = Path(sys.executable).parent / "uv"
    slow = tmp_path / "slow-uv"
    slow.write_text(f'#!/bin/sh\nsleep 1\nexec {real} "$@"\n')
    slow.chmod(0o755)
    monkeypatch.setenv("POLICYTOOL_UV", str(slow))
    monkeypatch.setattr(backends, "HEARTBEAT_SECONDS", 0.2)
    setup_simple(repo, wheelhouse.path)
    result = run("lock")
    assert result.code == 0, result.err
    assert "policytool: lock 'test': uv still resolving (" in result.err


def test_sigterm_during_bump_restores_inputs_and_locks(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, tmp_path: Path
) -> None:
    repo.write("requirements/common.in", "alpha==1.0\n")
    repo.write("requirements/test.in", "delta\n")
    repo.write(
        "pyproject.toml",
        "[tool.policytool]\n\n"
        + lock_table(
            "common", ["requirements/common.in"], "requirements/common.txt", wheelhouse.path
        )
        + lock_table(
            "test",
            ["requirements/test.in"],
            "requirements/test.txt",
            wheelhouse.path,
            extra='constraints = ["common"]',
        ),
    )
    assert run("lock").code == 0
    files = ["requirements/common.in", "requirements/common.txt", "requirements/test.txt"]
    before = {path: repo.read(path) for path in files}
    real = Path(sys.executable).parent / "uv"
    slow = tmp_path / "slow-uv"
    slow.write_text(
        f'#!/bin/sh\ncase "$*" in *requirements/test.in*) exec sleep 60;; esac\nexec {real} "$@"\n'
    )
    slow.chmod(0o755)
    proc = subprocess.Popen(
        [sys.executable, "-m", "policytool", "bump", "alpha==1.1", "--offline"],
        cwd=repo.root,
        env={**os.environ, "POLICYTOOL_UV": str(slow)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while repo.read("requirements/common.txt") == before["requirements/common.txt"]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 2, err
    assert "terminated (SIGTERM)" in err
    assert {path: repo.read(path) for path in files} == before
