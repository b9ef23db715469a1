package io.calcjit;

import java.io.IOException;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A parsed and checked feature set, immutable. Engines keep what they need of
 * it: a set may be closed as soon as its engines are created or reloaded.
 * Thread-safe. Closing it is optional (a {@link Cleaner} frees it once it is
 * unreachable) but frees its native memory at once.
 */
public final class FeatureSet implements AutoCloseable {
  private final long handle;
  private final Guard guard = new Guard("feature set");
  private final Cleaner.Cleanable cleanable;
  private final Schema schema;

  private FeatureSet(long handle) {
    this.handle = handle;
    this.cleanable = Resources.CLEANER.register(this, new Free(handle));
    this.schema = Schema.fromNative(Native.setSchema(handle));
  }

  /** Parses the text syntax (a .calc file's content). */
  public static FeatureSet fromText(String text) {
    Objects.requireNonNull(text, "text is null");
    return parse(text.getBytes(StandardCharsets.UTF_8), Format.TEXT);
  }

  /** Parses the proto3 JSON mapping. */
  public static FeatureSet fromJson(String json) {
    Objects.requireNonNull(json, "json is null");
    return parse(json.getBytes(StandardCharsets.UTF_8), Format.JSON);
  }

  /** Parses binary protobuf (calcjit.v1.FeatureSet). */
  public static FeatureSet fromProto(byte[] bytes) {
    return parse(bytes, Format.PROTO);
  }

  /** Parses bytes in any format (text and JSON as UTF-8). */
  public static FeatureSet parse(byte[] bytes, Format format) {
    Objects.requireNonNull(bytes, "bytes is null");
    Objects.requireNonNull(format, "format is null");
    NativeLoader.load();
    long handle = Native.setParse(bytes, format.ordinal());
    try {
      return new FeatureSet(handle);
    } catch (RuntimeException | Error e) {
      Native.setFree(handle);
      throw e;
    }
  }

  /**
   * Parses bytes in any format with the set's models: each model's bytes from {@code models}
   * (by the model's name in the set), else its file under {@code modelRoot} (null: none). Paths
   * that are absolute or leave the root are refused.
   */
  public static FeatureSet parse(
      byte[] bytes, Format format, Path modelRoot, Map<String, byte[]> models) {
    Objects.requireNonNull(bytes, "bytes is null");
    Objects.requireNonNull(format, "format is null");
    Map<String, byte[]> given = models == null ? Map.of() : models;
    byte[][] names = new byte[given.size()][];
    byte[][] contents = new byte[given.size()][];
    int m = 0;
    for (Map.Entry<String, byte[]> entry : given.entrySet()) {
      names[m] = Objects.requireNonNull(entry.getKey(), "models: a model name is null").getBytes(
          StandardCharsets.UTF_8);
      contents[m] = Objects.requireNonNull(entry.getValue(), "models: the bytes of " + entry.getKey() + " are null");
      ++m;
    }
    byte[] root =
        modelRoot == null ? null : modelRoot.toString().getBytes(StandardCharsets.UTF_8);
    NativeLoader.load();
    long handle = Native.setParseWithModels(bytes, format.ordinal(), root, names, contents);
    try {
      return new FeatureSet(handle);
    } catch (RuntimeException | Error e) {
      Native.setFree(handle);
      throw e;
    }
  }

  /**
   * Reads a file; its format comes from the extension (.calc, .json, .pb, .binpb). The set's
   * models are read from the file's folder.
   */
  public static FeatureSet readFile(Path path) throws IOException {
    Objects.requireNonNull(path, "path is null");
    Format format = Format.ofFileName(path.getFileName().toString());
    Path folder = path.toAbsolutePath().getParent();
    return parse(Files.readAllBytes(path), format, folder, null);
  }

  /**
   * A trained model on its own as a set ("load a model and predict"): its inputs are the
   * model's features (named as its file names them, else f0, f1, ...), its outputs the model's
   * outputs, named as its library names them ({@code margin} for XGBoost, {@code raw_score} for
   * LightGBM, {@code output} for ONNX; {@code _0, _1, ...} when several). {@code format} is one
   * of {@link #modelFormats()}, checked natively, or null to tell it from the bytes' content.
   * Bind rows to it with {@link Session#bindRows(FloatBuffer, int)}.
   */
  public static FeatureSet fromModel(byte[] bytes, String format) {
    Objects.requireNonNull(bytes, "bytes is null");
    NativeLoader.load();
    return ofHandle(Native.setFromModel(bytes, format));
  }

  /**
   * The same from a model file, read natively (its size limits, errors naming the file); its
   * format from its content or extension unless {@code format} names one.
   */
  public static FeatureSet readModel(Path path, String format) {
    Objects.requireNonNull(path, "path is null");
    NativeLoader.load();
    return ofHandle(
        Native.setReadModel(path.toString().getBytes(StandardCharsets.UTF_8), format));
  }

  /**
   * The model formats calcjit reads, by the names the text syntax and {@link #fromModel} use
   * ("xgboost", "lightgbm", "onnx", ...): the rows of its table of formats.
   */
  public static List<String> modelFormats() {
    NativeLoader.load();
    int count = Native.modelFormatCount();
    List<String> names = new ArrayList<>(count);
    for (int k = 0; k < count; ++k) names.add(Native.modelFormatName(k));
    return List.copyOf(names);
  }

  private static FeatureSet ofHandle(long handle) {
    try {
      return new FeatureSet(handle);
    } catch (RuntimeException | Error e) {
      Native.setFree(handle);
      throw e;
    }
  }

  /**
   * The set's inputs (declared, then implicit) and every definition as an output.
   *
   * @throws IllegalStateException after close()
   */
  public Schema schema() {
    guard.check();
    return schema;
  }

  /** Frees the native set; further use throws IllegalStateException. */
  @Override
  public void close() {
    if (guard.close()) cleanable.clean();
  }

  /** Runs `body` with the handle, which stays valid until it returns. */
  <T> T use(java.util.function.LongFunction<T> body) {
    guard.enter();
    try {
      return body.apply(handle);
    } finally {
      guard.exit();
      Reference.reachabilityFence(this);
    }
  }

  private record Free(long handle) implements Runnable {
    @Override
    public void run() {
      Native.setFree(handle);
    }
  }
}
