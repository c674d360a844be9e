# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The command line: parse, call, render, exit code. Nothing else lives here.

Exit codes: 0 clean, 1 findings (or files changed by ``fix``), 2 usage, config or
environment error (one sentence on stderr, never a traceback).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import click

from policytool.config import Config, load_config
from policytool.engine.crash import debugging
from policytool.engine.findings import (
    FORMATS,
    Finding,
    Severity,
    count,
    escape_controls,
    render,
    render_text,
    sort_findings,
)
from policytool.errors import PolicyError

if TYPE_CHECKING:
    from policytool.engine.baseline import Adoption
    from policytool.engine.run import CheckRun

P = ParamSpec("P")
R = TypeVar("R")

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


@dataclass(frozen=True)
class Options:
    """The options every command shares."""

    config_path: Path | None
    fmt: str
    only: tuple[str, ...]
    skip: tuple[str, ...]
    quiet: bool
    verbose: bool = False

    def load(self) -> Config:
        """The configuration these options point at."""
        return load_config(self.config_path)


def _split_ids(values: Sequence[str]) -> tuple[str, ...]:
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


config_option = click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="pyproject.toml to read [tool.policytool] from (default: nearest upward).",
)


def common_options(func: Callable[..., R]) -> Callable[..., R]:
    """Add --config, --format, --only, --skip and -q to a command."""
    func = click.option(
        "-q", "--quiet", is_flag=True, help="Print findings only, no summary or progress."
    )(func)
    func = click.option(
        "--skip",
        "skip",
        multiple=True,
        metavar="RULE[,RULE]",
        help="Rules (or groups: source, lock, repo, ci, sweep) to leave out.",
    )(func)
    func = click.option(
        "--only",
        "only",
        multiple=True,
        metavar="RULE[,RULE]",
        help="Run only these rules (or groups: source, lock, repo, ci, sweep).",
    )(func)
    func = click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default="text",
        show_default=True,
        help="Output format.",
    )(func)
    return config_option(func)


def missing_dependency(exc: ModuleNotFoundError) -> str | None:
    """The sentence for a dependency missing from this Python, or None for our own bug.

    Rule modules import their libraries (ruamel.yaml, tomlkit, packaging) lazily, so a
    broken install shows up mid-run; it is an environment error (exit 2), not a crash.
    """
    name = (exc.name or "").split(".")[0]
    if not name or name == "policytool":
        return None
    return (
        f"the dependency '{name}' is not installed for {sys.executable}; "
        "install policytool with pip so its dependencies come along "
        "(python -m pip install policytool)"
    )


def handle_errors(func: Callable[P, int]) -> Callable[P, int]:
    """Turn PolicyError and a missing dependency into one line on stderr and exit 2."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> int:
        try:
            return func(*args, **kwargs)
        except PolicyError as exc:
            # Line by line: a resolver's own explanation keeps its lines; control
            # characters inside each line are still escaped.
            shown = "\n".join(escape_controls(line) for line in str(exc).split("\n"))
            click.echo(f"policytool: error: {shown}", err=True)
            return EXIT_ERROR
        except ModuleNotFoundError as exc:
            message = missing_dependency(exc)
            if message is None:
                raise
            click.echo(f"policytool: error: {message}", err=True)
            return EXIT_ERROR

    return wrapper


# A run shorter than this shows no progress line (a 15-file hook call takes 0.4 s).
PROGRESS_DELAY = 1.0


def progress_printer(
    quiet: bool,
    delay: float | None = None,
    clock: Callable[[], float] | None = None,
) -> Callable[[int, int], None] | None:
    """A ``\\r``-updated progress line on a terminal once the run has taken ``delay``
    seconds (:data:`PROGRESS_DELAY`), nothing before (nor off a terminal or with ``-q``)."""
    wait = PROGRESS_DELAY if delay is None else delay
    if quiet or not sys.stderr.isatty():
        return None
    import time

    now = clock or time.monotonic
    start = now()
    shown = False

    def show(done: int, total: int) -> None:
        nonlocal shown
        if not shown and now() - start < wait:
            return
        if done >= total:
            if shown:
                click.echo("\r\033[K", err=True, nl=False)
            return
        shown = True
        click.echo(f"\rpolicytool: {done}/{total} files", err=True, nl=False)

    return show


def emit(
    findings: Sequence[Finding],
    opts: Options,
    files_checked: int | None,
    accepted: Sequence[Finding] = (),
    accepted_by: str = "",
) -> int:
    """Print findings (and the count or marks of the ``accepted`` ones) in the chosen
    format; return the exit code the findings mean."""
    ordered = sort_findings(findings)
    # Under pre-commit (which sets PRE_COMMIT=1 for its hooks) a hook call prints its
    # findings only: pre-commit splits the files into batches, one call each, and a
    # summary per batch ("no findings in 4 files") would open a failing hook's output.
    quiet = opts.quiet or os.environ.get("PRE_COMMIT") == "1"
    help_text: dict[str, str] = {}
    rule_docs: dict[str, str] = {}
    if opts.fmt == "sarif":  # only SARIF carries help texts: the others load no rule module
        from policytool.engine.registry import rule_infos

        help_text = {r.id: r.summary for r in rule_infos().values()}
        rule_docs = {r.id: r.doc for r in rule_infos().values() if r.doc}
    out = render(
        ordered,
        opts.fmt,
        help_text,
        files_checked,
        quiet,
        sort_findings(accepted),
        accepted_by,
        rule_docs,
    )
    if out:
        click.echo(out, nl=False)
    return EXIT_FINDINGS if any(f.severity is Severity.ERROR for f in ordered) else EXIT_CLEAN


# The order of the design's command table, for --help.
COMMAND_ORDER = ("lock", "bump", "check", "fix", "sweep", "sync", "baseline", "rules", "init")


def _run(
    opts: Options,
    paths: Sequence[str],
    *,
    fix: bool,
    online: bool = False,
    accepted: bool = True,
    baseline_from: str | None = None,
) -> CheckRun:
    """:func:`policytool.engine.run.run_check` with the command line's options."""
    import time

    from policytool.engine.run import run_check

    start = time.monotonic()
    config = opts.load()
    result = run_check(
        config,
        paths,
        opts.only,
        opts.skip,
        fix=fix,
        online=online,
        accepted=accepted,
        baseline_from=baseline_from,
        progress=progress_printer(opts.quiet),
    )
    if opts.verbose:
        source = escape_controls(str(config.source)) if config.source else "none (defaults)"
        files = "some" if result.files_checked is None else str(result.files_checked)
        click.echo(
            f"policytool: config {source}; files checked: {files}; findings: "
            f"{len(result.findings)}; accepted by the baseline: {len(result.accepted)}; "
            f"{time.monotonic() - start:.2f} s",
            err=True,
        )
    return result


