package io.calcjit.spark;

import io.calcjit.Format;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A feature set as it travels to the executors (in a broadcast variable): its bytes and format,
 * and where its models come from: their bytes, shipped with it, or a folder that every executor
 * reads them from (a shared file system, or files Spark distributed).
 */
public final class SetSource implements Serializable {
  private static final long serialVersionUID = 1L;

  private final byte[] bytes;
  private final Format format;
  private final String modelRoot;
  private final HashMap<String, byte[]> models;

  private SetSource(byte[] bytes, Format format, String modelRoot, Map<String, byte[]> models) {
    this.bytes = Objects.requireNonNull(bytes, "bytes is null").clone();
    this.format = Objects.requireNonNull(format, "format is null");
    this.modelRoot = modelRoot;
    this.models = new HashMap<>(models);
  }

  /** A set whose models (if any) travel with it, by the model's name in the set. */
  public static SetSource of(byte[] bytes, Format format, Map<String, byte[]> models) {
    return new SetSource(bytes, format, null, models == null ? Map.of() : models);
  }

  /**
   * A set file read now, on the driver; its models are read on each executor from the file's
   * folder (the same path must hold them there), when the executor first compiles the set.
   */
  public static SetSource file(Path path) throws IOException {
    Objects.requireNonNull(path, "path is null");
    Format format = Format.ofFileName(path.getFileName().toString());
    Path folder = path.toAbsolutePath().getParent();
    return new SetSource(Files.readAllBytes(path), format, folder.toString(), Map.of());
  }

  byte[] bytes() {
    return bytes;
  }

  Format format() {
    return format;
  }

  /** Null when the models travel with the set. */
  String modelRoot() {
    return modelRoot;
  }

  Map<String, byte[]> models() {
    return models;
  }
}
