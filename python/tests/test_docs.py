"""docs/PYTHON.md works: its python blocks run, in order, from the repository root."""

import os
import re

from conftest import CLI, SOURCE_DIR


def test_the_user_guide_runs(capsys):
    text = (SOURCE_DIR / "docs" / "PYTHON.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 5
    namespace = {}
    cwd = os.getcwd()
    os.chdir(SOURCE_DIR)
    try:
        for k, block in enumerate(blocks):
            code = block.replace('"build/cli/calcjit"', repr(str(CLI)))
            exec(compile(code, f"docs/PYTHON.md (python block {k + 1})", "exec"), namespace)
    finally:
        os.chdir(cwd)
    printed = capsys.readouterr().out
    assert "38 inputs, 304 features" in printed
    assert "4:1: 'value' is defined twice (first at 2:1)" in printed
    assert namespace["serving"].version == 2
