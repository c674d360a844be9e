# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Fetch the vLLM source release the benchmarks run on (or another project's, such as
vllm-omni's, for the release diffs), once, into ``bench/.cache``.

``pip download --no-deps --no-binary :all: vllm==VERSION`` (pip's configuration and
``PIP_*`` switched off) fetches and unpacks the sdist, then tries to build its metadata,
which needs vLLM's build dependencies (a CUDA torch that has no sdist) and fails on a
plain machine. With ``--no-clean`` pip keeps the unpacked tree, which is all the
benchmarks need; it is moved to ``bench/.cache/vllm-VERSION``. Nothing here is
committed: ``bench/.cache`` is ignored by git.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VERSION = "0.33.0"
CACHE = Path(__file__).resolve().parent / ".cache"
# Unpacked source releases shared on the bench machine (``/work/trees/fetch.sh``).
TREES = Path(os.environ.get("POLICYTOOL_TREES", "/work/trees"))


def vllm_tree(version: str = VERSION) -> Path:
    """The extracted ``vllm-VERSION`` source tree, downloading it on first use."""
    return source_tree("vllm", version)


def source_tree(project: str, version: str) -> Path:
    """The extracted ``PROJECT-VERSION`` source release, downloading it on first use.

    ``pip download`` of the sdist fetches and unpacks it, then tries to prepare its
    metadata, which needs the project's build requirements (vLLM's torch==X has no sdist)
    and may fail. ``--no-clean`` keeps the unpacked tree, which is all the benchmarks need.
    """
    shared = TREES / f"{project}-{version}"
    if (shared / "pyproject.toml").is_file():
        return shared  # the team's unpacked copy (read only: benches copy it first)
    target = CACHE / f"{project}-{version}"
    if (target / "pyproject.toml").is_file():
        return target
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=CACHE, prefix="pip-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    env["TMPDIR"] = str(tmp)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--no-binary",
            ":all:",
            "--no-clean",
            f"{project}=={version}",
            "-d",
            str(tmp / "out"),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    archives = list((tmp / "out").glob("*.tar.gz"))
    if archives:
        with tarfile.open(archives[0]) as tar:
            tar.extractall(tmp / "x", filter="data")
        unpacked = next((tmp / "x").iterdir())
    else:
        found = [p.parent for p in tmp.glob("pip-*/*/pyproject.toml")]
        if not found:
            sys.exit(f"pip download of {project}=={version} failed:\n{proc.stdout}{proc.stderr}")
        unpacked = found[0]
    unpacked.rename(target)
    shutil.rmtree(tmp, ignore_errors=True)
    return target


def git_work_tree(name: str, config: str, config_name: str = "policytool-bench.toml") -> Path:
    """A committed git copy of the vLLM tree at ``.cache/NAME`` with ``config`` written in.

    The copy is made once; benchmarks that run tools which may edit files use it so the
    extracted release stays pristine.
    """
    work = CACHE / name
    if not (work / ".git").is_dir():
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(vllm_tree(), work)
        subprocess.run(["git", "init", "-q"], cwd=work, check=True)
        subprocess.run(["git", "add", "-A"], cwd=work, check=True)
        subprocess.run(
            ["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "vllm"],
            cwd=work,
            check=True,
        )
    (work / config_name).write_text(config)
    return work


if __name__ == "__main__":
    print(vllm_tree())
