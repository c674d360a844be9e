# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The ``.pre-commit-config.yaml`` model and the adapter to pre-commit's own schema (cfgv).

:func:`load_model` parses the file round-trip (positions, anchors, merge keys kept) and
builds a :class:`Model` of its hooks; :func:`schema_problem` asks pre-commit's schema
(``pre_commit.clientlib.CONFIG_SCHEMA`` through cfgv, imported lazily) whether pre-commit
would accept it. No policy here: the ``precommit-*`` rules (``policytool.rules.precommit_*``)
decide what a finding is. An unusable file raises :class:`~policytool.errors.FileProblem`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import select
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from policytool.core.forking import single_threaded
from policytool.core.memo import RunMemo
from policytool.core.text import parse_json
from policytool.errors import FileProblem
from policytool.formats.yamldoc import (
    YamlDoc,
    anchor_name,
    item_line,
    key_line,
    load,
    load_present,
    own_keys,
)

LOCAL_REPOS = ("local", "meta")
# pre-commit's legacy stage names -> current ones (clientlib.transform_stage).
STAGE_ALIASES = {"commit": "pre-commit", "merge-commit": "pre-merge-commit", "push": "pre-push"}
MANUAL = "manual"
DEFAULT_STAGE = "pre-commit"
# Keys prek (a drop-in pre-commit) adds; pre-commit ignores them, prek users write them.
PREK_ROOT_KEYS = frozenset({"minimum_prek_version", "orphan"})
PREK_HOOK_KEYS = frozenset({"priority", "env", "shell", "groups", "include_deleted"})


def normalize_stage(stage: str) -> str:
    """Current name of a pre-commit stage."""
    return STAGE_ALIASES.get(stage, stage)


def normalize_url(url: str) -> str:
    """A repo URL without scheme, ``.git`` suffix, trailing slash and host case."""
    text = url.strip().rstrip("/")
    text = re.sub(r"^[a-z+]+://", "", text)
    text = re.sub(r"^git@([^:]+):", r"\1/", text)
    text = text.removesuffix(".git")
    host, _, rest = text.partition("/")
    return f"{host.lower()}/{rest}" if rest else host.lower()


@dataclass(frozen=True)
class Hook:
    """One hook entry of the config, with merge keys resolved."""

    id: str
    repo: str
    repo_index: int
    index: int
    line: int
    node: dict[str, object]
    stages: tuple[str, ...] | None  # explicit ``stages``, normalized; None when absent

    def field(self, key: str) -> object:
        """A key of the hook (own or merged in)."""
        return self.node.get(key)

    def text(self, key: str) -> str:
        """A string key of the hook, or "" when absent or not a string."""
        value = self.node.get(key)
        return value if isinstance(value, str) else ""

    def text_list(self, key: str) -> list[str]:
        """A list key (``args``, ``additional_dependencies``): its scalars as text, or []."""
        value = self.node.get(key)
        if not isinstance(value, list):
            return []
        return [str(v) for v in value if isinstance(v, (str, int, float))]

    def entry_script(self) -> str | None:
        """The repo-relative script a local hook runs, if its entry names one.

        ``language: script`` runs its entry's first word from the repo root; other local
        hooks run a program, which is a repo script when written as a path
        (``tools/png-lint.sh``) or given to an interpreter (``python tools/check.py``).
        Commands built at run time (``$VAR``, ``bash -c '...'``) name none.
        """
        if self.repo != "local":
            return None
        import shlex

        try:
            words = shlex.split(self.text("entry"))
        except ValueError:
            return None
        if not words:
            return None
        first = words[0]
        if self.text("language") in ("script", "unsupported_script"):
            candidate = first
        elif "/" in first:
            candidate = first
        elif _interpreter(first.rsplit("/", 1)[-1]) and len(words) > 1:
            candidate = words[1]
            if candidate.startswith("-") or not re.search(r"\.(py|sh|bash|js|pl|rb)$", candidate):
                return None
        else:
            return None
        if candidate.startswith(("/", "~")) or any(c in candidate for c in "$`{}*?"):
            return None
        return candidate.removeprefix("./")

    def effective_stages(self, default: tuple[str, ...] | None) -> tuple[str, ...] | None:
        """The stages it runs at; None means every stage."""
        return self.stages if self.stages is not None else default