class _Group(click.Group):
    """List commands in the design's order in --help."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        known = [name for name in COMMAND_ORDER if name in self.commands]
        return known + sorted(set(self.commands) - set(known))


class PathsCommand(click.Command):
    """A command taking file names (``check``, ``fix``): a file name is never an option.

    pre-commit runs ``entry + args + filenames``, and a pull request can add a file named
    ``--config=empty.py``. Before click parses, an argument starting with ``-`` that
    names an existing path (relative to the working directory) is a file name: when it
    also spells one of the command's options it is ambiguous (one sentence, exit 2, so
    nothing is hidden); otherwise it goes after ``--``, as a path.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """``args`` with file names that look like options moved after ``--``."""
        return super().parse_args(ctx, self._file_names_as_paths(ctx, args))

    def _option_names(self, ctx: click.Context) -> tuple[set[str], set[str]]:
        """(every option name, the names of options that take a value)."""
        names: set[str] = set(self.get_help_option_names(ctx))
        valued: set[str] = set()
        for param in self.get_params(ctx):
            if isinstance(param, click.Option):
                spelled = {*param.opts, *param.secondary_opts}
                names |= spelled
                if not param.is_flag and not param.count:
                    valued |= spelled
        return names, valued

    def _file_names_as_paths(self, ctx: click.Context, args: list[str]) -> list[str]:
        names, valued = self._option_names(ctx)
        shorts = {name[1] for name in names if len(name) == 2 and name[1] != "-"}
        end = args.index("--") if "--" in args else len(args)
        kept: list[str] = []
        moved: list[str] = []
        value_next = False
        for arg in args[:end]:
            if value_next:  # the value of the option before it, whatever it looks like
                kept.append(arg)
                value_next = False
                continue
            looks = arg.startswith("-") and arg != "-"
            if looks and os.path.lexists(arg):
                head = arg.split("=", 1)[0]
                if head in names or (not arg.startswith("--") and arg[1] in shorts):
                    click.echo(
                        f"policytool: error: `{escape_controls(arg)}` is both an option and "
                        "a file name; rename the file",
                        err=True,
                    )
                    ctx.exit(EXIT_ERROR)
                moved.append(arg)
                continue
            value_next = arg in valued
            kept.append(arg)
        if not moved:
            return args
        return [*kept, "--", *moved, *args[end + 1 :]]


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="policytool", prog_name="policytool")
def cli() -> None:
    """Keep a large Python repository reproducible and policy-clean.

    \b
    Examples:
      policytool lock                   # compile the configured requirement locks
      policytool lock --check           # offline: are the locks current?
      policytool bump torch==2.5.1 --why "CUDA 12.4 wheels" --pr-body pr.md
      policytool check                  # every rule on every tracked file
      policytool check --only spdx-header src/a.py
      policytool fix                    # apply safe autofixes; exit 1 if anything changed
      policytool sweep --format markdown  # the five fragility patterns on a PR's added lines
      policytool rules                  # what each rule checks

    Configuration lives in [tool.policytool] of pyproject.toml.
    Exit codes: 0 clean, 1 findings, 2 usage/config/environment error.
    """


