# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
# ruff: noqa: E501 - the docs quote real output lines, which are longer than code lines
"""The ids the engine itself reports (undecodable, syntax-error, rule-error, bare-ignore, ...) and their docs.

They have no check function of their own: the runner reports them while reading and
parsing files. Registered for ``policytool rules`` and docs/rules/.
"""

from __future__ import annotations

from policytool.engine.registry import RuleInfo, register_info

register_info(
    RuleInfo(
        "undecodable",
        "a text file is not valid in its encoding (UTF-8 or its PEP 263 cookie)",
        doc="""\
## What it checks
A file a selected rule looks at cannot be decoded: its bytes are not valid UTF-8 (or not
valid in the encoding its PEP 263 cookie names, for Python), or it cannot be read at all.
The finding names the line the first bad byte is on. Binary files (a NUL byte in the
first 8,000 bytes, git's test) are skipped, not reported. A text file larger than 4 MiB
(`core.boundary.MAX_SOURCE_BYTES`) is not read at all: it is one finding, `not checked:
N bytes, over the 4 MiB limit for a source file`. (The largest `.py` in vLLM is 330 KB;
files over 4 MiB are generated.)

## Why
A file policytool cannot read was not checked: reporting it keeps a rule's silence from
being mistaken for a pass. `--only` keeps this finding for the same reason.

## Example
A file saved as Latin-1 without a cookie (0xE9 is not UTF-8), checked by forbidden-import:

```python
# café, saved as Latin-1
import pickle
```

```text
legacy.py:1:1: undecodable not valid utf-8 (line 1: invalid continuation byte)
```

## Fix
Re-save the file as UTF-8, or (Python) declare its encoding on line 1 or 2:
`# -*- coding: latin-1 -*-`. `policytool fix` does not change the encoding.

## Configuration
None. Leave generated or vendored files out with `[tool.policytool] exclude = [...]`.
""",
    )
)
register_info(
    RuleInfo(
        "syntax-error",
        "a Python file does not parse, so AST rules cannot check it",
        doc="""\
## What it checks
A Python file that a rule needs to parse (forbidden-import, torch-cuda, ...) is not
valid Python for the interpreter running policytool; the finding gives the parser's line,
column and message. In `policytool sweep`, also a file nested deeper than that
Python's parser reaches (`nested too deeply for Python 3.11`: Python cannot compile it
either), and a file one sweep rule could not follow to the bottom of some nesting
(`nested too deeply for hot-copy to read`): that rule's reading of the file is lost, the
other rules still report, and a comment in the file cannot drop the finding, so a pull
request cannot pass a finding by nesting something past a rule's reach.

## Why
Rules that read the syntax tree cannot check a file that does not parse; reporting it
says the file was not checked instead of passing it silently.

## Example
```python
from pickle import (loads,
def f(:
    pass
```

```text
broken.py:2:1: syntax-error cannot parse: invalid syntax
```

## Fix
Fix the syntax error, or run policytool with a Python that knows the syntax the file
uses (a file written for 3.12 may not parse on 3.10). `policytool fix` does not change it.

## Configuration
None. Exclude files that are not meant to be Python (templates) with
`[tool.policytool] exclude = [...]`.
""",
    )
)
register_info(
    RuleInfo(
        "rule-error",
        "a rule stopped on an internal error and did not read a file",
        doc="""\
## What it checks
A rule raised an error nobody foresaw while reading one file: a bug in policytool, met
on a shape of code its authors did not think of. The finding names the rule, the error
and its text (cut at 200 characters, control characters escaped); that rule's reading of
that file is lost, and every other rule and file is still checked. `POLICYTOOL_DEBUG=1`
raises the error instead, with its traceback. A configuration error a rule reports on
purpose (exit 2 with one sentence) is not caught here.

## Why
Before, one such error stopped the whole command (`policytool: error: internal error
...`, exit 2): a 700-file release sweep lost to one file. Silently skipping the file
would be worse: a pull request could then hide a finding by writing the shape that
breaks a rule. So the error is a finding of its own that fails the run, and neither a
`# policytool: ignore` comment in the file nor the baseline can accept it.

## Example
```text
pkg/model.py:1:1: rule-error any-annotation stopped on an internal error (ValueError: zip() argument 2 is shorter than argument 1) and did not read this file; please report it to the policytool maintainers with this line (POLICYTOOL_DEBUG=1 shows the traceback)
```

## Fix
Report it, with the line and, if you can, the file or a cut-down copy of it. Until a
release fixes it, `--skip RULE` leaves the rule out of the run.

## Configuration
None.
""",
    )
)
register_info(
    RuleInfo(
        "bare-ignore",
        "a `# policytool: ignore` comment names no rule id",
        doc="""\
## What it checks
A `# policytool: ignore` comment (`// policytool: ignore` in C-like files) without a
list of rule ids in brackets.

## Why
A bare ignore would silence every rule on its line, including ones added later, and says
nothing to a reviewer about what was accepted. Naming the ids keeps each exception
deliberate and searchable.

## Example
```python
import pickle  # policytool: ignore
```

```text
a.py:1:8: forbidden-import import of `pickle` is forbidden: banned by [[tool.policytool.forbidden-import]]
a.py:1:16: bare-ignore `policytool: ignore` must name the rule ids it silences, e.g. `# policytool: ignore[spdx-header]`
```

The bare comment silences nothing: the finding it meant to accept is still reported.

## Fix
Name the rules: `import pickle  # policytool: ignore[forbidden-import]`. Several ids are
separated by commas. `policytool fix` does not guess them.

## Configuration
None.
""",
    )
)
register_info(
    RuleInfo(
        "baseline-stale",
        "`.policytool-baseline.json` accepts findings that no longer occur",
        doc="""\
## What it checks
On a full run (`policytool check` without paths), an entry of `.policytool-baseline.json`
that accepts more findings of a rule that ran than the repository still has; and, on any
run, an entry for a finding no baseline accepts (a pre-commit config the other rules
cannot read, a lock that does not exist: the finding itself is reported too). It is a
warning: the run's exit code does not change.

## Why
The baseline accepts findings by rule, file and message, as many as it counts. Once some
are fixed, the spare count would silently accept the same finding written again: a
regression the baseline was meant to stop. Shrinking the baseline keeps "a new finding
still fails" true.

## Example
The baseline accepts two missing headers in `demo/a.py`; one was fixed:

```text
.policytool-baseline.json:4:1: baseline-stale 1 accepted spdx-header finding in demo/a.py no longer occurs; run `policytool baseline` to shrink the baseline
```

## Fix
Run `policytool baseline` (or `policytool baseline RULE`): it rewrites the entries of the
rules it runs from today's findings, so the fixed ones drop out.

## Configuration
None. Runs with paths (pre-commit hooks) do not report it: they see only some files.
""",
    )
)