@dataclass(frozen=True)
class Model:
    """A parsed ``.pre-commit-config.yaml`` whose structure the rules can walk."""

    doc: YamlDoc
    hooks: tuple[Hook, ...]
    default_stages: tuple[str, ...] | None

    @property
    def relpath(self) -> str:
        """Repo-relative path of the config file."""
        return self.doc.relpath

    @property
    def data(self) -> dict[str, object]:
        """The top-level mapping (round-trip node)."""
        assert isinstance(self.doc.data, dict)
        return self.doc.data

    @property
    def repos(self) -> list[object]:
        """The ``repos`` sequence (round-trip node)."""
        repos = self.data["repos"]
        assert isinstance(repos, list)
        return repos

    @property
    def repos_line(self) -> int:
        """Line of the ``repos:`` key."""
        return key_line(self.doc.data, "repos")

    def find(self, hook_id: str) -> list[Hook]:
        """Every hook entry with this id."""
        return [h for h in self.hooks if h.id == hook_id]

    def ids(self) -> set[str]:
        """Every hook id in the config."""
        return {h.id for h in self.hooks}

    def stages_of(self, hook: Hook) -> tuple[str, ...] | None:
        """Stages ``hook`` runs at (None: all)."""
        return hook.effective_stages(self.default_stages)

    @property
    def uses_precommit_ci(self) -> bool:
        """Whether the config has a ``ci:`` section (pre-commit.ci's settings)."""
        return isinstance(self.data.get("ci"), dict)

    def ci_skip(self) -> list[tuple[str, int]]:
        """(hook id, line) of every id in pre-commit.ci's ``ci: skip:`` list."""
        ci = self.data.get("ci")
        skip = ci.get("skip") if isinstance(ci, dict) else None
        if not isinstance(skip, list):
            return []
        return [(v, item_line(skip, i)) for i, v in enumerate(skip) if isinstance(v, str)]

    def manual_hooks(self) -> list[Hook]:
        """Hooks that run at the manual stage but not on commit."""
        out = []
        for hook in self.hooks:
            stages = self.stages_of(hook)
            if stages is not None and MANUAL in stages and DEFAULT_STAGE not in stages:
                out.append(hook)
        return out


def _stages(value: object) -> tuple[str, ...] | None:
    if isinstance(value, list):
        return tuple(normalize_stage(v) for v in value if isinstance(v, str))
    return None


def build_model(doc: YamlDoc) -> Model:
    """The hooks of a parsed config; :class:`FileProblem` when its structure is wrong."""
    data = doc.data
    if not isinstance(data, dict):
        raise FileProblem(doc.relpath, 1, "the config must be a YAML mapping with a `repos:` list")
    repos = data.get("repos")
    if not isinstance(repos, list):
        raise FileProblem(
            doc.relpath, key_line(data, "repos"), "`repos:` must be a list of repositories"
        )
    hooks: list[Hook] = []
    for ri, repo in enumerate(repos):
        if not isinstance(repo, dict):
            raise FileProblem(doc.relpath, item_line(repos, ri), "each repo must be a mapping")
        url = repo.get("repo", "")
        if not isinstance(url, str):
            raise FileProblem(
                doc.relpath,
                key_line(repo, "repo", item_line(repos, ri)),
                "`repo:` must be a string",
            )
        repo_hooks = repo.get("hooks")
        if not isinstance(repo_hooks, list):
            raise FileProblem(
                doc.relpath, key_line(repo, "hooks"), f"repo {url}: `hooks:` must be a list"
            )
        for hi, hook in enumerate(repo_hooks):
            hook_id = hook.get("id") if isinstance(hook, dict) else None
            if not isinstance(hook, dict) or not isinstance(hook_id, str):
                raise FileProblem(
                    doc.relpath,
                    item_line(repo_hooks, hi),
                    "each hook must be a mapping with a string `id`",
                )
            hooks.append(
                Hook(
                    hook_id,
                    url,
                    ri,
                    hi,
                    item_line(repo_hooks, hi),
                    hook,
                    _stages(hook.get("stages")),
                )
            )
    return Model(doc, tuple(hooks), _stages(data.get("default_stages")))


# --- pre-commit's own schema -----------------------------------------------------------


def _walk(data: object, contexts: Sequence[str]) -> list[str]:
    """Follow cfgv's error contexts (``At key: x``, ``At Hook(id='y')``) into ``data``."""
    path: list[str] = []
    node = data
    for ctx in contexts:
        key = re.fullmatch(r"At key: (.+)", ctx)
        obj = re.fullmatch(r"At \w+\((\w+)=(.*)\)", ctx)
        if key and isinstance(node, dict) and key.group(1) in node:
            path.append(key.group(1))
            node = node[key.group(1)]
        elif obj and isinstance(node, list):
            wanted = obj.group(2)
            for index, item in enumerate(node):
                value = item.get(obj.group(1)) if isinstance(item, dict) else None
                if isinstance(value, str) and repr(value) in (wanted, repr(wanted)):
                    path.append(str(index))
                    node = item
                    break
            else:
                break
    return path