@cli.command(cls=PathsCommand)
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@common_options
@click.option(
    "--online",
    is_flag=True,
    help="precommit-rev: also compare hook revs with the newest release on PyPI.",
)
@click.option(
    "--baseline-from",
    "baseline_from",
    metavar="REV",
    default=None,
    envvar="POLICYTOOL_BASELINE_FROM",
    help="Read .policytool-baseline.json as committed at REV (a pull request's base), "
    "not from the working tree, so a change cannot accept its own findings "
    "[env: POLICYTOOL_BASELINE_FROM].",
)
@click.option(
    "--exit-zero",
    "exit_zero",
    is_flag=True,
    help="Exit 0 even when findings remain (errors still exit 2).",
)
@click.option(
    "-v", "--verbose", is_flag=True, help="Also print the config used, counts and the time taken."
)
@handle_errors
def check(
    paths: tuple[str, ...],
    config_path: Path | None,
    fmt: str,
    only: tuple[str, ...],
    skip: tuple[str, ...],
    quiet: bool,
    online: bool = False,
    baseline_from: str | None = None,
    exit_zero: bool = False,
    verbose: bool = False,
) -> int:
    """Run every policy rule.

    With PATHS (as pre-commit passes them) only those files and the repo rules they
    touch; without, every git-tracked file plus all repo-level rules.

    \b
    Examples:
      policytool check
      policytool check --only spdx-header,forbidden-import --format json
      policytool check --format sarif > policytool.sarif
      policytool check --online --only precommit-rev
      policytool check --baseline-from "$BASE_SHA"   # CI: the base branch's baseline
    """
    opts = Options(config_path, fmt, _split_ids(only), _split_ids(skip), quiet, verbose)
    run = _run(opts, paths, fix=False, online=online, baseline_from=baseline_from or None)
    code = emit(run.findings, opts, run.files_checked, run.accepted, run.accepted_by)
    if not paths and not quiet and os.environ.get("PRE_COMMIT") != "1":
        _adoption_notes(opts, baseline_from or None)
    return EXIT_CLEAN if exit_zero else code


def _adoption_notes(opts: Options, baseline_from: str | None) -> None:
    """After a full ``check``: one note on stderr per adopted lock still byte-identical
    (``lock-stale`` accepted it), when ``lock-stale`` ran."""
    from policytool.engine.registry import expand_selection

    only = expand_selection(opts.only, "--only")
    if (only and "lock-stale" not in only) or "lock-stale" in expand_selection(opts.skip, "--skip"):
        return
    from policytool.engine.baseline import load_adopted
    from policytool.engine.lock_config import LockConfig

    config = opts.load()
    if not config.entries(LockConfig):
        return
    adopted = load_adopted(config, baseline_from)
    if not adopted:
        return
    from policytool.engine.locks import resolve_locks
    from policytool.rules.lock_stale import adopted_notes

    for note in adopted_notes(config.root, resolve_locks(config), adopted):
        click.echo(f"policytool: note: {escape_controls(note)}", err=True)


@cli.command(cls=PathsCommand)
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@common_options
@click.option(
    "--online",
    is_flag=True,
    help="action-pin: resolve action tags to commit SHAs with `git ls-remote`.",
)
@click.option(
    "--check-hook",
    "check_hook",
    default=None,
    hidden=True,
    help="The pre-commit hook id of this fix hook's check variant (.pre-commit-hooks.yaml).",
)
@click.option(
    "--diff",
    "show_diff",
    is_flag=True,
    help="Print the fixes as a unified diff and write nothing; exit 1 when there is one.",
)
@click.option(
    "--exit-zero",
    "exit_zero",
    is_flag=True,
    help="Exit 0 even when findings remain (errors still exit 2).",
)
@click.option(
    "-v", "--verbose", is_flag=True, help="Also print the config used, counts and the time taken."
)
@handle_errors
def fix(
    paths: tuple[str, ...],
    config_path: Path | None,
    fmt: str,
    only: tuple[str, ...],
    skip: tuple[str, ...],
    quiet: bool,
    online: bool = False,
    check_hook: str | None = None,
    show_diff: bool = False,
    exit_zero: bool = False,
    verbose: bool = False,
) -> int:
    """Apply the safe autofixes, then report what is left.

    Exits 1 when it changed a file or findings remain (pre-commit's convention), so a
    hook run fails once and passes on the next commit.

    \b
    Examples:
      policytool fix
      policytool fix --only spdx-header src/
      policytool fix --online --only action-pin
      policytool fix --diff              # show the edits, write nothing
    """
    opts = Options(config_path, fmt, _split_ids(only), _split_ids(skip), quiet, verbose)
    if show_diff:
        return _fix_diff(opts, paths, online, exit_zero)
    run = _run(opts, paths, fix=True, online=online)
    for path in run.changed:
        click.echo(f"fixed {escape_controls(path)}", err=True)
    if check_hook and _sibling_hook_runs(opts, check_hook):
        # The check variant runs in the same pre-commit config and reports what is left:
        # this hook reports only what it changed, so no finding is shown twice.
        return EXIT_FINDINGS if run.changed and not exit_zero else EXIT_CLEAN
    code = emit(run.findings, opts, run.files_checked, run.accepted, run.accepted_by)
    code = EXIT_FINDINGS if run.changed else code
    return EXIT_CLEAN if exit_zero else code


def _sibling_hook_runs(opts: Options, hook_id: str) -> bool:
    """Whether this is a pre-commit hook call (PRE_COMMIT=1) in a repository whose
    pre-commit config also runs the hook ``hook_id``."""
    if os.environ.get("PRE_COMMIT") != "1":
        return False
    from policytool.formats.precommit import load_model
    from policytool.rules._repo_config import PreCommitConfig

    config = opts.load()
    try:
        model = load_model(config.root, config.section(PreCommitConfig).file, validate=False)
    except PolicyError:
        return False
    return model is not None and any(hook.id == hook_id for hook in model.hooks)


