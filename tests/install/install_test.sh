#!/bin/sh
# `cmake --install` of the build into a fresh prefix, then each piece used as
# its users would, from the prefix alone:
#   - C and C++: a separate project (examples/cmake_consumer) that finds it with
#     find_package(calcjit), and the C and C++ programs built again with
#     pkg-config only, as docs/CPP.md says (-std=c++20, an rpath: they run
#     without LD_LIBRARY_PATH), and the #error an older C++ standard gets;
#   - the calcjit command from bin/;
#   - Java: the jar (a program run against it alone), its sources jar and pom;
#     the README's `mvn install:install-file` into a fresh local repository
#     and a Maven project (tests/install/maven_consumer) built against it,
#     its plugins from the Maven cache of scripts/setup.sh (no download);
#   - Python: `pip install --no-build-isolation --no-index` of the source tree
#     into a fresh venv (--system-site-packages: Debian's numpy and pandas),
#     then `import calcjit` from outside the source and build trees.
#   tests/install/install_test.sh BUILD_DIR SOURCE_DIR [MAVEN_REPO]
set -eu
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
version=$(sed -n 's/^project(calcjit VERSION \([0-9.]*\).*/\1/p' "$source/CMakeLists.txt")
cmake --install "$build" --prefix "$prefix" >/dev/null

# C and C++ through CMake.
test -L "$prefix/lib/libcalcjit.so"
ls "$prefix/lib/libcalcjit.so.0" "$prefix/lib/libcalcjit.so.$version" >/dev/null
test -f "$prefix/include/calcjit/calcjit.h"
cmake -S "$source/examples/cmake_consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/consumer" >/dev/null
cpp=$(LD_LIBRARY_PATH="$prefix/lib" "$work/consumer/consumer_cpp")
c=$(LD_LIBRARY_PATH="$prefix/lib" "$work/consumer/consumer_c")
test "$cpp" = "3 5 7" || { echo "C++ consumer printed '$cpp'"; exit 1; }
test "$c" = "3 5 7" || { echo "C consumer printed '$c'"; exit 1; }

# C through pkg-config.
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs calcjit)
test "$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --modversion calcjit)" = "$version"
libdir=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --variable=libdir calcjit)
cc -o "$work/consumer_pc" "$source/examples/cmake_consumer/main.c" $flags -Wl,-rpath,"$libdir"
pc=$(env -u LD_LIBRARY_PATH "$work/consumer_pc")
test "$pc" = "3 5 7" || { echo "pkg-config consumer printed '$pc'"; exit 1; }
# C++ through pkg-config (docs/CPP.md): -std=c++20 named, the rpath recorded.
g++ -std=c++20 -o "$work/consumer_pc_cpp" "$source/examples/cmake_consumer/main.cc" $flags \
  -Wl,-rpath,"$libdir"
pc_cpp=$(env -u LD_LIBRARY_PATH "$work/consumer_pc_cpp")
test "$pc_cpp" = "3 5 7" || { echo "pkg-config C++ consumer printed '$pc_cpp'"; exit 1; }
# Without -std=c++20 (GCC 12's default is C++17): the headers say what is needed.
if g++ -std=c++17 -o "$work/old" "$source/examples/cmake_consumer/main.cc" $flags \
    2>"$work/old.log"; then
  echo "a C++17 build of the C++ API succeeded"; exit 1
fi
grep -q "needs C++20: compile with -std=c++20" "$work/old.log" || { cat "$work/old.log"; exit 1; }

# The command line.
"$prefix/bin/calcjit" check "$source/examples/ranking/ranking.calc" >/dev/null
scores=$("$prefix/bin/calcjit" eval "$source/examples/ranking/ranking.calc" \
  --input "$source/examples/ranking/items.csv" --output - --group-by query_id \
  --keep item_id --outputs score | wc -l)
test "$scores" -eq 121 || { echo "calcjit eval wrote $scores lines"; exit 1; }

# Java, when the build has it.
if [ -f "$build/java/calcjit.jar" ]; then
  jars=$prefix/share/java
  ls "$jars/calcjit-$version.jar" "$jars/calcjit-$version-sources.jar" \
     "$jars/calcjit-$version.pom" >/dev/null
  unzip -l "$jars/calcjit-$version.jar" | grep -q 'io/calcjit/native/linux-x86_64/libcalcjit_jni.so'
  unzip -l "$jars/calcjit-$version-sources.jar" | grep -q 'io/calcjit/Engine.java'
  /usr/bin/python3 - "$jars/calcjit-$version.pom" "$version" <<'PY'
