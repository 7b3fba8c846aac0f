package io.ferry.transport.striped;

/** The conformance suite over striped TCP channels of 16 member connections. */
class StripedTcp16ConformanceTest extends StripedTcpConformance {
    @Override
    protected int streams() {
        return 16;
    }
}
