package io.calcjit;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a set reads and computes: its inputs (declared ones in order, then
 * implicit ones) and its outputs. Immutable.
 */
public record Schema(List<InputInfo> inputs, List<String> outputs) {
  public Schema {
    inputs = List.copyOf(inputs);
    outputs = List.copyOf(outputs);
  }

  public Optional<InputInfo> input(String name) {
    for (InputInfo input : inputs) {
      if (input.name().equals(name)) return Optional.of(input);
    }
    return Optional.empty();
  }

  public boolean hasOutput(String name) {
    return outputs.contains(name);
  }

  /** Reads a native schema and frees it. */
  static Schema fromNative(long handle) {
    try {
      int inputCount = Native.schemaInputCount(handle);
      List<InputInfo> inputs = new ArrayList<>(inputCount);
      int[] fields = new int[5];
      for (int k = 0; k < inputCount; ++k) {
        String name = Native.schemaInput(handle, k, fields);
        inputs.add(new InputInfo(name, fields[0] == 1 ? Scope.QUERY : Scope.ITEM, fields[1],
            fields[2] != 0, Float.intBitsToFloat(fields[4]), fields[3] != 0));
      }
      int outputCount = Native.schemaOutputCount(handle);
      List<String> outputs = new ArrayList<>(outputCount);
      for (int k = 0; k < outputCount; ++k) outputs.add(Native.schemaOutputName(handle, k));
      return new Schema(inputs, outputs);
    } finally {
      Native.schemaFree(handle);
    }
  }
}
