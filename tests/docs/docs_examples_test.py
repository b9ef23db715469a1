#!/usr/bin/env python3
"""The examples of docs/PYTHON.md, docs/JAVA.md and docs/SCALING.md run as written.

A fenced block whose info string is `<language> test` (```sh test, ```python test,
```java test) is run; other blocks are illustrations. Each runs in a fresh folder
that holds `examples` (a link to the repository's), so paths read as from the
repository root; `calcjit` (the built command) is on PATH, `import calcjit` finds
the built package, and a Java block (one public class) runs with Java's
single-file launch against the jar alone. A block fails the test when it exits
with a failure; every page must have at least one such block.

Usage: docs_examples_test.py SOURCE_DIR CALCJIT_CLI PYTHON_PACKAGE_DIR CALCJIT_JAR
"""

import os
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

PAGES = ("docs/PYTHON.md", "docs/JAVA.md", "docs/SCALING.md")
BLOCK = re.compile(r"^```(sh|python|java) test\n(.*?)^```$", re.S | re.M)
TIMEOUT = 240  # seconds per block: the Dask ones start a local cluster

SOURCE = CLI = PYTHON_DIR = JAR = None


def tested_blocks(page):
    return BLOCK.findall((SOURCE / page).read_text(encoding="utf-8"))


def run_block(language, code, where):
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(CLI.parent), env.get("PATH", "")])
    env["PYTHONPATH"] = str(PYTHON_DIR)
    env["CALCJIT_JAR"] = str(JAR)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if language == "sh":
        command = ["bash", "-euo", "pipefail", "-c", code]
    elif language == "python":
        (where / "example.py").write_text(code)
        command = ["/usr/bin/python3", "example.py"]
    else:
        name = re.search(r"public (?:final )?class (\w+)", code).group(1)
        (where / f"{name}.java").write_text(code)
        command = ["java", "-cp", str(JAR), f"{name}.java"]
    return subprocess.run(command, cwd=where, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT)


class DocsExamplesTest(unittest.TestCase):
    def test_every_tested_block_runs(self):
        for page in PAGES:
            blocks = tested_blocks(page)
            self.assertTrue(blocks, f"{page} has no block marked for testing")
            for k, (language, code) in enumerate(blocks, 1):
                with self.subTest(page=page, block=k), tempfile.TemporaryDirectory() as tmp:
                    where = pathlib.Path(tmp)
                    (where / "examples").symlink_to(SOURCE / "examples")
                    result = run_block(language, code, where)
                    self.assertEqual(result.returncode, 0,
                                     f"{page}, {language} block {k}:\n{result.stdout}\n"
                                     f"{result.stderr}")
                    self.assertTrue(result.stdout.strip(),
                                    f"{page}, {language} block {k} printed nothing")


if __name__ == "__main__":
    SOURCE, CLI, PYTHON_DIR, JAR = (pathlib.Path(a).resolve() for a in sys.argv[1:5])
    unittest.main(argv=sys.argv[:1], verbosity=2)
