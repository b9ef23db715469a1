package io.calcjit;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Loads libcalcjit_jni.so once, on first use, from (in this order) the file
 * named by the system property {@code calcjit.library}, a directory of
 * {@code java.library.path} that holds it, or the jar itself (the resource
 * {@value #RESOURCE}, copied to a temporary file that is deleted as soon as
 * it is loaded).
 *
 * <p>The library links calcjit statically but LLVM 16 dynamically (Debian's
 * libLLVM-16.so.1): a missing shared library is reported with the Debian
 * packages to install.
 */
final class NativeLoader {
  static final String LIBRARY = "calcjit_jni";
  static final String RESOURCE = "/io/calcjit/native/linux-x86_64/libcalcjit_jni.so";
  /** The Debian 12 packages the native library needs at run time. */
  static final String PACKAGES = "libllvm16 libstdc++6";

  private static volatile boolean loaded;

  private NativeLoader() {}

  static void load() {
    if (loaded) return;
    synchronized (NativeLoader.class) {
      if (loaded) return;
      try {
        String explicit = System.getProperty("calcjit.library");
        if (explicit != null && !explicit.isEmpty()) {
          System.load(new File(explicit).getAbsolutePath());
        } else if (onLibraryPath()) {
          System.loadLibrary(LIBRARY);
        } else {
          loadFromJar();
        }
      } catch (UnsatisfiedLinkError e) {
        throw explain(e, System.getProperty("os.name"), System.getProperty("os.arch"));
      }
      loaded = true;
    }
  }

  private static boolean onLibraryPath() {
    String path = System.getProperty("java.library.path", "");
    String file = System.mapLibraryName(LIBRARY);
    for (String dir : path.split(File.pathSeparator)) {
      if (!dir.isEmpty() && new File(dir, file).isFile()) return true;
    }
    return false;
  }

  private static void loadFromJar() {
    try (InputStream in = NativeLoader.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new UnsatisfiedLinkError("calcjit: the jar has no native library at " + RESOURCE
            + " and " + System.mapLibraryName(LIBRARY) + " is not on java.library.path");
      }
      Path file = Files.createTempFile("libcalcjit_jni", ".so");
      try {
        Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        System.load(file.toAbsolutePath().toString());
      } finally {
        // Mapped once loaded: the file itself is no longer needed.
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      UnsatisfiedLinkError error = new UnsatisfiedLinkError(
          "calcjit: could not extract its native library to a temporary file: " + e);
      error.initCause(e);
      throw error;
    }
  }

  /** The error to show for a failed load, naming what to install where it can. */
  static UnsatisfiedLinkError explain(UnsatisfiedLinkError e, String os, String arch) {
    String message = String.valueOf(e.getMessage());
    String hint;
    if (!"Linux".equals(os) || !("amd64".equals(arch) || "x86_64".equals(arch))) {
      hint = "calcjit's jar carries a native library for linux-x86_64 only; this JVM runs on "
          + os + "/" + arch;
    } else if (message.contains("libLLVM") || message.contains("cannot open shared object")) {
      hint = "calcjit's native library needs shared libraries of Debian 12: install the "
          + "packages " + PACKAGES + " (apt-get install " + PACKAGES + ")";
    } else {
      hint = "calcjit could not load its native library";
    }
    UnsatisfiedLinkError error = new UnsatisfiedLinkError(hint + " [" + message + "]");
    error.initCause(e);
    return error;
  }
}
