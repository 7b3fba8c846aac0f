package io.ferry.transport.ledbat.cc;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The registry of congestion controllers by name, which the {@code CONGESTION_CONTROL} option (and
 * {@code ferry --opt congestion-control=NAME}) selects from.
 *
 * <p>Built in, delay-based:
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
 *   <li>{@value #VEGAS}: {@link Vegas} (Brakmo and Peterson 1995), a few packets queued.</li>
 * </ul>
 * Built in, loss-based or model-based, competing as TCP does:
 * <ul>
 *   <li>{@value #NEWRENO}: {@link NewReno} (RFC 5681, RFC 3465, RFC 6582);</li>
 *   <li>{@value #CUBIC}: {@link Cubic} (RFC 9438);</li>
 *   <li>{@value #HIGHSPEED}: {@link HighSpeed} (RFC 3649);</li>
 *   <li>{@value #WESTWOOD_PLUS}: {@link WestwoodPlus} (Mascolo et al., Grieco and Mascolo);</li>
 *   <li>{@value #BBR}: {@link Bbr}, BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00).</li>
 * </ul>
 * And {@value #FIXED_WINDOW}: a constant window of {@link FixedWindow#DEFAULT_PACKETS} packets and no
 * pacing, for tests and for links the caller fully controls.
 *
 * <p>Further controllers come from {@link #register} or from {@link CongestionControlProvider}s on the
 * class path, which {@link java.util.ServiceLoader} finds the first time the registry is asked anything.
 * A name is taken once: a provider or registration that repeats a name is an error that names both
 * holders. The registry is thread-safe.
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
    /** Name of {@link NewReno}. */
    public static final String NEWRENO = "newreno";
    /** Name of {@link Cubic}. */
    public static final String CUBIC = "cubic";
    /** Name of {@link HighSpeed}. */
    public static final String HIGHSPEED = "highspeed";
    /** Name of {@link Vegas}. */
    public static final String VEGAS = "vegas";
    /** Name of {@link WestwoodPlus}. */
    public static final String WESTWOOD_PLUS = "westwood+";
    /** Name of {@link Bbr}. */
    public static final String BBR = "bbr";

    private static final String BUILT_IN = "built in";

    private record Entry(CongestionControlFactory factory, String origin) {
    }

    private static final ConcurrentMap<String, Entry> FACTORIES = new ConcurrentHashMap<>();
    private static volatile boolean providersLoaded;

    static {
        builtIn(LEDBAT, p -> LedbatPlusPlus.competitionAware(p, LEDBAT_RTT_FRACTION));
        builtIn(LEDBAT_PLUS_PLUS, LedbatPlusPlus::draft);
        builtIn(LEDBAT_CLASSIC, p -> new Ledbat(p, true));
        builtIn(LEDBAT_STRICT, p -> new Ledbat(p, false));
        builtIn(FIXED_WINDOW, p -> new FixedWindow(p, FixedWindow.DEFAULT_PACKETS));
        builtIn(NEWRENO, NewReno::new);
        builtIn(CUBIC, Cubic::new);
        builtIn(HIGHSPEED, HighSpeed::new);
        builtIn(VEGAS, Vegas::new);
        builtIn(WESTWOOD_PLUS, WestwoodPlus::new);
        builtIn(BBR, Bbr::new);
    }

    private CongestionControls() {
    }

    private static void builtIn(String name, CongestionControlFactory factory) {
        FACTORIES.put(name, new Entry(factory, BUILT_IN));
    }

    /**
     * Registers a controller under a new name.
     *
     * @param name    the name: non-empty printable ASCII without spaces
     * @param factory creates one controller per connection
     * @throws IllegalStateException if the name is taken (the message says by what)
     */
    public static void register(String name, CongestionControlFactory factory) {
        checkName(name);
        if (factory == null) {
            throw new IllegalArgumentException("factory must not be null");
        }
        loadProviders();
        String origin = "CongestionControls.register(" + factory.getClass().getName() + ")";
        Entry taken = FACTORIES.putIfAbsent(name, new Entry(factory, origin));
        if (taken != null) {
            throw duplicate(name, taken.origin(), origin);
        }
    }

    /** Returns whether a controller is registered under {@code name}. */
    public static boolean isRegistered(String name) {
        loadProviders();
        return name != null && FACTORIES.containsKey(name);
    }

    /** Returns the registered names, sorted. */
    public static Set<String> names() {
        loadProviders();
        return new TreeSet<>(FACTORIES.keySet());
    }

    /**
     * Creates the controller registered under {@code name}.
     *
     * @throws IllegalArgumentException if no controller has that name (the message lists those known)
     */
    public static CongestionControl create(String name, CongestionParameters parameters) {
        loadProviders();
        Entry entry = name == null ? null : FACTORIES.get(name);
        if (entry == null) {
            throw new IllegalArgumentException("unknown congestion control '" + name + "'; known: " + names());
        }
        return entry.factory().create(parameters);
    }

    private static void loadProviders() {
        if (providersLoaded) {
            return;
        }
        synchronized (CongestionControls.class) {
            if (providersLoaded) {
                return;
            }
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            if (loader == null) {
                loader = CongestionControls.class.getClassLoader();
            }
            addProviders(ServiceLoader.load(CongestionControlProvider.class, loader));
            providersLoaded = true;
        }
    }

    /**
     * Adds the given providers, all or none: a provider whose name is taken (by a controller already
     * known or another provider in the list) or is not a valid name fails the whole list.
     *
     * @throws IllegalStateException naming the name and both holders of a duplicate
     * @throws IllegalArgumentException naming the provider with an invalid name
     */
    static void addProviders(Iterable<CongestionControlProvider> providers) {
        Map<String, Entry> found = new LinkedHashMap<>();
        for (CongestionControlProvider provider : providers) {
            String name = provider.name();
            String origin = "provider " + provider.getClass().getName();
            try {
                checkName(name);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(origin + ": " + e.getMessage(), e);
            }
            Entry known = FACTORIES.get(name);
            Entry twice = found.get(name);
            if (known != null || twice != null) {
                throw duplicate(name, (known != null ? known : twice).origin(), origin);
            }
            found.put(name, new Entry(provider, origin));
        }
        synchronized (CongestionControls.class) {
            for (Map.Entry<String, Entry> e : found.entrySet()) {
                Entry taken = FACTORIES.putIfAbsent(e.getKey(), e.getValue());
                if (taken != null) {
                    throw duplicate(e.getKey(), taken.origin(), e.getValue().origin());
                }
            }
        }
    }

    private static IllegalStateException duplicate(String name, String first, String second) {
        return new IllegalStateException("congestion control '" + name + "' is defined twice: " + first + " and " + second);
    }

    private static void checkName(String name) {
        if (name == null || name.isEmpty() || !name.chars().allMatch(c -> c > ' ' && c < 127)) {
            throw new IllegalArgumentException("congestion control name must be non-empty printable ASCII without spaces, got '"
                    + name + "'");
        }
    }
}