def _line_of_path(data: object, path: Sequence[str]) -> int:
    node = data
    line = 1
    for part in path:
        if isinstance(node, dict):
            line = key_line(node, part, line)
            node = node[part]
        elif isinstance(node, list):
            line = item_line(node, int(part))
            node = node[int(part)]
    return line


def pre_commit_importable() -> bool:
    """Whether pre-commit (whose schema the config is validated with) can be imported."""
    import importlib.util

    try:
        return importlib.util.find_spec("pre_commit.clientlib") is not None
    except ImportError:  # the parent package is missing or broken
        return False


Verdict = tuple[int, str] | None
# The keys pre-commit knows at the top level, in a repo and in a hook.
KnownKeys = tuple[frozenset[str], frozenset[str], frozenset[str]]
_PREFETCH_KEY = ("precommit.schema.prefetch",)
# A verdict is a line number and one sentence; anything longer is not one.
_MAX_VERDICT_BYTES = 64 * 1024
# The child answers in a fraction of a second; one stopped or stuck (a signal, a machine
# out of memory) is killed after this long, and the verdict is computed here instead.
PREFETCH_SECONDS = 5.0


@dataclass
class _Prefetch:
    """A child process computing :func:`schema_problem` for the config, and its answer."""

    pid: int
    read_fd: int
    answer: dict[str, object] | None = field(default=None)
    collected: bool = False

    def verdict_for(self, text: str) -> tuple[bool, Verdict]:
        """(True, verdict) when the child validated exactly ``text``; else (False, None)."""
        answer = self._answer()
        if answer is None or answer.get("sha256") != _digest(text):
            return False, None
        verdict = answer.get("verdict")
        if verdict is None:
            return True, None
        if (
            isinstance(verdict, list)
            and len(verdict) == 2
            and isinstance(verdict[0], int)
            and isinstance(verdict[1], str)
        ):
            return True, (verdict[0], verdict[1])
        return False, None

    def known_keys(self) -> KnownKeys | None:
        """The keys pre-commit knows (top level, repo, hook), as the child read them."""
        answer = self._answer()
        known = answer.get("known") if answer is not None else None
        if (
            isinstance(known, list)
            and len(known) == 3
            and all(isinstance(part, list) for part in known)
            and all(isinstance(key, str) for part in known for key in part)
        ):
            return (frozenset(known[0]), frozenset(known[1]), frozenset(known[2]))
        return None

    def _answer(self) -> dict[str, object] | None:
        """The child's answer, read (and the child reaped) the first time it is asked for."""
        if not self.collected:
            self.collected = True
            self.answer = self._collect()
        return self.answer

    def _collect(self) -> dict[str, object] | None:
        """Read the child's answer and reap it; None when it failed in any way."""
        chunks: list[bytes] = []
        size = 0
        deadline = time.monotonic() + PREFETCH_SECONDS
        waiting = select.poll()
        waiting.register(self.read_fd, select.POLLIN)
        try:
            while size <= _MAX_VERDICT_BYTES:
                left = deadline - time.monotonic()
                if left <= 0 or not waiting.poll(left * 1000):
                    _kill(self.pid)  # stopped or stuck: the verdict is computed here
                    return None
                chunk = os.read(self.read_fd, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        except OSError:
            return None
        finally:
            os.close(self.read_fd)
        try:
            _pid, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return None
        if status != 0 or size > _MAX_VERDICT_BYTES:
            return None
        try:
            answer = parse_json(b"".join(chunks))
        except ValueError:
            return None
        return answer if isinstance(answer, dict) else None


def _kill(pid: int) -> None:
    """SIGKILL the child ``pid`` (a stopped one too) and reap it."""
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        return  # already gone


def _digest(text: str) -> str:
    """What identifies the text a verdict is about."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def prefetch_schema(root: Path, file: str, memo: RunMemo) -> None:
    """Start pre-commit's verdict on the config in a forked child (Linux, two free cores).

    Importing pre-commit's schema (``pre_commit.clientlib`` pulls in every language
    module and ``importlib.metadata``) is 60 ms of a 0.3 s ``policytool-repo`` call. The
    child pays it on the other core while this process imports the rules and parses the
    YAML; :func:`schema_problem` then takes the child's answer for the same text. The
    answer is only a shortcut: if the child fails, is slow to start or read another text,
    the verdict is computed here, so the findings never depend on it.
    """
    if sys.platform != "linux" or len(os.sched_getaffinity(0)) < 2 or not single_threaded():
        return  # a fork with other threads alive could deadlock: the run computes it
    if not (root / file).is_file() or not pre_commit_importable():
        return
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, write, and leave without running the parent's code
        code = 1
        try:
            os.close(read_fd)
            doc = load(root, file, last_wins=True)
            known = _known_keys()
            answer = {
                "sha256": _digest(doc.text),
                "verdict": schema_problem(doc),
                "known": [sorted(part) for part in known] if known is not None else None,
            }
            data = json.dumps(answer).encode("utf-8")
            while data:
                data = data[os.write(write_fd, data) :]
            code = 0
        finally:
            os._exit(code)  # no cleanup handlers, no flush of the parent's buffers
    os.close(write_fd)
    memo.value(_PREFETCH_KEY, lambda: _Prefetch(pid, read_fd))


def end_prefetch(memo: RunMemo) -> None:
    """Reap the child :func:`prefetch_schema` started when no rule asked for its answer.

    Nothing waits for that answer any more, so the child is killed rather than waited
    for; either way no process or pipe outlives the run.
    """
    prefetch = memo.value(_PREFETCH_KEY, lambda: None)
    if not isinstance(prefetch, _Prefetch) or prefetch.collected:
        return
    prefetch.collected = True
    os.close(prefetch.read_fd)
    _kill(prefetch.pid)


def schema_problem(doc: YamlDoc, memo: RunMemo | None = None) -> Verdict:
    """(line, message) when pre-commit's schema rejects the config; None when accepted.

    Also None when pre-commit is not importable (the check is then skipped). With the
    run's ``memo`` a text is validated once a run (by the child :func:`prefetch_schema`
    started, when it validated this text).
    """
    if memo is not None:

        def build() -> Verdict:
            prefetch = memo.value(_PREFETCH_KEY, lambda: None)
            if isinstance(prefetch, _Prefetch):
                known, verdict = prefetch.verdict_for(doc.text)
                if known:
                    return verdict
            return schema_problem(doc)

        return memo.value(("precommit.schema", doc.text), build)
    try:
        import cfgv  # type: ignore[import-untyped,unused-ignore]
        import yaml  # type: ignore[import-untyped,unused-ignore]
        from pre_commit.clientlib import (  # type: ignore[import-untyped,unused-ignore]
            CONFIG_SCHEMA,
        )
        from pre_commit.yaml import yaml_load  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        return None
    result: tuple[int, str] | None = None
    try:
        loaded = yaml_load(doc.text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        result = (
            line,
            f"pre-commit cannot read it as YAML: {getattr(exc, 'problem', None) or exc}",
        )
    else:
        logger = logging.getLogger("pre_commit")
        previous = logger.disabled
        logger.disabled = True  # its warnings (unknown keys, mutable revs) are not rejections
        try:
            cfgv.validate(loaded, CONFIG_SCHEMA)
        except cfgv.ValidationError as exc:
            contexts: list[str] = []
            err: object = exc
            while isinstance(err, cfgv.ValidationError) and err.ctx is not None:
                contexts.append(str(err.ctx))
                err = err.error_msg
            message = err.error_msg if isinstance(err, cfgv.ValidationError) else str(err)
            path = _walk(doc.data, contexts)
            where = ".".join(path)
            line = _line_of_path(doc.data, path)
            result = (
                line,
                f"pre-commit rejects this config: {message}" + (f" (at {where})" if where else ""),
            )
        finally:
            logger.disabled = previous
    return result


def load_model(
    root: Path, relpath: str, validate: bool = True, memo: RunMemo | None = None
) -> Model | None:
    """The config's model; None when the file is absent; :class:`FileProblem` when unusable."""
    doc = load_present(root, relpath, last_wins=True)
    if doc is None:
        return None
    model = build_model(doc)
    if validate:
        problem = schema_problem(doc, memo)
        if problem is not None:
            raise FileProblem(relpath, problem[0], problem[1])
    return model


