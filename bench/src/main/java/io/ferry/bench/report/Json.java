package io.ferry.bench.report;

import java.util.Locale;
import java.util.Map;

/**
 * Writes maps, lists, strings, numbers, booleans and nulls as JSON (the report's only needs; no
 * dependency). Doubles are written with up to 6 significant decimals; NaN and infinities as null.
 */
public final class Json {

    private Json() {
    }

    /** The value as indented JSON text. */
    public static String write(Object value) {
        StringBuilder s = new StringBuilder();
        write(s, value, 0);
        return s.append('\n').toString();
    }

    private static void write(StringBuilder s, Object value, int indent) {
        if (value == null) {
            s.append("null");
        } else if (value instanceof String text) {
            quote(s, text);
        } else if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            s.append(Double.isFinite(d) ? trim(String.format(Locale.ROOT, "%.6f", d)) : "null");
        } else if (value instanceof Number || value instanceof Boolean) {
            s.append(value);
        } else if (value instanceof Map<?, ?> map) {
            s.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                s.append(first ? "\n" : ",\n").append("  ".repeat(indent + 1));
                quote(s, String.valueOf(e.getKey()));
                s.append(": ");
                write(s, e.getValue(), indent + 1);
                first = false;
            }
            s.append(first ? "" : "\n" + "  ".repeat(indent)).append('}');
        } else if (value instanceof Iterable<?> list) {
            s.append('[');
            boolean first = true;
            for (Object o : list) {
                s.append(first ? "" : ", ");
                write(s, o, indent + 1);
                first = false;
            }
            s.append(']');
        } else if (value instanceof double[] array) {
            s.append('[');
            for (int i = 0; i < array.length; i++) {
                s.append(i == 0 ? "" : ", ");
                write(s, array[i], indent);
            }
            s.append(']');
        } else {
            quote(s, value.toString());
        }
    }

    private static String trim(String number) {
        if (number.indexOf('.') < 0) {
            return number;
        }
        String t = number.replaceAll("0+$", "");
        return t.endsWith(".") ? t.substring(0, t.length() - 1) : t;
    }

    private static void quote(StringBuilder s, String text) {
        s.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> s.append("\\\"");
                case '\\' -> s.append("\\\\");
                case '\n' -> s.append("\\n");
                case '\r' -> s.append("\\r");
                case '\t' -> s.append("\\t");
                default -> {
                    if (c < 0x20) {
                        s.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        s.append(c);
                    }
                }
            }
        }
        s.append('"');
    }
}
