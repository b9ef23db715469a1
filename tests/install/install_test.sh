#!/bin/sh
# `cmake --install` of the build into a fresh prefix, then a separate project
# (examples/cmake_consumer) that finds it with find_package(calcjit) and uses
# both the C++ and the C API from the installed, versioned shared library.
#   tests/install/install_test.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -L "$work/prefix/lib/libcalcjit.so"
ls "$work/prefix/lib/libcalcjit.so.0" "$work/prefix/lib/libcalcjit.so.0.1.0" >/dev/null
test -f "$work/prefix/include/calcjit/calcjit.h"
cmake -S "$source/examples/cmake_consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/consumer" >/dev/null
cpp=$(LD_LIBRARY_PATH="$work/prefix/lib" "$work/consumer/consumer_cpp")
c=$(LD_LIBRARY_PATH="$work/prefix/lib" "$work/consumer/consumer_c")
test "$cpp" = "3 5 7" || { echo "C++ consumer printed '$cpp'"; exit 1; }
test "$c" = "3 5 7" || { echo "C consumer printed '$c'"; exit 1; }
echo "installed and used: $cpp / $c"
