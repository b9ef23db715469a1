package io.calcjit;

import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
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
      String name = Objects.requireNonNull(entry.getKey(), "models: a model name is null");
      names[m] = utf8Name(name, "models: the model name");
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
   * models are read from the file's folder. The file is read natively, as by the other
   * frontends: a regular file, a FIFO or a terminal of at most 1 GiB (a device such as
   * /dev/zero is refused), and error locations start with the path.
   *
   * @throws IOException when the file or one of its models cannot be read (the cause is the
   *     {@link CalcJitException} of kind RUNTIME)
   * @throws CalcJitException (kind USER) when the set or a model is wrong, or is no file of the
   *     right kind
   */
  public static FeatureSet readFile(Path path) throws IOException {
    Objects.requireNonNull(path, "path is null");
    Format.ofFileName(path.getFileName().toString());  // an unknown extension, as before
    if (path.getFileSystem() != FileSystems.getDefault()) return readFromOtherFileSystem(path);
    byte[] file = path.toString().getBytes(StandardCharsets.UTF_8);
    NativeLoader.load();
    long handle;
    try {
      handle = Native.setReadFile(file);
    } catch (CalcJitException e) {
      // The set or a model file could not be read: what Java calls an IOException.
      if (e.kind() == CalcJitException.Kind.RUNTIME) throw new IOException(e.getMessage(), e);
      throw e;
    }
    try {
      return new FeatureSet(handle);
    } catch (RuntimeException | Error e) {
      Native.setFree(handle);
      throw e;
    }
  }

  /** The native reader's limit for a set file. */
  static final long MAX_SET_FILE_BYTES = 1L << 30;

  // A path of another file system (a zip, an in-memory one) has no native
  // name: read here, as a regular file within the same limit.
  private static FeatureSet readFromOtherFileSystem(Path path) throws IOException {
    if (!Files.isRegularFile(path)) {
      throw new IOException("'" + path + "' is not a regular file");
    }
    byte[] bytes;
    try (InputStream in = Files.newInputStream(path)) {
      bytes = in.readNBytes((int) MAX_SET_FILE_BYTES + 1);
    }
    if (bytes.length > MAX_SET_FILE_BYTES) {
      throw new IOException("'" + path + "' is larger than the limit of " + MAX_SET_FILE_BYTES
          + " bytes for a feature set file");
    }
    Path folder = path.toAbsolutePath().getParent();
    return parse(bytes, Format.ofFileName(path.getFileName().toString()), folder, null);
  }

  // A name as UTF-8 for the C API: an unpaired surrogate has no UTF-8 form
  // (getBytes would make it '?', another name) and a NUL cannot cross a C
  // string, so both are refused.
  static byte[] utf8Name(String name, String what) {
    for (int k = 0; k < name.length(); ++k) {
      char c = name.charAt(k);
      if (c == 0) {
        throw new IllegalArgumentException(
            what + " contains a NUL character (\\u0000) at index " + k);
      }
      if (Character.isHighSurrogate(c) && k + 1 < name.length()
          && Character.isLowSurrogate(name.charAt(k + 1))) {
        ++k;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException(String.format(
            "%s has an unpaired surrogate (\\u%04x) at index %d: it is not valid Unicode", what,
            (int) c, k));
      }
    }
    return name.getBytes(StandardCharsets.UTF_8);
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
