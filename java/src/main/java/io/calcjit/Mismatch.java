package io.calcjit;

/**
 * A value that a shadow evaluation computed differently from the served one.
 *
 * @param item the item's index within its query
 */
public record Mismatch(long version, String output, long item, int servedBits, int shadowBits) {}