def _fix_diff(opts: Options, paths: Sequence[str], online: bool, exit_zero: bool) -> int:
    """``fix --diff``: run the fixes with writes recorded, not made; print them as one
    unified diff (``a/PATH``, ``b/PATH``), then ``would fix N files`` on stderr."""
    import difflib

    from policytool.core.atomic import record_writes

    with record_writes() as writes:
        _run(opts, paths, fix=True, online=online)
    root = opts.load().root.resolve()
    shown = 0
    for path, old, new in sorted(writes):
        if old == new:
            continue
        shown += 1
        try:
            name = path.resolve().relative_to(root).as_posix()
        except ValueError:
            name = path.as_posix()
        name = escape_controls(name)
        old_lines = old.decode("utf-8", "replace").splitlines(keepends=True)
        new_lines = new.decode("utf-8", "replace").splitlines(keepends=True)
        for line in difflib.unified_diff(old_lines, new_lines, f"a/{name}", f"b/{name}"):
            click.echo(
                line if line.endswith("\n") else line + "\n\\ No newline at end of file\n", nl=False
            )
    if not opts.quiet:
        noun = "file" if shown == 1 else "files"
        click.echo(f"would fix {shown} {noun}" if shown else "nothing to fix", err=True)
    return EXIT_FINDINGS if shown and not exit_zero else EXIT_CLEAN


@cli.command()
@click.argument("name", required=False, metavar="[RULE|GROUP]")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@handle_errors
def rules(name: str | None, fmt: str) -> int:
    """List every rule (id, group, fixable, what it checks), or print one rule's doc.

    \b
    Examples:
      policytool rules
      policytool rules repo              # the rules of one group
      policytool rules spdx-header       # what it checks, why, an example, the fix, config
      policytool rules --format json
    """
    import json

    from policytool.engine.registry import GROUPS, expand_selection, rule_infos

    all_infos = rule_infos()
    infos = list(all_infos.values())
    listed_groups = (*GROUPS, "engine")  # "engine": the ids the engine itself reports
    if name is not None and name not in listed_groups:
        (rule_id,) = expand_selection([name], "rules")
        info = all_infos[rule_id]
        if fmt == "json":
            click.echo(json.dumps(vars(info), indent=2))
        else:
            from policytool.engine.docs import render_rule

            click.echo(render_rule(info), nl=False)
        return EXIT_CLEAN
    if name is not None:
        infos = [i for i in infos if i.group == name]
    if fmt == "json":
        click.echo(json.dumps([vars(i) for i in infos], indent=2))
        return EXIT_CLEAN
    width = max(len(i.id) for i in infos)
    group_width = max(len(g) for g in (*GROUPS, "engine"))
    for info in infos:
        fixable = "fix" if info.fixable else "   "
        click.echo(f"{info.id:<{width}}  {info.group:<{group_width}}  {fixable}  {info.summary}")
    return EXIT_CLEAN


@cli.command()
@click.option(
    "--dry-run", is_flag=True, help="Print the config and the files it would write; change nothing."
)
@click.option(
    "--schedule",
    is_flag=True,
    help="Also write .github/workflows/policytool-bump.yml (weekly outdated + bump PRs).",
)
@config_option
@handle_errors
def init(dry_run: bool, schedule: bool, config_path: Path | None) -> int:
    """Propose a starting [tool.policytool] config and write missing scaffolding.

    Reads the repository (header and torch.cuda hook scripts, the headers its files
    carry, its workflows) and adds a table for each policy it finds to pyproject.toml;
    never overwrites a table or a file. Then `policytool baseline` records today's
    findings, so adoption is one commit.

    \b
    Examples:
      policytool init --dry-run
      policytool init && policytool baseline
      policytool init --schedule   # also the weekly bump workflow
    """
    import dataclasses

    from policytool.scaffold.init import init as write_scaffolds
    from policytool.scaffold.init import init_root, scaffold_targets, write_config

    config = load_config(config_path)
    root = init_root(config, Path.cwd())
    scaffold_targets(root)  # a scaffold path leading out is refused before any write
    if config.root != root:  # a pyproject.toml above the repository is not its config
        config = Config(root=root)
    lines, added = write_config(root, config, dry_run)
    for line in lines:
        click.echo(line)
    if dry_run and added:
        click.echo(added, nl=False)
    if not dry_run and added:
        config = load_config(config_path or root / "pyproject.toml")
    config = dataclasses.replace(config, root=root) if config.source is None else config
    for path, status in write_scaffolds(root, config, dry_run, schedule):
        click.echo(f"{path}: {status}")
    from policytool import __version__
    from policytool.scaffold.ci import action_offer

    offer = action_offer(root, __version__)
    if offer:
        click.echo(offer)
    return EXIT_CLEAN


