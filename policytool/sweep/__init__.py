# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool sweep``: the five fragility patterns, on the lines a change adds.

``diff`` turns ``git diff`` into added line numbers per file, ``patterns`` holds the
five AST visitors, ``report`` renders the result, ``run`` ties them together.
"""
