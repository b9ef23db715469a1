package io.calcjit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * FeatureSet.readFile reads natively, as the other frontends do (issue 26, cause 9): a
 * missing file is an IOException, a device is refused without reading it, locations name
 * the file; a path of another file system (a zip) is read within the same limit.
 */
class FilesTest {
  @Test
  void aFileThatCannotBeReadIsAnIoException(@TempDir Path folder) {
    IOException missing =
        assertThrows(IOException.class, () -> FeatureSet.readFile(folder.resolve("none.calc")));
    assertTrue(missing.getMessage().contains("none.calc"), missing.getMessage());
    CalcJitException cause = assertInstanceOf(CalcJitException.class, missing.getCause());
    assertEquals(CalcJitException.Kind.RUNTIME, cause.kind());
  }

  @Test
  void devicesAreRefusedAndLocationsNameTheFile(@TempDir Path folder) throws IOException {
    Path zero = folder.resolve("zero.calc");
    Files.createSymbolicLink(zero, Path.of("/dev/zero"));
    CalcJitException device = assertThrows(CalcJitException.class, () -> FeatureSet.readFile(zero));
    assertTrue(device.getMessage().contains("is a device"), device.getMessage());
    Path bad = folder.resolve("bad.calc");
    Files.writeString(bad, "f = ;\n");
    CalcJitException syntax = assertThrows(CalcJitException.class, () -> FeatureSet.readFile(bad));
    assertEquals(bad + ":1:5", syntax.location());
  }

  @Test
  void aPathOfAZipIsReadToo(@TempDir Path folder) throws IOException {
    Path zip = folder.resolve("sets.zip");
    try (OutputStream out = Files.newOutputStream(zip);
        ZipOutputStream entries = new ZipOutputStream(out)) {
      entries.putNextEntry(new ZipEntry("s.calc"));
      entries.write("input x; f = x * 2;".getBytes(StandardCharsets.UTF_8));
      entries.closeEntry();
    }
    try (FileSystem zipped = FileSystems.newFileSystem(zip, Map.of());
        FeatureSet set = FeatureSet.readFile(zipped.getPath("s.calc"))) {
      assertEquals("f", set.schema().outputs().get(0));
    }
  }

  @Test
  void modelNamesMustBeUnicodeWithoutNul() {
    byte[] text = "f = 1;".getBytes(StandardCharsets.UTF_8);
    IllegalArgumentException surrogate = assertThrows(IllegalArgumentException.class,
        () -> FeatureSet.parse(text, Format.TEXT, null, Map.of("m\uDC00", new byte[0])));
    assertTrue(surrogate.getMessage().contains("unpaired surrogate (\\udc00) at index 1"),
        surrogate.getMessage());
    // A pair is a character, not a surrogate.
    FeatureSet.parse(text, Format.TEXT, null, Map.of("m\uD83D\uDE00", new byte[0])).close();
  }
}
