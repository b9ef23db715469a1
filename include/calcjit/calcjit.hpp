// calcjit: compiles search-ranking feature sets and evaluates them, with the
// same bits in every backend. The whole public C++ API.
#ifndef CALCJIT_CALCJIT_HPP_
#define CALCJIT_CALCJIT_HPP_

#include "calcjit/cxx20.h"

#include "calcjit/cpu.h"
#include "calcjit/dump.h"
#include "calcjit/names.h"
#include "calcjit/numbers.h"
#include "calcjit/engine.h"
#include "calcjit/feature_set.h"
#include "calcjit/matrix.h"
#include "calcjit/schema.h"
#include "calcjit/serving.h"
#include "calcjit/status.h"

#endif  // CALCJIT_CALCJIT_HPP_