def usable_model(root: Path, file: str, memo: RunMemo) -> Model | None:
    """The model of ``root/file`` for rules that need a valid config; None if absent or
    invalid."""
    try:
        return load_model(root, file, memo=memo)
    except FileProblem:
        return None


# --- what pre-commit only warns about ---------------------------------------------------


@dataclass(frozen=True)
class SchemaWarning:
    """Something pre-commit accepts but warns about (and then ignores or will drop)."""

    line: int
    message: str
    deprecated: bool = False  # a legacy name that still works, rather than an ignored key


def _known_keys(memo: RunMemo | None = None) -> KnownKeys | None:
    """The keys pre-commit knows at the top level, in a repo and in a hook.

    With the run's ``memo``, from the child :func:`prefetch_schema` started, if any.
    """
    if memo is not None:
        prefetch = memo.value(_PREFETCH_KEY, lambda: None)
        if isinstance(prefetch, _Prefetch):
            known = prefetch.known_keys()
            if known is not None:
                return known
        return memo.value(("precommit.known-keys",), _known_keys)
    try:
        import cfgv  # type: ignore[import-untyped,unused-ignore]
        from pre_commit.clientlib import (  # type: ignore[import-untyped,unused-ignore]
            CONFIG_REPO_DICT,
            CONFIG_SCHEMA,
        )
        from pre_commit.hook import Hook as PreCommitHook  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        return None

    def warned(schema: object) -> frozenset[str]:
        for item in getattr(schema, "items", ()):
            if isinstance(item, cfgv.WarnAdditionalKeys):
                return frozenset(item.keys)
        return frozenset()

    hook_keys = frozenset(PreCommitHook._fields) - {"src", "prefix"}
    return (
        warned(CONFIG_SCHEMA) | PREK_ROOT_KEYS,
        warned(CONFIG_REPO_DICT),
        hook_keys | PREK_HOOK_KEYS,
    )


