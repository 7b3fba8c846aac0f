package io.ferry.transport.striped;

/** The conformance suite over striped TCP channels of 4 member connections. */
class StripedTcp4ConformanceTest extends StripedTcpConformance {
    @Override
    protected int streams() {
        return 4;
    }
}
