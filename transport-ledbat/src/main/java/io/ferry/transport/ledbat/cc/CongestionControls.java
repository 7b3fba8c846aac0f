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
 *   <li>{@value #LEDBAT} (default): {@link LedbatPlusPlus} with its target tied to the base RTT
 *       ({@link #LEDBAT_RTT_FRACTION} of it, at most the configured target), so it also yields to flows
 *       such as BBR that keep their standing queue below a fixed target;</li>
 *   <li>{@value #LEDBAT_PLUS_PLUS}: LEDBAT++ as draft-irtf-iccrg-ledbat-plus-plus specifies it, with
 *       the configured target (60 ms by default);</li>
 *   <li>{@value #LEDBAT_CLASSIC}: RFC 6817 LEDBAT with a slow start that ends for good as soon as the
 *       queuing delay exceeds half the target (Ferry's default before LEDBAT++);</li>
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
    /** Name of LEDBAT++ as the draft specifies it. */
    public static final String LEDBAT_PLUS_PLUS = "ledbat++";
    /** Name of RFC 6817 LEDBAT with a slow start. */
    public static final String LEDBAT_CLASSIC = "ledbat-classic";
    /** The default controller's target, as a fraction of the base RTT (at most the configured target). */
    public static final double LEDBAT_RTT_FRACTION = 0.25;
    /** Name of LEDBAT without slow start. */
    public static final String LEDBAT_STRICT = "ledbat-strict";
    /** Name of the constant-window controller. */
    public static final String FIXED_WINDOW = "fixed-window";

    private static final ConcurrentMap<String, CongestionControlFactory> FACTORIES = new ConcurrentHashMap<>();

    static {
        FACTORIES.put(LEDBAT, p -> LedbatPlusPlus.competitionAware(p, LEDBAT_RTT_FRACTION));
        FACTORIES.put(LEDBAT_PLUS_PLUS, LedbatPlusPlus::draft);
        FACTORIES.put(LEDBAT_CLASSIC, p -> new Ledbat(p, true));
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
