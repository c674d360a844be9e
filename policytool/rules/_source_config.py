# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The config sections of the source rules: ``[tool.policytool.spdx]`` (``spdx-header``),
``[[tool.policytool.forbidden-import]]`` (``forbidden-import``, ``stale-allow``) and
``[tool.policytool.torch-cuda]`` (``torch-cuda``, ``stale-allow``).

Declared here rather than in the rule modules so that reading the configuration imports
no rule: a hook running one rule pays for its own module only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

from policytool.config import ConfigContext, KeyDoc, document, one_line, register_section
from policytool.core.kinds import CommentKind


@dataclass(frozen=True)
class SpdxConfig:
    """``[tool.policytool.spdx]``: the SPDX header lines every source file carries.

    ``spdx-header`` runs only when the table is written (``configured``): a license
    in ``[project]`` alone is no SPDX header policy.
    """

    # None: any ``SPDX-License-Identifier`` line is accepted (and fix cannot insert one).
    # Without the key, ``project.license`` of the same pyproject.toml.
    license: str | None = None
    copyright: str | None = None
    replaces: tuple[str, ...] = ()
    # File kinds (see files.CommentKind) the header is required in.
    kinds: tuple[CommentKind, ...] = ("python",)
    # Path globs exempt from the header (vendored code); ``baseline spdx-header`` adds to it.
    exclude: tuple[str, ...] = ()
    # Whether `fix` may rewrite another license identifier to `license` (a license
    # change, not a formatting fix: off unless asked for).
    relicense: bool = False
    # Set by the builder when the table is present, never a TOML key.
    configured: bool = False


document(
    SpdxConfig,
    "The `spdx-header` rule ([source-rules.md](source-rules.md#spdx-header)), off until this "
    "table is written (an empty table turns it on with `project.license`).",
    {
        "license": KeyDoc(
            "string",
            "the `SPDX-License-Identifier` value; without it any identifier passes and `fix` "
            "cannot insert one",
            "`project.license` when it is a string, else none",
        ),
        "copyright": KeyDoc(
            "string", "the `SPDX-FileCopyrightText` value, required in every header when set"
        ),
        "replaces": KeyDoc(
            "list of strings",
            "old copyright texts (`# <text>` or `# SPDX-FileCopyrightText: <text>`) that `fix` "
            "rewrites to `copyright`",
        ),
        "kinds": KeyDoc(
            "list of kinds",
            "file kinds that need the header: `python`, `stub`, `shell`, `yaml`, `toml` (`#` "
            "comments), `rust`, `proto`, `c`, `cpp`, `cuda`, `js`, `ts` (`//` comments)",
        ),
        "exclude": KeyDoc(
            "list of globs",
            "files exempt from the header (vendored code); `policytool baseline spdx-header` "
            "adds to it",
        ),
        "relicense": KeyDoc(
            "boolean",
            "let `fix` rewrite a header's other license identifier (`MIT`) to `license`: a "
            "license change, so off by default (the finding then says to change it by hand)",
        ),
    },
)


def _project_license(data: Mapping[str, object]) -> str | None:
    """``project.license`` when it is an SPDX expression string (PEP 639)."""
    project = data.get("project")
    if isinstance(project, dict):
        value = project.get("license")
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _finish_spdx(entries: tuple[SpdxConfig, ...], ctx: ConfigContext) -> tuple[SpdxConfig, ...]:
    """Without a ``license`` key, ``project.license`` of the same pyproject.toml."""
    tool = ctx.data.get("tool")
    policytool = tool.get("policytool") if isinstance(tool, dict) else None
    written = policytool.get("spdx") if isinstance(policytool, dict) else None
    if not isinstance(written, dict) or "license" in written:
        return entries
    project_license = _project_license(ctx.data)
    if not project_license:
        return entries
    one_line(project_license, ("project", "license"), ctx)
    return tuple(dataclasses.replace(e, license=project_license) for e in entries)


register_section("spdx", SpdxConfig, finish=_finish_spdx)


@dataclass(frozen=True)
class ForbiddenImportConfig:
    """One ``[[tool.policytool.forbidden-import]]`` entry."""

    modules: tuple[str, ...]
    reason: str = ""
    allow: tuple[str, ...] = ()
    allowlist_file: str | None = None
    # Globs of the files the ban applies to (empty: every file); import-linter's
    # ``source_modules``.
    files: tuple[str, ...] = ()


document(
    ForbiddenImportConfig,
    "One table per ban, any number ([source-rules.md](source-rules.md#configuration)).",
    {
        "modules": KeyDoc(
            "list of module names",
            "banned modules; each bans its submodules too",
            "required, not empty",
        ),
        "reason": KeyDoc("string", "appended to each finding"),
        "allow": KeyDoc("list of globs", "files where the ban does not apply"),
        "allowlist-file": KeyDoc(
            "path inside the repository",
            "a file of more allow globs, one a line (`#` comments); `policytool baseline` "
            "creates and appends to it",
        ),
        "files": KeyDoc(
            "list of globs",
            "the files the ban applies to (import-linter's `source_modules`); default: every file",
        ),
    },
)


def _finish_forbidden_import(
    entries: tuple[ForbiddenImportConfig, ...], ctx: ConfigContext
) -> tuple[ForbiddenImportConfig, ...]:
    """Every ban names at least one module."""
    for index, rule in enumerate(entries):
        if not rule.modules:
            raise ctx.error(
                ("tool", "policytool", "forbidden-import", index, "modules"), "modules is empty"
            )
    return entries


register_section(
    "forbidden-import", ForbiddenImportConfig, repeated=True, finish=_finish_forbidden_import
)


@dataclass(frozen=True)
class TorchCudaConfig:
    """``[tool.policytool.torch-cuda]``: banned ``torch.cuda`` calls and where they may stay.

    ``torch-cuda`` runs only when the table is written (``configured``).
    """

    allow: tuple[str, ...] = ()
    allowlist_file: str | None = None
    # api name -> replacement hint; empty means the built-in default set.
    banned: dict[str, str] = field(default_factory=dict)
    # Set by the builder when the table is present, never a TOML key.
    configured: bool = False


document(
    TorchCudaConfig,
    "The `torch-cuda` rule, off until this table is written (an empty table turns it on "
    "with the built-in set).",
    {
        "allow": KeyDoc("list of globs", "files where `torch-cuda` does not apply"),
        "allowlist-file": KeyDoc("path", "a file of more allow globs, as for `forbidden-import`"),
        "banned": KeyDoc(
            "table: API name -> hint",
            "the banned `torch.cuda` APIs and the replacement each finding names; replaces "
            "the built-in set",
            "the built-in set",
        ),
    },
)


register_section("torch-cuda", TorchCudaConfig)