def _unknown(keys: Sequence[str], known: frozenset[str]) -> list[tuple[str, str]]:
    """(unknown key, hint) pairs; the hint names the nearest known key."""
    import difflib

    out = []
    for key in keys:
        if key in known:
            continue
        close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
        out.append((key, f"; did you mean `{close[0]}`?" if close else ""))
    return out


def _anchored(value: object) -> bool:
    """Whether a value carries a YAML anchor (a top-level key kept to hold one)."""
    return anchor_name(value) is not None


def schema_warnings(model: Model, memo: RunMemo | None = None) -> list[SchemaWarning]:
    """What pre-commit would warn about: unknown keys (top, repo, hook), legacy stage names.

    pre-commit logs these and goes on, so a typo (``defualt_stages``, ``stagess``) silently
    does nothing. A top-level key holding an anchor (``x-common: &common``) is the usual
    way to share settings and is not reported. Empty when pre-commit is not importable.
    """
    known = _known_keys(memo)
    if known is None:
        return []
    root_keys, repo_keys, hook_keys = known
    data = model.data
    out: list[SchemaWarning] = []
    for key, hint in _unknown(own_keys(data), root_keys):
        if not _anchored(data.get(key)):
            out.append(
                SchemaWarning(
                    key_line(data, key),
                    f"unknown top-level key `{key}`: pre-commit ignores it{hint}",
                )
            )
    for ri, repo in enumerate(model.repos):
        assert isinstance(repo, dict)
        for key, hint in _unknown(own_keys(repo), repo_keys):
            out.append(
                SchemaWarning(
                    key_line(repo, key, item_line(model.repos, ri)),
                    f"unknown key `{key}` in repo {repo.get('repo')}: pre-commit ignores it{hint}",
                )
            )
    for hook in model.hooks:
        keys = [str(k) for k in hook.node if isinstance(k, str)]
        for key, hint in _unknown(keys, hook_keys):
            out.append(
                SchemaWarning(
                    key_line(hook.node, key, hook.line),
                    f"unknown key `{key}` in hook '{hook.id}': pre-commit ignores it{hint}",
                )
            )
    holders: list[tuple[object, str, str]] = [(data, "default_stages", "`default_stages`")]
    holders += [(h.node, "stages", f"hook '{h.id}'") for h in model.hooks]
    for holder, key, what in holders:
        value = holder.get(key) if isinstance(holder, dict) else None
        if not isinstance(value, list):
            continue
        legacy = [v for v in value if isinstance(v, str) and v in STAGE_ALIASES]
        if legacy:
            names = ", ".join(f"`{v}` (now `{STAGE_ALIASES[v]}`)" for v in legacy)
            out.append(
                SchemaWarning(
                    key_line(holder, key),
                    f"{what} uses deprecated stage names {names}; "
                    "`pre-commit migrate-config` rewrites them",
                    deprecated=True,
                )
            )
    return sorted(out, key=lambda w: w.line)


def _interpreter(program: str) -> bool:
    """Whether ``program`` runs the script named by its first argument (``python``,
    ``bash``, ``node``: :mod:`policytool.formats.shell`'s table)."""
    from policytool.formats.shell import INTERPRETERS, PYTHON_RE

    return program in INTERPRETERS or PYTHON_RE.fullmatch(program) is not None
