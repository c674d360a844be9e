# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool sweep``: the registry's added-lines rules on the lines a change adds.

``diff`` turns git's view of the change into added line numbers per file and the head
contents, ``keys`` answers the cross-file kwargs question, ``run`` asks the registry for
the group ``sweep`` and runs its rules (each in its own module under
``policytool.rules``, e.g. ``policytool.rules.broad_except``) on each changed file, and
``report`` hands the result to the shared reporters.
"""
