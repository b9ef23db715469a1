// The JNI layer of io.calcjit (java/src/main/java/io/calcjit/Native.java)
// over the stable C API (include/calcjit/calcjit.h), and nothing else.
//
// Rules kept by every entry point:
// - Each JNI call that can fail is checked; on a pending exception the entry
//   point releases what it holds and returns at once.
// - No C++ exception leaves this file: every body runs in Guarded(), which
//   turns bad_alloc into OutOfMemoryError and anything else into
//   IllegalStateException. (The C API itself never throws.)
// - A failed calcjit call becomes a CalcJitException (ThrowCalcJit, the one
//   place that reads calcjit_last_error*), with its kind and location.
// - Java arrays are pinned with Get/ReleasePrimitiveArrayCritical only around
//   calcjit_session_evaluate_many, with no JNI call in between.
// - No binding rule is here: lengths, defaults, overlaps, zero items and zero
//   queries are the C API's (the runtime's), and so are their messages.
// The callers (the io.calcjit classes) guarantee live handles and one thread
// per session; the checks here are for what only native code can see (direct
// buffer addresses, capacities and alignment).
#include <jni.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "calcjit/calcjit.h"
#include "io_calcjit_Native.h"

namespace {

// Classes and methods looked up once, in JNI_OnLoad (global references).
struct Cache {
  jclass calcjit_exception = nullptr;
  jmethodID calcjit_exception_init = nullptr;  // (int, String, String, String)
  jclass illegal_argument = nullptr;
  jmethodID illegal_argument_init = nullptr;
  jclass illegal_state = nullptr;
  jmethodID illegal_state_init = nullptr;
  jclass null_pointer = nullptr;
  jmethodID null_pointer_init = nullptr;
  jclass out_of_memory = nullptr;
  jclass string = nullptr;
  jmethodID string_from_bytes = nullptr;  // String(byte[], String charsetName)
  jstring utf8 = nullptr;
};
Cache cache;

bool LookUpClass(JNIEnv* env, const char* name, jclass* out) {
  jclass local = env->FindClass(name);
  if (local == nullptr) return false;
  *out = static_cast<jclass>(env->NewGlobalRef(local));
  env->DeleteLocalRef(local);
  return *out != nullptr;
}

bool LookUpAll(JNIEnv* env) {
  if (!LookUpClass(env, "io/calcjit/CalcJitException", &cache.calcjit_exception)) return false;
  cache.calcjit_exception_init =
      env->GetMethodID(cache.calcjit_exception, "<init>",
                       "(ILjava/lang/String;Ljava/lang/String;Ljava/lang/String;)V");
  if (cache.calcjit_exception_init == nullptr) return false;
  if (!LookUpClass(env, "java/lang/IllegalArgumentException", &cache.illegal_argument)) {
    return false;
  }
  cache.illegal_argument_init =
      env->GetMethodID(cache.illegal_argument, "<init>", "(Ljava/lang/String;)V");
  if (cache.illegal_argument_init == nullptr) return false;
  if (!LookUpClass(env, "java/lang/IllegalStateException", &cache.illegal_state)) return false;
  cache.illegal_state_init =
      env->GetMethodID(cache.illegal_state, "<init>", "(Ljava/lang/String;)V");
  if (cache.illegal_state_init == nullptr) return false;
  if (!LookUpClass(env, "java/lang/NullPointerException", &cache.null_pointer)) return false;
  cache.null_pointer_init = env->GetMethodID(cache.null_pointer, "<init>", "(Ljava/lang/String;)V");
  if (cache.null_pointer_init == nullptr) return false;
  if (!LookUpClass(env, "java/lang/OutOfMemoryError", &cache.out_of_memory)) return false;
  if (!LookUpClass(env, "java/lang/String", &cache.string)) return false;
  cache.string_from_bytes = env->GetMethodID(cache.string, "<init>", "([BLjava/lang/String;)V");
  if (cache.string_from_bytes == nullptr) return false;
  jstring utf8 = env->NewStringUTF("UTF-8");
  if (utf8 == nullptr) return false;
  cache.utf8 = static_cast<jstring>(env->NewGlobalRef(utf8));
  env->DeleteLocalRef(utf8);
  return cache.utf8 != nullptr;
}

// ---------------------------------------------------------------------------
// Strings and exceptions.

// A Java string from UTF-8 (NewStringUTF wants modified UTF-8, which differs
// for NUL and characters outside the BMP: only ASCII takes that path).
// nullptr with an exception pending on failure.
jstring NewUtf8String(JNIEnv* env, const char* text) {
  if (text == nullptr) text = "";
  const std::size_t size = std::strlen(text);
  bool ascii = true;
  for (std::size_t k = 0; k < size && ascii; ++k) {
    ascii = static_cast<unsigned char>(text[k]) < 0x80;
  }
  if (ascii) return env->NewStringUTF(text);
  if (size > static_cast<std::size_t>(std::numeric_limits<jsize>::max())) {
    return env->NewStringUTF("(a message too long to show)");
  }
  jbyteArray bytes = env->NewByteArray(static_cast<jsize>(size));
  if (bytes == nullptr) return nullptr;
  env->SetByteArrayRegion(bytes, 0, static_cast<jsize>(size), reinterpret_cast<const jbyte*>(text));
  jstring result = nullptr;
  if (!env->ExceptionCheck()) {
    result = static_cast<jstring>(
        env->NewObject(cache.string, cache.string_from_bytes, bytes, cache.utf8));
  }
  env->DeleteLocalRef(bytes);
  return result;
}

// Throws `exception_class(message)`; if even that fails, its error is pending.
void ThrowJava(JNIEnv* env, jclass exception_class, jmethodID init, const std::string& message) {
  jstring text = NewUtf8String(env, message.c_str());
  if (text == nullptr) return;
  jobject exception = env->NewObject(exception_class, init, text);
  env->DeleteLocalRef(text);
  if (exception == nullptr) return;
  env->Throw(static_cast<jthrowable>(exception));
  env->DeleteLocalRef(exception);
}

void ThrowIllegalArgument(JNIEnv* env, const std::string& message) {
  ThrowJava(env, cache.illegal_argument, cache.illegal_argument_init, message);
}

void ThrowIllegalState(JNIEnv* env, const std::string& message) {
  ThrowJava(env, cache.illegal_state, cache.illegal_state_init, message);
}

// The calling thread's last calcjit error as a CalcJitException.
void ThrowCalcJit(JNIEnv* env, calcjit_status code) {
  // Copies first: the C API's strings live until its next call on this thread.
  const std::string message = calcjit_last_error();
  const std::string location = calcjit_last_error_location();
  const std::string details = calcjit_last_error_details();
  jstring j_message = NewUtf8String(env, message.c_str());
  if (j_message == nullptr) return;
  jstring j_location = NewUtf8String(env, location.c_str());
  if (j_location == nullptr) return;
  jstring j_details = NewUtf8String(env, details.c_str());
  if (j_details == nullptr) return;
  jobject exception = env->NewObject(cache.calcjit_exception, cache.calcjit_exception_init,
                                     static_cast<jint>(code), j_message, j_location, j_details);
  env->DeleteLocalRef(j_message);
  env->DeleteLocalRef(j_location);
  env->DeleteLocalRef(j_details);
  if (exception == nullptr) return;
  env->Throw(static_cast<jthrowable>(exception));
  env->DeleteLocalRef(exception);
}

// True when `code` is CALCJIT_OK; otherwise throws and returns false.
bool Check(JNIEnv* env, calcjit_status code) {
  if (code == CALCJIT_OK) return true;
  ThrowCalcJit(env, code);
  return false;
}

// Runs `body` (which returns T) with every C++ exception turned into a Java
// one; `fallback` is returned whenever an exception is pending.
template <typename T, typename Body>
T Guarded(JNIEnv* env, T fallback, Body&& body) noexcept {
  try {
    T result = body();
    return env->ExceptionCheck() ? fallback : result;
  } catch (const std::bad_alloc&) {
    if (!env->ExceptionCheck()) env->ThrowNew(cache.out_of_memory, "calcjit: native out of memory");
  } catch (...) {
    if (!env->ExceptionCheck()) ThrowIllegalState(env, "calcjit: unexpected native exception");
  }
  return fallback;
}

// A Java string as real UTF-8 (GetStringUTFChars gives modified UTF-8: two
// 3-byte surrogates for a character outside the BMP, C0 80 for NUL, which
// match no name of a set). Converted from the UTF-16 code units here. A
// lone surrogate has no UTF-8 form and a NUL cannot cross the C API's
// char* names: both are an IllegalArgumentException naming `what`. False
// with an exception pending on failure.
bool GetString(JNIEnv* env, jstring text, const char* what, std::string* out) {
  if (text == nullptr) {
    ThrowJava(env, cache.null_pointer, cache.null_pointer_init, std::string(what) + " is null");
    return false;
  }
  const jsize length = env->GetStringLength(text);
  std::u16string units(static_cast<std::size_t>(length), u'\0');
  env->GetStringRegion(text, 0, length, reinterpret_cast<jchar*>(units.data()));
  if (env->ExceptionCheck()) return false;
  out->clear();
  out->reserve(units.size());
  for (std::size_t k = 0; k < units.size(); ++k) {
    std::uint32_t c = units[k];
    if (c >= 0xD800 && c <= 0xDBFF && k + 1 < units.size() && units[k + 1] >= 0xDC00 &&
        units[k + 1] <= 0xDFFF) {
      c = 0x10000 + ((c - 0xD800) << 10) + (units[k + 1] - 0xDC00u);
      ++k;
    } else if (c >= 0xD800 && c <= 0xDFFF) {
      char unit[8];
      std::snprintf(unit, sizeof unit, "\\u%04x", static_cast<unsigned>(c));
      ThrowIllegalArgument(env, std::string(what) + " has an unpaired surrogate (" + unit +
                                    ") at index " + std::to_string(k) +
                                    ": it is not valid Unicode");
      return false;
    }
    if (c == 0) {
      ThrowIllegalArgument(env, std::string(what) +
                                    " contains a NUL character (\\u0000) at index " +
                                    std::to_string(k) + ", which no calcjit name can cross");
      return false;
    }
    if (c < 0x80) {
      *out += static_cast<char>(c);
    } else if (c < 0x800) {
      *out += static_cast<char>(0xC0 | (c >> 6));
      *out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      *out += static_cast<char>(0xE0 | (c >> 12));
      *out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      *out += static_cast<char>(0xF0 | (c >> 18));
      *out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      *out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return true;
}

template <typename T>
T* FromHandle(jlong handle) {
  return reinterpret_cast<T*>(static_cast<std::uintptr_t>(handle));
}

jlong ToHandle(const void* pointer) {
  return static_cast<jlong>(reinterpret_cast<std::uintptr_t>(pointer));
}

// ---------------------------------------------------------------------------
// Sessions: the calcjit_session and what each slot (one bound name) refers to.
// Every slot is bound as a buffer whose prefix each evaluation uses
// (calcjit_session_bind_*_prefix): the C API checks every length and reports
// every binding error; JNI only finds and pins the memory.

struct Slot {
  bool used = false;
  bool output = false;
  bool is_array = false;  // a float[] passed at each evaluation
  std::string name;
  // What the calcjit_session has bound for this name now.
  const float* bound_data = nullptr;
  std::size_t bound_count = 0;
};

// Invariant: the C session may hold the address of a float[] only between
// the pin and the release of one evaluation, or stale after it; a stale one
// is never read, because every evaluation binds each float[] slot again from
// its new pin before evaluating (or skips the rebind when the array is pinned
// at the same address), and outputs bound to arrays are read on the Java side,
// never through calcjit_session_output.
struct JniSession {
  calcjit_session* session = nullptr;
  std::vector<Slot> slots;
  std::vector<jint> item_counts_java;  // staging for evaluate_many (reused, no allocation)
  std::vector<std::size_t> item_counts;
  // During an evaluation with float[] slots: their local references, lengths
  // and pinned addresses, by slot.
  std::vector<jfloatArray> arrays;
  std::vector<std::size_t> array_lengths;
  std::vector<void*> pinned;
};

calcjit_status BindSlot(JniSession& s, Slot& slot, const float* data, std::size_t count) {
  const calcjit_status code =
      slot.output ? calcjit_session_bind_output_prefix(s.session, slot.name.c_str(),
                                                       const_cast<float*>(data), count)
                  : calcjit_session_bind_input_prefix(s.session, slot.name.c_str(), data, count);
  if (code == CALCJIT_OK) {
    slot.bound_data = data;
    slot.bound_count = count;
  }
  return code;
}

void ReleaseArrays(JNIEnv* env, JniSession& s, std::size_t pinned_count) {
  for (std::size_t k = 0; k < pinned_count; ++k) {
    if (s.pinned[k] == nullptr) continue;
    // Outputs are written back (a no-op when the array was not copied).
    env->ReleasePrimitiveArrayCritical(s.arrays[k], s.pinned[k], s.slots[k].output ? 0 : JNI_ABORT);
    s.pinned[k] = nullptr;
  }
  for (std::size_t k = 0; k < s.arrays.size(); ++k) {
    if (s.arrays[k] != nullptr) env->DeleteLocalRef(s.arrays[k]);
    s.arrays[k] = nullptr;
  }
}

// Evaluates `query_count` queries of `counts[q]` items (none for 0). Direct
// buffers were bound once, at bind time; each float[] is pinned and bound
// (whole: the C API uses the prefix it needs) for the call.
jlong Evaluate(JNIEnv* env, JniSession& s, std::size_t query_count, const std::size_t* counts,
               jobjectArray arrays) {
  bool has_arrays = false;
  for (const Slot& slot : s.slots) has_arrays |= slot.used && slot.is_array;
  std::uint64_t version = 0;
  if (!has_arrays) {
    if (!Check(env, calcjit_session_evaluate_many(s.session, query_count, counts, &version))) {
      return 0;
    }
    return static_cast<jlong>(version);
  }

  // float[] slots: every JNI call before the first pin.
  if (arrays == nullptr) {
    ThrowIllegalState(env, "calcjit: float[] bindings but no arrays passed");
    return 0;
  }
  const jsize passed = env->GetArrayLength(arrays);
  s.arrays.assign(s.slots.size(), nullptr);
  s.array_lengths.assign(s.slots.size(), 0);
  s.pinned.assign(s.slots.size(), nullptr);
  for (std::size_t k = 0; k < s.slots.size(); ++k) {
    const Slot& slot = s.slots[k];
    if (!slot.used || !slot.is_array) continue;
    if (k >= static_cast<std::size_t>(passed)) {
      ReleaseArrays(env, s, 0);
      ThrowIllegalState(env, "calcjit: no array passed for '" + slot.name + "'");
      return 0;
    }
    jobject element = env->GetObjectArrayElement(arrays, static_cast<jsize>(k));
    if (env->ExceptionCheck()) {
      ReleaseArrays(env, s, 0);
      return 0;
    }
    if (element == nullptr) {
      ReleaseArrays(env, s, 0);
      ThrowIllegalState(env, "calcjit: the float[] of '" + slot.name + "' is null");
      return 0;
    }
    s.arrays[k] = static_cast<jfloatArray>(element);
    s.array_lengths[k] = static_cast<std::size_t>(env->GetArrayLength(s.arrays[k]));
  }

  // Pinned from here to ReleaseArrays: calcjit calls only.
  std::size_t pinned_count = 0;
  for (; pinned_count < s.slots.size(); ++pinned_count) {
    const std::size_t k = pinned_count;
    if (s.arrays[k] == nullptr) continue;
    s.pinned[k] = env->GetPrimitiveArrayCritical(s.arrays[k], nullptr);
    if (s.pinned[k] == nullptr) break;
  }
  if (pinned_count < s.slots.size()) {
    ReleaseArrays(env, s, pinned_count);
    if (!env->ExceptionCheck()) {
      env->ThrowNew(cache.out_of_memory, "calcjit: could not pin a float[]");
    }
    return 0;
  }
  calcjit_status code = CALCJIT_OK;
  for (std::size_t k = 0; k < s.slots.size() && code == CALCJIT_OK; ++k) {
    if (s.pinned[k] == nullptr) continue;
    Slot& slot = s.slots[k];
    const std::size_t count = s.array_lengths[k];
    const float* data = count == 0 ? nullptr : static_cast<const float*>(s.pinned[k]);
    if (slot.bound_data != data || slot.bound_count != count) code = BindSlot(s, slot, data, count);
  }
  if (code == CALCJIT_OK) {
    code = calcjit_session_evaluate_many(s.session, query_count, counts, &version);
  }
  ReleaseArrays(env, s, s.slots.size());
  if (env->ExceptionCheck()) return 0;
  if (!Check(env, code)) return 0;
  return static_cast<jlong>(version);
}

// A Java byte[] copied out (parsing takes long enough that pinning would hold
// up the GC).
bool CopyBytes(JNIEnv* env, jbyteArray array, std::string* out) {
  const jsize size = env->GetArrayLength(array);
  out->resize(static_cast<std::size_t>(size));
  env->GetByteArrayRegion(array, 0, size, reinterpret_cast<jbyte*>(out->data()));
  return !env->ExceptionCheck();
}

// A name or path that crosses the C API as a char*: a NUL would cut it short
// there, so it is refused (the Java side checks first; this is the backstop).
bool CopyText(JNIEnv* env, jbyteArray array, const char* what, std::string* out) {
  if (!CopyBytes(env, array, out)) return false;
  if (out->find('\0') == std::string::npos) return true;
  ThrowIllegalArgument(env, std::string(what) + " contains a NUL character");
  return false;
}

}  // namespace

// ---------------------------------------------------------------------------
// The entry points, in the order of Native.java.

extern "C" {

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void* /*reserved*/) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_10) != JNI_OK) return JNI_ERR;
  if (!LookUpAll(env)) return JNI_ERR;
  return JNI_VERSION_10;
}

