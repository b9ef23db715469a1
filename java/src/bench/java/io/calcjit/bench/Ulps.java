package io.calcjit.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How far one evaluation's outputs are from another's, in units in the last
 * place: the ASM-compiled JVM design (not correctly rounded) against calcjit.
 */
final class Ulps {
  /** The distance of a NaN from a number: larger than any distance of two floats. */
  static final long NAN_VERSUS_NUMBER = Long.MAX_VALUE;

  private long values;
  private long bitEqual;
  private long maxUlps;
  private String worst = "none";
  private final Map<String, Long> maxPerOutput = new LinkedHashMap<>();
  private final Map<String, Long> differingPerOutput = new LinkedHashMap<>();

  /**
   * Floats in the order of the number line as integers one apart per ulp
   * (+0 and -0 both at 0), so the distance of a and b is the number of floats
   * between them plus one.
   */
  static long ordinal(float x) {
    int bits = Float.floatToRawIntBits(x);
    return bits < 0 ? -(long) (bits & 0x7fffffff) : bits;
  }

  /** 0 when equal as floats or both NaN (-0 and +0 are 0 apart; bitEqual tells them apart). */
  static long distance(float a, float b) {
    boolean nanA = Float.isNaN(a);
    boolean nanB = Float.isNaN(b);
    if (nanA || nanB) return nanA == nanB ? 0 : NAN_VERSUS_NUMBER;
    return Math.abs(ordinal(a) - ordinal(b));
  }

  /** Bit-equal, NaN counting equal to NaN (whatever its payload). */
  static boolean bitEqual(float a, float b) {
    return Float.floatToRawIntBits(a) == Float.floatToRawIntBits(b)
        || (Float.isNaN(a) && Float.isNaN(b));
  }

  /** Adds every item of every output: actual[k][i] against expected[k][i]. */
  void add(List<String> names, float[][] actual, float[][] expected, int items) {
    for (int k = 0; k < names.size(); ++k) add(names.get(k), actual[k], expected[k], items);
  }

  void add(String name, float[] actual, float[] expected, int items) {
    long max = maxPerOutput.getOrDefault(name, 0L);
    long differing = differingPerOutput.getOrDefault(name, 0L);
    for (int i = 0; i < items; ++i) {
      ++values;
      if (bitEqual(actual[i], expected[i])) {
        ++bitEqual;
        continue;
      }
      ++differing;
      long d = distance(actual[i], expected[i]);
      max = Math.max(max, d);
      if (d >= maxUlps) {
        maxUlps = d;
        worst = String.format("%s item %d: %s against %s", name, i, Float.toString(actual[i]),
            Float.toString(expected[i]));
      }
    }
    maxPerOutput.put(name, max);
    differingPerOutput.put(name, differing);
  }

  long values() {
    return values;
  }

  long bitEqual() {
    return bitEqual;
  }

  /** The largest distance seen (1 for a -0 against a +0, NAN_VERSUS_NUMBER for a NaN). */
  long maxUlps() {
    return maxUlps == 0 && bitEqual < values ? 1 : maxUlps;
  }

  String worst() {
    return worst;
  }

  /** The outputs with a value that is not bit-equal: "name: N values, max U ulp". */
  String differingOutputs() {
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, Long> e : differingPerOutput.entrySet()) {
      if (e.getValue() == 0) continue;
      if (out.length() > 0) out.append(", ");
      out.append(String.format("%s: %d values, max %s ulp", e.getKey(), e.getValue(),
          format(maxPerOutput.get(e.getKey()))));
    }
    return out.length() == 0 ? "none" : out.toString();
  }

  String summary() {
    return String.format("%d of %d values bit-equal (%.3f%%), max %s ulp apart (%s)", bitEqual,
        values, 100.0 * bitEqual / Math.max(1, values), format(maxUlps()), worst);
  }

  private static String format(long ulps) {
    return ulps == NAN_VERSUS_NUMBER ? "NaN-vs-number" : Long.toString(ulps);
  }
}