@cli.command("sync")
@click.option(
    "--check", "check_only", is_flag=True, help="Only report; exit 1 when the block is stale."
)
@config_option
@handle_errors
def sync_command(check_only: bool, config_path: Path | None) -> int:
    """Regenerate the text that mirrors the config: the Mergify pre-commit tip block.

    Rewrites only the lines between the `policytool:sync` marker comments in the
    Mergify rule's comment message (adding the markers when missing).

    \b
    Examples:
      policytool sync
      policytool sync --check     # exit 1 when the block is stale
    """
    from policytool.rules.mergify_drift import sync

    result = sync(load_config(config_path), write_file=not check_only)
    if not result.stale:
        click.echo(f"{result.relpath}: up to date")
        return EXIT_CLEAN
    if check_only:
        click.echo(f"{result.relpath}: stale; run `policytool sync`")
        return EXIT_FINDINGS
    click.echo(f"{result.relpath}: updated")
    return EXIT_CLEAN


@cli.command("lock")
@click.argument("names", nargs=-1, metavar="[NAME]...")
@click.option(
    "--check",
    "check_only",
    is_flag=True,
    help="Offline, no resolver: report locks that are stale or edited by hand.",
)
@click.option(
    "--resolve",
    is_flag=True,
    help="With --check: also re-resolve (offline first) and print the diff.",
)
@click.option(
    "--baseline-from",
    "baseline_from",
    metavar="REV",
    default=None,
    help="With --check: read the locks the baseline adopted from the commit REV.",
)
@click.option(
    "--upgrade", is_flag=True, help="Let every package move to the newest allowed version."
)
@click.option(
    "--upgrade-package",
    "upgrade_packages",
    multiple=True,
    metavar="PKG[==VER]",
    help="Let only this package move (to VER); repeatable.",
)
@click.option(
    "--variant",
    "variants",
    multiple=True,
    metavar="VARIANT",
    help="Only the locks of this variant (e.g. cpu) and the locks they are layered on.",
)
@common_options
@handle_errors
def lock_command(
    names: tuple[str, ...],
    check_only: bool,
    resolve: bool,
    baseline_from: str | None,
    upgrade: bool,
    upgrade_packages: tuple[str, ...],
    variants: tuple[str, ...],
    config_path: Path | None,
    fmt: str,
    only: tuple[str, ...],
    skip: tuple[str, ...],
    quiet: bool,
) -> int:
    """Compile each [[tool.policytool.lock]] into an exact-pinned requirements file.

    Locks used as constraints are compiled first; a lock whose inputs and options did not
    change is left alone. The backend (uv or pip-tools) runs isolated from pip.conf, PIP_*,
    uv.toml and UV_*; a failed resolution leaves the lock byte-identical (exit 2).

    \b
    Examples:
      policytool lock                       # every lock, only what changed
      policytool lock test --upgrade-package torch==2.5.1
      policytool lock --variant cpu         # the cpu locks of every variants entry
      policytool lock --check               # offline; exit 1 when a lock is stale
      policytool lock --check --resolve     # also re-resolve and show the diff
      policytool lock --check --baseline-from "$BASE_SHA"   # CI: the base's adoptions
    """
    from policytool.engine.registry import expand_selection

    lock_rules = ("lock-stale", "lock-skew")
    opts = Options(
        config_path,
        fmt,
        expand_selection(_split_ids(only), "--only", lock_rules),
        expand_selection(_split_ids(skip), "--skip", lock_rules),
        quiet,
    )
    config = opts.load()
    if variants:
        from policytool.engine.locks import variant_locks

        names = (*names, *variant_locks(config, variants))
    if resolve and not check_only:
        raise PolicyError("--resolve only goes with --check")
    if baseline_from and not check_only:
        raise PolicyError("--baseline-from only goes with --check")
    if check_only:
        if upgrade or upgrade_packages:
            raise PolicyError("--check does not upgrade; drop --upgrade/--upgrade-package")
        from policytool.lock.check import SUMMARIES, check_all

        rules_wanted = tuple(
            r for r in lock_rules if (not opts.only or r in opts.only) and r not in opts.skip
        )
        notes: list[str] = []
        findings = check_all(config, names, rules_wanted, notes, baseline_from or None)
        if not quiet:
            for note in notes:  # status, like fix's: stderr, never a finding
                click.echo(f"policytool: note: {escape_controls(note)}", err=True)
        if resolve and "lock-stale" in rules_wanted:
            from policytool.lock.run import resolve_diff

            more, diff = resolve_diff(config, names)
            findings.extend(more)
            if diff and fmt == "text":
                click.echo(diff, nl=False)
        # Rendered here rather than by emit(): loading every rule module for the help
        # texts would double the start-up time of this offline, pre-commit-speed check.
        ordered = sort_findings(findings)
        text = render(ordered, fmt, SUMMARIES, None, quiet)
        if text:
            click.echo(text, nl=False)
        return EXIT_FINDINGS if any(f.severity is Severity.ERROR for f in ordered) else EXIT_CLEAN
    from policytool.lock.run import Outcome
    from policytool.lock.run import lock as run_lock

    def report(outcome: Outcome) -> None:
        if not quiet:
            click.echo(escape_controls(outcome.describe()), err=True)  # status: stderr, like fix

    def progress(line: str) -> None:
        click.echo(f"policytool: {line}", err=True)

    run_lock(config, names, upgrade, upgrade_packages, report, None if quiet else progress)
    return EXIT_CLEAN