JNIEXPORT jstring JNICALL Java_io_calcjit_Native_version(JNIEnv* env, jclass) {
  return Guarded<jstring>(env, nullptr,
                          [&] { return NewUtf8String(env, calcjit_version_string()); });
}

// --- Feature sets

JNIEXPORT jlong JNICALL Java_io_calcjit_Native_setParse(JNIEnv* env, jclass, jbyteArray data,
                                                        jint format) {
  return Guarded<jlong>(env, 0, [&]() -> jlong {
    if (data == nullptr) {
      ThrowIllegalArgument(env, "data is null");
      return 0;
    }
    // A copy: parsing takes long enough that pinning would hold up the GC.
    const jsize size = env->GetArrayLength(data);
    std::vector<jbyte> bytes(static_cast<std::size_t>(size));
    env->GetByteArrayRegion(data, 0, size, bytes.data());
    if (env->ExceptionCheck()) return 0;
    calcjit_set* set = nullptr;
    if (!Check(env, calcjit_set_parse(bytes.data(), bytes.size(),
                                      static_cast<calcjit_format>(format), &set))) {
      return 0;
    }
    return ToHandle(set);
  });
}

JNIEXPORT jlong JNICALL Java_io_calcjit_Native_setParseWithModels(JNIEnv* env, jclass,
                                                                  jbyteArray data, jint format,
                                                                  jbyteArray model_root,
                                                                  jobjectArray names,
                                                                  jobjectArray models) {
  return Guarded<jlong>(env, 0, [&]() -> jlong {
    if (data == nullptr || names == nullptr || models == nullptr) {
      ThrowIllegalArgument(env, "data, names and models must not be null");
      return 0;
    }
    std::string set_bytes;
    if (!CopyBytes(env, data, &set_bytes)) return 0;
    std::string root;
    if (model_root != nullptr && !CopyText(env, model_root, "modelRoot", &root)) return 0;
    const jsize count = env->GetArrayLength(names);
    if (env->GetArrayLength(models) != count) {
      ThrowIllegalArgument(env, "as many model names as models");
      return 0;
    }
    std::vector<std::string> name_storage(static_cast<std::size_t>(count));
    std::vector<std::string> model_storage(static_cast<std::size_t>(count));
    std::vector<calcjit_model_bytes> given(static_cast<std::size_t>(count));
    for (jsize m = 0; m < count; ++m) {
      auto name = static_cast<jbyteArray>(env->GetObjectArrayElement(names, m));
      auto model = static_cast<jbyteArray>(env->GetObjectArrayElement(models, m));
      if (name == nullptr || model == nullptr) {
        ThrowIllegalArgument(env, "models: a null name or model");
        return 0;
      }
      const auto i = static_cast<std::size_t>(m);
      if (!CopyText(env, name, "models: a model name", &name_storage[i]) ||
          !CopyBytes(env, model, &model_storage[i])) {
        return 0;
      }
      env->DeleteLocalRef(name);
      env->DeleteLocalRef(model);
      given[i] = {name_storage[i].c_str(), model_storage[i].data(), model_storage[i].size()};
    }
    calcjit_set* set = nullptr;
    if (!Check(env, calcjit_set_parse_with_models(set_bytes.data(), set_bytes.size(),
                                                  static_cast<calcjit_format>(format),
                                                  model_root == nullptr ? nullptr : root.c_str(),
                                                  given.data(), given.size(), &set))) {
      return 0;
    }
    return ToHandle(set);
  });
}

