// The shared library libcalcjit.so (src/install.cmake) is the whole static
// library; CMake needs a source of its own for it. This records which build
// it is, for `strings libcalcjit.so | grep calcjit-version`.
extern "C" {
[[gnu::used]] const char calcjit_build_version[] = "calcjit-version " CALCJIT_VERSION;
}
