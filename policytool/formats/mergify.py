# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Mergify's configuration: its rules, a rule's comment message, and check conditions.

:func:`load_mergify` parses the file round-trip (refusing an alias bomb before anything
walks it); :func:`find_comment` finds a named rule's ``actions: comment: message:`` with
where its text starts (:func:`comments`: every rule's); :func:`check_conditions` lists
every ``check-*`` / ``status-*`` condition (inside ``and:``/``or:``/``not:`` too) with its
line, in every section Mergify reads conditions from. No policy here.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from policytool.errors import FileProblem
from policytool.formats.yamldoc import YamlDoc, item_line, key_line, load_present, value_pos

# ``[-][#]attribute OP value``: Mergify's condition syntax (``:`` is an old ``=``).
_CONDITION_RE = re.compile(
    r"^\s*(?P<negated>-)?(?P<count>#)?(?P<attribute>[a-z][a-z-]*)\s*"
    r"(?P<operator>~=|!=|>=|<=|=|:|>|<)\s*(?P<value>(?:.*\S)?)\s*$"
)  # the value ends on a non-blank: ``.*?\s*$`` is quadratic on a long blank run


@dataclass(frozen=True)
class Comment:
    """The comment message of a Mergify rule and where it is written."""

    doc: YamlDoc
    holder: dict[str, object]  # the ``comment:`` mapping that has ``message``
    message: str
    first_line: int  # 1-based line of the message's first content line
    rule: dict[str, object]
    index: int  # the rule's place in ``pull_request_rules``

    def line_of(self, offset: int) -> int:
        """File line of line ``offset`` (0-based) of the message."""
        return self.first_line + offset

    @property
    def name(self) -> str:
        """The rule's ``name`` (empty when it has none)."""
        name = self.rule.get("name")
        return name if isinstance(name, str) else ""

    @property
    def literal(self) -> bool:
        """Whether the message is a literal block scalar (``message: |``)."""
        return type(self.message).__name__ == "LiteralScalarString"


# Where Mergify looks for its configuration, in its order: it reads the first that exists
# (docs.mergify.com/configuration/file-format: "Configuration File Name").
MERGIFY_FILES = (
    ".mergify.yml",
    ".mergify.yaml",
    ".mergify/config.yml",
    ".mergify/config.yaml",
    ".github/mergify.yml",
    ".github/mergify.yaml",
)


def find_mergify(root: Path) -> str | None:
    """The Mergify config Mergify itself reads in ``root``: the first of
    :data:`MERGIFY_FILES` that is a file; None when there is none."""
    for relpath in MERGIFY_FILES:
        if (root / relpath).is_file():
            return relpath
    return None


def all_mergify(root: Path) -> list[str]:
    """Every one of :data:`MERGIFY_FILES` that is a file in ``root``, in Mergify's order.

    More than one stops Mergify: it evaluates no pull request that would leave two or more
    in place (docs.mergify.com/configuration/file-format)."""
    return [relpath for relpath in MERGIFY_FILES if (root / relpath).is_file()]


def load_mergify(root: Path, relpath: str) -> YamlDoc | None:
    """The parsed Mergify file; None when absent; :class:`FileProblem` when unusable."""
    doc = load_present(root, relpath)
    if doc is None:
        return None
    if not isinstance(doc.data, dict):
        raise FileProblem(relpath, 1, "a Mergify config must be a YAML mapping")
    return doc


def rules_of(doc: YamlDoc) -> list[object] | None:
    """The ``pull_request_rules`` list, or None."""
    rules = doc.data.get("pull_request_rules") if isinstance(doc.data, dict) else None
    return rules if isinstance(rules, list) else None


def find_comment(doc: YamlDoc, name: str, setting: str) -> Comment:
    """The comment of the rule called ``name``; :class:`FileProblem` naming ``setting``."""
    data = doc.data
    assert isinstance(data, dict)
    relpath = doc.relpath
    rules = rules_of(doc)
    if rules is None:
        raise FileProblem(
            relpath,
            key_line(data, "pull_request_rules"),
            f"no `pull_request_rules` list, so no rule '{name}' ({setting})",
        )
    index = next(
        (i for i, r in enumerate(rules) if isinstance(r, dict) and r.get("name") == name), None
    )
    if index is None:
        names = [n for r in rules if isinstance(r, dict) and isinstance(n := r.get("name"), str)]
        close = difflib.get_close_matches(name, names, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise FileProblem(
            relpath,
            key_line(data, "pull_request_rules"),
            f"no pull_request_rules entry named '{name}' ({setting}){hint}",
        )
    found = _comment(doc, rules[index], index)
    if found is None:
        raise FileProblem(
            relpath,
            item_line(rules, index),
            f"rule '{name}' has no `actions: comment: message:` to keep in sync",
        )
    return found


def _comment(doc: YamlDoc, rule: object, index: int) -> Comment | None:
    """The ``actions: comment: message:`` of one rule, or None."""
    if not isinstance(rule, dict):
        return None
    actions = rule.get("actions")
    comment = actions.get("comment") if isinstance(actions, dict) else None
    message = comment.get("message") if isinstance(comment, dict) else None
    if not isinstance(comment, dict) or not isinstance(message, str):
        return None
    pos = value_pos(comment, "message")
    block = type(message).__name__ == "LiteralScalarString"
    first = (pos[0] + 2 if block else pos[0] + 1) if pos else key_line(comment, "message")
    return Comment(doc, comment, message, first, rule, index)


def comments(doc: YamlDoc) -> list[Comment]:
    """Every rule's comment message, in file order."""
    rules = rules_of(doc) or []
    return [c for i, rule in enumerate(rules) if (c := _comment(doc, rule, i)) is not None]


def comment_at(doc: YamlDoc, index: int) -> Comment | None:
    """The comment of rule ``index`` of ``pull_request_rules`` (None if it has none)."""
    rules = rules_of(doc) or []
    return _comment(doc, rules[index], index) if 0 <= index < len(rules) else None


@dataclass(frozen=True)
class CheckCondition:
    """A ``check-*`` / ``status-*`` condition naming a check (exactly, or by regex)."""

    rule: str
    text: str
    attribute: str
    name: str
    regex: bool
    line: int
    effect: str = ""  # what a condition that never holds does there


def _conditions(root: object, rule: str, line: int) -> Iterator[CheckCondition]:
    """The check conditions in a conditions list, ``and:``/``or:``/``not:`` included.

    Walked with an explicit stack: nesting depth cannot overflow Python's.
    """
    stack: list[tuple[object, int]] = [(root, line)]
    while stack:
        node, at = stack.pop()
        if isinstance(node, dict):
            for key in ("not", "or", "and"):
                if key in node:
                    stack.append((node[key], key_line(node, key, at)))
            continue
        if not isinstance(node, list):
            continue
        for index in range(len(node) - 1, -1, -1):
            item = node[index]
            item_at = item_line(node, index)
            if not isinstance(item, str):
                stack.append((item, item_at))
                continue
            match = _CONDITION_RE.match(item)
            if match is None or match.group("count") or match.group("negated"):
                continue
            attribute = match.group("attribute")
            operator = match.group("operator")
            if not attribute.startswith(("check-", "status-")) or operator not in ("=", ":", "~="):
                continue
            value = match.group("value")
            yield CheckCondition(rule, item, attribute, value, operator == "~=", item_at)


# Where Mergify reads conditions: (top-level section, the keys of each entry holding a
# conditions list, what a condition that never holds does there). ``merge_protections``
# is the newer section (``if`` activates a protection, ``success_conditions`` must hold
# for its check to pass); ``queue_rules`` gate the merge queue.
CONDITION_SECTIONS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("pull_request_rules", (("conditions", "so rule '{name}' never matches"),)),
    (
        "merge_protections",
        (
            ("if", "so merge protection '{name}' never applies"),
            (
                "success_conditions",
                "so merge protection '{name}' never passes and blocks every pull request it "
                "applies to",
            ),
        ),
    ),
    (
        "queue_rules",
        (
            ("queue_conditions", "so no pull request enters queue '{name}'"),
            ("merge_conditions", "so queue '{name}' never merges"),
            ("conditions", "so queue '{name}' never merges"),
        ),
    ),
    ("priority_rules", (("conditions", "so priority rule '{name}' never matches"),)),
)


def check_conditions(doc: YamlDoc) -> list[CheckCondition]:
    """Every positive condition naming a check run or status: in every rule of
    ``pull_request_rules``, ``merge_protections`` (``if``, ``success_conditions``),
    ``queue_rules`` and ``priority_rules``, and in ``merge_protections_settings``'
    ``auto_merge_conditions``."""
    data = doc.data
    if not isinstance(data, dict):
        return []
    out: list[CheckCondition] = []
    for section, keys in CONDITION_SECTIONS:
        entries = data.get(section)
        if not isinstance(entries, list):
            continue
        for index, entry in enumerate(entries):
            if not isinstance(entry, dict):
                continue
            name = entry.get("name")
            rule = name if isinstance(name, str) else ""
            at = item_line(entries, index)
            for key, effect in keys:
                if key in entry:
                    line = key_line(entry, key, at)
                    found = _conditions(entry[key], rule, line)
                    out += [replace(c, effect=effect.format(name=rule)) for c in found]
    settings = data.get("merge_protections_settings")
    if isinstance(settings, dict) and "auto_merge_conditions" in settings:
        line = key_line(
            settings, "auto_merge_conditions", key_line(data, "merge_protections_settings")
        )
        effect = "so auto-merge never applies"
        found = _conditions(settings["auto_merge_conditions"], "", line)
        out += [replace(c, effect=effect) for c in found]
    return sorted(out, key=lambda c: c.line)
