"""Builds the calcjit Python package with CMake: `pip install .` (docs/PYTHON.md).

The native module (calcjit/_calcjit*.so) is CMake's target calcjit_python; the
calcjit library is linked into it statically, so the module carries the
library and needs only Debian's shared libLLVM-16 and libstdc++ at run time.

Environment:
  CALCJIT_CMAKE_BUILD_DIR  an already configured CMake build folder to build the
                           module in (e.g. ./build after ./scripts/build.sh:
                           only what changed is rebuilt); default build/pip,
                           configured here without tests, benchmarks, tools
                           or Java.
  CALCJIT_BUILD_JOBS       parallel build jobs (default: every core).
"""

import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
VERSION = re.search(r"project\(calcjit VERSION ([0-9.]+)",
                    (ROOT / "CMakeLists.txt").read_text()).group(1)
# setuptools' own folders, out of the source tree's top (./build is CMake's).
SETUPTOOLS_DIR = ROOT / "build" / "setuptools"


class CMakeBuild(build_ext):
    """Runs CMake for the one extension and copies the module where setuptools
    packs it."""

    def build_extension(self, ext):
        build_dir = pathlib.Path(os.environ.get("CALCJIT_CMAKE_BUILD_DIR", ROOT / "build" / "pip"))
        if not (build_dir / "CMakeCache.txt").exists():
            subprocess.run([
                "cmake", "-S", str(ROOT), "-B", str(build_dir), "-G", "Ninja",
                "-DCMAKE_BUILD_TYPE=Release", "-DCALCJIT_BUILD_TESTS=OFF",
                "-DCALCJIT_BUILD_BENCHMARKS=OFF", "-DCALCJIT_BUILD_TOOLS=OFF",
                "-DCALCJIT_BUILD_JAVA=OFF", f"-DPython_EXECUTABLE={sys.executable}",
            ], check=True)
        jobs = os.environ.get("CALCJIT_BUILD_JOBS", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "calcjit_python",
                        "-j", jobs], check=True)
        built = sorted((build_dir / "python" / "calcjit").glob("_calcjit*.so"))
        if not built:
            raise RuntimeError(f"CMake built no calcjit/_calcjit*.so in {build_dir}")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[-1], target)


SETUPTOOLS_DIR.mkdir(parents=True, exist_ok=True)
setup(
    version=VERSION,
    packages=["calcjit"],
    package_dir={"calcjit": "python/calcjit"},
    package_data={"calcjit": ["_calcjit.pyi", "py.typed"]},
    ext_modules=[Extension("calcjit._calcjit", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
    options={
        "build": {"build_base": str(SETUPTOOLS_DIR / "build")},
        "egg_info": {"egg_base": str(SETUPTOOLS_DIR)},
    },
)
