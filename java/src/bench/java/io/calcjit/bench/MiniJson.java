package io.calcjit.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal JSON reader for the benchmark (no library is available): objects
 * become {@code Map<String, Object>} (insertion order), arrays {@code List<Object>},
 * strings {@code String}, numbers {@code Double}, {@code true}/{@code false}
 * {@code Boolean}, {@code null} null. Enough for what {@code calcjit print
 * --format json} writes; not a validating parser (duplicate keys: the last wins).
 */
final class MiniJson {
  private final String text;
  private int at;

  private MiniJson(String text) {
    this.text = text;
  }

  static Object parse(String text) {
    MiniJson reader = new MiniJson(text);
    Object value = reader.value();
    reader.space();
    if (reader.at != text.length()) throw reader.error("trailing characters");
    return value;
  }

  private Object value() {
    space();
    if (at >= text.length()) throw error("unexpected end");
    char c = text.charAt(at);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        return word("true", Boolean.TRUE);
      case 'f':
        return word("false", Boolean.FALSE);
      case 'n':
        return word("null", null);
      default:
        return number();
    }
  }

  private Map<String, Object> object() {
    Map<String, Object> out = new LinkedHashMap<>();
    ++at;
    space();
    if (peek() == '}') {
      ++at;
      return out;
    }
    while (true) {
      space();
      if (peek() != '"') throw error("expected a key");
      String key = string();
      space();
      if (peek() != ':') throw error("expected ':'");
      ++at;
      out.put(key, value());
      space();
      char c = peek();
      ++at;
      if (c == '}') return out;
      if (c != ',') throw error("expected ',' or '}'");
    }
  }

  private List<Object> array() {
    List<Object> out = new ArrayList<>();
    ++at;
    space();
    if (peek() == ']') {
      ++at;
      return out;
    }
    while (true) {
      out.add(value());
      space();
      char c = peek();
      ++at;
      if (c == ']') return out;
      if (c != ',') throw error("expected ',' or ']'");
    }
  }

  private String string() {
    ++at;  // the opening quote
    StringBuilder out = new StringBuilder();
    while (true) {
      if (at >= text.length()) throw error("unterminated string");
      char c = text.charAt(at++);
      if (c == '"') return out.toString();
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char e = text.charAt(at++);
      switch (e) {
        case 'n' -> out.append('\n');
        case 't' -> out.append('\t');
        case 'r' -> out.append('\r');
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'u' -> {
          out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
          at += 4;
        }
        default -> out.append(e);  // \" \\ \/
      }
    }
  }

  private Double number() {
    int start = at;
    while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) ++at;
    if (start == at) throw error("unexpected character '" + text.charAt(at) + "'");
    return Double.parseDouble(text.substring(start, at));
  }

  private Object word(String word, Object value) {
    if (!text.startsWith(word, at)) throw error("expected " + word);
    at += word.length();
    return value;
  }

  private char peek() {
    return at < text.length() ? text.charAt(at) : '\0';
  }

  private void space() {
    while (at < text.length() && Character.isWhitespace(text.charAt(at))) ++at;
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("JSON at offset " + at + ": " + what);
  }
}