@cli.command("sweep")
@click.option(
    "--base",
    "base",
    metavar="REV",
    default=None,
    help="Compare with the merge-base of REV (default: origin/main, falling back to main).",
)
@click.option(
    "--head",
    "head_rev",
    metavar="REV",
    default=None,
    help="Sweep the commit REV instead of the working tree.",
)
@click.option("--staged", is_flag=True, help="Sweep the index (what the next commit holds).")
@click.option(
    "--two-dot",
    is_flag=True,
    help="Compare with the tip of --base itself, not the merge-base (no history needed: "
    "a shallow clone).",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes parsing a large change (default: the CPUs, at most 8).",
)
@click.option(
    "--max-repeats",
    type=click.IntRange(min=0),
    default=5,
    show_default=True,
    help="text/markdown: show a rule's same message this many times, fold the rest (0: all).",
)
@click.option(
    "--worktree",
    is_flag=True,
    help="Sweep the working tree, untracked files included (the default).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--fail-on",
    "fail_on",
    type=click.Choice(["block", "warn", "never"]),
    default="block",
    show_default=True,
    help="Exit 1 on blocking findings (block), on any finding (warn), or never.",
)
@config_option
@click.option("-q", "--quiet", is_flag=True, help="Findings and the Code quality row only.")
@handle_errors
def sweep_command(
    base: str | None,
    head_rev: str | None,
    staged: bool,
    two_dot: bool,
    jobs: int | None,
    max_repeats: int,
    worktree: bool,
    fmt: str,
    fail_on: str,
    config_path: Path | None,
    quiet: bool,
) -> int:
    """Report the five fragility patterns on the lines a change adds.

    Only Python files the diff touches are parsed and only nodes on added lines
    count: kwargs-lookup, broad-except, any-annotation, hot-copy, async-blocking,
    each ⚠ (warning) or ✗ (blocking). The report ends with the Code quality row.

    \b
    Examples:
      policytool sweep                         # working tree vs merge-base with origin/main
      policytool sweep --staged --format markdown
      policytool sweep --base v1.2 --head HEAD --format sarif > sweep.sarif
      policytool sweep --base origin/main --two-dot   # shallow clone: no merge-base
    """
    from policytool.sweep.diff import Head, HeadKind
    from policytool.sweep.report import render_sweep
    from policytool.sweep.run import sweep

    if sum((head_rev is not None, staged, worktree)) > 1:
        raise PolicyError("--head, --staged and --worktree exclude each other; pass one")
    if head_rev is not None:
        head = Head(HeadKind.REV, head_rev)
    else:
        head = Head(HeadKind.STAGED if staged else HeadKind.WORKTREE)
    if config_path is None:
        from policytool.sweep.head_config import load_config_of

        config = load_config_of(head)  # what is swept is judged by its own table
    else:
        config = load_config(config_path)
    result = sweep(config, base, head, Path.cwd(), two_dot, jobs)
    click.echo(render_sweep(result, fmt, quiet, max_repeats), nl=False)
    if fail_on == "never" or not result.findings:
        return EXIT_CLEAN
    if fail_on == "warn" or any(f.severity is Severity.ERROR for f in result.findings):
        return EXIT_FINDINGS
    return EXIT_CLEAN


@cli.command("baseline")
@click.argument("rule_ids", nargs=-1, metavar="[RULE]...")
@config_option
@handle_errors
def baseline_command(rule_ids: tuple[str, ...], config_path: Path | None) -> int:
    """Accept today's findings so the rules can go on now; new findings still fail.

    forbidden-import and torch-cuda: the files go to each section's allowlist-file (or
    the `allow = [...]` TOML to paste is printed). Every other rule: the findings are
    written to .policytool-baseline.json, which `check` and `fix` then leave out. With
    RULE, only those rules.

    \b
    Examples:
      policytool baseline
      policytool baseline torch-cuda
    """
    from policytool.engine.baseline import record
    from policytool.scaffold.baseline import BASELINE_RULES, apply, compute

    config = load_config(config_path)
    ids = _split_ids(rule_ids)
    allowlisted = tuple(i for i in ids if i in BASELINE_RULES)
    others = tuple(i for i in ids if i not in BASELINE_RULES)
    if "stale-allow" in others:
        raise PolicyError(
            "baseline: stale-allow findings are not accepted; remove the allow entries they name"
        )
    lines = (
        apply(config, compute(config, allowlisted, Path.cwd())) if allowlisted or not ids else []
    )
    if others or not ids:
        skip = () if others else (*BASELINE_RULES, "stale-allow")
        opts = Options(config_path, "text", others, skip, True)
        findings = _run(opts, (), fix=False, accepted=False).findings
        if not others:
            findings = [f for f in findings if f.rule not in skip]
        adopted = _adoptions(config) if not others or "lock-stale" in others else []
        taken = {a.path for a in adopted}
        # An adopted lock is recorded by its digest, not accepted as a finding.
        findings = [
            f
            for f in findings
            if not (
                f.rule == "lock-stale"
                and f.path in taken
                and f.message.startswith("no policytool header")
            )
        ]
        lines += record(load_config(config_path), findings, others, adopted)
    click.echo(
        "\n".join(lines) if lines else "policytool: baseline: nothing to add, the tree is clean"
    )
    return _left_after_baseline(config_path, ids)