// Read natively (bounded, regular files, FIFOs and terminals only; see
// FeatureSet::ReadFile), so that /dev/zero cannot fill the Java heap and
// error locations name the file.
JNIEXPORT jlong JNICALL Java_io_calcjit_Native_setReadFile(JNIEnv* env, jclass, jbyteArray path) {
  return Guarded<jlong>(env, 0, [&]() -> jlong {
    if (path == nullptr) {
      ThrowIllegalArgument(env, "path is null");
      return 0;
    }
    std::string file;
    if (!CopyText(env, path, "path", &file)) return 0;
    calcjit_set* set = nullptr;
    if (!Check(env, calcjit_set_read_file(file.c_str(), &set))) return 0;
    return ToHandle(set);
  });
}

// A model on its own as a set: `format` (null: from the content, or the
// file's extension too) is checked against the format table natively.
JNIEXPORT jlong JNICALL Java_io_calcjit_Native_setFromModel(JNIEnv* env, jclass, jbyteArray data,
                                                            jstring format) {
  return Guarded<jlong>(env, 0, [&]() -> jlong {
    if (data == nullptr) {
      ThrowIllegalArgument(env, "bytes is null");
      return 0;
    }
    std::string bytes;
    if (!CopyBytes(env, data, &bytes)) return 0;
    std::string name;
    if (format != nullptr && !GetString(env, format, "format", &name)) return 0;
    calcjit_set* set = nullptr;
    if (!Check(env, calcjit_set_from_model(bytes.data(), bytes.size(),
                                           format == nullptr ? nullptr : name.c_str(), &set))) {
      return 0;
    }
    return ToHandle(set);
  });
}

