package io.ferry.transport.ledbat.cc;

import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The registry of congestion controllers by name.
 *
 * <p>Built in:
 * <ul>
 *   <li>{@value #LEDBAT} (default): RFC 6817 LEDBAT, with a slow start that ends for good as soon as
 *       the queuing delay exceeds half the target (LEDBAT++ has a similar rule), so an idle long fat
 *       path fills in a few round trips instead of thousands;</li>
 *   <li>{@value #LEDBAT_STRICT}: RFC 6817 LEDBAT exactly, growing at most GAIN packets per round
 *       trip from the start;</li>
 *   <li>{@value #FIXED_WINDOW}: a constant window of {@link FixedWindow#DEFAULT_PACKETS} packets and
 *       no pacing, for tests and for links the caller fully controls.</li>
 * </ul>
 * Further controllers can be added with {@link #register}. The registry is thread-safe.
 */
public final class CongestionControls {
    /** Name of the default controller. */
    public static final String LEDBAT = "ledbat";
    /** Name of LEDBAT without slow start. */
    public static final String LEDBAT_STRICT = "ledbat-strict";
    /** Name of the constant-window controller. */
    public static final String FIXED_WINDOW = "fixed-window";

    private static final ConcurrentMap<String, CongestionControlFactory> FACTORIES = new ConcurrentHashMap<>();

    static {
        FACTORIES.put(LEDBAT, p -> new Ledbat(p, true));
        FACTORIES.put(LEDBAT_STRICT, p -> new Ledbat(p, false));
        FACTORIES.put(FIXED_WINDOW, p -> new FixedWindow(p, FixedWindow.DEFAULT_PACKETS));
    }

    private CongestionControls() {
    }

    /**
     * Registers a controller under a new name.
     *
     * @param name    the name, non-empty
     * @param factory creates one controller per connection
     * @throws IllegalStateException if the name is taken
     */
    public static void register(String name, CongestionControlFactory factory) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("congestion control name must be non-empty");
        }
        if (factory == null) {
            throw new IllegalArgumentException("factory must not be null");
        }
        if (FACTORIES.putIfAbsent(name, factory) != null) {
            throw new IllegalStateException("congestion control '" + name + "' is already registered");
        }
    }

    /** Returns whether a controller is registered under {@code name}. */
    public static boolean isRegistered(String name) {
        return name != null && FACTORIES.containsKey(name);
    }

    /** Returns the registered names, sorted. */
    public static Set<String> names() {
        return new TreeSet<>(FACTORIES.keySet());
    }

    /**
     * Creates the controller registered under {@code name}.
     *
     * @throws IllegalArgumentException if no controller has that name
     */
    public static CongestionControl create(String name, CongestionParameters parameters) {
        CongestionControlFactory factory = name == null ? null : FACTORIES.get(name);
        if (factory == null) {
            throw new IllegalArgumentException("unknown congestion control '" + name + "'; known: " + names());
        }
        return factory.create(parameters);
    }
}
