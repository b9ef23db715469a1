package io.calcjit;

/** The encodings of a feature set. The order is the C API's enum. */
public enum Format {
  /** The readable text syntax (.calc), UTF-8. */
  TEXT,
  /** The proto3 JSON mapping (.json). */
  JSON,
  /** Binary protobuf (.pb, .binpb). */
  PROTO;

  /** The format of a file name by its extension, as the C++ reader decides it. */
  public static Format ofFileName(String fileName) {
    if (fileName.endsWith(".calc")) return TEXT;
    if (fileName.endsWith(".json")) return JSON;
    if (fileName.endsWith(".pb") || fileName.endsWith(".binpb")) return PROTO;
    throw new IllegalArgumentException(
        "cannot tell the format of '" + fileName + "' (.calc, .json, .pb or .binpb)");
  }
}
