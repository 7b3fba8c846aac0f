package io.ferry.cli.options;

import io.ferry.cli.progress.Sizes;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.Transport;
import io.netty.channel.ChannelOption;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Turns {@code --opt name=value} into typed {@link ChannelOptions} for one transport. A name is
 * looked up among the options the transport says it honours ({@link Transport#supportedOptions()}):
 * first Ferry's shared options by {@link FerryChannelOption#byName}, then the transport's own and
 * Netty's, by the part of {@link ChannelOption#name()} after its last dot, ignoring case and treating
 * '-' as '_' ({@code target-delay} finds {@code utp.TARGET_DELAY}).
 *
 * <p>The value type comes from {@link FerryChannelOption#valueType()} or, for other options, from the
 * type argument of the {@code public static final} field that declares the option (how Netty and the
 * transports define them). Integers and longs accept sizes ({@code 4M}), durations accept {@code 250ms},
 * {@code 2s}, {@code 1m} or ISO-8601; booleans {@code true}/{@code false}. Options of other types (e.g.
 * Netty's {@code WRITE_BUFFER_WATER_MARK}) cannot be set from a command line and say so.
 */
public final class OptionValues {

    private OptionValues() {
    }

    /**
     * Parses every {@code name=value} for {@code transport}.
     *
     * @throws IllegalArgumentException naming the bad text and what the transport offers
     */
    public static ChannelOptions parse(Transport transport, List<String> specs) {
        ChannelOptions.Builder builder = ChannelOptions.builder();
        for (String spec : specs) {
            int eq = spec.indexOf('=');
            if (eq <= 0 || eq == spec.length() - 1) {
                throw new IllegalArgumentException("--opt '" + spec + "': expected name=value, e.g. send-buffer-size=4M");
            }
            String name = spec.substring(0, eq).trim();
            String text = spec.substring(eq + 1).trim();
            ChannelOption<?> option = find(transport, name).orElseThrow(() -> new IllegalArgumentException(
                    "--opt '" + spec + "': transport '" + transport.name() + "' has no option '" + name + "'; it has: " + names(transport)));
            set(builder, option, text, spec);
        }
        return builder.build();
    }

    /** The option names a user can give for {@code transport}, sorted. */
    public static String names(Transport transport) {
        TreeSet<String> names = new TreeSet<>();
        for (ChannelOption<?> option : transport.supportedOptions()) {
            if (valueType(option).filter(OptionValues::parseable).isPresent()) {
                names.add(shortName(option).toLowerCase(Locale.ROOT).replace('_', '-'));
            }
        }
        return String.join(", ", names);
    }

    static Optional<ChannelOption<?>> find(Transport transport, String name) {
        Optional<FerryChannelOption<?>> shared = FerryChannelOption.byName(name);
        if (shared.isPresent() && transport.supportedOptions().contains(shared.get())) {
            return Optional.of(shared.get());
        }
        String wanted = normalise(name);
        List<ChannelOption<?>> matches = new ArrayList<>();
        for (ChannelOption<?> option : transport.supportedOptions()) {
            if (normalise(shortName(option)).equals(wanted) || normalise(option.name()).equals(wanted)) {
                matches.add(option);
            }
        }
        // A shared Ferry option wins over a lower-level alias of the same name.
        return matches.stream().filter(o -> o instanceof FerryChannelOption).findFirst().or(() -> matches.stream().findFirst());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void set(ChannelOptions.Builder builder, ChannelOption<?> option, String text, String spec) {
        Class<?> type = valueType(option).orElse(null);
        if (type == null || !parseable(type)) {
            throw new IllegalArgumentException("--opt '" + spec + "': option " + option.name() + " cannot be set from the command line");
        }
        Object value;
        try {
            value = convert(type, text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--opt '" + spec + "': " + e.getMessage());
        }
        try {
            builder.set((ChannelOption) option, value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--opt '" + spec + "': " + e.getMessage());
        }
    }

    private static boolean parseable(Class<?> type) {
        return type == Integer.class || type == Long.class || type == Boolean.class || type == String.class || type == Duration.class;
    }

    static Object convert(Class<?> type, String text) {
        if (type == String.class) {
            return text;
        }
        if (type == Boolean.class) {
            if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
                return Boolean.parseBoolean(text);
            }
            throw new IllegalArgumentException("'" + text + "' is not true or false");
        }
        if (type == Duration.class) {
            return duration(text);
        }
        long n = Sizes.parse(text);
        if (type == Integer.class) {
            if (n > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("'" + text + "' is too large (at most " + Integer.MAX_VALUE + ")");
            }
            return (int) n;
        }
        return n;
    }

    static Duration duration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("p")) {
                return Duration.parse(text.trim().toUpperCase(Locale.ROOT));
            }
            if (t.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2).trim()));
            }
            if (t.endsWith("us")) {
                return Duration.ofNanos(Long.parseLong(t.substring(0, t.length() - 2).trim()) * 1000);
            }
            if (t.endsWith("s")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(t.substring(0, t.length() - 1).trim()) * 1000));
            }
            if (t.endsWith("m")) {
                return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1).trim()) * 60);
            }
        } catch (NumberFormatException | DateTimeParseException e) {
            // fall through to the message below
        }
        throw new IllegalArgumentException("'" + text + "' is not a duration; use e.g. 250ms, 2s, 1m or PT0.1S");
    }

    private static String shortName(ChannelOption<?> option) {
        if (option instanceof FerryChannelOption) {
            return ((FerryChannelOption<?>) option).simpleName();
        }
        String name = option.name();
        return name.substring(name.lastIndexOf('.') + 1);
    }

    private static String normalise(String name) {
        return name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
    }

    /** The Java type of an option's value, if it can be found. */
    static Optional<Class<?>> valueType(ChannelOption<?> option) {
        if (option instanceof FerryChannelOption) {
            return Optional.of(((FerryChannelOption<?>) option).valueType());
        }
        // A subclass that fixes the type, e.g. IntegerUnixChannelOption extends GenericUnixChannelOption<Integer>.
        for (Class<?> c = option.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            Optional<Class<?>> fixed = typeArgument(c.getGenericSuperclass());
            if (fixed.isPresent()) {
                return fixed;
            }
        }
        // The declaring constant, e.g. public static final UtpChannelOption<Duration> TARGET_DELAY.
        for (Class<?> c = option.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                int m = field.getModifiers();
                if (Modifier.isStatic(m) && Modifier.isPublic(m) && ChannelOption.class.isAssignableFrom(field.getType())) {
                    try {
                        if (field.get(null) == option) {
                            return typeArgument(field.getGenericType());
                        }
                    } catch (IllegalAccessException | RuntimeException ignored) {
                        // not readable: keep looking
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<Class<?>> typeArgument(Type type) {
        if (type instanceof ParameterizedType) {
            Type raw = ((ParameterizedType) type).getRawType();
            Type[] args = ((ParameterizedType) type).getActualTypeArguments();
            if (raw instanceof Class && ChannelOption.class.isAssignableFrom((Class<?>) raw) && args.length == 1 && args[0] instanceof Class) {
                return Optional.of((Class<?>) args[0]);
            }
        }
        return Optional.empty();
    }
}
