package io.calcjit;

/** Whether an input has a value per item or per query. */
public enum Scope {
  /** A value (or a vector) per item. */
  ITEM,
  /** A value (or a vector) per query. */
  QUERY
}
