package io.ferry.cli.report;

/**
 * JSON's two lexical forms that need care (RFC 8259): strings, escaped so that any Java string (file
 * names with quotes, backslashes, control characters, any Unicode) reads back unchanged, and numbers,
 * where a value JSON has no form for (NaN, infinities) is written as a string, as Jackson does.
 */
public final class JsonText {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private JsonText() {
    }

    /** Appends {@code s} as a JSON string, quotes included. */
    public static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    out.append("\\\"");
                    break;
                case '\\':
                    out.append("\\\\");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                case '\b':
                    out.append("\\b");
                    break;
                case '\f':
                    out.append("\\f");
                    break;
                default:
                    // Control characters must be escaped; U+2028/2029 are, too, so the line is safe to embed in
                    // JavaScript. A lone surrogate (a name that was not valid UTF-16) is escaped rather than
                    // written as a byte sequence no decoder accepts.
                    if (c < 0x20 || c == 0x7f || c == '\u2028' || c == '\u2029' || lone(s, i)) {
                        out.append("\\u").append(HEX[c >> 12 & 0xf]).append(HEX[c >> 8 & 0xf]).append(HEX[c >> 4 & 0xf]).append(HEX[c & 0xf]);
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }

    /** Appends a number, or its name as a string if JSON has no number for it. */
    public static void number(StringBuilder out, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            string(out, Double.toString(v));
        } else {
            out.append(v);
        }
    }

    private static boolean lone(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
        }
        if (Character.isLowSurrogate(c)) {
            return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
        }
        return false;
    }
}