JNIEXPORT jlong JNICALL Java_io_calcjit_Native_setReadModel(JNIEnv* env, jclass, jbyteArray path,
                                                            jstring format) {
  return Guarded<jlong>(env, 0, [&]() -> jlong {
    if (path == nullptr) {
      ThrowIllegalArgument(env, "path is null");
      return 0;
    }
    std::string file;
    if (!CopyText(env, path, "path", &file)) return 0;
    std::string name;
    if (format != nullptr && !GetString(env, format, "format", &name)) return 0;
    calcjit_set* set = nullptr;
    if (!Check(env, calcjit_set_read_model(file.c_str(), format == nullptr ? nullptr : name.c_str(),
                                           &set))) {
      return 0;
    }
    return ToHandle(set);
  });
}

JNIEXPORT jint JNICALL Java_io_calcjit_Native_modelFormatCount(JNIEnv*, jclass) {
  return static_cast<jint>(calcjit_model_format_count());
}

JNIEXPORT jstring JNICALL Java_io_calcjit_Native_modelFormatName(JNIEnv* env, jclass, jint index) {
  return Guarded<jstring>(env, nullptr, [&]() -> jstring {
    const char* name = calcjit_model_format_name(static_cast<std::size_t>(index < 0 ? -1 : index));
    if (name == nullptr) {
      ThrowCalcJit(env, CALCJIT_ERROR_USER);
      return nullptr;
    }
    return NewUtf8String(env, name);
  });
}