def _adoptions(config: Config) -> list[Adoption]:
    """The configured locks without a policytool header, as ``baseline`` adopts them."""
    from policytool.engine.lock_config import LockConfig

    if not config.entries(LockConfig):
        return []
    from policytool.engine.locks import resolve_locks
    from policytool.rules.lock_stale import adoption_of

    try:
        locks = resolve_locks(config)
    except PolicyError:
        return []  # `check` reports the lock table; nothing to adopt
    found = (adoption_of(config.root, lock) for lock in locks.values())
    return [a for a in found if a is not None]


def _left_after_baseline(config_path: Path | None, ids: tuple[str, ...]) -> int:
    """Run ``check`` (over ``ids``, every rule when empty) as it will run after
    ``baseline``: clean is exit 0; otherwise print what is left and why, exit 1."""
    opts = Options(config_path, "text", ids, (), True)
    try:
        found = _run(opts, (), fix=False).findings
    except PolicyError as exc:  # a configuration `check` refuses (a missing allowlist file)
        click.echo(f"policytool: baseline: left: `check` stops at: {exc}", err=True)
        return EXIT_ERROR
    left = [f for f in found if f.severity is Severity.ERROR]
    if not left:
        return EXIT_CLEAN
    click.echo(
        f"policytool: baseline: {count(len(left), 'finding')} left, which `check` still "
        "reports (the baseline never accepts a missing lock, a file other rules cannot read "
        "or stale-allow; paste any `allow = [...]` above):"
    )
    click.echo(render_text(sort_findings(left), None, True), nl=False)
    return EXIT_FINDINGS


@cli.command("outdated")
@click.argument("names", nargs=-1, metavar="[NAME]...")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    help="Output format.",
)
@config_option
@handle_errors
def outdated_command(names: tuple[str, ...], fmt: str, config_path: Path | None) -> int:
    """Every pin with a newer release on PyPI, per lock, and what holds it back.

    Names the input bound, constraint file or dependent pin that excludes the newest
    release (none: the lock's cut-off date, `policytool bump PKG` moves it), with the
    known vulnerabilities of the pinned version (PyPI's data). Goes online; changes no
    file. Exit 1 when a pin is behind or vulnerable.

    \b
    Examples:
      policytool outdated
      policytool outdated test --format json
    """
    import dataclasses
    import json

    from policytool.lock.outdated import outdated

    def progress(line: str) -> None:
        click.echo(f"policytool: {line}", err=True)

    entries = outdated(load_config(config_path), names, progress=progress)
    if fmt == "json":
        click.echo(json.dumps([dataclasses.asdict(e) for e in entries], indent=2))
    else:
        for entry in entries:
            click.echo(escape_controls(entry.describe()))
        behind = sum(e.behind for e in entries)
        vulnerable = sum(bool(e.vulnerabilities) for e in entries)
        click.echo(f"{behind} pins behind, {vulnerable} with known vulnerabilities")
    return EXIT_FINDINGS if any(e.behind or e.vulnerabilities for e in entries) else EXIT_CLEAN


