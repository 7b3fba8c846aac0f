package io.ferry.transport.ledbat.cc;

/** Creates a fresh {@link CongestionControl} for one connection. */
@FunctionalInterface
public interface CongestionControlFactory {
    /**
     * Creates a controller.
     *
     * @param parameters the connection's packet size and delay target
     * @return a new controller, used by one connection only
     */
    CongestionControl create(CongestionParameters parameters);
}
