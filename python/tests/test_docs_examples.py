# SPDX-License-Identifier: MIT
"""The Python examples of the README and docs/python.md, run as doctests:
each ```python block written as an interactive session (">>> " lines) must
give the output it shows, so the documentation cannot drift from the
package. Blocks without ">>> " are sketches that need files or a cluster
(the Dask ones), covered by the Dask tests instead."""
import doctest
import re

import pytest

from conftest import ROOT

DOCS = [ROOT / "README.md", ROOT / "python" / "README.md",
        ROOT / "docs" / "python.md"]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def _sessions():
    for doc in DOCS:
        if not doc.exists():
            continue
        text = doc.read_text(encoding="utf-8")
        for m in BLOCK.finditer(text):
            if m.group(1).lstrip().startswith(">>> "):
                line = text.count("\n", 0, m.start()) + 2
                yield pytest.param(doc, line, m.group(1),
                                   id="%s:%d" % (doc.name, line))


SESSIONS = list(_sessions())


def test_the_readme_has_a_session():
    assert any(p.values[0].name == "README.md" for p in SESSIONS)


@pytest.mark.parametrize("doc,line,body", SESSIONS)
def test_example_gives_its_output(doc, line, body):
    parser = doctest.DocTestParser()
    test = parser.get_doctest(body, {}, "%s:%d" % (doc.name, line),
                              str(doc), line)
    runner = doctest.DocTestRunner(
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    out = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
