package io.ferry.transport.udt.proto.cc;

import io.ferry.transport.ledbat.cc.CongestionControl;
import io.ferry.transport.ledbat.cc.CongestionControlProvider;
import io.ferry.transport.ledbat.cc.CongestionParameters;

/** Registers {@link FerryRateControl} as {@code ferry} in the congestion-control registry, for either wire. */
public final class FerryRateControlProvider implements CongestionControlProvider {
    @Override
    public String name() {
        return FerryRateControl.NAME;
    }

    @Override
    public CongestionControl create(CongestionParameters parameters) {
        return new FerryRateControl(parameters);
    }
}
