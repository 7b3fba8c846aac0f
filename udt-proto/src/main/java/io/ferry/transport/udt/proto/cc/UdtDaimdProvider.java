package io.ferry.transport.udt.proto.cc;

import io.ferry.transport.ledbat.cc.CongestionControl;
import io.ferry.transport.ledbat.cc.CongestionControlProvider;
import io.ferry.transport.ledbat.cc.CongestionParameters;

/** Registers {@link UdtDaimd} as {@code udt} in the congestion-control registry, for either wire. */
public final class UdtDaimdProvider implements CongestionControlProvider {
    @Override
    public String name() {
        return UdtDaimd.NAME;
    }

    @Override
    public CongestionControl create(CongestionParameters parameters) {
        return new UdtDaimd(parameters);
    }
}