@cli.command("bump")
@click.argument("spec", metavar="[PKG[==VER]]", required=False)
@click.option(
    "--group",
    default=None,
    metavar="NAME",
    help="Bump every member of [[tool.policytool.bump-group]] NAME in one change.",
)
@click.option(
    "--patch",
    is_flag=True,
    help="Bump every pin with a newer patch-level release (same X.Y) in one change.",
)
@click.option(
    "--raise-bound",
    "raise_bounds",
    is_flag=True,
    help="Raise an input's bound that excludes the new version (pkg>=1.2,<2 -> pkg>=2.1,<3).",
)
@click.option("--why", default="", help="Why this bump is needed (goes into the PR body).")
@click.option(
    "--pr-body",
    "pr_body",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Write the PR body to this file (default: print it on stdout).",
)
@click.option(
    "--lock",
    "only",
    multiple=True,
    metavar="NAME",
    help="Only the locks named (repeatable); the locks layered on them are regenerated too.",
)
@click.option("--dry-run", is_flag=True, help="Say what would change; change nothing.")
@click.option(
    "--offline", is_flag=True, help="Do not ask PyPI for the release facts of the PR body."
)
@config_option
@click.option("-q", "--quiet", is_flag=True, help="Do not list the regenerated locks.")
@handle_errors
def bump_command(
    spec: str | None,
    group: str | None,
    patch: bool,
    raise_bounds: bool,
    why: str,
    pr_body: Path | None,
    only: tuple[str, ...],
    dry_run: bool,
    offline: bool,
    config_path: Path | None,
    quiet: bool,
) -> int:
    """Bump one package (or a group) everywhere it is pinned, re-lock, write the PR body.

    Rewrites every exact pin of PKG in the lock inputs and pyproject.toml, recompiles
    every lock containing PKG with only PKG upgraded (to VER, or the newest version the
    inputs allow) and every lock layered on those, and fills
    .github/PULL_REQUEST_TEMPLATE/dependency-bump.md with the release facts from PyPI
    (changelog, compare link, requires-python, vulnerabilities). --group NAME and
    --patch bump several packages in one change and one PR body. A bump that cannot
    resolve changes no file (exit 2).

    \b
    Examples:
      policytool bump torch==2.5.1 --why "CUDA 12.4 wheels" --pr-body pr.md
      policytool bump mooncake-transfer-engine --lock cuda
      policytool bump transformers --dry-run
      policytool bump pydantic --raise-bound
      policytool bump --group pytest --pr-body pr.md
      policytool bump --patch
    """
    from policytool.core.atomic import write_atomic
    from policytool.lock.bump import bump, bump_group
    from policytool.lock.run import Outcome

    given = [w for w, on in (("PKG", spec), ("--group", group), ("--patch", patch)) if on]
    if len(given) != 1:
        raise PolicyError(
            "bump: name one package (PKG[==VER]), or --group NAME, or --patch "
            f"(got {' and '.join(given) or 'none'})"
        )
    if raise_bounds and spec is None:
        raise PolicyError("bump: --raise-bound applies to one package (PKG[==VER])")

    if pr_body is not None:
        # Checked before anything changes: a bump must not rewrite locks it cannot report.
        parent = pr_body.parent if str(pr_body.parent) else Path(".")
        if not parent.is_dir():
            raise PolicyError(f"--pr-body {pr_body}: directory {parent} does not exist")
        if pr_body.is_dir():
            raise PolicyError(f"--pr-body {pr_body}: is a directory")
        import os

        if not os.access(parent, os.W_OK):
            raise PolicyError(f"--pr-body {pr_body}: directory {parent} is not writable")

    def report(outcome: Outcome) -> None:
        if not quiet:
            click.echo(escape_controls(outcome.describe()), err=True)

    def progress(line: str) -> None:
        click.echo(f"policytool: {line}", err=True)

    if spec is None:
        result = bump_group(
            load_config(config_path),
            group,
            patch,
            why,
            report=report,
            only=only,
            dry_run=dry_run,
            online=not offline,
            progress=None if quiet else progress,
        )
    else:
        result = bump(
            load_config(config_path),
            spec,
            why,
            report=report,
            only=only,
            dry_run=dry_run,
            online=not offline,
            progress=None if quiet else progress,
            raise_bounds=raise_bounds,
        )
    moving = (
        ", ".join(f"{p} to {v}" for p, v in result.targets)
        if len(result.targets) > 1 or not result.version
        else f"{result.package} to {result.version}"
    )
    for note in result.notes:
        click.echo(f"policytool: note: {note}", err=True)
    for path, version in result.untouched:
        # A group's entries name their package (``pkg==1.0``); one package's, the version.
        pinned = version if "==" in version else f"{result.package}=={version}"
        click.echo(f"policytool: {path} pins {pinned} but no lock reads it: left alone", err=True)
    if result.already and not result.version:
        click.echo(
            f"nothing to bump: {result.package} has no newer release to take; "
            + ("nothing would change" if result.dry_run else "no PR body written"),
            err=True,
        )
        return EXIT_CLEAN
    if result.already:
        click.echo(
            f"nothing to bump: {result.package} is already {result.version} everywhere "
            "it is pinned; " + ("nothing would change" if result.dry_run else "no PR body written"),
            err=True,
        )
        return EXIT_CLEAN
    if result.dry_run:
        edited = ", ".join(result.edited) or "no input"
        click.echo(
            f"would bump {moving}: edit {edited}; "
            f"regenerate {', '.join(result.regenerated) or 'no lock'} (nothing was changed)"
        )
        return EXIT_CLEAN
    if not result.moved:
        click.echo(
            f"nothing to bump: {result.package} is already {result.version} everywhere "
            "it is pinned; no PR body written",
            err=True,
        )
        return EXIT_CLEAN
    if pr_body is None:
        click.echo(result.body, nl=False)
    else:
        try:
            write_atomic(pr_body, result.body.encode("utf-8"))
        except OSError as exc:
            raise PolicyError(
                f"--pr-body {pr_body}: cannot write: {exc.strerror or exc} (the bump itself "
                "is done: inputs and locks were written)"
            ) from None
        if not quiet:
            click.echo(f"wrote the PR body to {pr_body}", err=True)
    return EXIT_CLEAN


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for the console script and ``python -m policytool``.

    The last line of the exit-code contract: Ctrl-C exits 130 without a traceback, and
    an exception no code path expected becomes one sentence and exit 2 with a request to
    report it (``POLICYTOOL_DEBUG=1`` re-raises it, for a traceback).
    """
    try:
        result = cli.main(
            args=list(argv) if argv is not None else None,
            prog_name="policytool",
            standalone_mode=False,
        )
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        return EXIT_ERROR
    except (KeyboardInterrupt, click.exceptions.Abort):
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _drop_stdout()  # the reader went away (`| head`): nothing left to tell it
        return EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 - the top-level guard: no traceback reaches a user
        if debugging():
            raise
        click.echo(
            f"policytool: error: internal error ({type(exc).__name__}: "
            f"{escape_controls(str(exc))}); please report it to the policytool maintainers "
            "with the command you ran (POLICYTOOL_DEBUG=1 shows the traceback)",
            err=True,
        )
        return EXIT_ERROR
    return int(result) if isinstance(result, int) else EXIT_CLEAN


def _drop_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
