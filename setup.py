"""Builds the calcjit Python package: `pip install .` (docs/PYTHON.md).

Two steps, the same with or without build isolation:
  1. CMake builds the shared calcjit library (libcalcjit.so.0, the C++ API
     users link; target calcjit_shared) in a build folder;
  2. setuptools compiles the module (python/src/*.cc, pybind11) for the
     interpreter running pip and links it to that library, which goes into
     the package next to the module (found there through the module's rpath,
     $ORIGIN). The wheel thus carries its native library and needs only
     Debian's shared libLLVM-16 and libstdc++ where it runs.

pybind11 comes from the build environment: pyproject.toml pins a release
from PyPI for isolated builds (one that knows numpy 2); an offline build
(--no-build-isolation) uses the pybind11 it finds, Debian's headers when
Python has none installed.

Environment:
  CALCJIT_CMAKE_BUILD_DIR  an already configured CMake build folder (e.g. ./build
                           after ./scripts/build.sh): only what changed in the
                           library is rebuilt. Default build/pip, configured here
                           for the library alone (no tests, benchmarks, tools,
                           Java or Python module: a first build compiles the whole
                           library).
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
SOVERSION = VERSION.split(".")[0]
# setuptools' own folders, out of the source tree's top (./build is CMake's).
SETUPTOOLS_DIR = ROOT / "build" / "setuptools"


def pybind11_include():
    """pybind11's headers: the installed Python package's, else none (the
    compiler's default paths then find Debian's /usr/include/pybind11)."""
    try:
        import pybind11  # noqa: PLC0415 (a build requirement, optional offline)
    except ImportError:
        return []
    return [pybind11.get_include()]


def shared_library():
    """Builds libcalcjit.so in the CMake build folder; returns its real file."""
    build_dir = pathlib.Path(os.environ.get("CALCJIT_CMAKE_BUILD_DIR", ROOT / "build" / "pip"))
    if not (build_dir / "CMakeCache.txt").exists():
        subprocess.run([
            "cmake", "-S", str(ROOT), "-B", str(build_dir), "-G", "Ninja",
            "-DCMAKE_BUILD_TYPE=Release", "-DCALCJIT_BUILD_TESTS=OFF",
            "-DCALCJIT_BUILD_BENCHMARKS=OFF", "-DCALCJIT_BUILD_TOOLS=OFF",
            "-DCALCJIT_BUILD_JAVA=OFF", "-DCALCJIT_BUILD_PYTHON=OFF",
        ], check=True)
    jobs = os.environ.get("CALCJIT_BUILD_JOBS", str(os.cpu_count() or 1))
    subprocess.run(["cmake", "--build", str(build_dir), "--target", "calcjit_shared", "-j", jobs],
                   check=True)
    library = build_dir / "src" / f"libcalcjit.so.{SOVERSION}"
    if not library.exists():
        raise RuntimeError(f"CMake built no {library}")
    return library.resolve()


class BuildWithLibrary(build_ext):
    """Builds the library with CMake first, links the module to it, and puts a
    copy of it in the package (as libcalcjit.so.SOVERSION, its soname)."""

    def build_extensions(self):
        library = shared_library()
        for ext in self.extensions:
            ext.extra_link_args = [str(library), *ext.extra_link_args]
        super().build_extensions()
        package = pathlib.Path(self.get_ext_fullpath("calcjit._calcjit")).parent
        package.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(library, package / f"libcalcjit.so.{SOVERSION}")


module = Extension(
    "calcjit._calcjit",
    sources=sorted(str(p.relative_to(ROOT)) for p in (ROOT / "python" / "src").glob("*.cc")),
    include_dirs=[str(ROOT / "include"), *pybind11_include()],
    define_macros=[("CALCJIT_VERSION", f'"{VERSION}"')],
    language="c++",
    # As every calcjit target (cmake/CompilerFlags.cmake): the module only
    # moves floats, but nothing of calcjit is built with contraction or
    # fast-math.
    extra_compile_args=["-std=c++20", "-O2", "-fvisibility=hidden", "-ffp-contract=off",
                        "-fno-fast-math"],
    extra_link_args=["-Wl,-rpath,$ORIGIN"],
)

SETUPTOOLS_DIR.mkdir(parents=True, exist_ok=True)
setup(
    version=VERSION,
    packages=["calcjit"],
    package_dir={"calcjit": "python/calcjit"},
    package_data={"calcjit": ["_calcjit.pyi", "py.typed"]},
    ext_modules=[module],
    cmdclass={"build_ext": BuildWithLibrary},
    zip_safe=False,
    options={
        "build": {"build_base": str(SETUPTOOLS_DIR / "build")},
        "egg_info": {"egg_base": str(SETUPTOOLS_DIR)},
    },
)
