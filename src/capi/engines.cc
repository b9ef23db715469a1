// The C API's engines: options, create, reload, statistics, shadow evaluations.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "calcjit/calcjit.h"
#include "capi/arguments.h"
#include "capi/errors.h"
#include "capi/handles.h"

using calcjit::Status;
using calcjit::UserError;
using calcjit::capi::BackendToC;
using calcjit::capi::Call;
using calcjit::capi::CallValue;
using calcjit::capi::CheckBackend;
using calcjit::capi::CheckBytes;
using calcjit::capi::CheckFormat;
using calcjit::capi::CreateHandle;
using calcjit::capi::EngineOptionsOf;
using calcjit::capi::NullArgument;

extern "C" {

// ---------------------------------------------------------------------------
// Engines

void calcjit_options_init(calcjit_options* options) {
  if (options == nullptr) return;
  options->backend = CALCJIT_BACKEND_AUTO;
  options->outputs = nullptr;
  options->output_count = 0;
  options->isa = nullptr;
}

calcjit_status calcjit_engine_create(const calcjit_set* set, const calcjit_options* options,
                                     calcjit_engine** out) {
  return Call([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    if (set == nullptr) return NullArgument("set");
    calcjit::ServingOptions serving;
    CALCJIT_RETURN_IF_ERROR(EngineOptionsOf(options, &serving.engine));
    calcjit::Result<calcjit::ServingEngine> engine =
        calcjit::ServingEngine::Create(set->set, serving);
    if (!engine.ok()) return engine.status();
    return CreateHandle(std::make_unique<calcjit_engine>(std::move(engine).value()), out);
  });
}

calcjit_status calcjit_engine_reload(calcjit_engine* engine, const calcjit_set* set,
                                     uint64_t* version) {
  return Call([&]() -> Status {
    if (engine == nullptr) return NullArgument("engine");
    if (set == nullptr) return NullArgument("set");
    calcjit::Result<std::uint64_t> loaded = engine->engine.Reload(set->set);
    if (!loaded.ok()) return loaded.status();
    if (version != nullptr) *version = *loaded;
    return Status::Ok();
  });
}

calcjit_status calcjit_engine_reload_bytes(calcjit_engine* engine, const void* data, size_t size,
                                           calcjit_format format, uint64_t* version) {
  return Call([&]() -> Status {
    if (engine == nullptr) return NullArgument("engine");
    std::string_view bytes;
    CALCJIT_RETURN_IF_ERROR(CheckBytes(data, size, &bytes));
    calcjit::Format cpp_format{};
    CALCJIT_RETURN_IF_ERROR(CheckFormat(format, &cpp_format));
    calcjit::Result<std::uint64_t> loaded = engine->engine.Reload(bytes, cpp_format);
    if (!loaded.ok()) return loaded.status();
    if (version != nullptr) *version = *loaded;
    return Status::Ok();
  });
}

void calcjit_engine_free(calcjit_engine* engine) {
  // The destructor joins the engine's threads; it does not throw.
  delete engine;
}

uint64_t calcjit_engine_version(const calcjit_engine* engine) {
  return CallValue<std::uint64_t>(0, [&](std::uint64_t& version) -> Status {
    if (engine == nullptr) return NullArgument("engine");
    version = engine->engine.version();
    return Status::Ok();
  });
}

calcjit_status calcjit_engine_schema(const calcjit_engine* engine, calcjit_schema** out) {
  return Call([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    if (engine == nullptr) return NullArgument("engine");
    return CreateHandle(std::make_unique<calcjit_schema>(engine->engine.schema()), out);
  });
}

calcjit_status calcjit_engine_wait_for_jit(const calcjit_engine* engine) {
  return Call([&]() -> Status {
    if (engine == nullptr) return NullArgument("engine");
    engine->engine.WaitForJit();
    return Status::Ok();
  });
}

calcjit_status calcjit_engine_stats(const calcjit_engine* engine, calcjit_stats* out) {
  return Call([&]() -> Status {
    if (engine == nullptr) return NullArgument("engine");
    if (out == nullptr) return NullArgument("out");
    const calcjit::VersionStats stats = engine->engine.Stats();
    calcjit_stats c{};
    c.version = stats.version;
    c.backend = BackendToC(stats.backend);
    c.jit_pending = stats.jit_pending ? 1 : 0;
    c.parse_ms = stats.parse_ms;
    c.vm_compile_ms = stats.vm_compile_ms;
    c.jit_compile_ms = stats.jit_compile_ms;
    c.evaluations = stats.evaluations;
    c.items = stats.items;
    c.errors = stats.errors;
    c.shadow_evaluations = stats.shadow_evaluations;
    c.shadow_dropped = stats.shadow_dropped;
    c.mismatches = stats.mismatches;
    *out = c;
    return Status::Ok();
  });
}

calcjit_status calcjit_engine_tiers(const calcjit_engine* engine, calcjit_tiers* out) {
  return Call([&]() -> Status {
    if (engine == nullptr) return NullArgument("engine");
    if (out == nullptr) return NullArgument("out");
    const calcjit::TierMeasurement tiers = engine->engine.Stats().tiers;
    thread_local std::string note;
    note = tiers.note;
    calcjit_tiers c{};
    c.measured = tiers.measured ? 1 : 0;
    c.items = tiers.items;
    c.vm_ns_per_item = tiers.vm_ns_per_item;
    c.jit_ns_per_item = tiers.jit_ns_per_item;
    c.chosen = BackendToC(tiers.chosen);
    c.note = note.c_str();
    *out = c;
    return Status::Ok();
  });
}

const char* calcjit_engine_backend_note(const calcjit_engine* engine) {
  return CallValue<const char*>(nullptr, [&](const char*& note) -> Status {
    if (engine == nullptr) return NullArgument("engine");
    thread_local std::string copy;
    copy = engine->engine.Stats().backend_note;
    note = copy.c_str();
    return Status::Ok();
  });
}

calcjit_status calcjit_engine_set_shadow(calcjit_engine* engine, double fraction,
                                         calcjit_backend backend, const calcjit_set* candidate) {
  return Call([&]() -> Status {
    if (engine == nullptr) return NullArgument("engine");
    calcjit::ShadowOptions options;
    options.fraction = fraction;
    CALCJIT_RETURN_IF_ERROR(CheckBackend(backend, &options.backend));
    if (candidate != nullptr) {
      options.candidate = std::make_shared<const calcjit::FeatureSet>(candidate->set);
    }
    return engine->engine.SetShadow(options);
  });
}

calcjit_status calcjit_engine_drain_shadow(const calcjit_engine* engine) {
  return Call([&]() -> Status {
    if (engine == nullptr) return NullArgument("engine");
    engine->engine.DrainShadow();
    return Status::Ok();
  });
}

size_t calcjit_engine_mismatch_count(const calcjit_engine* engine) {
  return CallValue<std::size_t>(0, [&](std::size_t& count) -> Status {
    if (engine == nullptr) return NullArgument("engine");
    count = engine->engine.Mismatches().size();
    return Status::Ok();
  });
}

calcjit_status calcjit_engine_mismatch(const calcjit_engine* engine, size_t index,
                                       calcjit_mismatch* out) {
  return Call([&]() -> Status {
    if (engine == nullptr) return NullArgument("engine");
    if (out == nullptr) return NullArgument("out");
    const std::vector<calcjit::Mismatch> mismatches = engine->engine.Mismatches();
    if (index >= mismatches.size()) {
      return UserError("mismatch index " + std::to_string(index) + " is out of range (" +
                       std::to_string(mismatches.size()) + " recorded)");
    }
    const calcjit::Mismatch& m = mismatches[index];
    thread_local std::string output;
    output = m.output;
    calcjit_mismatch c{};
    c.version = m.version;
    c.output = output.c_str();
    c.item = m.item;
    c.served_bits = m.served_bits;
    c.shadow_bits = m.shadow_bits;
    *out = c;
    return Status::Ok();
  });
}

}  // extern "C"
