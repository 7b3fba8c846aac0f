package io.ferry.transport.striped;

/** The conformance suite over striped TCP channels of 1 member connection. */
class StripedTcp1ConformanceTest extends StripedTcpConformance {
    @Override
    protected int streams() {
        return 1;
    }
}
