# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The command line: parse, call, render, exit code. Nothing else lives here.

Exit codes: 0 clean, 1 findings (or files changed by ``fix``), 2 usage, config or
environment error (one sentence on stderr, never a traceback).
"""

from __future__ import annotations

import difflib
import functools
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ParamSpec, TypeVar

import click

from policytool import __version__
from policytool.config import Config, load_config
from policytool.errors import PolicyError
from policytool.findings import FORMATS, Finding, Severity, render, sort_findings

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

    def load(self) -> Config:
        """The configuration these options point at."""
        return load_config(self.config_path)


def _split_ids(values: Sequence[str]) -> tuple[str, ...]:
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


def common_options(func: Callable[..., R]) -> Callable[..., R]:
    """Add --config, --format, --only, --skip and -q to a command."""
    func = click.option("-q", "--quiet", is_flag=True, help="Print findings only, no summary or progress.")(func)
    func = click.option("--skip", "skip", multiple=True, metavar="RULE[,RULE]", help="Rules to leave out.")(func)
    func = click.option("--only", "only", multiple=True, metavar="RULE[,RULE]", help="Run only these rules.")(func)
    func = click.option(
        "--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True, help="Output format."
    )(func)
    func = click.option(
        "--config",
        "config_path",
        type=click.Path(path_type=Path, dir_okay=False),
        default=None,
        help="pyproject.toml to read [tool.policytool] from (default: nearest upward).",
    )(func)
    return func


def handle_errors(func: Callable[P, int]) -> Callable[P, int]:
    """Turn PolicyError into one line on stderr and exit code 2."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> int:
        try:
            return func(*args, **kwargs)
        except PolicyError as exc:
            click.echo(f"policytool: error: {exc}", err=True)
            return EXIT_ERROR
        except KeyboardInterrupt:
            click.echo("policytool: interrupted", err=True)
            return 130

    return wrapper


