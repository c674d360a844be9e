# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool sweep``: the registry's added-lines rules on the lines a change adds.

``diff`` turns git's view of the change into added line numbers per file and the head
contents, ``source`` walks a changed file, ``patterns`` holds the checks of the five
rules that ``policytool.rules._sweep_rules`` registers, ``keys`` answers the cross-file
kwargs question, ``run`` ties them together and ``report`` hands the result to the
shared reporters.
"""
