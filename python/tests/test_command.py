# SPDX-License-Identifier: MIT
"""The package's uriscan command (its console script, and python -m
uriscan) is the C++ command built with it: the same output, errors and
exit status as the reference command, for the same arguments."""
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import HANDMADE

SCRIPT = Path(sys.executable).parent / "uriscan"
FORMS = {"script": [str(SCRIPT)], "module": [sys.executable, "-m", "uriscan"]}


def outcome(command, *args, data=None):
    done = subprocess.run([*command, *args], input=data, capture_output=True,
                          check=False)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("args", [
    ["--version"],
    ["validate", str(HANDMADE)],
    ["normalize", "--profile=crawler", "-"],
    ["parse", "--format=tsv", "--columns=host,registrable_domain", "-"],
    ["dedup", "--no-such-option"],
], ids=" ".join)
def test_command_is_the_reference(cli, form, args):
    if form == "script" and not SCRIPT.exists():
        pytest.skip("no console script beside " + sys.executable)
    data = b"HTTP://WWW.Example.co.uk:80/a/./b?utm_source=x&q=1\nhttp://a b/\n"
    assert outcome(FORMS[form], *args, data=data) == outcome(
        [cli], *args, data=data)