JNIEXPORT void JNICALL Java_io_calcjit_Native_setFree(JNIEnv*, jclass, jlong set) {
  calcjit_set_free(FromHandle<calcjit_set>(set));
}

JNIEXPORT jlong JNICALL Java_io_calcjit_Native_setSchema(JNIEnv* env, jclass, jlong set) {
  return Guarded<jlong>(env, 0, [&]() -> jlong {
    calcjit_schema* schema = nullptr;
    if (!Check(env, calcjit_set_schema(FromHandle<calcjit_set>(set), &schema))) return 0;
    return ToHandle(schema);
  });
}

// --- Schemas

JNIEXPORT jint JNICALL Java_io_calcjit_Native_schemaInputCount(JNIEnv*, jclass, jlong schema) {
  return static_cast<jint>(calcjit_schema_input_count(FromHandle<calcjit_schema>(schema)));
}

JNIEXPORT jstring JNICALL Java_io_calcjit_Native_schemaInput(JNIEnv* env, jclass, jlong schema,
                                                             jint index, jintArray fields) {
  return Guarded<jstring>(env, nullptr, [&]() -> jstring {
    calcjit_input_info info{};
    if (!Check(env, calcjit_schema_input(FromHandle<calcjit_schema>(schema),
                                         static_cast<std::size_t>(index), &info))) {
      return nullptr;
    }
    if (info.dimension > static_cast<std::uint32_t>(std::numeric_limits<jint>::max())) {
      ThrowIllegalState(env, "calcjit: a dimension beyond Java's int range");
      return nullptr;
    }
    std::int32_t default_bits = 0;
    std::memcpy(&default_bits, &info.default_value, sizeof default_bits);
    const jint values[5] = {static_cast<jint>(info.scope), static_cast<jint>(info.dimension),
                            info.has_default, info.declared, default_bits};
    env->SetIntArrayRegion(fields, 0, 5, values);
    if (env->ExceptionCheck()) return nullptr;
    return NewUtf8String(env, info.name);
  });
}

JNIEXPORT jint JNICALL Java_io_calcjit_Native_schemaOutputCount(JNIEnv*, jclass, jlong schema) {
  return static_cast<jint>(calcjit_schema_output_count(FromHandle<calcjit_schema>(schema)));
}

JNIEXPORT jstring JNICALL Java_io_calcjit_Native_schemaOutputName(JNIEnv* env, jclass, jlong schema,
                                                                  jint index) {
  return Guarded<jstring>(env, nullptr, [&]() -> jstring {
    const char* name = calcjit_schema_output_name(FromHandle<calcjit_schema>(schema),
                                                  static_cast<std::size_t>(index));
    if (name == nullptr) {
      ThrowCalcJit(env, CALCJIT_ERROR_USER);
      return nullptr;
    }
    return NewUtf8String(env, name);
  });
}

JNIEXPORT void JNICALL Java_io_calcjit_Native_schemaFree(JNIEnv*, jclass, jlong schema) {
  calcjit_schema_free(FromHandle<calcjit_schema>(schema));
}

// --- Engines

JNIEXPORT jlong JNICALL Java_io_calcjit_Native_engineCreate(JNIEnv* env, jclass, jlong set,
                                                            jint backend, jobjectArray outputs,
                                                            jstring isa) {
  return Guarded<jlong>(env, 0, [&]() -> jlong {
    calcjit_options options;
    calcjit_options_init(&options);
    options.backend = static_cast<calcjit_backend>(backend);
    std::vector<std::string> names;
    std::vector<const char*> pointers;
    if (outputs != nullptr) {
      const jsize count = env->GetArrayLength(outputs);
      names.resize(static_cast<std::size_t>(count));
      for (jsize k = 0; k < count; ++k) {
        jobject name = env->GetObjectArrayElement(outputs, k);
        if (env->ExceptionCheck()) return 0;
        const bool ok = GetString(env, static_cast<jstring>(name), "an output name",
                                  &names[static_cast<std::size_t>(k)]);
        env->DeleteLocalRef(name);
        if (!ok) return 0;
      }
      for (const std::string& name : names) pointers.push_back(name.c_str());
      options.outputs = pointers.data();
      options.output_count = pointers.size();
    }
    std::string isa_name;
    if (isa != nullptr) {
      if (!GetString(env, isa, "isa", &isa_name)) return 0;
      options.isa = isa_name.c_str();
    }
    calcjit_engine* engine = nullptr;
    if (!Check(env, calcjit_engine_create(FromHandle<calcjit_set>(set), &options, &engine))) {
      return 0;
    }
    return ToHandle(engine);
  });
}

