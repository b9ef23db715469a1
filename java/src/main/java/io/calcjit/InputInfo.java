package io.calcjit;

/**
 * One input of a schema.
 *
 * @param name the input's name
 * @param scope per item or per query
 * @param dimension 0 for a scalar, d for a vector of d floats
 * @param hasDefault whether it may be left unbound
 * @param defaultValue the default (0 when there is none)
 * @param declared false for an input that is used but never declared
 */
public record InputInfo(
    String name, Scope scope, int dimension, boolean hasDefault, float defaultValue,
    boolean declared) {

  /** Floats per item (item scope) or per query (query scope): 1 or the dimension. */
  public int width() {
    return dimension == 0 ? 1 : dimension;
  }

  /** Floats this input needs for a query of {@code items} items. */
  public long floatsFor(int items) {
    return scope == Scope.ITEM ? (long) items * width() : width();
  }
}
