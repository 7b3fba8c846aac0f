package io.ferry.transport.ledbat.cc;

/**
 * A congestion controller offered from outside Ferry, found with {@link java.util.ServiceLoader}: list
 * the implementing class in {@code META-INF/services/io.ferry.transport.ledbat.cc.CongestionControlProvider}
 * of your jar (or {@code provides ... with ...} in your {@code module-info}), and the controller can be
 * selected by its {@link #name()} like a built-in one, e.g. with the {@code CONGESTION_CONTROL} option.
 *
 * <p>Providers are loaded once, the first time {@link CongestionControls} is asked anything, through
 * the context class loader of the thread that asks (or the class loader of {@link CongestionControls}
 * if there is none). An implementation needs a public no-argument constructor.
 */
public interface CongestionControlProvider extends CongestionControlFactory {
    /**
     * Returns the name the controller is selected by: non-empty printable ASCII without spaces, and
     * unique among the built-in, registered and provided controllers.
     */
    String name();

    /**
     * Creates a controller for one connection. It is driven by that connection's thread only.
     *
     * @param parameters the connection's packet size and delay target
     * @return a new controller
     */
    @Override
    CongestionControl create(CongestionParameters parameters);
}