JNIEXPORT jlong JNICALL Java_io_calcjit_Native_engineReload(JNIEnv* env, jclass, jlong engine,
                                                            jlong set) {
  return Guarded<jlong>(env, 0, [&]() -> jlong {
    std::uint64_t version = 0;
    if (!Check(env, calcjit_engine_reload(FromHandle<calcjit_engine>(engine),
                                          FromHandle<calcjit_set>(set), &version))) {
      return 0;
    }
    return static_cast<jlong>(version);
  });
}

JNIEXPORT void JNICALL Java_io_calcjit_Native_engineFree(JNIEnv*, jclass, jlong engine) {
  calcjit_engine_free(FromHandle<calcjit_engine>(engine));
}

JNIEXPORT jlong JNICALL Java_io_calcjit_Native_engineVersion(JNIEnv*, jclass, jlong engine) {
  return static_cast<jlong>(calcjit_engine_version(FromHandle<calcjit_engine>(engine)));
}

JNIEXPORT jlong JNICALL Java_io_calcjit_Native_engineSchema(JNIEnv* env, jclass, jlong engine) {
  return Guarded<jlong>(env, 0, [&]() -> jlong {
    calcjit_schema* schema = nullptr;
    if (!Check(env, calcjit_engine_schema(FromHandle<calcjit_engine>(engine), &schema))) return 0;
    return ToHandle(schema);
  });
}

JNIEXPORT void JNICALL Java_io_calcjit_Native_engineWaitForJit(JNIEnv* env, jclass, jlong engine) {
  Guarded<bool>(env, false, [&] {
    return Check(env, calcjit_engine_wait_for_jit(FromHandle<calcjit_engine>(engine)));
  });
}

JNIEXPORT void JNICALL Java_io_calcjit_Native_engineStats(JNIEnv* env, jclass, jlong engine,
                                                          jlongArray longs, jdoubleArray doubles) {
  Guarded<bool>(env, false, [&] {
    calcjit_stats stats{};
    if (!Check(env, calcjit_engine_stats(FromHandle<calcjit_engine>(engine), &stats))) {
      return false;
    }
    const jlong counters[9] = {static_cast<jlong>(stats.version),
                               static_cast<jlong>(stats.backend),
                               static_cast<jlong>(stats.jit_pending),
                               static_cast<jlong>(stats.evaluations),
                               static_cast<jlong>(stats.items),
                               static_cast<jlong>(stats.errors),
                               static_cast<jlong>(stats.shadow_evaluations),
                               static_cast<jlong>(stats.shadow_dropped),
                               static_cast<jlong>(stats.mismatches)};
    const jdouble times[3] = {stats.parse_ms, stats.vm_compile_ms, stats.jit_compile_ms};
    env->SetLongArrayRegion(longs, 0, 9, counters);
    if (env->ExceptionCheck()) return false;
    env->SetDoubleArrayRegion(doubles, 0, 3, times);
    return !env->ExceptionCheck();
  });
}

JNIEXPORT jstring JNICALL Java_io_calcjit_Native_engineTiers(JNIEnv* env, jclass, jlong engine,
                                                             jlongArray longs,
                                                             jdoubleArray doubles) {
  return Guarded<jstring>(env, nullptr, [&]() -> jstring {
    calcjit_tiers tiers{};
    if (!Check(env, calcjit_engine_tiers(FromHandle<calcjit_engine>(engine), &tiers))) {
      return nullptr;
    }
    const jlong counts[3] = {static_cast<jlong>(tiers.measured), static_cast<jlong>(tiers.items),
                             static_cast<jlong>(tiers.chosen)};
    const jdouble times[2] = {tiers.vm_ns_per_item, tiers.jit_ns_per_item};
    env->SetLongArrayRegion(longs, 0, 3, counts);
    if (env->ExceptionCheck()) return nullptr;
    env->SetDoubleArrayRegion(doubles, 0, 2, times);
    if (env->ExceptionCheck()) return nullptr;
    return NewUtf8String(env, tiers.note);
  });
}

JNIEXPORT jstring JNICALL Java_io_calcjit_Native_engineBackendNote(JNIEnv* env, jclass,
                                                                   jlong engine) {
  return Guarded<jstring>(env, nullptr, [&]() -> jstring {
    const char* note = calcjit_engine_backend_note(FromHandle<calcjit_engine>(engine));
    if (note == nullptr) {
      ThrowCalcJit(env, CALCJIT_ERROR_USER);
      return nullptr;
    }
    return NewUtf8String(env, note);
  });
}

JNIEXPORT void JNICALL Java_io_calcjit_Native_engineSetShadow(JNIEnv* env, jclass, jlong engine,
                                                              jdouble fraction, jint backend,
                                                              jlong candidate) {
  Guarded<bool>(env, false, [&] {
    return Check(env, calcjit_engine_set_shadow(FromHandle<calcjit_engine>(engine), fraction,
                                                static_cast<calcjit_backend>(backend),
                                                FromHandle<calcjit_set>(candidate)));
  });
}

JNIEXPORT void JNICALL Java_io_calcjit_Native_engineDrainShadow(JNIEnv* env, jclass, jlong engine) {
  Guarded<bool>(env, false, [&] {
    return Check(env, calcjit_engine_drain_shadow(FromHandle<calcjit_engine>(engine)));
  });
}

JNIEXPORT jint JNICALL Java_io_calcjit_Native_engineMismatchCount(JNIEnv*, jclass, jlong engine) {
  return static_cast<jint>(calcjit_engine_mismatch_count(FromHandle<calcjit_engine>(engine)));
}

