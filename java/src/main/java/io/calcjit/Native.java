package io.calcjit;

import java.nio.Buffer;

/**
 * The JNI entry points (java/src/main/native/calcjit_jni.cc), one per C API
 * function they wrap. Handles are the C API's pointers as {@code long}s; the
 * public classes own them and never pass a freed or zero handle (their guards
 * see to that). Every method throws {@link CalcJitException} when the C API
 * reports an error; the Java-side checks (buffers, names, states) are made by
 * the callers before they get here.
 */
final class Native {
  private Native() {}

  static {
    NativeLoader.load();
  }

  /** Forces the class (and so the native library) to load. */
  static void ensureLoaded() {}

  static native String version();

  // Feature sets. `format`: Format.ordinal() (the C enum's values).
  static native long setParse(byte[] data, int format);

  // modelRoot: UTF-8 or null; names[m] (UTF-8) and models[m] the bytes of model m.
  static native long setParseWithModels(
      byte[] data, int format, byte[] modelRoot, byte[][] names, byte[][] models);

  // path: UTF-8; read by the C API (calcjit_set_read_file), models from its folder.
  static native long setReadFile(byte[] path);
  // A model on its own as a set; format: a name of modelFormatName, or null
  // (from the content, or the file's extension too). path: UTF-8.
  static native long setFromModel(byte[] bytes, String format);

  static native long setReadModel(byte[] path, String format);

  static native int modelFormatCount();

  static native String modelFormatName(int index);

  static native void setFree(long set);

  static native long setSchema(long set);

  // Schemas. `fields` receives {scope, dimension, hasDefault, declared, defaultBits}.
  static native int schemaInputCount(long schema);

  static native String schemaInput(long schema, int index, int[] fields);

  static native int schemaOutputCount(long schema);

  static native String schemaOutputName(long schema, int index);

  static native void schemaFree(long schema);

  // Engines. `backend`: Backend.ordinal() (the C enum's values); isa may be null.
  static native long engineCreate(long set, int backend, String[] outputs, String isa);

  static native long engineReload(long engine, long set);

  static native void engineFree(long engine);

  static native long engineVersion(long engine);

  static native long engineSchema(long engine);

  static native void engineWaitForJit(long engine);

  /**
   * longs: {version, backend, jitPending, evaluations, items, errors,
   * shadowEvaluations, shadowDropped, mismatches}; doubles: {parseMs,
   * vmCompileMs, jitCompileMs}.
   */
  static native void engineStats(long engine, long[] longs, double[] doubles);

  static native String engineBackendNote(long engine);

  /** longs: {measured, items, chosen}; doubles: {vmNsPerItem, jitNsPerItem}; returns the note. */
  static native String engineTiers(long engine, long[] longs, double[] doubles);

  static native void engineSetShadow(long engine, double fraction, int backend, long candidate);

  static native void engineDrainShadow(long engine);

  static native int engineMismatchCount(long engine);

  /** out: {version, item, servedBits, shadowBits}; returns the output's name. */
  static native String engineMismatch(long engine, int index, long[] out);

  // Sessions: a native struct holding the calcjit_session and its slots.
  static native long sessionCreate(long engine);

  static native void sessionFree(long session);

  static native long sessionSchema(long session);

  static native void sessionRebind(long session);

  /** Forgets every binding (calcjit_session_clear) and every slot. */
  static native void sessionClear(long session);

  /**
   * Binds slot `slot` to `name` as a buffer whose prefix each evaluation uses
   * (calcjit_session_bind_*_prefix: the C API checks the lengths). With a
   * direct `buffer`: `floatCount` floats at `byteOffset` bytes past its address
   * (checked against its capacity, in elements of `elementBytes` bytes). With
   * a null buffer: a float[] that each evaluate call passes in `arrays[slot]`.
   */
  static native void sessionBind(long session, int slot, boolean output, String name,
      Buffer buffer, int elementBytes, long byteOffset, long floatCount);

  /**
   * Binds the schema's inputs, in order, to the columns of rows: `floatCount`
   * floats at `byteOffset` bytes past the direct buffer's address, rows of
   * `rowStride` floats whose first `columns` are the inputs
   * (calcjit_session_bind_rows).
   */
  static native void sessionBindRows(long session, Buffer buffer, int elementBytes,
      long byteOffset, long floatCount, int columns, int rowStride);

  /** One query of `itemCount` items; returns the version that computed it. */
  static native long sessionEvaluate(long session, int itemCount, Object[] arrays);

  /** Several queries (none too); returns the version that computed them. */
  static native long sessionEvaluateMany(long session, int[] itemCounts, Object[] arrays);

  /** A copy of an output the caller did not bind. */
  static native float[] sessionOutput(long session, String name);
}
