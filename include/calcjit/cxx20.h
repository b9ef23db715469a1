// The C++ API needs C++20 (std::span, designated initializers); every C++
// header of calcjit includes this first, so that an older standard stops here
// with one clear message rather than with errors deep in the headers. The C
// API (calcjit/calcjit.h) needs only C11, or C++11 when included from C++.
#ifndef CALCJIT_CXX20_H_
#define CALCJIT_CXX20_H_

#if !defined(__cplusplus) || __cplusplus < 202002L
#error \
    "calcjit's C++ API needs C++20: compile with -std=c++20 (g++ -std=c++20 $(pkg-config --cflags --libs calcjit)); C programs include calcjit/calcjit.h"
#endif

#endif  // CALCJIT_CXX20_H_