JNIEXPORT jstring JNICALL Java_io_calcjit_Native_engineMismatch(JNIEnv* env, jclass, jlong engine,
                                                                jint index, jlongArray out) {
  return Guarded<jstring>(env, nullptr, [&]() -> jstring {
    calcjit_mismatch mismatch{};
    if (!Check(env, calcjit_engine_mismatch(FromHandle<calcjit_engine>(engine),
                                            static_cast<std::size_t>(index), &mismatch))) {
      return nullptr;
    }
    const std::string output = mismatch.output;
    const jlong values[4] = {
        static_cast<jlong>(mismatch.version), static_cast<jlong>(mismatch.item),
        static_cast<jlong>(mismatch.served_bits), static_cast<jlong>(mismatch.shadow_bits)};
    env->SetLongArrayRegion(out, 0, 4, values);
    if (env->ExceptionCheck()) return nullptr;
    return NewUtf8String(env, output.c_str());
  });
}

// --- Sessions

JNIEXPORT jlong JNICALL Java_io_calcjit_Native_sessionCreate(JNIEnv* env, jclass, jlong engine) {
  return Guarded<jlong>(env, 0, [&]() -> jlong {
    auto* session = new JniSession;
    if (!Check(env,
               calcjit_session_create(FromHandle<calcjit_engine>(engine), &session->session))) {
      delete session;
      return 0;
    }
    return ToHandle(session);
  });
}

JNIEXPORT void JNICALL Java_io_calcjit_Native_sessionFree(JNIEnv*, jclass, jlong handle) {
  JniSession* session = FromHandle<JniSession>(handle);
  if (session == nullptr) return;
  calcjit_session_free(session->session);
  delete session;
}

JNIEXPORT jlong JNICALL Java_io_calcjit_Native_sessionSchema(JNIEnv* env, jclass, jlong handle) {
  return Guarded<jlong>(env, 0, [&]() -> jlong {
    calcjit_schema* schema = nullptr;
    if (!Check(env, calcjit_session_schema(FromHandle<JniSession>(handle)->session, &schema))) {
      return 0;
    }
    return ToHandle(schema);
  });
}

JNIEXPORT void JNICALL Java_io_calcjit_Native_sessionRebind(JNIEnv* env, jclass, jlong handle) {
  Guarded<bool>(env, false, [&] {
    JniSession& s = *FromHandle<JniSession>(handle);
    if (!Check(env, calcjit_session_rebind(s.session))) return false;
    // The C session keeps the bindings whose names remain, including the
    // addresses of float[]s pinned during the last evaluation: unbind those,
    // so that no address of an unpinned array survives in it even if the
    // Java side fails to bind a slot again. (Names the new schema lacks fail
    // here; they are gone anyway.)
    for (Slot& slot : s.slots) {
      if (slot.used && slot.is_array) BindSlot(s, slot, nullptr, 0);
    }
    // The Java side binds every slot again (dimensions may have changed).
    for (Slot& slot : s.slots) slot = Slot{};
    return true;
  });
}

JNIEXPORT void JNICALL Java_io_calcjit_Native_sessionClear(JNIEnv* env, jclass, jlong handle) {
  Guarded<bool>(env, false, [&] {
    JniSession& s = *FromHandle<JniSession>(handle);
    if (!Check(env, calcjit_session_clear(s.session))) return false;
    for (Slot& slot : s.slots) slot = Slot{};
    return true;
  });
}

JNIEXPORT void JNICALL Java_io_calcjit_Native_sessionBind(JNIEnv* env, jclass, jlong handle,
                                                          jint slot_index, jboolean output,
                                                          jstring name, jobject buffer,
                                                          jint element_bytes, jlong byte_offset,
                                                          jlong float_count) {
  Guarded<bool>(env, false, [&] {
    JniSession& s = *FromHandle<JniSession>(handle);
    if (slot_index < 0 || byte_offset < 0 || float_count < 0 || element_bytes < 1) {
      ThrowIllegalArgument(env, "calcjit: invalid binding arguments");
      return false;
    }
    Slot slot;
    slot.used = true;
    slot.output = output == JNI_TRUE;
    if (!GetString(env, name, "name", &slot.name)) return false;
    const float* data = nullptr;
    std::size_t count = 0;
    if (buffer == nullptr) {
      slot.is_array = true;
    } else {
      void* address = env->GetDirectBufferAddress(buffer);
      const jlong capacity = env->GetDirectBufferCapacity(buffer);
      if (env->ExceptionCheck()) return false;
      if (address == nullptr || capacity < 0) {
        ThrowIllegalArgument(env, "the buffer of '" + slot.name +
                                      "' is not a direct buffer (allocate it with "
                                      "ByteBuffer.allocateDirect)");
        return false;
      }
      const auto offset = static_cast<std::size_t>(byte_offset);
      count = static_cast<std::size_t>(float_count);
      const std::size_t capacity_bytes =
          static_cast<std::size_t>(capacity) * static_cast<std::size_t>(element_bytes);
      if (offset > capacity_bytes || count > (capacity_bytes - offset) / sizeof(float)) {
        ThrowIllegalArgument(env, "the buffer of '" + slot.name + "' has " +
                                      std::to_string(capacity_bytes) + " bytes, fewer than " +
                                      std::to_string(count) + " floats at byte " +
                                      std::to_string(offset));
        return false;
      }
      char* start = static_cast<char*>(address) + offset;
      if (reinterpret_cast<std::uintptr_t>(start) % alignof(float) != 0) {
        ThrowIllegalArgument(env, "the buffer of '" + slot.name +
                                      "' starts at an address that is not a multiple of 4 "
                                      "(floats must be aligned)");
        return false;
      }
      data = count == 0 ? nullptr : reinterpret_cast<const float*>(start);
    }
    // Binds at once: an unknown name fails here, not at evaluation; a direct
    // buffer stays bound (an array is bound again at each evaluation).
    if (!Check(env, BindSlot(s, slot, data, count))) return false;
    const auto index = static_cast<std::size_t>(slot_index);
    if (index >= s.slots.size()) s.slots.resize(index + 1);
    s.slots[index] = std::move(slot);
    return true;
  });
}