def validate_rule_ids(ids: Sequence[str], known: Sequence[str], option: str) -> None:
    """Unknown ids in --only/--skip are a usage error naming the nearest id."""
    for rule_id in ids:
        if rule_id not in known:
            close = difflib.get_close_matches(rule_id, known, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else "; see `policytool rules`"
            raise PolicyError(f"{option}: unknown rule '{rule_id}'{hint}")


def progress_printer(quiet: bool) -> Callable[[int, int], None] | None:
    """A ``\\r``-updated progress line on a terminal, nothing otherwise."""
    if quiet or not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        end = "\n" if done >= total else ""
        click.echo(f"\rpolicytool: {done}/{total} files", err=True, nl=False)
        if end:
            click.echo("\r\033[K", err=True, nl=False)

    return show


def emit(findings: Sequence[Finding], opts: Options, files_checked: int | None) -> int:
    """Print findings in the chosen format; return the exit code they mean."""
    from policytool.rules import rule_infos

    ordered = sort_findings(findings)
    help_text = {r.id: r.summary for r in rule_infos().values()}
    out = render(ordered, opts.fmt, help_text, files_checked, opts.quiet)
    if out:
        click.echo(out, nl=False)
    return EXIT_FINDINGS if any(f.severity is Severity.ERROR for f in ordered) else EXIT_CLEAN


class _Group(click.Group):
    """Keep commands in the order they are declared in --help."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="policytool")
def cli() -> None:
    """Keep a large Python repository reproducible and policy-clean.

    \b
    Examples:
      policytool check                  # every rule on every tracked file
      policytool check --only spdx-header src/a.py
      policytool fix                    # apply safe autofixes; exit 1 if anything changed
      policytool rules                  # what each rule checks

    Configuration lives in [tool.policytool] of pyproject.toml.
    Exit codes: 0 clean, 1 findings, 2 usage/config/environment error.
    """


def _run_check(paths: tuple[str, ...], opts: Options, fix: bool) -> tuple[list[Finding], list[str], int]:
    from policytool.engine import run_file_rules, run_repo_rules, select_rules
    from policytool.files import discover
    from policytool.rules import ENGINE_RULE_IDS, rule_infos

    config = opts.load()
    known = list(rule_infos())
    validate_rule_ids(opts.only, known, "--only")
    validate_rule_ids(opts.skip, known, "--skip")
    files = discover(config.root, list(paths) or None, Path.cwd(), config.exclude)
    file_rules, repo_rules = select_rules(opts.only, opts.skip)
    result = run_file_rules(config, files, file_rules, fix=fix, progress=progress_printer(opts.quiet))
    repo = run_repo_rules(config, repo_rules, files, full_run=not paths, fix=fix)
    result.merge(repo)
    findings = result.findings
    if opts.only:
        findings = [f for f in findings if f.rule in opts.only or f.rule in ENGINE_RULE_IDS]
    findings = [f for f in findings if f.rule not in opts.skip]
    return findings, sorted(set(result.changed)), result.files_checked


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@common_options
@handle_errors
def check(paths: tuple[str, ...], config_path: Path | None, fmt: str, only: tuple[str, ...],
          skip: tuple[str, ...], quiet: bool) -> int:
    """Run every policy rule.

    With PATHS (as pre-commit passes them) only those files and the repo rules they
    touch; without, every git-tracked file plus all repo-level rules.

    \b
    Examples:
      policytool check
      policytool check --only spdx-header,forbidden-import --format json
      policytool check --format sarif > policytool.sarif
    """
    opts = Options(config_path, fmt, _split_ids(only), _split_ids(skip), quiet)
    findings, _changed, files_checked = _run_check(paths, opts, fix=False)
    return emit(findings, opts, files_checked)


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@common_options
@handle_errors
def fix(paths: tuple[str, ...], config_path: Path | None, fmt: str, only: tuple[str, ...],
        skip: tuple[str, ...], quiet: bool) -> int:
    """Apply the safe autofixes, then report what is left.

    Exits 1 when it changed a file or findings remain (pre-commit's convention), so a
    hook run fails once and passes on the next commit.

    \b
    Examples:
      policytool fix
      policytool fix --only spdx-header src/
    """
    opts = Options(config_path, fmt, _split_ids(only), _split_ids(skip), quiet)
    findings, changed, files_checked = _run_check(paths, opts, fix=True)
    for path in changed:
        click.echo(f"fixed {path}", err=True)
    code = emit(findings, opts, files_checked)
    return EXIT_FINDINGS if changed else code


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@handle_errors
def rules(fmt: str) -> int:
    """List every rule: id, whether it can be fixed, the command reporting it, what it checks.

    \b
    Example:
      policytool rules --format json
    """
    import json

    from policytool.rules import rule_infos

    infos = list(rule_infos().values())
    if fmt == "json":
        click.echo(json.dumps([vars(i) for i in infos], indent=2))
        return EXIT_CLEAN
    width = max(len(i.id) for i in infos)
    for info in infos:
        fixable = "fix" if info.fixable else "   "
        click.echo(f"{info.id:<{width}}  {fixable}  {info.command:<6}  {info.summary}")
    return EXIT_CLEAN


@cli.command()
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="pyproject.toml to read [tool.policytool] from (default: nearest upward).",
)
@handle_errors
def init(config_path: Path | None) -> int:
    """Write the policy scaffolding a repository is missing; never overwrite a file.

    \b
    Example:
      policytool init
    """
    from policytool.scaffold import init as write_scaffolds
    from policytool.scaffold import init_root

    config = load_config(config_path)
    for path, status in write_scaffolds(init_root(config, Path.cwd()), config):
        click.echo(f"{path}: {status}")
    return EXIT_CLEAN


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for the console script and ``python -m policytool``."""
    try:
        result = cli.main(args=list(argv) if argv is not None else None, prog_name="policytool",
                          standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        return EXIT_ERROR
    except click.exceptions.Abort:
        click.echo("policytool: aborted", err=True)
        return EXIT_ERROR
    return int(result) if isinstance(result, int) else EXIT_CLEAN
