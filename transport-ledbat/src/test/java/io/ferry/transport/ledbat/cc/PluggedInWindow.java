package io.ferry.transport.ledbat.cc;

/**
 * A provider as a user's jar would ship it, listed in this module's test
 * {@code META-INF/services/io.ferry.transport.ledbat.cc.CongestionControlProvider}: a constant window of
 * seven packets under the name {@value #NAME}.
 */
public final class PluggedInWindow implements CongestionControlProvider {
    public static final String NAME = "test-plugged-in+7";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CongestionControl create(CongestionParameters parameters) {
        return new FixedWindow(parameters, 7);
    }
}