// Rows as input: `float_count` floats at `byte_offset` bytes into a direct
// buffer (checked against its capacity), rows of `row_stride` floats whose
// first `columns` bind the schema's inputs in order (calcjit_session_bind_rows:
// copied into columns at each evaluation).
JNIEXPORT void JNICALL Java_io_calcjit_Native_sessionBindRows(JNIEnv* env, jclass, jlong handle,
                                                              jobject buffer, jint element_bytes,
                                                              jlong byte_offset, jlong float_count,
                                                              jint columns, jint row_stride) {
  Guarded<bool>(env, false, [&] {
    JniSession& s = *FromHandle<JniSession>(handle);
    if (buffer == nullptr || byte_offset < 0 || float_count < 0 || element_bytes < 1 ||
        columns < 0 || row_stride < 1) {
      ThrowIllegalArgument(env, "calcjit: invalid row binding arguments");
      return false;
    }
    void* address = env->GetDirectBufferAddress(buffer);
    const jlong capacity = env->GetDirectBufferCapacity(buffer);
    if (env->ExceptionCheck()) return false;
    if (address == nullptr || capacity < 0) {
      ThrowIllegalArgument(env,
                           "the rows' buffer is not a direct buffer (allocate it with "
                           "ByteBuffer.allocateDirect)");
      return false;
    }
    const auto offset = static_cast<std::size_t>(byte_offset);
    const auto count = static_cast<std::size_t>(float_count);
    const std::size_t capacity_bytes =
        static_cast<std::size_t>(capacity) * static_cast<std::size_t>(element_bytes);
    if (offset > capacity_bytes || count > (capacity_bytes - offset) / sizeof(float)) {
      ThrowIllegalArgument(env, "the rows' buffer has " + std::to_string(capacity_bytes) +
                                    " bytes, fewer than " + std::to_string(count) +
                                    " floats at byte " + std::to_string(offset));
      return false;
    }
    char* start = static_cast<char*>(address) + offset;
    if (reinterpret_cast<std::uintptr_t>(start) % alignof(float) != 0) {
      ThrowIllegalArgument(env,
                           "the rows' buffer starts at an address that is not a multiple of 4 "
                           "(floats must be aligned)");
      return false;
    }
    // Whole rows: the last may end at its columns, without the stride's padding.
    const auto stride = static_cast<std::size_t>(row_stride);
    const auto width = static_cast<std::size_t>(columns);
    const std::size_t rows = count < width ? 0 : (count - width) / stride + 1;
    // No columns: any number of items (a model without features).
    const std::size_t capacity_rows = width == 0 ? std::numeric_limits<std::size_t>::max() : rows;
    return Check(env, calcjit_session_bind_rows(s.session, reinterpret_cast<const float*>(start),
                                                capacity_rows, width, stride));
  });
}

JNIEXPORT jlong JNICALL Java_io_calcjit_Native_sessionEvaluate(JNIEnv* env, jclass, jlong handle,
                                                               jint item_count,
                                                               jobjectArray arrays) {
  return Guarded<jlong>(env, 0, [&]() -> jlong {
    if (item_count < 0) {
      ThrowIllegalArgument(env, "calcjit: negative item count");
      return 0;
    }
    const std::size_t count = static_cast<std::size_t>(item_count);
    return Evaluate(env, *FromHandle<JniSession>(handle), 1, &count, arrays);
  });
}

JNIEXPORT jlong JNICALL Java_io_calcjit_Native_sessionEvaluateMany(JNIEnv* env, jclass,
                                                                   jlong handle,
                                                                   jintArray item_counts,
                                                                   jobjectArray arrays) {
  return Guarded<jlong>(env, 0, [&]() -> jlong {
    JniSession& s = *FromHandle<JniSession>(handle);
    if (item_counts == nullptr) {
      ThrowIllegalArgument(env, "itemCounts is null");
      return 0;
    }
    const jsize query_count = env->GetArrayLength(item_counts);
    std::vector<jint>& counts = s.item_counts_java;
    counts.resize(static_cast<std::size_t>(query_count));
    if (query_count > 0) env->GetIntArrayRegion(item_counts, 0, query_count, counts.data());
    if (env->ExceptionCheck()) return 0;
    s.item_counts.resize(counts.size());
    for (std::size_t q = 0; q < counts.size(); ++q) {
      if (counts[q] < 0) {
        ThrowIllegalArgument(env, "calcjit: negative item count for query " + std::to_string(q));
        return 0;
      }
      s.item_counts[q] = static_cast<std::size_t>(counts[q]);
    }
    return Evaluate(env, s, s.item_counts.size(), s.item_counts.data(), arrays);
  });
}

JNIEXPORT jfloatArray JNICALL Java_io_calcjit_Native_sessionOutput(JNIEnv* env, jclass,
                                                                   jlong handle, jstring name) {
  return Guarded<jfloatArray>(env, nullptr, [&]() -> jfloatArray {
    std::string output;
    if (!GetString(env, name, "name", &output)) return nullptr;
    const float* data = nullptr;
    std::size_t count = 0;
    if (!Check(env, calcjit_session_output(FromHandle<JniSession>(handle)->session, output.c_str(),
                                           &data, &count))) {
      return nullptr;
    }
    if (count > static_cast<std::size_t>(std::numeric_limits<jsize>::max())) {
      ThrowIllegalState(env, "calcjit: output '" + output + "' is too long for a float[]");
      return nullptr;
    }
    jfloatArray result = env->NewFloatArray(static_cast<jsize>(count));
    if (result == nullptr) return nullptr;
    env->SetFloatArrayRegion(result, 0, static_cast<jsize>(count), data);
    return result;
  });
}

}  // extern "C"
