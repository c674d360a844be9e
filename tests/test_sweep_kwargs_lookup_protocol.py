# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup: a class whose method copies a repository ``Protocol``'s signature,
``**kwargs`` included, implements that structural interface. mteb's
``EncoderProtocol.__init__(self, model_name, revision, *, device=None, **kwargs)`` is
what its loader calls every encoder wrapper with; each wrapper's ``__init__`` starts
with those parameters, adds its own defaulted options and leaves ``**kwargs`` unused
(set zzzq's labeller: '-', the Protocol fixes the signature). No dropped-keys ✗ then,
as for a base class that declares ``**kwargs``. A class whose ``__init__`` does not
start with the Protocol's parameters, or that adds a parameter without a default, is
its own signature: ✗ as before."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

PROTOCOLS = (
    "from typing import Any, Protocol\n"
    "\n\n"
    "class EncoderProtocol(Protocol):\n"
    "    def __init__(\n"
    "        self, model_name: str, revision: str | None, *, device: str | None = None,\n"
    "        **kwargs: Any,\n"
    "    ) -> None: ...\n"
)


def _wrapper(name: str, params: str) -> str:
    """A wrapper module whose class ``name`` has ``__init__(self, <params>, **kwargs)``
    and never uses ``kwargs``."""
    return (
        "from typing import Any\n"  # 1
        "\n"
        "from pkg.meta import ModelMeta\n"
        "\n\n"  # 5
        f"class {name}:\n"
        f"    def __init__(self, {params}, **kwargs: Any) -> None:\n"  # 7
        "        self.model_name = model_name\n"
        "\n\n"
        f"meta = ModelMeta(loader={name})\n"
    )


def _setup(feature: Repo) -> None:
    """The repository: the Protocol in one module, the registry that imports it (the
    wrappers import only the registry: the Protocol is one hop further)."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/protocols.py", PROTOCOLS)
    feature.write(
        "pkg/meta.py",
        "from collections.abc import Callable\n"
        "from typing import TYPE_CHECKING\n"
        "\n"
        "if TYPE_CHECKING:\n"
        "    from pkg.protocols import EncoderProtocol\n"
        "\n\n"
        "class ModelMeta:\n"
        "    def __init__(self, loader: 'Callable[..., EncoderProtocol]') -> None:\n"
        "        self.loader = loader\n",
    )


def _setup_beside(feature: Repo, protocol: str) -> None:
    """The repository: ``protocol`` (a class's text) in the registry module the
    wrappers import, beside the registry's ``ModelMeta``."""
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/meta.py",
        "from typing import Any, Protocol\n"
        "\n\n"
        f"{protocol}"
        "\n\n"
        "class ModelMeta:\n"
        "    def __init__(self, loader: Any) -> None:\n"
        "        self.loader = loader\n",
    )


def test_a_wrapper_that_copies_the_protocols_signature_drops_nothing_of_its_own(
    feature: Repo, run: Run
) -> None:
    _setup(feature)
    feature.write(
        "pkg/videomae.py",
        _wrapper("VideoMAEWrapper", "model_name: str, revision: str | None, *, device=None"),
    )
    # The Protocol's parameters, then the wrapper's own options, each with a default.
    feature.write(
        "pkg/cosmos.py",
        _wrapper("CosmosWrapper", "model_name, revision, device=None, num_frames: int = 8"),
    )
    feature.commit("two wrappers")
    assert found(run, "kwargs-lookup") == []


def test_a_signature_of_its_own_still_drops_its_keys(feature: Repo, run: Run) -> None:
    _setup(feature)
    # Not the Protocol's parameters: its own constructor (mteb's Bedrock wrapper).
    feature.write("pkg/bedrock.py", _wrapper("NovaWrapper", "model_id: str = 'nova', region='x'"))
    # The Protocol's parameters, then one the loader never passes and that has no
    # default: not a conforming implementation.
    feature.write("pkg/radio.py", _wrapper("RadioWrapper", "model_name, revision, device, size"))
    feature.commit("two wrappers")
    rows = [(path, line, sev) for path, line, sev, _msg in found(run, "kwargs-lookup")]
    assert rows == [("pkg/bedrock.py", 7, "error"), ("pkg/radio.py", 7, "error")]


@pytest.mark.parametrize(
    ("protocol", "wrapper"),
    [
        # The Protocol declares no ``**kwargs``: a wrapper's catch-all is its own.
        (
            "class EncoderProtocol(Protocol):\n"
            "    def __init__(self, model_name: str, revision: str) -> None: ...\n",
            _wrapper("PS3Wrapper", "model_name, revision"),
        ),
        # Hostile: every signature fits ``__init__(self, **kwargs)``, so a pull request
        # that adds such a ``Protocol`` beside its wrapper must not hide the dropped keys.
        (
            "class Anything(Protocol):\n    def __init__(self, **kwargs: Any) -> None: ...\n",
            _wrapper("NovaWrapper", "model_id: str = 'nova', region='x'"),
        ),
    ],
    ids=["no-kwargs", "kwargs-alone"],
)
def test_a_protocol_that_fixes_no_signature_excuses_nothing(
    feature: Repo, run: Run, protocol: str, wrapper: str
) -> None:
    _setup_beside(feature, protocol)
    feature.write("pkg/wrapper.py", wrapper)
    feature.commit("a wrapper beside a Protocol")
    rows = [(path, line, sev) for path, line, sev, _msg in found(run, "kwargs-lookup")]
    assert rows == [("pkg/wrapper.py", 7, "error")]


@pytest.mark.timing
def test_a_file_importing_thousands_of_modules_reads_a_bounded_few(feature: Repo, run: Run) -> None:
    """Hostile: a wrapper that imports 1,500 repository modules, the Protocol's last.
    Only the first 60 are read for a ``Protocol`` (and their imports are not followed
    past that cap): the Protocol is never reached and the ✗ stands, in bounded time."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/protocols.py", PROTOCOLS)
    count = 1500
    for i in range(count):
        # Each imports the next: following every module's imports would walk them all.
        feature.write(f"pkg/m{i}.py", f"from pkg.m{i + 1} import X\nX = 1\n")
    feature.write(f"pkg/m{count}.py", "from pkg.protocols import EncoderProtocol\nX = 1\n")
    imports = "".join(f"import pkg.m{i}\n" for i in range(count))
    feature.write(
        "pkg/radio.py",
        imports
        + "import pkg.protocols\n\n\n"
        + "class RadioWrapper:\n"
        + "    def __init__(self, model_name, revision, device=None, **kwargs) -> None:\n"
        + "        self.model_name = model_name\n",
    )
    feature.commit("a wrapper importing everything")
    rows = [(path, line, sev) for path, line, sev, _msg in found(run, "kwargs-lookup")]
    assert rows == [("pkg/radio.py", count + 5, "error")]