import sys
import xml.etree.ElementTree as ET
ns = {"m": "http://maven.apache.org/POM/4.0.0"}
root = ET.parse(sys.argv[1]).getroot()
got = [root.find(f"m:{k}", ns).text for k in ("groupId", "artifactId", "version", "packaging")]
assert got == ["io.calcjit", "calcjit", sys.argv[2], "jar"], got
PY
  mkdir "$work/java"
  cat > "$work/java/Installed.java" <<'JAVA'
import io.calcjit.*;

public class Installed {
  public static void main(String[] args) {
    try (FeatureSet set = FeatureSet.fromText("input x; f = x * 2 + 1;");
        Engine engine = Engine.create(set, EngineOptions.of(Backend.VM));
        Session session = engine.newSession()) {
      session.bindInput("x", new float[] {1, 2, 3});
      session.evaluate(3);
      float[] f = session.output("f");
      System.out.println(f[0] + " " + f[1] + " " + f[2] + " " + Engine.libraryVersion());
    }
  }
}
JAVA
  java_out=$(cd "$work/java" && java -cp "$jars/calcjit-$version.jar" Installed.java)
  test "$java_out" = "3.0 5.0 7.0 $version" || { echo "Java printed '$java_out'"; exit 1; }

  # Maven: the README's install:install-file into a fresh local repository,
  # then a Maven project that depends on io.calcjit:calcjit. Maven's plugins
  # come from the repository scripts/setup.sh filled (a file:// mirror of
  # every remote), so nothing is downloaded and the run takes seconds.
  maven_cache=${3:-}
  if [ -z "$maven_cache" ] || [ ! -f "$maven_cache/.complete" ]; then
    echo "no Maven repository '$maven_cache' of requirements/maven/pom.xml: run scripts/setup.sh"
    exit 1
  fi
  cat > "$work/settings.xml" <<XML
<settings><mirrors><mirror><id>calcjit-setup-cache</id><mirrorOf>*</mirrorOf>
<url>file://$maven_cache</url></mirror></mirrors></settings>
XML
  cp -r "$source/tests/install/maven_consumer" "$work/maven"
  sed -i "s/@CALCJIT_VERSION@/$version/" "$work/maven/pom.xml"
  mvn_fresh() { mvn -B -q -s "$work/settings.xml" -Dmaven.repo.local="$work/m2" "$@"; }
  (cd "$work/maven" && mvn_fresh install:install-file -Dfile="$jars/calcjit-$version.jar" \
    -DpomFile="$jars/calcjit-$version.pom") >"$work/mvn.log" 2>&1 || { cat "$work/mvn.log"; exit 1; }
  (cd "$work/maven" && mvn_fresh compile) >"$work/mvn.log" 2>&1 || { cat "$work/mvn.log"; exit 1; }
  maven_out=$(java -cp "$work/maven/target/classes:$work/m2/io/calcjit/calcjit/$version/calcjit-$version.jar" \
    consumer.Main)
  test "$maven_out" = "3.0 5.0 7.0 $version" || { echo "Maven project printed '$maven_out'"; exit 1; }
fi

# Python: pip install of the source tree (the module built by CMake in this
# build folder: only what changed is rebuilt), imported outside both trees.
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
CALCJIT_CMAKE_BUILD_DIR=$build "$work/venv/bin/pip" install --quiet --no-build-isolation \
  --no-index "$source" >"$work/pip.log" 2>&1 || { cat "$work/pip.log"; exit 1; }
(cd "$work" && env -u PYTHONPATH "$work/venv/bin/python" - "$work/venv" "$version") <<'PY'
import pathlib
import sys

import numpy as np

import calcjit
import calcjit.dask  # noqa: F401 (importable; needs Dask only when called)

package = pathlib.Path(calcjit.__file__).resolve().parent
assert pathlib.Path(sys.argv[1]).resolve() in package.parents, package
assert calcjit.__version__ == sys.argv[2], calcjit.__version__
assert (package / "_calcjit.pyi").is_file() and (package / "py.typed").is_file()
engine = calcjit.parse("input x; f = x * 2 + 1;").compile()
f = engine.evaluate({"x": np.array([1, 2, 3], dtype=np.float32)})["f"]
assert f.tolist() == [3, 5, 7], f
PY
echo "installed and used: C++ $cpp / C $c / pkg-config $pc, $pc_cpp / CLI / Java, Maven / Python"
